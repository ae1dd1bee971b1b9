import assert from "node:assert/strict";
import { ClientState } from "../../modules/client/client";
import { Counter, createCounters } from "../../modules/protocol/counters";
import { FROM_SERVER, MAX_PACKET, Msg, HEADER_SIZE, RELIABLE_HEADER } from "../../modules/protocol/constants";
import { NO_PLAYER } from "../../modules/game/entities";
import { headerRel, headerUnrel, payloadSize, validatePacket } from "../../modules/protocol/codec";
import { TestMatch } from "../../harness/match";
import { ANGLE_TURN, POS_ONE, fromWu, fromWuPerSecond, toWireAngle, toWirePosition, toWireVelocity } from "../../modules/units";

/** Byte length of the messages a valid packet declares. */
function declaredLength(b: Uint8Array, length: number): number {
  let o = HEADER_SIZE;
  const rel = headerRel(b);
  for (let m = 0; m < rel + headerUnrel(b); m++) {
    const head = m < rel ? RELIABLE_HEADER : 1;
    o += head + payloadSize(b, o + head, b[o + head - 1], length);
  }
  return o;
}

describe("server packets", function () {
  it("every packet is valid, at most 512 bytes, and ends right after its last message", function () {
    const m = new TestMatch({ maxEntities: 200 }, { seed: 9, loss: 0.2, duplicate: 0.1, reorder: 0.2, delayMs: 2, jitterMs: 10 });
    for (let i = 0; i < 150; i++) m.server.entities.add(4, NO_PLAYER, fromWu(i), fromWu(i));
    const counters = createCounters();
    let packets = 0;
    let withReliable = 0;
    const send = m.serverHost.send.bind(m.serverHost);
    m.serverHost.send = (bytes, length, address, port) => {
      packets++;
      assert.ok(length <= MAX_PACKET);
      assert.ok(validatePacket(bytes, length, FROM_SERVER, counters), "server packet validates");
      assert.equal(declaredLength(bytes, length), length, "no padding after the last message");
      if (headerRel(bytes) > 0) withReliable++;
      send(bytes, length, address, port);
    };
    const cs = [m.client(), m.client(), m.client(), m.client()];
    for (const c of cs) c.connect();
    m.run(1000);
    for (let t = 0; t < 30; t++) {
      // One chat per player every 300 ms: within the per-player rate.
      if (t % 3 === 0) for (const c of cs) if (c.state === ClientState.Connected) c.chat(`round ${t}`);
      m.server.entities.remove(t);
      m.server.entities.add(5, NO_PLAYER, fromWu(-t), fromWu(t));
      m.run(100);
    }
    m.run(3000);
    assert.ok(packets > 500 && withReliable > 50);
    for (const c of cs) {
      assert.equal(c.state, ClientState.Connected);
      assert.equal(c.entityCount, 150, "Adds and Removes all applied once");
      assert.equal(c.unknownEntities, 0);
    }
    for (const r of m.recorders) assert.equal(r.count(Msg.Chat), 4 * 10, "every chat reached every player exactly once");
  });

  it("splits a large world over several Update packets per tick, capped per client", function () {
    const m = new TestMatch({ maxEntities: 192, maxUpdatePacketsPerTick: 3 });
    for (let i = 0; i < 192; i++) m.server.entities.add(4, NO_PLAYER, fromWu(i), fromWu(i));
    const c = m.join();
    m.run(1000);
    const u0 = c.updatesReceived;
    const e0 = c.updateEntitiesReceived;
    m.run(1000);
    const updates = c.updatesReceived - u0;
    const perTick = (c.updateEntitiesReceived - e0) / updates;
    // 33 entities fit one packet; 3 packets per tick carry up to 99 of the 192.
    assert.ok(updates >= 40 && updates <= 48, `${updates} Update messages in 1 s`);
    assert.ok(perTick > 30 && perTick <= 33, `${perTick} entities per Update`);
  });
  it("every client gets each entity's state of the current update tick (entries are encoded once per tick)", function () {
    const m = new TestMatch({ maxEntities: 64 });
    const e = m.server.entities;
    for (let i = 0; i < 40; i++) e.add(4, NO_PLAYER, fromWu(i), fromWu(-i));
    const cs = [m.join(), m.join(), m.join()];
    m.run(500);
    for (let round = 1; round <= 12; round++) {
      for (let i = 0; i < 40; i++) {
        e.x[i] = fromWu(round * 100 + i);
        e.y[i] = fromWu(-round * 50 - i);
        e.vx[i] = fromWuPerSecond(round);
        e.health[i] = (round * 7 + i) % 101;
      }
      e.version++;
      // Move again right after the next update tick: its entries must not be reused.
      m.run(70);
      for (let i = 0; i < 40; i++) e.x[i] = fromWu(round * 100 + i + 1);
      e.version++;
      m.run(230);
      for (const c of cs) {
        for (let i = 0; i < 40; i++) {
          assert.equal(c.x[i], round * 100 + i + 1, `round ${round}, entity ${i}: x`);
          assert.equal(c.y[i], -round * 50 - i, `round ${round}, entity ${i}: y`);
          assert.equal(c.vx[i], round);
          assert.equal(c.health[i], (round * 7 + i) % 101);
        }
      }
    }
  });
});

describe("server: Update entries", function () {
  it("carry the entity state in wire units exactly as units.ts converts it (rounding, clamping, wrap)", function () {
    const m = new TestMatch({ maxEntities: 16 });
    const e = m.server.entities;
    const values = [
      [0, 0, 0, 0, 0, 100],
      [POS_ONE / 2, -POS_ONE / 2, 17, -17, ANGLE_TURN - 1, 42],
      [fromWu(2999.5), fromWu(-2999.5), fromWuPerSecond(1500), fromWuPerSecond(-1500), ANGLE_TURN / 4, 1],
      [fromWu(40000), fromWu(-40000), 2000000, -2000000, 5 * ANGLE_TURN + 7, 0],
      [-1, 1, -1, 1, -1, 100],
    ];
    for (const [x, y] of values) e.add(4, NO_PLAYER, x, y);
    values.forEach(([, , vx, vy, rot, health], i) => {
      e.vx[i] = vx;
      e.vy[i] = vy;
      e.rot[i] = rot;
      e.health[i] = health;
    });
    e.version++;
    const c = m.join();
    m.run(500);
    values.forEach(([x, y, vx, vy, rot, health], i) => {
      assert.deepEqual(
        [c.x[i], c.y[i], c.vx[i], c.vy[i], c.rot[i], c.health[i]],
        [toWirePosition(x), toWirePosition(y), toWireVelocity(vx), toWireVelocity(vy), toWireAngle(rot), health],
        `entity ${i}`,
      );
    });
  });
});

describe("server packets: between Update ticks", function () {
  it("a packet of never-sent reliables alone goes only when the player's Update turn is not on the next tick", function () {
    this.timeout(30000);
    // Hunting players with the game: each step adds and removes projectiles, and nobody sends
    // a reliable message after joining, so the server owes no ack; on a 2 ms link the acks
    // come within an Input's period, so nothing waits for a resend.
    const m = new TestMatch({}, { seed: 4, delayMs: 2 });
    m.withGame(4, "hunt", true);
    for (let k = 0; k < 4; k++) m.client().connect();
    assert.ok(m.until(() => m.clients.every((c) => c.state === ClientState.Connected && c.playerCount() === 4), 5000), "everyone in");
    m.run(2000);
    // Per player: the ticks (10 ms steps) of its packets of reliables alone, and of its Updates.
    const alone = new Map<number, number[]>();
    const updates = new Map<number, Set<number>>();
    const send = m.serverHost.send.bind(m.serverHost);
    m.serverHost.send = (bytes, length, address, port) => {
      const tick = Math.round(m.net.now / 10);
      if (headerUnrel(bytes) === 0 && headerRel(bytes) > 0) {
        if (!alone.has(port)) alone.set(port, []);
        alone.get(port)?.push(tick);
      } else if (headerUnrel(bytes) > 0) {
        if (!updates.has(port)) updates.set(port, new Set());
        updates.get(port)?.add(tick);
      }
      send(bytes, length, address, port);
    };
    m.run(5000);
    let packets = 0;
    for (const [port, ticks] of alone) {
      packets += ticks.length;
      for (const tick of ticks) assert.ok(!updates.get(port)?.has(tick + 1), `port ${port}: a packet of reliables at tick ${tick}, its Update at the next`);
    }
    assert.ok(packets > 20, `${packets} packets of reliables alone in 5 s: the rule was put to the test`);
    assert.equal(m.server.counters[Counter.Kicks] + m.server.counters[Counter.Timeouts], 0);
  });
});
