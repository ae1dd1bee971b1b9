/**
 * The browser game as served: `index.html`, one esbuild bundle, `app.js`, and the game's
 * loops as WebAssembly, `kernels.wasm`, which `npm run build:wasm` (tools/wasm/build.ts)
 * compiles into dist/web/ and the page build takes as it is there (or as given).
 * `npm run build:web` writes them to dist/web/, where the Node server reads them
 * (web/page.ts), and prints their sizes; npm install does it too when esbuild is there.
 * `npm run build:dist` (tools/dist.ts) writes them along with the server's bundle.
 */
import { build } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { PAGE_FILES, pageFile, type PageFile } from "./page";

const WEB = fileURLToPath(new URL(".", import.meta.url));
/** Where the built page goes: dist/web/. */
export const PAGE_DIR = new URL("../dist/web/", import.meta.url);

/** All assets together, gzipped, must stay within this (the board keeps them in flash). */
export const PAGE_GZIP_BUDGET = 60 * 1024;

/**
 * Bundle the page. Deterministic: the same sources give the same bytes. `wasm`: the bytes of
 * kernels.wasm (absent: dist/web/kernels.wasm as committed).
 */
export async function buildWeb(wasm: Uint8Array | null = null): Promise<PageFile[]> {
  const result = await build({
    entryPoints: [WEB + "boot.ts"],
    bundle: true,
    minify: true,
    format: "iife",
    target: ["es2022"],
    platform: "browser",
    legalComments: "none",
    charset: "ascii",
    write: false,
    logLevel: "silent",
  });
  const js = result.outputFiles[0].contents;
  const html = new Uint8Array(readFileSync(WEB + "index.html"));
  const kernels = wasm ?? new Uint8Array(readFileSync(new URL("kernels.wasm", PAGE_DIR)));
  return [pageFile("/", html), pageFile("/app.js", js), pageFile("/kernels.wasm", kernels)];
}

/** Total gzipped bytes of `files`. */
export function gzipTotal(files: readonly PageFile[]): number {
  let n = 0;
  for (const f of files) n += f.gzip !== null ? f.gzip.length : f.body.length;
  return n;
}

/** Write `files` into `dir` under their names (web/page.ts). */
export function writePage(files: readonly PageFile[], dir: URL = PAGE_DIR): void {
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(new URL(PAGE_FILES.find((p) => p.path === f.path)!.name, dir), f.body);
}

async function main(): Promise<void> {
  const files = await buildWeb();
  writePage(files);
  for (const f of files) {
    const name = "dist/web/" + PAGE_FILES.find((p) => p.path === f.path)!.name;
    console.log(`${name.padEnd(20)} ${String(f.body.length).padStart(7)} B  gzip ${String(f.gzip?.length ?? 0).padStart(6)} B`);
  }
  const total = gzipTotal(files);
  console.log(`total gzipped ${total} B of a ${PAGE_GZIP_BUDGET} B budget`);
  if (total > PAGE_GZIP_BUDGET) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
