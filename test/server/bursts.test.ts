/**
 * Nobody pays for someone else's traffic (docs/protocol.md, "Kick"): bursts of Connects and
 * Disconnects from fresh ports, players joining and leaving as fast as they can, a maximum
 * chat burst, rename storms and a flood of 10,000 Connects. In each, the players of a busy
 * match (the game on, everyone hunting) keep their Update rate within 10 % of what they had
 * before the burst, and nobody is kicked.
 */
import assert from "node:assert/strict";
import { ClientState } from "../../modules/client/client";
import { Counter } from "../../modules/protocol/counters";
import { Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { HANDSHAKE_MS } from "../../modules/server/schedule";
import { bytesToAscii } from "../../modules/text";
import { TestMatch } from "../../harness/match";
import { hex } from "../helpers/bytes";

const CONNECT = hex("f27087c5 ffffffff 00000000 01 00", "00000000 65");
const CONNECT_DISCONNECT = hex("f27087c5 ffffffff 00000000 02 00", "00000000 65", "00000001 66");

/** A match with the game and `players` hunting players, all connected and announced. */
function busy(players: number, seed: number): TestMatch {
  const m = new TestMatch({}, { seed, delayMs: 2, jitterMs: 3 });
  m.withGame(seed, "hunt", true);
  for (let k = 0; k < players; k++) m.client().connect();
  assert.ok(m.until(() => m.clients.every((c) => c.state === ClientState.Connected && c.playerCount() === players), 5000), "everyone in");
  m.run(2000);
  return m;
}

/** Update ticks per second of each player over `ms` of play; `each(t)` runs before every 10 ms step. */
function rates(m: TestMatch, ms: number, each?: (t: number) => void): number[] {
  const before = m.recorders.map((r) => r.updateTicks);
  const start = m.net.now;
  while (m.net.now - start < ms) {
    if (each) each(m.net.now - start);
    m.run(10);
  }
  return before.map((b, k) => ((m.recorders[k].updateTicks - b) * 1000) / (m.net.now - start));
}

function assertRatesHeld(base: number[], burst: number[], players: number): void {
  for (let k = 0; k < players; k++)
    assert.ok(Math.abs(burst[k] - base[k]) <= 0.1 * base[k], `player ${k}: ${burst[k].toFixed(2)} update ticks/s during the burst, ${base[k].toFixed(2)} before`);
}

function assertNobodyLost(m: TestMatch, players: number): void {
  const s = m.server.counters;
  assert.equal(s[Counter.Kicks], 0, "kicks");
  assert.equal(s[Counter.QueueOverflows], 0, "queue overflows");
  assert.equal(s[Counter.Timeouts], 0, "timeouts");
  for (let k = 0; k < players; k++) assert.equal(m.clients[k].state, ClientState.Connected, `player ${k}`);
}

/** `n` datagrams from fresh ports of one address, straight into the server between two ticks. */
function burst(m: TestMatch, bytes: Uint8Array, n: number, firstPort: number): void {
  for (let i = 0; i < n; i++) m.server.receive(bytes, bytes.length, "mem:burst", firstPort + i);
}

describe("nobody pays for someone else's traffic", function () {
  this.timeout(60_000);

  it("a full server: 300 Connect+Disconnect and 300 Connect datagrams from fresh ports in one tick are rejected, and cost the 8 players nothing", function () {
    const m = busy(8, 31);
    const base = rates(m, 3000);
    const joins = m.server.counters[Counter.Joins];
    const during = rates(m, 3000, (t) => {
      if (t === 0) burst(m, CONNECT_DISCONNECT, 300, 20000);
      if (t === 1000) burst(m, CONNECT, 300, 30000);
    });
    assertRatesHeld(base, during, 8);
    assertNobodyLost(m, 8);
    assert.equal(m.server.counters[Counter.Rejects], 600);
    assert.equal(m.server.counters[Counter.Joins], joins);
    for (const r of m.recorders) assert.equal(r.count(Msg.Join), 8);
  });

  it("two free slots: of 300 Connect+Disconnect from fresh ports in one tick, a bucket's worth come and go unseen, the rest wait; of 300 Connects two hold a slot until the handshake time", function () {
    const m = busy(6, 32);
    const base = rates(m, 3000);
    const joins = m.server.counters[Counter.Joins];
    const during = rates(m, 3000, (t) => {
      if (t === 0) {
        burst(m, CONNECT_DISCONNECT, 300, 20000);
        // Each admitted one took a free slot and gave it back within its own datagram.
        assert.equal(m.server.playerCount(), 6);
      }
      if (t === 500) {
        burst(m, CONNECT, 300, 30000);
        assert.equal(m.server.playerCount(), 8);
      }
    });
    assertRatesHeld(base, during, 6);
    m.run(HANDSHAKE_MS);
    assertNobodyLost(m, 6);
    const s = m.server.counters;
    // The admission bucket (maxPlayers tokens, one back every 250 ms) was full: 8 came and
    // went, 292 found it empty and were dropped (a real client resends its Connect). By the
    // second burst two tokens were back: two took the free slots, the rest were rejected.
    assert.equal(s[Counter.Joins] - joins, 8 + 2);
    assert.equal(s[Counter.Leaves], 8);
    assert.equal(s[Counter.AdmissionsDeferred], 292);
    assert.equal(s[Counter.Rejects], 298);
    assert.equal(s[Counter.HandshakeTimeouts], 2, "the two that never acknowledged their Join are gone");
    assert.equal(m.server.playerCount(), 6);
    // None of them was ever announced: the players heard of nobody.
    for (const r of m.recorders) {
      assert.equal(r.count(Msg.Join), 6);
      assert.equal(r.count(Msg.Leave), 0);
    }
  });

  it("two slots where players join and leave as fast as they can for 10 s cost the other 6 nothing", function () {
    const m = busy(6, 33);
    const base = rates(m, 3000);
    let churned = 0;
    const churners = new Set<number>();
    const during = rates(m, 10_000, () => {
      // Whoever is in leaves at once; whoever has left makes room for a newcomer.
      for (let k = 6; k < m.clients.length; k++) {
        const c = m.clients[k];
        if (c.state === ClientState.Connected && c.playerCount() >= 6) c.disconnect();
      }
      const open = m.clients.slice(6).filter((c) => c.state === ClientState.Connecting || c.state === ClientState.Connected || c.state === ClientState.Disconnecting).length;
      for (let n = open; n < 2; n++) {
        churners.add(m.clients.length);
        m.client().connect();
        churned++;
      }
    });
    assertRatesHeld(base, during, 6);
    assertNobodyLost(m, 6);
    assert.ok(churned > 40, `${churned} came and went`);
    // Each steady player heard each newcomer announced at most once and leave once.
    for (let k = 0; k < 6; k++) {
      const r = m.recorders[k];
      for (const j of churners) {
        const id = m.clients[j].selfId;
        if (id < 0) continue;
        assert.ok(r.count(Msg.Join, id) <= 1 && r.count(Msg.Leave, id) <= r.count(Msg.Join, id), `player ${k} about newcomer ${j}`);
      }
    }
  });

  it("two slots churned by raw peers that join, acknowledge their Join and leave at once, two every tick for 3 s, cost the other 6 nothing", function () {
    const m = busy(6, 37);
    const entries0 = m.clients.map((c) => c.updateEntitiesReceived);
    const t0 = m.net.now;
    const base = rates(m, 3000);
    const baseEntries = m.clients.map((c, k) => ((c.updateEntitiesReceived - entries0[k]) * 1000) / (m.net.now - t0));
    // Acknowledge our Join (seqno 0) and leave: ack 0, reliable seqno 1 Disconnect.
    const ackAndLeave = hex("f27087c5 00000000 00000000 01 00", "00000001 66");
    const admitted: number[] = [];
    let port = 20000;
    const entries1 = m.clients.map((c) => c.updateEntitiesReceived);
    const t1 = m.net.now;
    let waited: number[] = [];
    const during = rates(m, 3000, () => {
      // The newcomers of two ticks ago have been sent their Join by now (on a tick on which
      // the world steps the server sends nothing; the next tick carries it).
      for (const p of waited) m.server.receive(ackAndLeave, ackAndLeave.length, "mem:churn", p);
      waited = admitted.splice(0);
      for (let k = 0; k < 2; k++) {
        m.server.receive(CONNECT, CONNECT.length, "mem:churn", port);
        admitted.push(port++);
      }
    });
    const duringEntries = m.clients.map((c, k) => ((c.updateEntitiesReceived - entries1[k]) * 1000) / (m.net.now - t1));
    assertRatesHeld(base, during, 6);
    assertNobodyLost(m, 6);
    const s = m.server.counters;
    // Admissions run at their rate (a full bucket, then four a second); the rest wait.
    assert.ok(s[Counter.Leaves] >= 15 && s[Counter.Leaves] <= 8 + 3 * 4 + 1, `${s[Counter.Leaves]} came and went`);
    assert.ok(s[Counter.AdmissionsDeferred] > 500, `${s[Counter.AdmissionsDeferred]} deferred`);
    // What the churn costs a steady player is its announcements: Join, Name, Selection and
    // Leave of each churner admitted, a few hundred bytes in all. (Entities per second are
    // no measure here: with the game on they move by a quarter between two quiet windows.)
    for (let k = 0; k < 6; k++) {
      const r = m.recorders[k];
      const about = r.count(Msg.Join) - 6 + r.count(Msg.Leave);
      assert.ok(about <= 2 * s[Counter.Leaves] + 4, `player ${k}: ${about} Joins and Leaves for ${s[Counter.Leaves]} churners`);
      assert.ok(duringEntries[k] > 0 && baseEntries[k] > 0);
    }
  });

  it("a maximum chat burst: one player sends 30 chats of 127 characters back to back; the rest are refused at the source", function () {
    const m = busy(8, 34);
    const base = rates(m, 3000);
    const line = (n: number): string => `${n} `.padEnd(127, "#");
    let queued = 0;
    const during = rates(m, 4000, () => {
      while (queued < 30 && m.clients[0].chat(line(queued))) queued++;
    });
    assert.equal(queued, 30);
    assertRatesHeld(base, during, 8);
    m.run(1000);
    assertNobodyLost(m, 8);
    const s = m.server.counters;
    assert.ok(s[Counter.Refused] > 0, "chats too close together were refused");
    const accepted = 30 - s[Counter.Refused];
    for (const r of m.recorders) assert.equal(r.count(Msg.Chat, m.clients[0].selfId), accepted);
  });

  it("rename storms: every player renames every 10 ms for 5 s, to names that collide; names stay unique and everyone agrees", function () {
    const m = busy(8, 35);
    const base = rates(m, 3000);
    const long = "Commander of the Outer Rim ";
    let n = 0;
    const during = rates(m, 5000, () => {
      for (const c of m.clients) c.rename(`${long}${n++ % 3}`.slice(0, 31));
    });
    assertRatesHeld(base, during, 8);
    m.run(1500);
    assertNobodyLost(m, 8);
    assert.ok(m.server.counters[Counter.Refused] > 1000, `${m.server.counters[Counter.Refused]} refused`);
    const names: string[] = [];
    for (let s = 0; s < 8; s++) names.push(bytesToAscii(m.server.names, s * NAME_LENGTH, m.server.nameLength[s]));
    assert.equal(new Set(names.map((x) => x.toLowerCase())).size, 8, `unique: ${names.join(", ")}`);
    for (const c of m.clients)
      for (let s = 0; s < 8; s++) assert.equal(bytesToAscii(c.names, s * NAME_LENGTH, c.nameLength[s]), names[s]);
  });

  it("10,000 Connects from fresh ports in 2 s are each rejected, and the 8 players keep their Update rate", function () {
    const m = busy(8, 36);
    const base = rates(m, 2000);
    let port = 1024;
    const during = rates(m, 2000, () => burst(m, CONNECT, 50, (port += 50) - 50));
    assertRatesHeld(base, during, 8);
    assertNobodyLost(m, 8);
    assert.equal(m.server.counters[Counter.Rejects], 10_000);
    for (const r of m.recorders) assert.equal(r.count(Msg.Join), 8);
  });
});
