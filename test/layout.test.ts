/**
 * Imports point down (docs/architecture.md): the core imports no host, tool, harness or
 * bench; the game does not know the wire format; hosts import no tool; tools import no
 * bench; the page imports no host; and no two folders import each other, however
 * roundabout. Every static and dynamic import of every TypeScript file in those folders
 * is resolved and checked. The checks are also run on made-up imports, one per rule, to
 * show that each would fail.
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

/** One import: the importing file and the module it names, both from the root. */
interface Edge {
  file: string;
  target: string;
}

const under = (path: string, folder: string): boolean => path === folder || path.startsWith(`${folder}/`);

interface Rule {
  from: string;
  not: string[];
  why: string;
}

const RULES: Rule[] = [
  { from: "modules", not: ["hosts", "tools", "harness", "bench", "test", "cli", "web"], why: "the core runs on every host and imports none" },
  { from: "modules/game", not: ["modules/protocol"], why: "the game does not know the wire format" },
  { from: "hosts", not: ["tools", "bench", "test", "harness"], why: "a host uses the core, not the tools" },
  { from: "web", not: ["hosts", "tools", "bench", "test", "harness", "cli"], why: "the page and its build sit below the host that serves them" },
  { from: "cli", not: ["hosts", "tools", "bench", "test", "harness", "web"], why: "the command-line layer serves the server and the tools alike" },
  { from: "harness", not: ["hosts", "tools", "bench", "test", "cli", "web"], why: "the harness drives the core for the tools, the bench and the tests" },
  { from: "tools", not: ["bench", "test"], why: "tools use the core and the harness, not the bench or the tests" },
];

/** The imports of `edges` that `rule` forbids, as "file -> target". */
function violations(rule: Rule, edges: readonly Edge[]): string[] {
  const bad: string[] = [];
  for (const e of edges) if (under(e.file, rule.from) && rule.not.some((n) => under(e.target, n))) bad.push(`${e.file} -> ${e.target}`);
  return bad;
}

/** The folders whose imports must not go round in a circle; the core counts as one. */
const GROUPS = ["modules", "hosts/node", "hosts/moddable", "web", "cli", "harness", "tools", "bench", "test"];

function groupOf(path: string): string | null {
  for (const g of GROUPS) if (under(path, g)) return g;
  return null;
}

/** Every circle of imports between GROUPS, each as "a -> b -> a (file -> target, ...)". */
function cycles(edges: readonly Edge[]): string[] {
  const next = new Map<string, Map<string, Edge>>();
  for (const e of edges) {
    const a = groupOf(e.file);
    const b = groupOf(e.target);
    if (a === null || b === null || a === b) continue;
    if (!next.has(a)) next.set(a, new Map());
    if (!next.get(a)!.has(b)) next.get(a)!.set(b, e);
  }
  const found = new Set<string>();
  const walk = (path: string[]): void => {
    for (const [b] of next.get(path[path.length - 1]) ?? []) {
      const at = path.indexOf(b);
      if (at >= 0) {
        const circle = path.slice(at);
        // The same circle from its alphabetically first folder, so it is reported once.
        const start = circle.indexOf([...circle].sort()[0]);
        const turned = [...circle.slice(start), ...circle.slice(0, start)];
        const via = turned.map((g, k) => next.get(g)!.get(turned[(k + 1) % turned.length])!);
        found.add(`${[...turned, turned[0]].join(" -> ")} (${via.map((e) => `${e.file} -> ${e.target}`).join(", ")})`);
      } else walk([...path, b]);
    }
  };
  for (const g of next.keys()) walk([g]);
  return [...found].sort();
}

function allEdges(): Edge[] {
  const edges: Edge[] = [];
  for (const dir of GROUPS.filter((g) => !g.includes("/")).concat(["hosts"])) {
    for (const file of files(dir)) for (const target of imports(file)) edges.push({ file, target });
  }
  return edges;
}

describe("layout: imports point down", () => {
  const edges = allEdges();

  for (const rule of RULES) {
    it(`${rule.from}/ imports nothing from ${rule.not.join(", ")}: ${rule.why}`, () => {
      assert.deepEqual(violations(rule, edges), []);
    });
  }

  it("no folders import each other, directly or round about", () => {
    assert.deepEqual(cycles(edges), []);
  });

  it("the check sees imports: modules/game/ship-stepper.ts imports modules/input", () => {
    assert.ok(imports("modules/game/ship-stepper.ts").includes("modules/input"));
    assert.ok(edges.some((e) => e.file === "hosts/node/serve.ts" && e.target === "web/page"));
  });

  describe("each rule fails on the import it forbids", () => {
    const rule = (from: string): Rule => RULES.find((r) => r.from === from)!;
    const cases: [string, Edge][] = [
      ["tools", { file: "tools/bot.ts", target: "bench/bench" }],
      ["hosts", { file: "hosts/node/serve.ts", target: "tools/botlib" }],
      ["modules", { file: "modules/match.ts", target: "hosts/node/host" }],
      ["modules", { file: "modules/server/server.ts", target: "tools/botlib" }],
      ["modules", { file: "modules/report.ts", target: "harness/trace" }],
      ["modules/game", { file: "modules/game/game.ts", target: "modules/protocol/codec" }],
      ["web", { file: "web/build.ts", target: "hosts/node/web" }],
    ];
    for (const [from, edge] of cases) {
      it(`${edge.file} -> ${edge.target}`, () => {
        assert.deepEqual(violations(rule(from), [edge]), [`${edge.file} -> ${edge.target}`]);
      });
    }

    it("hosts/node -> web -> hosts/node is a circle", () => {
      const made = [
        { file: "hosts/node/serve.ts", target: "web/build" },
        { file: "web/build.ts", target: "hosts/node/web" },
        { file: "hosts/node/web.ts", target: "modules/host" },
      ];
      assert.deepEqual(cycles(made), ["hosts/node -> web -> hosts/node (hosts/node/serve.ts -> web/build, web/build.ts -> hosts/node/web)"]);
      assert.deepEqual(cycles(made.slice(0, 1)), []);
    });

    it("a longer circle is found too: tools -> bench -> harness -> tools", () => {
      const made = [
        { file: "tools/budget.ts", target: "bench/bench" },
        { file: "bench/bench.ts", target: "harness/trace" },
        { file: "harness/trace.ts", target: "tools/botlib" },
      ];
      assert.deepEqual(cycles(made), ["bench -> harness -> tools -> bench (bench/bench.ts -> harness/trace, harness/trace.ts -> tools/botlib, tools/budget.ts -> bench/bench)"]);
    });
  });
});
