/**
 * `npm run bench`: the server's cost per tick on XS and on Node, its traffic per client,
 * and how the cost grows with players and entities. Prints tables and writes
 * bench/results.json. Asserts nothing about speed. docs/performance.md explains the method
 * and how to read the numbers.
 */
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { bundle } from "../tools/xs/bundle";
import { LWXS, runXs, xsArguments, type XsOptions } from "../tools/xs/run";
import { DEFAULT_CASE, recordTrace, traceWords, type CaseOptions, type TimeResult, type Traffic } from "./driver";

const HELP = `lwar-xs benchmarks: the server's cost per 10 ms tick on XS and Node, and its traffic.

Usage: npm run bench -- [options]

Options:
  --quick          one run per engine, shorter windows, fewer instruction counts (about a minute)
  --runs N         runs per case and engine; the median is reported (default 5)
  --no-xs          skip the XS timings
  --no-node        skip the Node timings
  --no-callgrind   skip the instruction counts (they need valgrind)
  --out FILE       where to write the results (default bench/results.json)
  --help           show this help

Each case is a recorded busy match replayed into a lone server; see docs/performance.md.
`;

/**
 * lwxs heaps for the bench: the trace lives in the heap, and speed, not size, is measured.
 * The stack is larger than the device's because the timing harness adds frames under the
 * server's calls (`npm run budget` measures the stack the server itself needs).
 */
const XS_HEAPS: XsOptions = { slots: 400000, chunks: 16 * 1024 * 1024, stack: 1024 };
const PLAYERS = [1, 2, 4, 8];
const STATIC = [0, 64, 192];
/** Capacities of the game cases; the game decides how many entities live. */
const GAME_CAPACITY = [64, 192];

export interface BenchCase {
  id: string;
  label: string;
  options: CaseOptions;
  /** One of the five 8-player cases with instruction counts. */
  headline: boolean;
}

export interface EngineResult {
  /** Median over the runs of each statistic, µs per 10 ms step. */
  meanUs: number;
  medianUs: number;
  p99Us: number;
  maxUs: number;
  /** Each run's mean. */
  runs: number[];
  /** Steps left out as interruptions, over all runs. */
  outliers: number;
}

export interface CaseResult {
  id: string;
  label: string;
  players: number;
  staticEntities: number;
  game: boolean;
  capacity: number;
  traffic: Traffic;
  traceBytes: number;
  xs?: EngineResult;
  node?: EngineResult;
  callgrind?: { instructionsPerTick: number; ticks: number };
  /** A replay ended with other totals than the recording: the numbers are suspect. */
  mismatch?: string;
}

export function benchCases(): BenchCase[] {
  const cases: BenchCase[] = [];
  for (const players of PLAYERS) {
    for (const entities of STATIC) {
      cases.push({
        id: `p${players}-static${entities}`,
        label: `${players} players, ${entities} static entities`,
        options: { ...DEFAULT_CASE, players, entities, game: false, capacity: 192 },
        headline: players === 8,
      });
    }
    for (const capacity of GAME_CAPACITY) {
      if (capacity !== 192 && players !== 8) continue;
      cases.push({
        id: `p${players}-game${capacity}`,
        label: `${players} players, game, capacity ${capacity}`,
        options: { ...DEFAULT_CASE, players, entities: 0, game: true, capacity },
        headline: players === 8,
      });
    }
  }
  return cases;
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

function summarize(results: TimeResult[]): EngineResult {
  return {
    meanUs: median(results.map((r) => r.meanUs)),
    medianUs: median(results.map((r) => r.medianUs)),
    p99Us: median(results.map((r) => r.p99Us)),
    maxUs: median(results.map((r) => r.maxUs)),
    runs: results.map((r) => r.meanUs),
    outliers: results.reduce((n, r) => n + r.outliers, 0),
  };
}

function parseResult<T>(stdout: string, what: string): T {
  const line = stdout.split("\n").find((l) => l.startsWith("result "));
  if (!line) throw new Error(`${what}: no result line in:\n${stdout}`);
  return JSON.parse(line.slice(7)) as T;
}

function runNode(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (out += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (err += t));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`node exited ${code}: ${err}`))));
  });
}

function valgrindVersion(): string | null {
  try {
    return execFileSync("valgrind", ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

/** Instructions per tick of the server: inclusive counts of the two bracketing natives. */
async function callgrind(dir: string, id: string, scripts: string[], options: CaseOptions, ticks: number): Promise<{ instructionsPerTick: number; ticks: number }> {
  const outFile = join(dir, `callgrind.${id}.out`);
  const argv = ["--tool=callgrind", `--callgrind-out-file=${outFile}`, LWXS, ...xsArguments(scripts, { ...XS_HEAPS, args: ["count", JSON.stringify(options), String(ticks)] })];
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn("valgrind", argv, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (out += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (err += t));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`valgrind exited ${code}: ${err.slice(-2000)}`))));
  });
  const counted = parseResult<{ ticks: number }>(stdout, "callgrind");
  const annotated = execFileSync("callgrind_annotate", ["--inclusive=yes", "--threshold=100", outFile], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  const inclusive = (name: string): number => {
    const line = annotated.split("\n").find((l) => l.includes(`:${name} `));
    if (!line) throw new Error(`callgrind: ${name} not in the profile`);
    return Number(line.trim().split(/\s+/)[0].replace(/,/g, ""));
  };
  const real = inclusive("fx_Array_prototype_some");
  const dry = inclusive("fx_Array_prototype_every");
  return { instructionsPerTick: (real - dry) / counted.ticks, ticks: counted.ticks };
}

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(workers);
}

// ------------------------------------------------------------------ tables

function pad(s: string | number, width: number): string {
  const t = String(s);
  return t.length >= width ? t : " ".repeat(width - t.length) + t;
}

function us(n: number | undefined): string {
  if (n === undefined) return "-";
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function table(header: string[], rows: string[][], firstWidth: number): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)) + (i === 0 ? 0 : 2));
  widths[0] = Math.max(widths[0], firstWidth);
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c + " ".repeat(widths[0] - c.length) : pad(c, widths[i]))).join("");
  return [line(header), ...rows.map(line)];
}

export function formatResults(results: CaseResult[], runs: number): string[] {
  const lines: string[] = [];
  const byId = new Map(results.map((r) => [r.id, r]));
  const headline = results.filter((r) => r.players === 8);
  lines.push(`Server cost per 10 ms tick, 8 players (µs: median of ${runs} run${runs > 1 ? "s" : ""}; instructions: callgrind, x86-64)`);
  lines.push(
    ...table(
      ["case", "entities", "XS µs", "XS p99", "XS instr", "Node µs", "B/s/client", "pkt/s/client"],
      headline.map((r) => [
        r.game ? `game, capacity ${r.capacity}` : `static ${r.staticEntities}`,
        r.traffic.liveEntities.toFixed(0),
        us(r.xs?.meanUs),
        us(r.xs?.p99Us),
        r.callgrind ? (r.callgrind.instructionsPerTick / 1e6).toFixed(2) + "M" : "-",
        us(r.node?.meanUs),
        r.traffic.bytesPerSecond.toFixed(0),
        r.traffic.packetsPerSecond.toFixed(1),
      ]),
      24,
    ),
  );
  lines.push("  entities: mean live; XS p99: the 99th-percentile step (an Update step); B/s: UDP payload, server to one client");
  for (const engine of ["xs", "node"] as const) {
    if (!results.some((r) => r[engine])) continue;
    lines.push("");
    lines.push(`Scaling, ${engine === "xs" ? "XS" : "Node"}: mean µs per 10 ms tick`);
    const cols = [...STATIC.map((e) => `p?-static${e}`), "p?-game192"];
    lines.push(
      ...table(
        ["players", ...STATIC.map((e) => `${e} static`), "game (cap 192)"],
        PLAYERS.map((p) => [String(p), ...cols.map((c) => us(byId.get(c.replace("?", String(p)))?.[engine]?.meanUs))]),
        8,
      ),
    );
  }
  const bad = results.filter((r) => r.mismatch || r.traffic.kicks > 0 || r.traffic.connected < r.players);
  for (const r of bad) lines.push(`warning: ${r.id}: ${r.mismatch ?? `kicks ${r.traffic.kicks}, connected ${r.traffic.connected}/${r.players}`}`);
  return lines;
}

// ------------------------------------------------------------------ main

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        quick: { type: "boolean" },
        runs: { type: "string" },
        "no-xs": { type: "boolean" },
        "no-node": { type: "boolean" },
        "no-callgrind": { type: "boolean" },
        out: { type: "string" },
        help: { type: "boolean" },
      },
    }));
  } catch (e) {
    process.stderr.write(`bench: ${(e as Error).message}\nTry 'npm run bench -- --help'.\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(HELP);
    return;
  }
  const quick = values.quick === true;
  const runs = values.runs !== undefined ? Number(values.runs) : quick ? 1 : 5;
  if (!Number.isInteger(runs) || runs < 1 || runs > 50) {
    process.stderr.write("bench: --runs must be an integer in 1..50\n");
    process.exit(2);
  }
  const steps = quick ? 300 : 600;
  const callgrindTicks = quick ? 100 : 200;
  const outPath = values.out ?? fileURLToPath(new URL("./results.json", import.meta.url));
  const valgrind = values["no-callgrind"] ? null : valgrindVersion();
  const doXs = !values["no-xs"];
  const doNode = !values["no-node"];

  const dir = mkdtempSync(join(tmpdir(), "lwar-bench-"));
  const started = performance.now();
  const loadBefore = loadavg()[0];
  try {
    const entry = join(dir, "entry.js");
    await bundle(fileURLToPath(new URL("./entry.ts", import.meta.url)), entry);
    const entryText = readFileSync(entry, "utf8");
    const cases = benchCases();
    const results: CaseResult[] = [];
    const scripts = new Map<string, string[]>();
    for (const c of cases) {
      const options = { ...c.options, steps };
      const trace = recordTrace(options);
      const traceScript = join(dir, `trace.${c.id}.js`);
      const traceText = `var BENCH_TRACE = [${Array.from(traceWords(trace.bytes)).join(",")}];\n`;
      writeFileSync(traceScript, traceText);
      const nodeScript = join(dir, `node.${c.id}.js`);
      writeFileSync(nodeScript, traceText + entryText);
      scripts.set(c.id, [traceScript, entry, nodeScript]);
      results.push({
        id: c.id, label: c.label, players: options.players, staticEntities: options.entities, game: options.game,
        capacity: options.capacity, traffic: trace.traffic, traceBytes: trace.bytes.length,
      });
      c.options = options;
    }
    process.stderr.write(`bench: ${cases.length} cases recorded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);

    const check = (r: CaseResult, t: TimeResult, engine: string) => {
      if (t.packetsOut !== r.traffic.packetsOut || t.bytesOut !== r.traffic.bytesOut)
        r.mismatch = `${engine} replay sent ${t.packetsOut} packets, ${t.bytesOut} B; the recording ${r.traffic.packetsOut}, ${r.traffic.bytesOut} B`;
    };
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      const r = results[i];
      const [traceScript, , nodeScript] = scripts.get(c.id)!;
      const args = ["time", JSON.stringify(c.options)];
      if (doXs) {
        const xsRuns: TimeResult[] = [];
        for (let k = 0; k < runs; k++) {
          const x = await runXs([traceScript, entry], { ...XS_HEAPS, args, timeoutMs: 120_000 });
          if (x.code !== 0) throw new Error(`lwxs failed on ${c.id} (exit ${x.code}): ${x.stderr}`);
          const t = parseResult<TimeResult>(x.stdout, `lwxs ${c.id}`);
          check(r, t, "XS");
          xsRuns.push(t);
        }
        r.xs = summarize(xsRuns);
      }
      if (doNode) {
        const nodeRuns: TimeResult[] = [];
        for (let k = 0; k < runs; k++) {
          const t = parseResult<TimeResult>(await runNode(nodeScript, args), `node ${c.id}`);
          check(r, t, "Node");
          nodeRuns.push(t);
        }
        r.node = summarize(nodeRuns);
      }
      process.stderr.write(`bench: ${c.id}: XS ${us(r.xs?.meanUs)} µs, Node ${us(r.node?.meanUs)} µs per tick\n`);
    }

    process.stderr.write(`bench: timings done at ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    if (valgrind && doXs) {
      const counted = cases.filter((c) => c.headline);
      // Two at a time: instruction counts do not suffer from sharing the machine.
      await pool(counted, 2, async (c) => {
        const r = results[cases.indexOf(c)];
        const [traceScript] = scripts.get(c.id)!;
        r.callgrind = await callgrind(dir, c.id, [traceScript, entry], c.options, callgrindTicks);
        process.stderr.write(`bench: ${c.id}: ${(r.callgrind.instructionsPerTick / 1e6).toFixed(2)} M instructions per tick\n`);
      });
    } else if (!valgrind && !values["no-callgrind"]) {
      process.stderr.write("bench: valgrind not found: no instruction counts\n");
    }

    const seconds = (performance.now() - started) / 1000;
    const cpu = cpus();
    const report = {
      generated: new Date().toISOString(),
      command: `npm run bench${quick ? " -- --quick" : ""}`,
      machine: {
        cpu: cpu[0]?.model ?? "unknown", cores: cpu.length, node: process.version, valgrind: valgrind ?? null,
        // Other work on the machine shows in the µs figures (not in the instruction counts).
        loadAverage: { before: loadBefore, after: loadavg()[0] },
      },
      method:
        "A busy match (test/helpers/scenario.ts) is recorded on Node; a lone server is then replayed through the " +
        "recording with a send() that does nothing, once without calling the server and once for real; the " +
        "difference is the server's cost (server.tick plus server.receive, the game included). µs: median over runs " +
        "of each run's mean per 10 ms step, steps over 3 × the run's 99th percentile and over 1 ms left out as " +
        "interruptions (counted in each case's outliers). Node replays the trace once untimed first, for its JIT. " +
        "Instructions: callgrind on lwxs, inclusive counts of the two walks, per tick, over the first callgrindTicks ticks.",
      settings: { runs, warmSteps: DEFAULT_CASE.warmSteps, steps, callgrindTicks, xsHeaps: XS_HEAPS },
      seconds: Math.round(seconds),
      cases: results,
    };
    writeFileSync(outPath, JSON.stringify(report, null, 2) + "\n");
    for (const line of formatResults(results, runs)) console.log(line);
    console.log("");
    console.log(`results: ${outPath} (${seconds.toFixed(0)} s; 1-minute load average ${loadBefore.toFixed(1)} before, ${loadavg()[0].toFixed(1)} after)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e: unknown) => {
    process.stderr.write(`bench: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
