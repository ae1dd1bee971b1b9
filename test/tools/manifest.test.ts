/**
 * manifest.json against the sources: every module of ours that the device app loads
 * (main.ts and what it imports, transitively) is preloaded, so that its code and its
 * top-level objects live in flash, and the creation block cannot grow.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Manifest {
  preload: string[];
  creation: { chunk: { initial: number; incremental: number }; heap: { initial: number; incremental: number }; stack: number };
}

/** Our modules (no extension, relative to the root) that `entry` loads, itself excluded. */
function localImports(entry: string): Set<string> {
  const seen = new Set<string>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    const text = readFileSync(join(ROOT, file + ".ts"), "utf8");
    for (const m of text.matchAll(/^\s*import\s+(type\s+)?[^"']*?from\s+["'](\.[^"']+)["']/gm)) {
      if (m[1]) continue; // type-only: erased
      const target = relative(ROOT, join(ROOT, dirname(file), m[2])).split("\\").join("/");
      if (seen.has(target)) continue;
      seen.add(target);
      // Native modules (a .js/.c pair) have no .ts of their own.
      if (existsSync(join(ROOT, target + ".ts"))) queue.push(target);
    }
  }
  return seen;
}

describe("manifest.json", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, "manifest.json"), "utf8")) as Manifest;

  it("preloads every module of ours that main.ts loads", () => {
    const loaded = localImports("main");
    assert.ok(loaded.has("modules/server/server") && loaded.has("hosts/moddable/host"), "the import walk found the core");
    const missing = [...loaded].filter((m) => !manifest.preload.includes(m)).sort();
    assert.deepEqual(missing, [], "modules loaded at run time but not preloaded (their top level would take RAM)");
  });

  it("preloads nothing that does not exist", () => {
    for (const m of manifest.preload) {
      assert.ok(existsSync(join(ROOT, m + ".ts")) || existsSync(join(ROOT, m + ".js")), `${m} has no source`);
    }
  });

  it("fixes both heaps: incremental 0", () => {
    assert.equal(manifest.creation.chunk.incremental, 0);
    assert.equal(manifest.creation.heap.incremental, 0);
  });
});
