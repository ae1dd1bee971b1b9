/**
 * The game page as the board serves it: each URL path, the resource that holds its bytes
 * gzipped, and its Content-Type. `npm run build:page` (tools/page-resources.ts) writes the
 * resources into PAGE_FOLDER from web/; manifest.json takes that folder's files as
 * resources, and mcconfig puts them in flash.
 */
export interface BoardPage {
  readonly path: string;
  readonly resource: string;
  readonly type: string;
}

/** Where the resources are generated, relative to the repository (gitignored: build/). */
export const PAGE_FOLDER = "build/web";

export const PAGES: readonly BoardPage[] = Object.freeze([
  Object.freeze({ path: "/", resource: "index.html.gz", type: "text/html; charset=utf-8" }),
  Object.freeze({ path: "/app.js", resource: "app.js.gz", type: "text/javascript; charset=utf-8" }),
  Object.freeze({ path: "/kernels.wasm", resource: "kernels.wasm.gz", type: "application/wasm" }),
]);
