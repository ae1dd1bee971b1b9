/**
 * Imports point down (docs/architecture.md): the core imports no host, tool, harness or
 * bench; the game does not know the wire format; hosts import no tool; tools import no
 * bench. Every static and dynamic import of every TypeScript file in those folders is
 * resolved and checked.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir))) {
    const p = join(dir, e);
    if (statSync(join(ROOT, p)).isDirectory()) out.push(...files(p));
    else if (p.endsWith(".ts") && !p.endsWith(".d.ts")) out.push(p);
  }
  return out;
}

/** Relative imports of `file` (static, re-exports and dynamic), as paths from the root. */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.[^"']+)["']/g))
    out.push(relative(ROOT, resolve(ROOT, dirname(file), m[1])).split("\\").join("/"));
  return out;
}

const RULES: { from: string; not: string[]; why: string }[] = [
  { from: "modules", not: ["hosts", "tools", "harness", "bench", "test", "cli", "web"], why: "the core runs on every host and imports none" },
  { from: "modules/game", not: ["modules/protocol"], why: "the game does not know the wire format" },
  { from: "hosts", not: ["tools", "bench", "test", "harness"], why: "a host uses the core, not the tools" },
  { from: "tools", not: ["bench", "test"], why: "tools use the core and the harness, not the bench or the tests" },
];

describe("layout: imports point down", () => {
  for (const rule of RULES) {
    it(`${rule.from}/ imports nothing from ${rule.not.join(", ")}: ${rule.why}`, () => {
      const bad: string[] = [];
      for (const f of files(rule.from)) {
        for (const target of imports(f)) {
          if (rule.not.some((n) => target === n || target.startsWith(`${n}/`))) bad.push(`${f} -> ${target}`);
        }
      }
      assert.deepEqual(bad, []);
    });
  }

  it("the check sees imports: modules/game/game.ts imports modules/input", () => {
    assert.ok(imports("modules/game/game.ts").includes("modules/input"));
  });
});
