/**
 * `npm run build:page`: the board's copy of the game page. Builds web/ (web/build.ts) and
 * writes each file gzipped under the resource name hosts/moddable/pages.ts gives it, into
 * build/web/ (gitignored), which manifest.json includes as resources. Run it before
 * mcconfig; `npm run test:sim` does. Files in the folder that are not pages are removed,
 * so a stale resource never reaches flash.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { buildWeb, gzipTotal, PAGE_GZIP_BUDGET } from "../web/build";
import { PAGE_FOLDER, PAGES } from "../hosts/moddable/pages";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));
export const DEFAULT_FOLDER = join(ROOT, PAGE_FOLDER);

export interface PageResource {
  /** Resource name, as the board opens it. */
  name: string;
  path: string;
  /** Bytes of the page file, and of the resource (gzipped). */
  bytes: number;
  gzipBytes: number;
}

/** Build the page and write its resources into `folder`. Throws when a page file and the table disagree. */
export async function writePageResources(folder: string = DEFAULT_FOLDER): Promise<{ resources: PageResource[]; total: number }> {
  const files = await buildWeb();
  const resources: PageResource[] = [];
  for (const f of files) {
    const page = PAGES.find((p) => p.path === f.path);
    if (page === undefined) throw new Error(`web/ built ${f.path}, which hosts/moddable/pages.ts does not serve`);
    if (f.gzip === null) throw new Error(`${f.path} has no gzipped form`);
    resources.push({ name: page.resource, path: f.path, bytes: f.body.length, gzipBytes: f.gzip.length });
  }
  for (const p of PAGES) if (!files.some((f) => f.path === p.path)) throw new Error(`hosts/moddable/pages.ts serves ${p.path}, which web/ does not build`);
  mkdirSync(folder, { recursive: true });
  const names = new Set(resources.map((r) => r.name));
  for (const old of readdirSync(folder)) if (!names.has(old)) rmSync(join(folder, old), { recursive: true, force: true });
  for (const f of files) {
    const name = PAGES.find((p) => p.path === f.path)!.resource;
    writeFileSync(join(folder, name), f.gzip!);
  }
  return { resources, total: gzipTotal(files) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { out: { type: "string" }, help: { type: "boolean", short: "h" } }, strict: true });
  if (values.help) {
    process.stdout.write(`Usage: npm run build:page [-- --out DIR]\nWrites the game page's gzipped resources for the board (default ${PAGE_FOLDER}/).\n`);
    return;
  }
  const folder = values.out !== undefined ? resolve(values.out) : DEFAULT_FOLDER;
  const { resources, total } = await writePageResources(folder);
  for (const r of resources) {
    console.log(`${join(folder, r.name)}  ${String(r.gzipBytes).padStart(6)} B (${r.bytes} B before gzip) for ${r.path}`);
  }
  console.log(`total ${total} B in flash, of a ${PAGE_GZIP_BUDGET} B budget`);
  if (total > PAGE_GZIP_BUDGET) process.exitCode = 1;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
