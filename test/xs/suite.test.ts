/**
 * The codec, counter, sequence, endpoint (and its configuration), delivery, bad-input, life-cycle, liveness and
 * own-chat-outcome test files,
 * run unchanged on the XS engine (tools/xs/build/lwxs): each is bundled with
 * test/xs/mini-mocha.ts standing in for mocha
 * and test/xs/assert-shim.ts for `node:assert/strict`, so XS checks exactly the
 * assertions Node checks. Heaps are large here: these suites are about behaviour, and
 * the harness (the lossy link's packet pool, recorded messages) is far bigger than an
 * ESP32's heap. Memory is the point of zero-alloc.test.ts and udp.test.ts instead.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runSpecOnXs, type SpecRun } from "./on-xs";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

const SPECS = [
  "test/protocol/codec.test.ts",
  "test/protocol/counters.test.ts",
  "test/protocol/seq.test.ts",
  "test/transport/endpoint.test.ts",
  "test/transport/config.test.ts",
  "test/transport/delivery.test.ts",
  "test/server/bad-input.test.ts",
  "test/server/lifecycle.test.ts",
  "test/server/liveness.test.ts",
  "test/client/chat.test.ts",
  "test/xs/eight-players.test.ts",
];

/** `it(` calls at the start of a line: in these files, each is exactly one case. */
function countCases(spec: string): number {
  return readFileSync(join(ROOT, spec), "utf8").match(/^\s*it\(/gm)?.length ?? 0;
}

function failures(run: SpecRun): string {
  const bad = run.cases.filter((c) => c.status !== "ok");
  return bad.map((c) => `  ${c.status} ${c.text}`).join("\n");
}

describe("the test files, unchanged, on XS (lwxs)", function () {
  this.timeout(180_000);
  let dir = "";

  before(function () {
    dir = mkdtempSync(join(tmpdir(), "lwar-xs-suite-"));
  });
  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  for (const spec of SPECS) {
    it(`${spec}: every case passes on XS`, async function () {
      const run = await runSpecOnXs(join(ROOT, spec), dir);
      assert.notEqual(run.summary, "", `the runner never finished (exit ${run.xs.code}${run.xs.timedOut ? ", timed out" : ""}):\n${run.xs.stderr}\n${run.xs.stdout.slice(-2000)}`);
      const bad = failures(run);
      assert.equal(bad, "", `${spec} on XS:\n${bad}\n${run.summary}`);
      assert.equal(run.cases.length, countCases(spec), `every case of ${spec} ran on XS`);
      assert.equal(run.xs.code, 0, run.xs.stderr);
    });
  }

  it("the runner reports passes, failures, skips and hooks in mocha's order", async function () {
    const run = await runSpecOnXs(fileURLToPath(new URL("./fixtures/runner-check.ts", import.meta.url)), dir);
    assert.equal(run.xs.code, 1, "a failure makes the exit status 1");
    assert.deepEqual(run.cases.map((c) => `${c.status} ${c.text.replace(/: .*/, "")}`), [
      "ok outer passes",
      "not ok outer fails on equal",
      "not ok outer fails on deepEqual of typed arrays",
      "not ok outer fails when the wrong error is thrown",
      "not ok outer fails on an uncaught TypeError",
      "skip outer skips itself",
      "skip outer is pending",
      "ok outer passes asynchronously",
      "not ok outer fails asynchronously",
      "ok outer passes with done",
      "ok outer inner runs after the outer tests",
      'not ok a failing before hook "before all" hook',
    ]);
    const detail = run.cases.map((c) => c.text);
    assert.match(detail[1], /AssertionError: Expected values to be strictly equal: 2 !== 3/);
    assert.match(detail[2], /differing at \[2\]/);
    assert.match(detail[3], /instance of "RangeError"/);
    assert.match(detail[4], /TypeError/);
    assert.match(detail[8], /late failure/);
    assert.match(detail[11], /setup broke/);
    assert.equal(run.summary, run.xs.stdout.trim().split("\n").pop());
    assert.match(run.summary, /^# 12 tests, 4 passed, 6 failed, 2 skipped in \d+ ms$/);
    const order = /^# order (.*)$/m.exec(run.xs.stdout)?.[1];
    assert.equal(order, [
      "before",
      ...Array(9).fill("beforeEach outer, afterEach outer"),
      "beforeEach outer, beforeEach inner, inner test, afterEach outer",
      "after",
    ].join(", "));
  });
});
