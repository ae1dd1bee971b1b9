/**
 * The browser game as served: `index.html` and one esbuild bundle, `app.js`, each also
 * gzipped. The Node host builds it in memory when it starts (a fraction of a second);
 * `npm run build:web` writes the same files to web/dist/ and prints their sizes.
 */
import { build } from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import type { PageFile } from "../hosts/node/web";

const WEB = fileURLToPath(new URL(".", import.meta.url));

/** All assets together, gzipped, must stay within this (the board keeps them in flash). */
export const PAGE_GZIP_BUDGET = 60 * 1024;

function file(path: string, type: string, body: Uint8Array): PageFile {
  return { path, type, body, gzip: new Uint8Array(gzipSync(body, { level: 9 })) };
}

/** Bundle the page. Deterministic: the same sources give the same bytes. */
export async function buildWeb(): Promise<PageFile[]> {
  const result = await build({
    entryPoints: [WEB + "main.ts"],
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
  const html = readFileSync(WEB + "index.html");
  return [file("/", "text/html; charset=utf-8", html), file("/app.js", "text/javascript; charset=utf-8", js)];
}

/** Total gzipped bytes of `files`. */
export function gzipTotal(files: readonly PageFile[]): number {
  let n = 0;
  for (const f of files) n += f.gzip !== null ? f.gzip.length : f.body.length;
  return n;
}

async function main(): Promise<void> {
  const files = await buildWeb();
  const out = WEB + "dist/";
  mkdirSync(out, { recursive: true });
  for (const f of files) {
    const name = f.path === "/" ? "index.html" : f.path.slice(1);
    writeFileSync(out + name, f.body);
    if (f.gzip !== null) writeFileSync(out + name + ".gz", f.gzip);
    console.log(`${("web/dist/" + name).padEnd(22)} ${String(f.body.length).padStart(7)} B  gzip ${String(f.gzip?.length ?? 0).padStart(6)} B`);
  }
  const total = gzipTotal(files);
  console.log(`total gzipped ${total} B of a ${PAGE_GZIP_BUDGET} B budget`);
  if (total > PAGE_GZIP_BUDGET) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
