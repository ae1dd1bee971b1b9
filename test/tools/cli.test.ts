/** The command lines of the fuzzer, the soak and the relay: --help, bad flags, and a short fuzz with its progress and summary. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

function run(tool: string, args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(TSX, [tool, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("tool command lines: fuzz, soak, relay", function () {
  this.timeout(120_000);

  for (const [tool, flags] of [
    ["tools/fuzz.ts", ["--cases", "--seed", "--engine", "--json"]],
    ["tools/soak.ts", ["--minutes", "--servers", "--bots", "--loss", "--duplicate", "--reorder", "--delay", "--jitter", "--seed", "--json"]],
    ["tools/relay.ts", ["--to", "--port", "--loss", "--duplicate", "--reorder", "--delay", "--jitter", "--seed"]],
  ] as const) {
    it(`${tool} --help lists its flags; a bad flag is an error with a hint`, function () {
      const help = run(tool, ["--help"]);
      assert.equal(help.status, 0);
      for (const f of flags) assert.ok(help.stdout.includes(f), `${f} in --help`);
      const bad = run(tool, ["--nonsense"]);
      assert.equal(bad.status, 2);
      assert.match(bad.stderr, /Try 'npm run \w+ -- --help'/);
    });
  }

  it("npm run fuzz prints progress and one summary line", function () {
    const r = run("tools/fuzz.ts", ["--cases", "30000", "--seed", "3", "--engine", "node"]);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^fuzz: 30000 cases, seed 3, on node$/m);
    assert.match(r.stdout, /^ {2}\d+ s: node 30000\/30000$/m);
    assert.match(r.stdout, /^to the server \(\d+ cases\): /m);
    assert.match(r.stdout, /^fuzz: PASS: node 30000 cases at \d+\/s; 0 failures$/m);
  });
});
