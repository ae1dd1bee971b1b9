/**
 * `npm run build:dist`: everything in dist/, which is committed so that
 * `npm ci --omit=dev && npm start` runs without tsx or esbuild:
 *
 * - dist/lwar-xs.js: the Node server (hosts/node/main.ts and all it imports) as one ES
 *   module, `ws` left to node_modules; `npm start` and the `lwar-xs` bin run it;
 * - dist/web/: the game page (web/build.ts), which the server reads at start-up, with
 *   dist/web/kernels.wasm: the hot loops' C as WebAssembly (tools/wasm/build.ts), which the
 *   server and the page run. Built with clang where it is installed; elsewhere the
 *   committed file is taken as it is (test/native/wasm.test.ts says so).
 *
 * The build is deterministic (same sources, same esbuild: same bytes), and
 * test/dist.test.ts rebuilds in memory and fails when dist/ differs. `--check` does the
 * same here: it writes nothing and exits 1 when dist/ is stale.
 */
import { build } from "esbuild";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { PAGE_FILES } from "../web/page";
import { buildWeb } from "../web/build";
import { buildWasm, findCompiler } from "./wasm/build";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
export const DIST = join(ROOT, "dist");
/** The server's bundle, relative to the root: package.json's `bin` and `start`. */
export const SERVER_BUNDLE = "dist/lwar-xs.js";
/** The command that rebuilds dist/, for messages. */
export const BUILD_COMMAND = "npm run build:dist";

/** One output file: its path from the root and its bytes. */
export interface DistFile {
  path: string;
  bytes: Uint8Array;
}

/** Bundle the Node server. */
export async function buildServer(): Promise<Uint8Array> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ["hosts/node/main.ts"],
    bundle: true,
    platform: "node",
    format: "esm",
    target: ["node20"],
    // ws (the one runtime dependency) stays a package; node: built-ins stay imports.
    packages: "external",
    banner: { js: `#!/usr/bin/env node\n// Built by \`${BUILD_COMMAND}\` from hosts/node/main.ts and what it imports; do not edit.` },
    legalComments: "none",
    charset: "utf8",
    write: false,
    logLevel: "silent",
  });
  return result.outputFiles[0].contents;
}

/** Every file of dist/, built in memory. */
export async function buildDist(): Promise<DistFile[]> {
  const [server, page] = await Promise.all([buildServer(), buildWeb(findCompiler() !== null ? buildWasm() : null)]);
  const files: DistFile[] = [{ path: SERVER_BUNDLE, bytes: server }];
  for (const f of page) files.push({ path: "dist/web/" + PAGE_FILES.find((p) => p.path === f.path)!.name, bytes: f.body });
  return files;
}

/** Files under dist/ on disk, as paths from the root. */
function onDisk(dir = DIST): string[] {
  if (!existsSync(dir)) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...onDisk(p));
    else out.push(relative(ROOT, p).split("\\").join("/"));
  }
  return out.sort();
}

/** How dist/ on disk differs from `built`: one line per file missing, different or extra. Empty when up to date. */
export function staleFiles(built: readonly DistFile[]): string[] {
  const problems: string[] = [];
  for (const f of built) {
    const path = join(ROOT, f.path);
    if (!existsSync(path)) problems.push(`${f.path}: missing`);
    else if (!Buffer.from(f.bytes).equals(readFileSync(path))) problems.push(`${f.path}: differs from a build of the sources`);
  }
  for (const path of onDisk()) if (!built.some((f) => f.path === path)) problems.push(`${path}: not built from anything`);
  return problems;
}

/** Write `built` into dist/, removing files that are not built. */
export function writeDist(built: readonly DistFile[]): void {
  for (const path of onDisk()) if (!built.some((f) => f.path === path)) rmSync(join(ROOT, path));
  for (const f of built) {
    const path = join(ROOT, f.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.bytes);
  }
  chmodSync(join(ROOT, SERVER_BUNDLE), 0o755);
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { check: { type: "boolean" }, help: { type: "boolean", short: "h" } }, strict: true });
  if (values.help) {
    process.stdout.write(`Usage: ${BUILD_COMMAND} [-- --check]\nBuilds the Node server's bundle (${SERVER_BUNDLE}), the game page and the loops' WebAssembly (dist/web/).\n  --check  write nothing; exit 1 when dist/ is not what the sources build\n`);
    return;
  }
  const built = await buildDist();
  if (values.check) {
    const stale = staleFiles(built);
    for (const line of stale) console.log(line);
    console.log(stale.length === 0 ? "dist/ is up to date" : `dist/ is stale: run \`${BUILD_COMMAND}\` and commit dist/`);
    if (stale.length > 0) process.exitCode = 1;
    return;
  }
  writeDist(built);
  for (const f of built) console.log(`${f.path.padEnd(20)} ${String(f.bytes.length).padStart(7)} B`);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
