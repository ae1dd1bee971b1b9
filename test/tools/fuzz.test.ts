/**
 * The fuzzer in the suite: 10,000 cases on Node and the same 10,000 on XS (tools/fuzz.ts).
 * No failure on either engine, the same end state on both, and the cases reach every kind
 * of drop and get acted on, at the server and at the client library.
 */
import assert from "node:assert/strict";
import { describeFuzz, runFuzz } from "../../tools/fuzz";
import { EXPECTED_CLIENT_OUTCOMES, EXPECTED_SERVER_OUTCOMES, Fuzzer } from "../../tools/fuzz/core";

describe("fuzz (tools/fuzz.ts)", function () {
  this.timeout(120_000);

  it("10,000 mutated packets each on Node and on XS: no failure, the same end state, every outcome reached, the witnesses' chat at a human pace delivered once each", async function () {
    // A seed whose cases reach every outcome below (a future timestamp at the client is
    // rare: a few cases in 10,000, and none for some seeds).
    const r = await runFuzz(10_000, 11, ["node", "xs"]);
    if (process.env.LWAR_REPORT) console.log(describeFuzz(r).replace(/^/gm, "      "));
    for (const run of r.runs) {
      assert.equal(run.report.cases, 10_000);
      assert.deepEqual(run.report.failures, [], `${run.engine}: ${describeFuzz(r)}`);
    }
    assert.equal(r.agree, true, "Node and XS ended in the same state");
    assert.equal(r.ok, true);
    // The witnesses chatted at two lines a second throughout, and finish() found every line once, in order.
    for (const run of r.runs) assert.ok(run.report.witnessLines >= 2 * 2 * 5, `${run.engine}: ${run.report.witnessLines} witness lines`);
    const { server, client } = r.runs[0].report;
    for (const name of EXPECTED_SERVER_OUTCOMES) assert.ok((server.outcomes[name] ?? 0) > 0, `no case ended in ${name} at the server`);
    for (const name of EXPECTED_CLIENT_OUTCOMES) assert.ok((client.outcomes[name] ?? 0) > 0, `no case ended in ${name} at the client`);
  });

  it("the same seed gives the same cases; another seed, others", function () {
    const a = new Fuzzer(5);
    const b = new Fuzzer(5);
    const c = new Fuzzer(6);
    for (const f of [a, b, c]) f.run(3000);
    assert.deepEqual(a.report(), b.report());
    assert.notDeepEqual(a.report().server.outcomes, c.report().server.outcomes);
  });

  it("finds what it is meant to find: a server that sends an invalid packet is reported, with the case", function () {
    const f = new Fuzzer(9);
    f.run(200);
    // A broken server: one packet goes out with a wrong app id.
    const host = f.server.host as { send: (b: Uint8Array, n: number, a: string, p: number) => void };
    const send = host.send.bind(host);
    let broken = true;
    host.send = (b, n, a, p) => {
      if (broken) {
        broken = false;
        b[0] = 0;
      }
      send(b, n, a, p);
    };
    f.run(2000);
    const report = f.report();
    assert.equal(report.failureCount, 1);
    assert.match(report.failures[0].what, /the server sent an invalid packet/);
  });
});
