/**
 * The server's life cycle with a full house: 8 client-library players over a seeded
 * lossy link. Runs on Node like every test, and unchanged on XS (test/xs/suite.test.ts).
 */
import assert from "node:assert/strict";
import { ClientState, type Client } from "../../modules/client/client";
import { Counter } from "../../modules/protocol/counters";
import { MAX_PLAYERS, Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { bytesToAscii } from "../../modules/text";
import { TestMatch } from "../../harness/match";
import type { LinkOptions } from "../../harness/link";

const LOSSY: LinkOptions = { seed: 8, loss: 0.1, duplicate: 0.05, reorder: 0.1, delayMs: 2, jitterMs: 6, reorderMs: 20 };

function name(c: Client, slot: number): string {
  return bytesToAscii(c.names, slot * NAME_LENGTH, c.nameLength[slot]);
}

/** A match with 8 connected players on the lossy link, everyone's roster complete. */
function fullHouse(): TestMatch {
  const m = new TestMatch({}, LOSSY);
  for (let i = 0; i < MAX_PLAYERS; i++) m.client().connect();
  const ready = m.until(() => m.clients.every((c) => c.state === ClientState.Connected && c.playerCount() === MAX_PLAYERS), 5000);
  assert.ok(ready, `connected: ${m.clients.map((c) => `${c.state}/${c.playerCount()}`).join(" ")}`);
  return m;
}

/** Run until every client's reliable queue is empty (all acknowledged), then a little more. */
function settle(m: TestMatch): void {
  assert.ok(m.until(() => m.clients.every((c) => !c.isOpen() || c.endpoint.count === 0) && m.server.endpoints.every((e) => e.count === 0), 5000), "queues drained");
  m.run(300);
}

describe("server life cycle with 8 players over a lossy link", function () {
  it("all 8 join, each sees all 8 with their default names, and a 9th is rejected", function () {
    const m = fullHouse();
    assert.equal(m.server.playerCount(), 8);
    assert.equal(m.server.counters[Counter.Joins], 8);
    const slots = m.clients.map((c) => c.selfSlot).sort((a, b) => a - b);
    assert.deepEqual(slots, [0, 1, 2, 3, 4, 5, 6, 7]);
    for (const c of m.clients) {
      for (const other of m.clients) {
        assert.equal(c.playerIds[other.selfSlot], other.selfId);
        assert.equal(name(c, other.selfSlot), `Player ${other.selfSlot + 1}`);
      }
    }
    // Each learned every player exactly once: Join(self) first, then the 7 others.
    for (const r of m.recorders) {
      assert.equal(r.count(Msg.Join), 8);
      assert.equal(r.types[0], Msg.Join);
    }
    const ninth = m.client();
    ninth.connect();
    assert.ok(m.until(() => ninth.state === ClientState.Rejected, 3000), "the 9th is rejected");
    assert.equal(ninth.rejectReason, 1);
    m.run(200);
    assert.equal(m.server.playerCount(), 8);
    for (const r of m.recorders.slice(0, 8)) assert.equal(r.count(Msg.Join), 8, "nobody saw a Join for the 9th");
  });

  it("renames, selections and chats from all 8 reach every player exactly once, in one order", function () {
    const m = fullHouse();
    const names = ["Ace", "Nova", "Comet", "Pulsar", "Quasar", "Orbit", "Vega", "Rigel"];
    for (let i = 0; i < 8; i++) {
      const c = m.clients[i];
      assert.ok(c.rename(names[i]));
      assert.ok(c.select(i % 3, (i + 1) % 3));
      assert.ok(c.chat(`hello from ${names[i]}`));
    }
    // Two at once with the same name (in any case): whichever the server takes second gets a suffix.
    // Past the per-player interval between renames.
    m.run(600);
    assert.ok(m.clients[0].rename("STAR"));
    assert.ok(m.clients[1].rename("star"));
    settle(m);
    const first = m.recorders[0];
    const chatOrder = first.ids.filter((_id, k) => first.types[k] === Msg.Chat);
    assert.equal(chatOrder.length, 8);
    assert.deepEqual([...chatOrder].sort((a, b) => a - b), m.clients.map((c) => c.selfId).sort((a, b) => a - b));
    for (const [k, r] of m.recorders.entries()) {
      const c = m.clients[k];
      const chats = r.ids.filter((_id, j) => r.types[j] === Msg.Chat);
      assert.deepEqual(chats, chatOrder, `player ${k} saw every chat once, in the server's order`);
      for (let i = 0; i < 8; i++) {
        const other = m.clients[i];
        // Default name, then one rename each; players 0 and 1 renamed twice.
        assert.equal(r.count(Msg.Name, other.selfId), i < 2 ? 3 : 2, `player ${k} saw player ${i}'s names`);
        assert.equal(r.count(Msg.Selection, other.selfId), 2, `player ${k} saw player ${i}'s selections`);
        assert.equal(c.ship[other.selfSlot], i % 3);
        assert.equal(c.weapon[other.selfSlot], (i + 1) % 3);
        if (i >= 2) assert.equal(name(c, other.selfSlot), names[i]);
      }
      const star = [name(c, m.clients[0].selfSlot), name(c, m.clients[1].selfSlot)].sort();
      // Which of the two the server processed first depends on the lossy link.
      assert.ok(
        JSON.stringify(star) === JSON.stringify(["STAR", "star-2"].sort()) ||
          JSON.stringify(star) === JSON.stringify(["STAR-2", "star"].sort()),
        `a taken name gets a suffix: ${star}`,
      );
    }
    assert.equal(m.server.counters[Counter.Misbehaviour], 0);
    assert.ok(m.net.lost > 0 && m.net.duplicated > 0 && m.net.reordered > 0, "the link was lossy");
  });

  it("inputs from all 8 reach the server, and Update and Stats reach every player", function () {
    const m = fullHouse();
    for (let i = 0; i < 8; i++) m.clients[i].setInput(1 + (i % 31));
    const u0 = m.clients.map((c) => c.updatesReceived);
    const s0 = m.clients.map((c) => c.statsReceived);
    m.run(4000);
    for (let i = 0; i < 8; i++) {
      const c = m.clients[i];
      assert.equal(m.server.input[c.selfSlot], 1 + (i % 31));
      // 15 Hz and 2 Hz, less what the 10% loss takes.
      const ups = (c.updatesReceived - u0[i]) / 4;
      const sps = (c.statsReceived - s0[i]) / 4;
      assert.ok(ups >= 11 && ups <= 16, `player ${i}: Update ${ups}/s`);
      assert.ok(sps >= 1.25 && sps <= 2.25, `player ${i}: Stats ${sps}/s`);
    }
  });

  it("all 8 leave cleanly: each Disconnect is acknowledged, the others get one Leave each", function () {
    const m = fullHouse();
    settle(m);
    const ids = m.clients.map((c) => c.selfId);
    for (let i = 0; i < 8; i++) {
      m.clients[i].disconnect();
      m.run(150);
    }
    assert.ok(m.until(() => m.clients.every((c) => c.state !== ClientState.Disconnecting), 3000));
    // The server's ack of a Disconnect can be lost; the client then closes after DISCONNECT_WAIT_MS.
    for (const c of m.clients) assert.equal(c.state, ClientState.Closed);
    assert.equal(m.server.playerCount(), 0);
    assert.equal(m.server.counters[Counter.Leaves], 8);
    assert.equal(m.server.counters[Counter.Timeouts] + m.server.counters[Counter.Kicks], 0);
    for (let k = 0; k < 8; k++) {
      const r = m.recorders[k];
      // Player k was still there when players 0..k-1 left.
      for (let i = 0; i < k; i++) assert.equal(r.count(Msg.Leave, ids[i]), 1, `player ${k} saw player ${i} leave once`);
    }
  });
});
