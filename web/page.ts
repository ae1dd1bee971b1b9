/**
 * The game page as files: what `npm run build:web` (web/build.ts) writes to dist/web/ and
 * what the Node server serves from there. Node code, kept apart from the browser code and
 * from the build, so the server reads the page without esbuild installed.
 */
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

/** One file of the page, as served. */
export interface PageFile {
  /** URL path: "/" or "/app.js". */
  path: string;
  /** Content-Type. */
  type: string;
  body: Uint8Array;
  /** The same bytes gzipped, served to clients that accept gzip; null: never. */
  gzip: Uint8Array | null;
}

/** The page's files: URL path, file name in the built folder, Content-Type. */
export const PAGE_FILES: readonly { path: string; name: string; type: string }[] = Object.freeze([
  Object.freeze({ path: "/", name: "index.html", type: "text/html; charset=utf-8" }),
  Object.freeze({ path: "/app.js", name: "app.js", type: "text/javascript; charset=utf-8" }),
  // The game's hot loops as WebAssembly (npm run build:wasm): the server runs them on Node,
  // and the page its own ship's prediction.
  Object.freeze({ path: "/kernels.wasm", name: "kernels.wasm", type: "application/wasm" }),
]);

/** A page file with its gzipped form (level 9). */
export function pageFile(path: string, body: Uint8Array): PageFile {
  const entry = PAGE_FILES.find((f) => f.path === path);
  if (entry === undefined) throw new Error(`${path} is not a file of the page`);
  return { path, type: entry.type, body, gzip: new Uint8Array(gzipSync(body, { level: 9 })) };
}

/** The page is not where the server reads it from. */
export class PageError extends Error {
  override name = "PageError";
}

/** The page as built into `dir` (dist/web/). Throws PageError, naming the missing file and the command that builds it. */
export function readPage(dir: URL): PageFile[] {
  return PAGE_FILES.map((f) => {
    const url = new URL(f.name, dir);
    let body: Uint8Array;
    try {
      body = new Uint8Array(readFileSync(url));
    } catch (err) {
      throw new PageError(`the game page is not built (${(err as Error).message}): run \`npm run build:web\`, or start with --http-port 0`);
    }
    return pageFile(f.path, body);
  });
}
