/** `npm run bench` (bench/bench.ts): its command line and its load warning. Timings are never asserted. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { loadWarning } from "../../bench/bench";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

describe("bench command", function () {
  this.timeout(30_000);

  it("warns when the load average makes the timings unreliable", function () {
    assert.equal(loadWarning(0.3, 1), null);
    assert.equal(loadWarning(1, 1), null, "one busy core is the bench itself starting");
    assert.equal(loadWarning(3.9, 8), null);
    assert.match(loadWarning(4.5, 8) ?? "", /^the 1-minute load average is 4\.5 on 8 cores: .*unreliable/);
    assert.match(loadWarning(1.5, 1) ?? "", /on 1 core:/);
  });

  it("--help says the tracked results are written only with --save", function () {
    const r = spawnSync(TSX, ["bench/bench.ts", "--help"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(r.status, 0);
    assert.match(r.stdout, /--save +write the results to bench\/results\.json/);
    assert.match(r.stdout, /--runs N +runs per case and engine; the median is reported \(1\.\.50;\s+default 5, or 1 with --quick\)/);
    const bad = spawnSync(TSX, ["bench/bench.ts", "--runs", "0"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^bench: --runs must be in 1\.\.50, got 0\nTry 'npm run bench -- --help'\./);
  });
});
