/**
 * The staller over real UDP (docs/protocol.md, "Liveness"): the Node server with the game on
 * loopback; a raw Rev 1 peer acknowledges its Join and first sync once, then sends valid
 * Input at 20 Hz whose ack never moves. Two players chat at 2 lines a second and a newcomer
 * arrives 2 s later.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { createServer } from "../../modules/server/server";
import { createGame } from "../../modules/match";
import { Counter } from "../../modules/protocol/counters";
import { NodeHost } from "../../hosts/node/host";
import { chatPayload, chatText, idOf, packet, RawPeer, T, type Target } from "../conformance/peer";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("integration: a staller on loopback UDP", function () {
  this.timeout(30_000);

  it("is dropped within timeoutMs + 100 ms of its oldest unacknowledged message; chat at 2 lines/s loses nothing; a newcomer is announced within 1 s", async function () {
    const timeoutMs = 3000;
    const host = new NodeHost();
    const { port } = await host.listen(0, "127.0.0.1");
    const config = makeConfig({ timeoutMs });
    const server = createServer(config, host);
    createGame(config, server, 1);
    host.attach(server);
    const target: Target = { host: "127.0.0.1", port, maxPlayers: 8, close: async () => {} };
    const peers: RawPeer[] = [];
    const open = async () => {
      const p = await new RawPeer(target).open();
      peers.push(p);
      return p;
    };
    try {
      const a = await open();
      const b = await open();
      const s = await open();
      await a.connect();
      await b.connect();
      await s.connect();
      // The staller takes its first sync, acknowledges it once, and freezes its ack.
      await sleep(500);
      s.acknowledge();
      await sleep(100);
      const slot = s.selfId & 0xffff;
      const ep = server.endpoints[slot];
      const frozenAck = s.ack;
      const frozenFront = ep.firstSeq;
      let oldestAt = -1;
      let droppedAt = -1;
      const t0 = Date.now();
      const watch = setInterval(() => {
        const now = Date.now();
        if (oldestAt < 0 && server.active[slot] !== 0 && ep.count > 0 && ep.firstSeq === frozenFront) oldestAt = now;
        if (droppedAt < 0 && server.active[slot] === 0) droppedAt = now;
      }, 5);
      let newcomer: RawPeer | null = null;
      let newcomerId = -1;
      let joinedAt = -1;
      const lines = { a: 0, b: 0 };
      let input = 0;
      for (let t = 0; t < 6000; t += 50) {
        // 20 Hz of valid Input from the staller, its ack frozen.
        s.send(packet(frozenAck, s.now(), [], [[T.Input, [1, 0, 0, 0, input++ & 1]]]));
        if (t % 500 === 0) {
          a.sendMessages([[T.Chat, chatPayload(a.selfId, `a line ${lines.a++}`)]]);
          b.sendMessages([[T.Chat, chatPayload(b.selfId, `b line ${lines.b++}`)]]);
        }
        if (t % 100 === 0) {
          a.acknowledge();
          b.acknowledge();
          newcomer?.acknowledge();
        }
        if (t === 2000) {
          newcomer = await open();
          newcomerId = await newcomer.connect();
          joinedAt = Date.now();
        }
        await sleep(50 - ((Date.now() - t0) % 50));
      }
      clearInterval(watch);
      assert.ok(newcomer !== null);
      const announced = await a.expect((m) => m.type === T.Join && idOf(m) === newcomerId, 2000, "Join of the newcomer");
      assert.ok((announced.at ?? Infinity) - joinedAt <= 1000, `announced ${(announced.at ?? Infinity) - joinedAt} ms after the newcomer acknowledged its Join`);
      assert.ok(oldestAt > 0, "the staller had an unacknowledged message");
      assert.ok(droppedAt > 0, "the staller was dropped");
      assert.ok(droppedAt - oldestAt <= timeoutMs + 100, `dropped ${droppedAt - oldestAt} ms after its oldest unacknowledged message`);
      assert.equal(server.counters[Counter.AckStalls], 1);
      assert.equal(server.counters[Counter.Refused], 0);
      // Every line of both, once, in order, at both.
      await sleep(500);
      a.acknowledge();
      b.acknowledge();
      await sleep(300);
      for (const p of [a, b]) {
        const got = p.reliable.filter((m) => m.type === T.Chat);
        const fromA = got.filter((m) => idOf(m) === a.selfId).map(chatText);
        const fromB = got.filter((m) => idOf(m) === b.selfId).map(chatText);
        assert.deepEqual(fromA, Array.from({ length: lines.a }, (_, k) => `a line ${k}`));
        assert.deepEqual(fromB, Array.from({ length: lines.b }, (_, k) => `b line ${k}`));
        assert.ok(got.every((m) => idOf(m) === a.selfId || idOf(m) === b.selfId));
      }
      assert.equal(server.counters[Counter.HandshakeTimeouts], 0);
      for (const p of peers) assert.deepEqual(p.errors, []);
    } finally {
      for (const p of peers) p.close();
      await host.close();
    }
  });
});
