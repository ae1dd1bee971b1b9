/**
 * The game in the server, with client-library bots on the in-memory network: the
 * Update plan as clients see it, late joiners, and the bandwidth per client.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { createServer, type Server } from "../../modules/server/server";
import { ClientState, createClient, type Client, type ClientListener } from "../../modules/client/client";
import { GameCounter, type Game } from "../../modules/game/game";
import { createGame } from "../../modules/match";
import { getU32 } from "../../modules/protocol/bytes";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { MAX_PACKET, Msg, UPDATE_ENTRY } from "../../modules/protocol/constants";
import { Counter } from "../../modules/protocol/counters";
import { toWu, toWuPerSecond } from "../../modules/units";
import { Network } from "../../harness/link";
import { behaviourInput, ownShip } from "../../harness/behaviours";

/** Watches one client's Updates: gaps per entity in update ticks, and which entry comes first. */
class UpdateWatch implements ClientListener {
  tick = 0;
  lastTs = -1;
  readonly last: Int32Array;
  measuring = false;
  worstGap = 0;
  worstEntity = -1;
  ownFirstChecks = 0;
  ownFirstMisses = 0;
  entriesPerTick = 0;
  maxEntriesPerTick = 0;
  updatesPerTick = 0;
  maxUpdatesPerTick = 0;
  constructor(capacity: number) {
    this.last = new Int32Array(capacity);
  }
  reliable(_c: Client, type: number, _seq: number, b: Uint8Array, o: number): void {
    if (type === Msg.Add) this.last[getU32(b, o) & 0xffff] = this.tick;
  }
  unreliable(c: Client, type: number, ts: number, b: Uint8Array, o: number): void {
    if (type !== Msg.Update) return;
    const first = ts !== this.lastTs;
    if (first) {
      // The previous update tick is complete: nothing alive may have gone 4 ticks unsent.
      if (this.measuring)
        for (let i = 0; i < c.entityCapacity; i++)
          if (c.alive[i] !== 0 && this.tick - this.last[i] >= 4) this.#gap(this.tick + 1 - this.last[i], i);
      this.tick++;
      this.lastTs = ts;
      this.entriesPerTick = 0;
      this.updatesPerTick = 0;
    }
    this.updatesPerTick++;
    this.maxUpdatesPerTick = Math.max(this.maxUpdatesPerTick, this.updatesPerTick);
    const n = b[o];
    this.entriesPerTick += n;
    this.maxEntriesPerTick = Math.max(this.maxEntriesPerTick, this.entriesPerTick);
    for (let k = 0; k < n; k++) {
      const id = getU32(b, o + 1 + k * UPDATE_ENTRY);
      const i = id & 0xffff;
      if (c.alive[i] === 0 || c.entityId[i] !== id) continue;
      if (this.measuring) this.#gap(this.tick - this.last[i], i);
      this.last[i] = this.tick;
    }
    if (first && this.measuring && n > 0) {
      const own = ownShip(c);
      if (own >= 0) {
        this.ownFirstChecks++;
        if (getU32(b, o + 1) !== c.entityId[own]) this.ownFirstMisses++;
      }
    }
  }
  #gap(gap: number, i: number): void {
    if (gap > this.worstGap) {
      this.worstGap = gap;
      this.worstEntity = i;
    }
  }
}

interface Bot {
  client: Client;
  watch: UpdateWatch;
  behaviour: string;
  fire: boolean;
  maxPacket: number;
}

class GameMatch {
  // A fixed delay keeps a tick's packets in order, so the first Update seen is the first sent.
  readonly net = new Network({ seed: 7, delayMs: 5 });
  readonly config = makeConfig();
  readonly server: Server;
  readonly game: Game;
  readonly bots: Bot[] = [];

  constructor(seed: number) {
    const h = this.net.host("mem:server", 32422);
    this.server = createServer(this.config, h);
    h.core = this.server;
    this.game = createGame(this.config, this.server, seed);
  }

  join(behaviour: string, fire: boolean): Bot {
    const i = this.bots.length;
    const h = this.net.host(`mem:bot${i}`, 41000 + i);
    const client = createClient(this.config, h, "mem:server", 32422);
    const bot: Bot = { client, watch: new UpdateWatch(this.config.maxEntities), behaviour, fire, maxPacket: 0 };
    client.listener = bot.watch;
    h.core = {
      receive(bytes, length, address, port) {
        if (length > bot.maxPacket) bot.maxPacket = length;
        client.receive(bytes, length, address, port);
      },
      tick(now) {
        if (client.state === ClientState.Connected)
          client.setInput(behaviourInput(bot.behaviour, client, now) | (bot.fire ? INPUT_SHOOTING : 0));
        client.tick(now);
      },
    };
    client.connect();
    this.bots.push(bot);
    return bot;
  }

  run(ms: number): void {
    this.net.run(ms, 10);
  }
}

describe("game in the server: Update plan and bandwidth", function () {
  this.timeout(60000);
  let m: GameMatch;
  let late: Bot;
  let seconds = 0;
  let bytes: number[] = [];
  let packets: number[] = [];
  let entitySamples = 0;
  let entitySum = 0;
  let entityMax = 0;

  before(function () {
    // 7 players fight with their triggers held, an 8th joins mid-match.
    m = new GameMatch(99);
    for (let k = 0; k < 7; k++) {
      const bot = m.join("hunt", true);
      m.game.players.weapon[k] = 0;
      bot.client.select(0, 0);
    }
    m.run(4000);
    for (const b of m.bots) b.watch.measuring = true;
    late = m.join("hunt", true);
    m.run(3000);
    late.watch.measuring = true;
    const b0 = m.bots.map((b) => b.client.counters[Counter.BytesIn]);
    const p0 = m.bots.map((b) => b.client.counters[Counter.PacketsIn]);
    const start = m.net.now;
    while (m.net.now - start < 20000) {
      m.run(100);
      entitySum += m.server.entities.count;
      entityMax = Math.max(entityMax, m.server.entities.count);
      entitySamples++;
    }
    seconds = (m.net.now - start) / 1000;
    bytes = m.bots.map((b, k) => (b.client.counters[Counter.BytesIn] - b0[k]) / seconds);
    packets = m.bots.map((b, k) => (b.client.counters[Counter.PacketsIn] - p0[k]) / seconds);
  });

  it("is a real fight: shots fly, ships die and respawn, the pool fills", function () {
    const g = m.game.counters;
    assert.ok(g[GameCounter.ShotsFired] > 1000, `${g[GameCounter.ShotsFired]} shots`);
    assert.ok(g[GameCounter.ShotsDropped] > 0, "the pool was full at times");
    assert.ok(g[GameCounter.Kills] >= 5, `${g[GameCounter.Kills]} kills`);
    assert.ok(entitySum / entitySamples > 150, `average ${entitySum / entitySamples} entities`);
    assert.ok(entityMax >= 185, `peak ${entityMax} entities`);
  });

  it("every entity reaches every client within 4 update ticks, late joiner included", function () {
    for (const [k, b] of m.bots.entries()) {
      assert.ok(b.watch.tick > 250, `bot ${k}: ${b.watch.tick} update ticks`);
      assert.ok(b.watch.worstGap <= 4, `bot ${k}: entity ${b.watch.worstEntity} went ${b.watch.worstGap} update ticks`);
      assert.equal(b.client.unknownEntities, 0, `bot ${k}`);
    }
  });

  it("keeps every packet within 512 bytes, splitting a tick's Updates over at most the configured packets", function () {
    for (const b of m.bots) {
      assert.ok(b.maxPacket <= MAX_PACKET, `${b.maxPacket} bytes`);
      // More entries in one tick than one packet can carry: the tick was split.
      assert.ok(b.watch.maxEntriesPerTick > Math.floor((MAX_PACKET - 14 - 2) / UPDATE_ENTRY));
      // The Updates of one update tick share its timestamp; the link neither duplicates nor loses.
      assert.ok(b.watch.maxUpdatesPerTick <= m.config.maxUpdatePacketsPerTick, `${b.watch.maxUpdatesPerTick} Update packets in one tick`);
    }
  });

  it("sends each client its own ship first", function () {
    for (const [k, b] of m.bots.entries()) {
      assert.ok(b.watch.ownFirstChecks > 100, `bot ${k}: ${b.watch.ownFirstChecks} checks`);
      assert.equal(b.watch.ownFirstMisses, 0, `bot ${k}`);
    }
  });

  it("syncs a late joiner with Adds for everything alive, then Updates", function () {
    // Hold fire until every projectile has expired, so no Add or Remove is in flight.
    for (const b of m.bots) {
      b.fire = false;
      b.behaviour = "idle";
    }
    m.run(5000);
    const e = m.server.entities;
    const want: number[] = [];
    for (let i = 0; i < e.capacity; i++) if (e.alive[i] !== 0) want.push(e.id(i));
    const got: number[] = [];
    for (let i = 0; i < late.client.entityCapacity; i++) if (late.client.alive[i] !== 0) got.push(late.client.entityId[i]);
    assert.deepEqual(got, want);
    for (let i = 0; i < e.capacity; i++) {
      if (e.alive[i] === 0) continue;
      // Positions (wu on the wire) are at most 4 update ticks old.
      const slack = 2 + 0.3 * Math.hypot(toWuPerSecond(e.vx[i]), toWuPerSecond(e.vy[i]));
      assert.ok(Math.abs(late.client.x[i] - toWu(e.x[i])) < slack, `entity ${i}: x ${late.client.x[i]} vs ${toWu(e.x[i])}`);
      assert.ok(Math.abs(late.client.y[i] - toWu(e.y[i])) < slack, `entity ${i}: y ${late.client.y[i]} vs ${toWu(e.y[i])}`);
      assert.equal(late.client.type[i], e.type[i]);
    }
  });

  it("stays under 30 KB/s per client at 8 players in combat", function () {
    const worst = Math.max(...bytes);
    const mean = bytes.reduce((a, b) => a + b, 0) / bytes.length;
    const pps = packets.reduce((a, b) => a + b, 0) / packets.length;
    assert.ok(worst <= 30000, `worst client ${worst.toFixed(0)} B/s (mean ${mean.toFixed(0)}, ${pps.toFixed(1)} packets/s)`);
    assert.ok(mean > 5000, "and it is measuring something");
    if (process.env.LWAR_REPORT)
      console.log(`      ${mean.toFixed(0)} B/s mean, ${worst.toFixed(0)} worst, ${pps.toFixed(1)} packets/s, ${(entitySum / entitySamples).toFixed(1)} entities on average, ${entityMax} at most`);
  });
});
