/** The direction of dependencies: tools, bench, hosts, the core, the page and the harness never import the tests. */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SKIP = new Set(["node_modules", "build", "dist"]);

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(e.name)) continue;
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...sources(p));
    else if (/\.(ts|mts|js|mjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

/** Relative import specifiers of a source file: static, dynamic and `export … from`. */
function imports(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1]);
}

describe("layout", function () {
  it("nothing outside test/ imports from test/; the shared harness is harness/", function () {
    const testDir = join(ROOT, "test");
    const offenders: string[] = [];
    let checked = 0;
    for (const top of ["tools", "bench", "hosts", "modules", "web", "harness"]) {
      for (const file of sources(join(ROOT, top))) {
        checked++;
        for (const spec of imports(readFileSync(file, "utf8"))) {
          const target = resolve(dirname(file), spec);
          if (target === testDir || target.startsWith(testDir + "/")) offenders.push(`${relative(ROOT, file)} imports ${spec}`);
        }
      }
    }
    assert.ok(checked > 50, `${checked} files checked`);
    assert.deepEqual(offenders, []);
  });
});
