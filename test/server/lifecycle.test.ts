import assert from "node:assert/strict";
import { ClientState } from "../../modules/client/client";
import { Counter } from "../../modules/protocol/counters";
import { Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { NO_PLAYER } from "../../modules/game/entities";
import { headerAck, headerRel } from "../../modules/protocol/codec";
import { setU32 } from "../../modules/protocol/bytes";
import { LogEvent, KickReason } from "../../modules/server/events";
import { LEFT_MEMORY_MS } from "../../modules/server/admission";
import { bytesToAscii } from "../../modules/text";
import { TestMatch, SERVER_ADDRESS, SERVER_PORT } from "../../harness/match";
import type { Client } from "../../modules/client/client";
import { fromWu } from "../../modules/units";

function name(c: Client, slot: number): string {
  return bytesToAscii(c.names, slot * NAME_LENGTH, c.nameLength[slot]);
}

/** A peer that sends raw byte literals and keeps what it gets back. */
function rawPeer(m: TestMatch, port: number): { send: (bytes: number[]) => void; got: Uint8Array[] } {
  const h = m.net.host("mem:raw", port);
  const got: Uint8Array[] = [];
  h.core = { receive: (b, len) => void got.push(b.slice(0, len)), tick: () => {} };
  return { send: (bytes) => h.send(Uint8Array.from(bytes), bytes.length, SERVER_ADDRESS, SERVER_PORT), got };
}

const CONNECT = [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 101];

describe("server life cycle", function () {
  it("sends Join(self), Name(self), Selection(self), then each other player's Join/Name/Selection, then Adds", function () {
    const m = new TestMatch();
    const a = m.join();
    const b = m.join();
    for (let i = 0; i < 3; i++) m.server.entities.add(2, NO_PLAYER, fromWu(i * 10), 0);
    m.run(200);
    const c = m.join();
    m.run(500);
    const r = m.recorders[2];
    const ids = r.ids;
    assert.deepEqual(r.types.slice(0, 12), [
      Msg.Join, Msg.Name, Msg.Selection,
      Msg.Join, Msg.Name, Msg.Selection,
      Msg.Join, Msg.Name, Msg.Selection,
      Msg.Add, Msg.Add, Msg.Add,
    ]);
    assert.equal(ids[0], c.selfId);
    assert.equal(ids[1], c.selfId);
    assert.equal(ids[2], c.selfId);
    assert.deepEqual([ids[3], ids[6]], [a.selfId, b.selfId]);
    assert.equal(c.entityCount, 3);
    assert.equal(name(c, c.selfSlot), "Player 3");
    // The others learn the newcomer: Join, Name, Selection.
    for (const old of [0, 1]) {
      const t = m.recorders[old];
      let k = 0;
      while (!(t.types[k] === Msg.Join && t.ids[k] === c.selfId)) k++;
      assert.deepEqual(t.types.slice(k, k + 3), [Msg.Join, Msg.Name, Msg.Selection]);
      assert.equal(m.clients[old].playerCount(), 3);
    }
    assert.equal(c.selfId & 0xffff, 2, "player id index is the slot");
  });

  it("a newcomer is fully synced within 1 s with 200 entities on a loss-free LAN", function () {
    const m = new TestMatch({ maxEntities: 256 });
    for (let i = 0; i < 200; i++) m.server.entities.add(3, NO_PLAYER, fromWu(i), fromWu(-i));
    const c = m.client();
    c.connect();
    const start = m.net.now;
    assert.ok(m.until(() => c.entityCount === 200, 1000), `synced only ${c.entityCount} of 200`);
    assert.ok(m.net.now - start <= 1000);
    m.run(300);
    assert.equal(c.unknownEntities, 0, "no Update arrived for an entity before its Add");
    const i = 150;
    assert.equal(c.x[i], i);
    assert.equal(c.y[i], -i);
  });

  it("rejects a client with Reject(1) when full, and creates nothing", function () {
    const m = new TestMatch({ maxPlayers: 2 });
    m.join();
    m.join();
    const third = m.client();
    third.connect();
    m.run(300);
    assert.equal(third.state, ClientState.Rejected);
    assert.equal(third.rejectReason, 1);
    assert.equal(m.server.playerCount(), 2);
    assert.ok(m.server.counters[Counter.Rejects] >= 1);
    assert.equal(m.clients[0].playerCount(), 2, "nobody saw a Join for the rejected client");
  });

  it("the Reject packet is alone, unreliable, with ack 0xFFFFFFFF", function () {
    const m = new TestMatch({ maxPlayers: 1 });
    m.join();
    const raw = rawPeer(m, 9);
    raw.send(CONNECT);
    m.run(50);
    assert.equal(raw.got.length, 1);
    const p = raw.got[0];
    assert.deepEqual(Array.from(p), [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, p[8], p[9], p[10], p[11], 0, 1, Msg.Reject, 1]);
  });

  it("a resent Connect never creates a second player", function () {
    const m = new TestMatch();
    const raw = rawPeer(m, 9);
    raw.send(CONNECT);
    raw.send(CONNECT);
    m.run(50);
    raw.send(CONNECT);
    m.run(50);
    assert.equal(m.server.playerCount(), 1);
    assert.equal(m.server.counters[Counter.Joins], 1);
    assert.equal(m.server.counters[Counter.DuplicateReliable], 2);
    // Every answer acks seqno 0 and starts with Join(self) at seqno 0.
    const p = raw.got[raw.got.length - 1];
    assert.equal(headerAck(p), 0);
    assert.ok(headerRel(p) >= 3);
    assert.equal(p[14 + 4], Msg.Join);
  });

  it("address and port identify a peer: a packet from elsewhere never acts for a player", function () {
    const m = new TestMatch();
    const a = m.join();
    const raw = rawPeer(m, 9);
    // A Name for player a's id, from another port, without Connect: unknown peer.
    const id = a.selfId;
    const pkt = [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 109, id >>> 24, (id >>> 16) & 255, (id >>> 8) & 255, id & 255];
    for (let i = 0; i < 32; i++) pkt.push(i < 4 ? 0x45 : 0);
    raw.send(pkt);
    m.run(100);
    assert.equal(m.server.counters[Counter.UnknownPeer], 1);
    assert.equal(name(a, a.selfSlot), "Player 1");
  });

  it("packets from a player that just left count as afterLeave, a stranger's and later ones as unknownPeer", function () {
    const m = new TestMatch();
    const raw = rawPeer(m, 9);
    raw.send(CONNECT);
    m.run(50);
    assert.equal(m.server.playerCount(), 1);
    assert.ok(m.server.disconnectPeer("mem:raw", 9), "the raw peer was a player");
    m.run(50);
    assert.equal(m.server.playerCount(), 0);
    const input = [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 0, 1, Msg.Input, 1, 0, 0, 0, 0];
    raw.send(input);
    m.run(50);
    assert.equal(m.server.counters[Counter.AfterLeave], 1, "its packet still in flight");
    assert.equal(m.server.counters[Counter.UnknownPeer], 0);
    rawPeer(m, 10).send(input);
    m.run(50);
    assert.equal(m.server.counters[Counter.UnknownPeer], 1, "the same address from another port is a stranger");
    m.run(LEFT_MEMORY_MS);
    raw.send(input);
    m.run(50);
    assert.equal(m.server.counters[Counter.AfterLeave], 1);
    assert.equal(m.server.counters[Counter.UnknownPeer], 2, "long after it left, a stranger again");
  });

  it("drops and counts a Chat, Name or Selection naming another player's id", function () {
    const m = new TestMatch();
    const a = m.join();
    const b = m.join();
    const text = Uint8Array.from([0x68, 0x69]);
    // Chat from a, claiming to be b.
    let o = a.queueRaw(Msg.Chat, 7);
    setU32(a.endpoint.buf, o, b.selfId);
    a.endpoint.buf.set([text[0], text[1], 0], o + 4);
    o = a.queueRaw(Msg.Selection, 6);
    setU32(a.endpoint.buf, o, b.selfId);
    o = a.queueRaw(Msg.Name, 36);
    setU32(a.endpoint.buf, o, b.selfId);
    a.endpoint.buf.fill(0, o + 4, o + 36);
    a.endpoint.buf[o + 4] = 0x58;
    m.run(300);
    assert.equal(m.server.counters[Counter.SpoofedId], 3);
    assert.equal(m.server.counters[Counter.Misbehaviour], 3);
    assert.equal(m.server.misbehaviour[a.selfSlot], 1, "three strikes in one window count once");
    assert.equal(m.recorders[1].count(Msg.Chat), 0);
    assert.equal(name(b, b.selfSlot), "Player 2");
  });

  it("makes a taken name unique with a suffix and broadcasts the final name to all", function () {
    const m = new TestMatch();
    const a = m.join();
    const b = m.join();
    const c = m.join();
    a.rename("Ace");
    m.run(200);
    b.rename("ace");
    m.run(200);
    c.rename("Player 1");
    m.run(200);
    for (const x of [a, b, c]) {
      assert.equal(name(x, a.selfSlot), "Ace");
      assert.equal(name(x, b.selfSlot), "ace-2");
      assert.equal(name(x, c.selfSlot), "Player 1");
    }
    assert.equal(m.recorders[2].count(Msg.Name, b.selfId), 2, "c saw b's default name and its rename");
  });

  it("rejects names that are empty or not printable ASCII", function () {
    const m = new TestMatch();
    const a = m.join();
    const o = a.queueRaw(Msg.Name, 36);
    setU32(a.endpoint.buf, o, a.selfId);
    a.endpoint.buf.fill(0, o + 4, o + 36);
    a.endpoint.buf[o + 4] = 0x07;
    m.run(200);
    assert.equal(m.server.counters[Counter.BadName], 1);
    assert.equal(name(a, a.selfSlot), "Player 1");
  });

  it("broadcasts valid Selections to all and drops out-of-range ones", function () {
    const m = new TestMatch({ shipTypes: 3, weaponTypes: 2 });
    const a = m.join();
    const b = m.join();
    a.select(2, 1);
    m.run(200);
    assert.equal(b.ship[a.selfSlot], 2);
    assert.equal(b.weapon[a.selfSlot], 1);
    assert.equal(a.ship[a.selfSlot], 2);
    a.select(3, 0);
    a.select(0, 2);
    m.run(200);
    assert.equal(m.server.counters[Counter.BadSelection], 2);
    assert.equal(b.ship[a.selfSlot], 2);
    assert.equal(m.server.ship[a.selfSlot], 2);
  });

  it("broadcasts Chat to all players, the sender included, under the sender's id", function () {
    const m = new TestMatch();
    const a = m.join();
    m.join();
    m.join();
    assert.ok(a.chat("gl hf"));
    m.run(200);
    for (const r of m.recorders) assert.equal(r.count(Msg.Chat, a.selfId), 1);
    assert.equal(bytesToAscii(m.server.lastChat, 0, m.server.lastChatLength), "gl hf");
  });

  it("on Disconnect, others get Leave and the player's entities are removed", function () {
    const m = new TestMatch();
    const a = m.join();
    const b = m.join();
    m.server.entities.add(1, a.selfId, fromWu(5), fromWu(5));
    m.server.entities.add(1, a.selfId, fromWu(6), fromWu(6));
    m.server.entities.add(1, b.selfId, fromWu(7), fromWu(7));
    m.run(200);
    assert.equal(b.entityCount, 3);
    a.disconnect();
    m.run(300);
    assert.equal(a.state, ClientState.Closed, "the server acknowledged the Disconnect");
    assert.equal(m.server.playerCount(), 1);
    assert.equal(m.recorders[1].count(Msg.Leave, a.selfId), 1);
    assert.equal(m.recorders[1].count(Msg.Remove), 2);
    assert.equal(b.entityCount, 1);
    assert.equal(b.playerCount(), 1);
    // The slot is reused with a new generation.
    const c = m.join();
    assert.equal(c.selfSlot, a.selfSlot);
    assert.notEqual(c.selfId, a.selfId);
    assert.equal(c.selfId >>> 16, (a.selfId >>> 16) + 1);
  });

  it("a slot's generation wraps from 65535 to 1, never 0: a player id is never 0 and an old one never names a newcomer", function () {
    const m = new TestMatch();
    m.server.generation[0] = 0xfffe;
    const a = m.join();
    assert.equal(a.selfId, 0xffff0000);
    a.disconnect();
    m.run(200);
    const b = m.join();
    assert.equal(b.selfSlot, 0);
    assert.equal(b.selfId, 0x00010000, "generation 1 after 65535");
    assert.notEqual(b.selfId, a.selfId);
    assert.equal(m.server.playerId(0), 0x00010000);
  });

  it("drops a client silent for timeoutMs, with Leave to the others", function () {
    const m = new TestMatch({ timeoutMs: 15000 });
    const a = m.join();
    const b = m.join();
    m.hosts[0].core = null; // a falls silent (and deaf)
    m.run(14000);
    assert.equal(m.server.playerCount(), 2, "not yet");
    m.run(1500);
    assert.equal(m.server.playerCount(), 1);
    assert.equal(m.server.counters[Counter.Timeouts], 1);
    assert.equal(m.recorders[1].count(Msg.Leave, a.selfId), 1);
    assert.equal(b.state, ClientState.Connected, "empty Updates kept b alive meanwhile");
  });

  it("a burst of bad messages is one strike; a sustained pattern kicks: Leave(own id) to it, Leave to the others", function () {
    const m = new TestMatch({ misbehaviourLimit: 4 });
    const a = m.join();
    const b = m.join();
    for (let i = 0; i < 20; i++) a.select(9, 9);
    m.run(300);
    assert.equal(a.state, ClientState.Connected, "a burst is not a pattern");
    assert.equal(m.server.misbehaviour[a.selfSlot], 1);
    for (let i = 0; i < 20 && a.state === ClientState.Connected; i++) {
      a.select(9, 9);
      m.run(300);
    }
    assert.equal(a.state, ClientState.Kicked);
    assert.equal(m.server.counters[Counter.Kicks], 1);
    assert.equal(m.recorders[1].count(Msg.Leave, a.selfId), 1);
    assert.equal(m.server.playerCount(), 1);
    const log = m.serverHost.logEvents;
    const k = log.indexOf(LogEvent.Kick);
    assert.ok(k >= 0 && log[k + 2] === KickReason.Misbehaviour);
    assert.equal(b.state, ClientState.Connected);
  });

  it("a player that stops acknowledging holds nobody's chat: every line reaches the others, and it is dropped", function () {
    const m = new TestMatch({ reliableQueueBytes: 1024, timeoutMs: 14000 });
    const a = m.join();
    const b = m.join();
    // a stops sending (so never acks) but still hears the server.
    const host = m.hosts[0];
    host.core = { receive: (bytes, len, addr, port) => a.receive(bytes, len, addr, port), tick: () => {} };
    for (let i = 0; i < 40 && b.isOpen(); i++) {
      b.chat(`spam line number ${i} with some padding to fill queues`);
      m.run(300);
    }
    assert.equal(m.server.counters[Counter.QueueOverflows], 0);
    assert.equal(m.server.counters[Counter.Kicks], 0);
    assert.equal(m.server.counters[Counter.Refused], 0, "no line refused for a's sake");
    m.run(3000);
    assert.equal(m.recorders[1].count(Msg.Chat), 40, "b got each of its 40 lines back once");
    assert.equal(m.server.counters[Counter.Timeouts], 1, "a is dropped");
    assert.equal(m.server.counters[Counter.Laggards] + m.server.counters[Counter.AckStalls], 1, "for lagging or for its stalled acknowledgements");
    assert.equal(m.recorders[1].count(Msg.Leave, a.selfId), 1);
    assert.equal(b.state, ClientState.Connected);
  });

  it("shutdown kicks everyone with one flushed packet each", function () {
    const m = new TestMatch();
    const cs = [m.join(), m.join(), m.join()];
    m.run(100);
    const before = m.serverHost.sentPackets;
    m.server.shutdown();
    assert.equal(m.serverHost.sentPackets - before, 3);
    m.run(100);
    for (const c of cs) assert.equal(c.state, ClientState.Kicked);
    assert.equal(m.server.playerCount(), 0);
    // Nothing is accepted after shutdown.
    const late = m.client();
    late.connect();
    m.run(200);
    assert.equal(m.server.playerCount(), 0);
  });

  it("sends Update at ~15 Hz (empty ones too) and Stats at ~2 Hz with pings per slot", function () {
    const m = new TestMatch();
    const a = m.join();
    const b = m.join();
    const u0 = a.updatesReceived;
    const s0 = a.statsReceived;
    m.run(10000);
    const ups = (a.updatesReceived - u0) / 10;
    const sps = (a.statsReceived - s0) / 10;
    assert.ok(ups >= 14 && ups <= 16, `Update rate ${ups}/s`);
    assert.ok(sps >= 1.8 && sps <= 2.2, `Stats rate ${sps}/s`);
    assert.ok(a.pings[a.selfSlot] > 0 && a.pings[b.selfSlot] > 0);
    for (let s = 2; s < 8; s++) assert.equal(a.pings[s], 0);
  });
});

describe("server: a peer lost by its transport", function () {
  it("disconnectPeer frees the slot and tells the others, like a Disconnect", function () {
    const m = new TestMatch();
    const a = m.join();
    const b = m.join();
    m.run(300);
    assert.equal(m.server.playerCount(), 2);
    const slot = a.selfSlot;
    assert.equal(m.server.disconnectPeer(m.server.address[slot], m.server.port[slot]), true);
    assert.equal(m.server.playerCount(), 1);
    assert.equal(m.server.disconnectPeer("nobody", 1), false);
    m.run(300);
    assert.equal(b.playerCount(), 1, "b saw a leave");
  });
});
