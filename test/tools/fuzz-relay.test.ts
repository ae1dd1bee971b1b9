/**
 * The fuzzing relay (tools/fuzz/relay.ts) in front of a real Node server on loopback: three
 * bots play and chat through it while it adds a mutant after one datagram in five. The
 * server must count every invalid mutant under the drop reason the relay expected, throw
 * nothing, strike nobody; the bots must stay connected and get every chat line once.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { createServer } from "../../modules/server/server";
import { Counter, COUNTER_NAMES, DROP_FIRST } from "../../modules/protocol/counters";
import { NodeHost } from "../../hosts/node/host";
import { runBots } from "../../tools/botlib";
import { describeFuzzRelay, fuzzRelay, type FuzzRelayReport } from "../../tools/fuzz/relay";

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe("fuzzing relay (tools/fuzz/relay.ts)", function () {
  this.timeout(60_000);

  it("3 bots behind it for 5 s: mutants of many kinds, each invalid one counted by the server as expected, nothing thrown, nobody struck, no chat line lost", async function () {
    const host = new NodeHost();
    const { port: serverPort } = await host.listen(0, "127.0.0.1");
    const server = createServer(makeConfig(), host);
    const thrown: unknown[] = [];
    host.attach({
      receive(b, n, a, p) {
        try {
          server.receive(b, n, a, p);
        } catch (err) {
          thrown.push(err);
        }
      },
      tick(now) {
        try {
          server.tick(now);
        } catch (err) {
          thrown.push(err);
        }
      },
    });
    const stop = new AbortController();
    let report: FuzzRelayReport | null = null;
    let failure: unknown = null;
    let relayPort = -1;
    const listening = new Promise<void>((resolve) => {
      fuzzRelay({
        targetHost: "127.0.0.1", targetPort: serverPort, rate: 0.2, seed: 3, durationS: 40, signal: stop.signal,
        onListening: (p) => {
          relayPort = p;
          resolve();
        },
      }).then((r) => (report = r), (err: unknown) => (failure = err)).finally(resolve);
    });
    try {
      await listening;
      assert.ok(relayPort > 0, `the relay did not start: ${String(failure)}`);
      const bots = await runBots({ host: "127.0.0.1", port: relayPort, count: 3, durationS: 5, behaviour: "wander", chatEveryS: 0.5, seed: 9, reconnect: false });
      stop.abort();
      for (const end = performance.now() + 5000; report === null && failure === null && performance.now() < end; ) await sleep(20);
      assert.equal(failure, null);
      assert.ok(report !== null, "the relay stopped when told");
      const r: FuzzRelayReport = report;
      // Every datagram sent has arrived (loopback) once the server's count stops moving.
      let last = -1;
      for (const end = performance.now() + 5000; performance.now() < end; ) {
        const now = server.counters[Counter.PacketsIn];
        if (now === last) break;
        last = now;
        await sleep(200);
      }
      const c = server.counters;
      const detail = `${describeFuzzRelay(r)}\nserver: ${COUNTER_NAMES.map((name, i) => `${name} ${c[i]}`).join(", ")}`;
      if (process.env.LWAR_REPORT) console.log(detail.replace(/^/gm, "      "));

      assert.deepEqual(thrown, [], "the server threw");
      assert.equal(r.clients, 3, detail);
      assert.equal(r.sendErrors, 0, detail);
      assert.ok(r.mutants >= 50, `${r.mutants} mutants\n${detail}`);
      assert.ok(Object.keys(r.byKind).length >= 8, `kinds: ${Object.keys(r.byKind).join(", ")}`);
      assert.ok(Object.keys(r.invalid).length >= 4, `drop reasons: ${Object.keys(r.invalid).join(", ")}`);
      assert.ok(r.invalidTotal > 0 && r.valid > 0, detail);
      assert.equal(c[Counter.PacketsIn], r.genuine + r.mutants, `every datagram reached the server\n${detail}`);
      // Genuine packets validate: each validation drop at the server is a mutant the relay expected there.
      for (let i: number = DROP_FIRST; i <= Counter.TrailingBytes; i++)
        assert.equal(c[i], r.invalid[COUNTER_NAMES[i]] ?? 0, `${COUNTER_NAMES[i]}\n${detail}`);
      // Valid mutants came from the players' own ports: no stranger, no bad ack, no strike, no kick.
      for (const i of [Counter.UnknownPeer, Counter.BadAck, Counter.SpoofedId, Counter.BadName, Counter.BadSelection, Counter.BadChat, Counter.Misbehaviour, Counter.Kicks, Counter.Timeouts])
        assert.equal(c[i], 0, `${COUNTER_NAMES[i]}\n${detail}`);
      // Their reliable messages carry seqnos the server has taken: dropped as duplicates.
      assert.ok(c[Counter.DuplicateReliable] > 0, detail);

      assert.equal(bots.connected, 3);
      assert.equal(bots.lost, 0, "no bot lost its connection");
      assert.equal(bots.disconnectedCleanly, 3);
      assert.ok(bots.chatsSent >= 3 * 4, `chats sent ${bots.chatsSent}`);
      assert.equal(bots.chatsReceivedMin, bots.chatsSent, "every bot received every chat line");
      assert.equal(c[Counter.Refused], 0);
    } finally {
      stop.abort();
      await host.close();
    }
  });
});
