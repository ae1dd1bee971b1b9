/**
 * Players who stop talking: a stalled client keeps its slot until the timeout and then
 * converges to the world as it is; a connector that never completes its handshake loses
 * its slot; a player whose inputs stop stops steering and firing.
 */
import assert from "node:assert/strict";
import { ClientState, type Client } from "../../modules/client/client";
import { Counter } from "../../modules/protocol/counters";
import { Msg } from "../../modules/protocol/constants";
import { INPUT_LEFT, INPUT_SHOOTING } from "../../modules/protocol/codec";
import { GameCounter } from "../../modules/game/game";
import { SHOT_BASE } from "../../modules/game/templates";
import { HANDSHAKE_MS, INPUT_STALE_MS } from "../../modules/server/schedule";
import { TestMatch, SERVER_ADDRESS, SERVER_PORT } from "../../harness/match";
import { hex } from "../helpers/bytes";

/** An entity younger, or dead more recently, than this is still on its way to a client. */
const IN_FLIGHT_MS = 400;

/**
 * Watches the server's entity table every step: when each (index, generation) was born, and
 * when the one at each index died. `behind(client)` counts what the client has wrong that it
 * could not have learnt of by now: live entities older than IN_FLIGHT_MS it lacks or holds
 * under another id, and entities it holds that died, or were replaced, longer ago.
 */
class Truth {
  readonly #gen: Uint16Array;
  readonly #born: Float64Array;
  readonly #died: Float64Array;
  readonly #deadId: Uint32Array;
  constructor(readonly m: TestMatch) {
    const cap = m.server.entities.capacity;
    this.#gen = new Uint16Array(cap);
    this.#born = new Float64Array(cap);
    this.#died = new Float64Array(cap).fill(-Infinity);
    this.#deadId = new Uint32Array(cap);
  }
  observe(): void {
    const e = this.m.server.entities;
    const now = this.m.net.now;
    for (let i = 0; i < e.capacity; i++) {
      const live = e.alive[i] !== 0;
      if (live && e.generation[i] !== this.#gen[i]) {
        if (this.#gen[i] !== 0) this.#dying(i, now);
        this.#gen[i] = e.generation[i];
        this.#born[i] = now;
      } else if (!live && this.#gen[i] !== 0) {
        this.#dying(i, now);
        this.#gen[i] = 0;
      }
    }
  }
  #dying(i: number, now: number): void {
    this.#died[i] = now;
    this.#deadId[i] = ((this.#gen[i] << 16) | i) >>> 0;
  }
  behind(c: Client): number {
    const e = this.m.server.entities;
    const now = this.m.net.now;
    let wrong = 0;
    for (let i = 0; i < e.capacity; i++) {
      const live = e.alive[i] !== 0;
      const has = c.alive[i] !== 0;
      const held = c.entityId[i];
      const justDied = has && held === this.#deadId[i] && now - this.#died[i] <= IN_FLIGHT_MS;
      if (live && now - this.#born[i] > IN_FLIGHT_MS) {
        if (!has || held !== e.id(i)) wrong++;
      } else if (live) {
        if (has && held !== e.id(i) && !justDied) wrong++;
      } else if (has && !justDied) wrong++;
    }
    return wrong;
  }
}

/** A busy match: the game, 8 players hunting with their triggers held, the pool near capacity. */
function busyFight(seed: number, timeoutMs = 15000): { m: TestMatch; truth: Truth } {
  const m = new TestMatch({ timeoutMs }, { seed, delayMs: 2, jitterMs: 4 });
  m.withGame(seed, "hunt", true);
  for (let k = 0; k < 8; k++) m.client().connect();
  assert.ok(m.until(() => m.clients.every((c) => c.state === ClientState.Connected && c.playerCount() === 8), 5000), "everyone in");
  const truth = new Truth(m);
  step(m, truth, 4000);
  return { m, truth };
}

/** Run `ms` in 10 ms steps, observing the truth; `each()` after every step. */
function step(m: TestMatch, truth: Truth, ms: number, each?: () => void): void {
  const end = m.net.now + ms;
  while (m.net.now < end) {
    m.run(10);
    truth.observe();
    if (each) each();
  }
}

describe("a stalled client keeps its slot and converges when it resumes", function () {
  this.timeout(60_000);

  for (const stallMs of [3000, 12000]) {
    it(`silent for ${stallMs / 1000} s in a busy 8-player match (timeout 15 s): not kicked, back in step within 3 s, memory fixed`, function () {
      const { m, truth } = busyFight(40 + stallMs / 1000);
      const e = m.server.entities;
      const pools = JSON.stringify(m.server.pools());
      let fullest = 0;
      let counted = 0;
      let entities = 0;
      step(m, truth, 2000, () => {
        entities += e.count;
        counted++;
      });
      assert.ok(entities / counted > 0.75 * e.capacity, `the pool is busy: ${(entities / counted).toFixed(0)} of ${e.capacity} entities on average`);
      // Player 3 vanishes: nothing from it arrives, nothing reaches it.
      const stalled = m.clients[3];
      const host = m.hosts[3];
      const ep = m.server.endpoints[stalled.selfSlot];
      const control = m.clients[5];
      for (let k = 0; k < 8; k++) assert.equal(truth.behind(m.clients[k]), 0, `player ${k} in step before the stall`);
      host.muted = true;
      host.deaf = true;
      const g = m.game!.counters;
      const shots = g[GameCounter.ShotsFired] + g[GameCounter.ShotsDropped];
      let controlBehind = 0;
      step(m, truth, stallMs, () => {
        fullest = Math.max(fullest, ep.usedBytes);
        controlBehind = Math.max(controlBehind, truth.behind(control));
      });
      const tried = g[GameCounter.ShotsFired] + g[GameCounter.ShotsDropped] - shots;
      assert.ok(tried > stallMs / 20, `the fight went on: ${tried} shots fired or dropped for want of room`);
      assert.equal(controlBehind, 0, "the threshold holds for a player who never stalled");
      assert.ok(truth.behind(stalled) > 20, `the stalled player fell behind (${truth.behind(stalled)} entities wrong)`);
      host.muted = false;
      host.deaf = false;
      let at = -1;
      const resumed = m.net.now;
      step(m, truth, 3000, () => {
        if (at < 0 && truth.behind(stalled) === 0) at = m.net.now - resumed;
      });
      assert.ok(at >= 0, `still ${truth.behind(stalled)} entities wrong 3 s after resuming`);
      // And it stays in step.
      let worst = 0;
      step(m, truth, 2000, () => (worst = Math.max(worst, truth.behind(stalled))));
      assert.equal(worst, 0);
      const s = m.server.counters;
      assert.equal(s[Counter.Kicks] + s[Counter.QueueOverflows] + s[Counter.Timeouts], 0);
      assert.equal(stalled.state, ClientState.Connected);
      assert.equal(stalled.unknownEntities, 0, "no Update or Remove for an entity it did not hold");
      // Fixed memory: the same pools, and the stalled player's queue never reached the Leave reserve.
      assert.equal(JSON.stringify(m.server.pools()), pools);
      assert.ok(fullest <= m.config.reliableQueueBytes - 9 * (m.config.maxPlayers + 1), `queue peaked at ${fullest} bytes`);
      if (process.env.LWAR_REPORT) console.log(`      in step ${at} ms after resuming; its queue peaked at ${fullest} bytes`);
    });
  }
});

describe("a connector that never completes its handshake", function () {
  this.timeout(30_000);

  it("resending Connect every 0.5 s and never acknowledging its Join, it loses its slot after the handshake time, unseen", function () {
    const m = new TestMatch();
    const players = [m.join(), m.join()];
    m.run(500);
    const h = m.net.host("mem:half-open", 9);
    h.core = { receive: () => {}, tick: () => {} };
    const connect = hex("f27087c5 ffffffff 00000000 01 00", "00000000 65");
    let heldSince = -1;
    let longest = 0;
    let held = 0;
    const end = m.net.now + 20_000;
    let next = m.net.now;
    while (m.net.now < end) {
      if (m.net.now >= next) {
        h.send(connect, connect.length, SERVER_ADDRESS, SERVER_PORT);
        next += 500;
      }
      m.run(10);
      const holding = m.server.playerCount() === 3;
      if (holding) {
        held += 10;
        if (heldSince < 0) heldSince = m.net.now;
        longest = Math.max(longest, m.net.now - heldSince);
      } else heldSince = -1;
    }
    assert.ok(longest <= HANDSHAKE_MS + 200, `held a slot for ${longest} ms at a stretch`);
    // After each drop it waits out the penalty before it is admitted again.
    assert.ok(m.server.counters[Counter.HandshakeTimeouts] >= 1, `${m.server.counters[Counter.HandshakeTimeouts]} handshake timeouts`);
    assert.ok(held <= 20000 * 0.35, `held a slot ${((100 * held) / 20000).toFixed(0)} % of the time`);
    for (const r of m.recorders) assert.equal(r.count(Msg.Join), 2, "nobody heard of it");
    for (const c of players) assert.equal(c.state, ClientState.Connected);
    if (process.env.LWAR_REPORT) console.log(`      held a slot ${((100 * held) / 20000).toFixed(0)} % of the time, ${longest} ms at most`);
  });
});

describe("stale input", function () {
  this.timeout(30_000);

  it("a player whose inputs stop for 500 ms stops steering and firing, and goes on when they resume", function () {
    const m = new TestMatch({}, { seed: 3, delayMs: 2 });
    const game = m.withGame(3, null);
    const a = m.join();
    m.join();
    m.run(3000);
    const slot = a.selfSlot;
    const ship = (): number => game.focusIndex[slot];
    assert.ok(ship() >= 0, "a has a ship");
    a.setInput(INPUT_LEFT | INPUT_SHOOTING);
    m.run(500);
    const shotsBy = (): number => {
      const e = m.server.entities;
      let n = 0;
      for (let i = 0; i < e.capacity; i++) if (e.alive[i] !== 0 && e.owner[i] === a.selfId && e.type[i] >= SHOT_BASE) n++;
      return n;
    };
    assert.equal(m.server.input[slot], INPUT_LEFT | INPUT_SHOOTING);
    assert.ok(shotsBy() > 0, "it fires");
    // a's packets stop arriving (its Wi-Fi dropped out).
    m.hosts[0].muted = true;
    const stale0 = m.server.counters[Counter.StaleInputs];
    const cut = m.net.now;
    m.until(() => m.server.input[slot] === 0, 1000);
    const after = m.net.now - cut;
    assert.ok(after > INPUT_STALE_MS - 50 && after <= INPUT_STALE_MS + 150, `input cleared after ${after} ms`);
    assert.equal(m.server.counters[Counter.StaleInputs] - stale0, 1);
    const fired = game.counters[GameCounter.ShotsFired];
    const rot = m.server.entities.rot[ship()];
    m.run(1000);
    assert.equal(game.counters[GameCounter.ShotsFired], fired, "no shot fired");
    assert.equal(m.server.entities.rot[ship()], rot, "no turn");
    assert.equal(m.server.playerCount(), 2);
    // Its inputs come back.
    m.hosts[0].muted = false;
    m.run(300);
    assert.equal(m.server.input[slot], INPUT_LEFT | INPUT_SHOOTING);
    assert.ok(game.counters[GameCounter.ShotsFired] > fired, "it fires again");
    assert.notEqual(m.server.entities.rot[ship()], rot, "and turns");
  });
});
