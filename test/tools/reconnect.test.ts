/**
 * Reconnecting bots: the backoff schedule (modules/client/reconnect.ts), and bots
 * (tools/botlib.ts) that get back into a server restarted on the same port, under the same
 * name, ship and weapon.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { createServer, type Server } from "../../modules/server/server";
import { NAME_LENGTH } from "../../modules/protocol/constants";
import { bytesToAscii } from "../../modules/text";
import { NodeHost } from "../../hosts/node/host";
import { type Bot, keepConnected, runBots } from "../../tools/botlib";
import { ClientState, createClient, type Client } from "../../modules/client/client";
import { COUNTER_COUNT } from "../../modules/protocol/counters";
import { Random } from "../../modules/random";
import { FakeHost } from "../helpers/fake-host";
import { Reconnect, RECONNECT_ATTEMPT_MS, reconnectDelay } from "../../modules/client/reconnect";

describe("reconnect schedule", function () {
  it("1, 2, 4 s, then every 5 s; every 5 s while the match is full", function () {
    assert.deepEqual([1, 2, 3, 4, 5, 9].map((n) => reconnectDelay(n, false)), [1000, 2000, 4000, 5000, 5000, 5000]);
    assert.deepEqual([1, 2, 3, 4].map((n) => reconnectDelay(n, true)), [5000, 5000, 5000, 5000]);
  });

  it("due once when its time comes; a try unanswered is another failure; a connection starts over", function () {
    const r = new Reconnect();
    assert.equal(r.due(0), false, "nothing waits before a failure");
    assert.equal(r.failed(100, false), 1100);
    assert.equal(r.due(1099), false);
    assert.equal(r.due(1100), true);
    assert.equal(r.due(1101), false, "a try counts once");
    assert.equal(r.givenUp(1100 + RECONNECT_ATTEMPT_MS - 1), false);
    assert.equal(r.givenUp(1100 + RECONNECT_ATTEMPT_MS), true);
    assert.equal(r.failed(5000, false), 7000);
    assert.equal(r.due(7000), true);
    assert.equal(r.failed(8000, false), 12000);
    assert.equal(r.due(12000), true);
    assert.equal(r.failed(13000, false), 18000);
    r.connected();
    assert.equal(r.failures, 0);
    assert.equal(r.due(18000), false, "connected: nothing waits");
    assert.equal(r.failed(20000, false), 21000, "the schedule starts over");
    assert.equal(r.tries, 3);
  });
});

describe("bots reconnect", function () {
  this.timeout(60_000);

  it("a connection that ended before any tick saw it connected still counts as lost, and the return as a reconnect", function () {
    // On a busy machine a bot can take its Join and its Kick (a server shutting down) between two of its ticks.
    const host = new FakeHost();
    const fresh = (): Client => createClient(makeConfig(), host, "10.0.0.1", 32422);
    const client = fresh();
    const bot = {
      client, host: null as never, rng: new Random(1), nextChat: 0, chats: 0, maxPlayersSeen: 0, connectedAt: -1, chatsReceived: 0, updateTicks: 0, lastUpdateTimestamp: -1,
      name: "rb1", ship: -1, weapon: -1, retry: new Reconnect(), lost: 0, reconnected: 0, lastEnd: ClientState.Idle, retired: new Uint32Array(COUNTER_COUNT), retiredStats: 0, everConnected: false,
    } as Bot;
    client.selfId = 0x10003;
    client.state = ClientState.Kicked;
    keepConnected(bot, 1000, fresh);
    assert.equal(bot.lost, 1);
    assert.notEqual(bot.client, client, "a fresh client");
    assert.equal(bot.client.state, ClientState.Idle);
    keepConnected(bot, 2000, fresh);
    assert.equal(bot.client.state, ClientState.Connecting, "tried again when due");
    bot.client.state = ClientState.Connected;
    keepConnected(bot, 2100, fresh);
    assert.equal(bot.reconnected, 1);
  });

  async function start(port: number): Promise<{ host: NodeHost; server: Server; port: number }> {
    const host = new NodeHost();
    const bound = await host.listen(port, "127.0.0.1");
    const server = createServer(makeConfig(), host);
    host.attach(server);
    return { host, server, port: bound.port };
  }

  it("a server shut down and restarted on the same port gets its bots back, same names, ship and weapon", async function () {
    let s = await start(0);
    const port = s.port;
    // The bots run until the checks are done (the signal), however long a busy machine takes.
    const done = new AbortController();
    let back = 0;
    const run = runBots({
      host: "127.0.0.1", port, count: 3, durationS: 50, behaviour: "idle", chatEveryS: 0, seed: 2, name: "rb", ship: 2, weapon: 1, signal: done.signal,
      onProgress: (bots) => {
        back = bots.filter((b) => b.reconnected > 0).length;
      },
    });
    try {
      const until = async (ok: () => boolean, ms: number): Promise<boolean> => {
        for (const end = performance.now() + ms; performance.now() < end; ) {
          if (ok()) return true;
          await new Promise((r) => setTimeout(r, 20));
        }
        return ok();
      };
      assert.ok(await until(() => s.server.playerCount() === 3, 10_000), "the bots joined");
      s.server.shutdown();
      await new Promise((r) => setTimeout(r, 100));
      await s.host.close();
      await new Promise((r) => setTimeout(r, 1500));
      s = await start(port);
      assert.ok(await until(() => s.server.playerCount() === 3, 20_000), `back: ${s.server.playerCount()} players`);
      // Admitted, then the packet that acknowledges the Join brings the name and selection.
      const named = (): boolean => {
        for (let slot = 0; slot < 8; slot++) if (s.server.active[slot] !== 0 && (s.server.nameLength[slot] !== 3 || s.server.ship[slot] !== 2)) return false;
        return true;
      };
      assert.ok(await until(named, 10_000), "names and selections");
      const names: string[] = [];
      for (let slot = 0; slot < 8; slot++) {
        if (s.server.active[slot] === 0) continue;
        names.push(bytesToAscii(s.server.names, slot * NAME_LENGTH, s.server.nameLength[slot]));
        assert.deepEqual([s.server.ship[slot], s.server.weapon[slot]], [2, 1]);
      }
      assert.deepEqual(names.sort(), ["rb1", "rb2", "rb3"]);
      // The server has them; the bots know it once their own ticks have seen the Join.
      assert.ok(await until(() => back === 3, 10_000), `${back} bots know they are back`);
      done.abort();
      const summary = await run;
      assert.equal(summary.lost, 3);
      assert.equal(summary.reconnected, 3);
      assert.equal(summary.disconnectedCleanly, 3);
      assert.equal(summary.kicked + summary.timedOut, 0);
    } finally {
      done.abort();
      await run.catch(() => undefined);
      await s.host.close();
    }
  });

  it("without reconnect, a shutdown leaves them kicked", async function () {
    const s = await start(0);
    const run = runBots({ host: "127.0.0.1", port: s.port, count: 2, durationS: 3, behaviour: "idle", chatEveryS: 0, seed: 2, reconnect: false });
    try {
      for (const end = performance.now() + 10_000; s.server.playerCount() < 2 && performance.now() < end; ) await new Promise((r) => setTimeout(r, 20));
      assert.equal(s.server.playerCount(), 2);
      s.server.shutdown();
      const summary = await run;
      assert.equal(summary.kicked, 2);
      assert.equal(summary.lost, 0);
    } finally {
      await s.host.close();
    }
  });
});
