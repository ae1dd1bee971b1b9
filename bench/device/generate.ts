/**
 * `npm run bench:device:trace`: what the device bench app needs before mcconfig builds it.
 *
 *   bench/device/replay.dat     the recorded match (harness/trace.ts recordTrace), with a header
 *                               (bench/device/tracefile.ts); the app reads it as a resource
 *   bench/device/modules.json   a manifest fragment that manifest.json includes: every module
 *                               of ours that the app loads, mapped and preloaded
 *
 * The module list is found by walking the imports from bench/device/main.ts, so the build
 * follows the server's modules wherever they move. Both files are gitignored.
 */
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DEFAULT_CASE, recordTrace, type CaseOptions } from "../../harness/trace";
import { TRACE_RESOURCE, caseLabel, defaultDeviceCase, encodeTraceFile, type TraceHeader } from "./tracefile";
import { installNodeKernels } from "../../hosts/node/kernels";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, "..", "..");
export const MODULES_FRAGMENT = "modules.json";

const HELP = `Writes bench/device/${TRACE_RESOURCE} and bench/device/${MODULES_FRAGMENT} for the device bench app.

Usage: npm run bench:device:trace -- [options]

Options (default: the bench's "game, capacity 192" case at 8 players):
  --players N    clients, 1..8 (default 8)
  --capacity N   entity capacity (default 192)
  --static N     N static entities with the game off, instead of the game
  --seed N       match seed (default ${DEFAULT_CASE.seed})
  --out DIR      where to write both files (default bench/device)
  --help         show this help
`;

/** Our modules that `entry` (a path without extension, relative to the root) loads, itself excluded. */
export function localImports(entry: string): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    const text = readFileSync(join(ROOT, file + ".ts"), "utf8");
    for (const m of text.matchAll(/^\s*(?:import|export)\s+(type\s+)?[^"';]*?from\s+["'](\.[^"']+)["']/gm)) {
      if (m[1]) continue; // type-only: erased by tsc
      const target = relative(ROOT, join(ROOT, dirname(file), m[2])).split("\\").join("/");
      if (seen.has(target)) continue;
      seen.add(target);
      if (existsSync(join(ROOT, target + ".ts"))) queue.push(target);
    }
  }
  return [...seen].sort();
}

/** The manifest fragment: modules outside bench/device, mapped from the manifest's folder, all preloaded. */
export function modulesFragment(): { modules: Record<string, string>; preload: string[] } {
  const own = "bench/device/";
  const outside = localImports("bench/device/main").filter((m) => !m.startsWith(own));
  const modules: Record<string, string> = {};
  for (const m of outside) modules[m] = "../../" + m;
  return { modules, preload: outside };
}

/** The recorded match `o` as the device reads it. Records on Node, with its loops as WebAssembly. */
export function deviceTrace(o: CaseOptions): Uint8Array {
  installNodeKernels();
  const t = recordTrace(o);
  const header: TraceHeader = {
    label: caseLabel(o),
    options: o,
    packetsOut: t.traffic.packetsOut,
    bytesOut: t.traffic.bytesOut,
    liveEntities: t.traffic.liveEntities,
    packetsInPerSecond: t.traffic.packetsInPerSecond,
  };
  return encodeTraceFile(header, t.bytes);
}

function intOption(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < min || n > max) {
    process.stderr.write(`bench:device:trace: --${name} must be an integer in ${min}..${max}, got '${text}'\n`);
    process.exit(2);
  }
  return n;
}

function main(): void {
  let v;
  try {
    v = parseArgs({
      options: {
        players: { type: "string" }, capacity: { type: "string" }, static: { type: "string" },
        seed: { type: "string" }, out: { type: "string" }, help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (err) {
    process.stderr.write(`bench:device:trace: ${(err as Error).message}\n${HELP}`);
    process.exit(2);
  }
  if (v.help) {
    process.stdout.write(HELP);
    return;
  }
  const o = defaultDeviceCase(DEFAULT_CASE);
  o.players = intOption("players", v.players, o.players, 1, 8);
  o.capacity = intOption("capacity", v.capacity, o.capacity, 16, 4096);
  o.seed = intOption("seed", v.seed, o.seed, 0, 0xffffffff);
  if (v.static !== undefined) {
    o.game = false;
    o.entities = intOption("static", v.static, 0, 0, o.capacity - 1);
  }
  const out = v.out ?? HERE;
  const started = performance.now();
  const file = deviceTrace(o);
  writeFileSync(join(out, TRACE_RESOURCE), file);
  const fragment = modulesFragment();
  writeFileSync(join(out, MODULES_FRAGMENT), JSON.stringify(fragment, null, "\t") + "\n");
  process.stdout.write(
    `bench:device:trace: ${caseLabel(o)}: ${join(out, TRACE_RESOURCE)} (${file.length} bytes, ` +
      `${o.warmSteps} + ${o.steps} steps), ${join(out, MODULES_FRAGMENT)} (${fragment.preload.length} modules) ` +
      `in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === resolve(process.argv[1])) main();
