/**
 * Bad input at a Server, as byte literals: each class of malformed packet, unknown peers,
 * spoofed ids, bad names, selections and acks, with the exact counter it bumps, and proof
 * that it touched nobody else.
 */
import assert from "node:assert/strict";
import { FROM_SERVER, Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { getU32 } from "../../modules/protocol/bytes";
import { Counter, createCounters } from "../../modules/protocol/counters";
import { INPUT_FORWARD, INPUT_LEFT, INPUT_SHOOTING, headerRel, headerUnrel, validatePacket } from "../../modules/protocol/codec";
import { Server } from "../../modules/server/server";
import { makeConfig, type Config } from "../../modules/config";
import { drops, hex, text } from "../helpers/bytes";
import { FakeHost } from "../helpers/fake-host";

const A = "10.0.0.1";
const B = "10.0.0.2";
const PORT = 40000;
const CONNECT = hex("f27087c5 ffffffff 00000000 01 00", "00000000 65");

function server(overrides?: Partial<Config>): { s: Server; host: FakeHost } {
  const host = new FakeHost();
  return { s: new Server(makeConfig(overrides), host), host };
}

/** A server with player A in slot 0 (id 00010000) and B in slot 1 (id 00010001). */
function twoPlayers(): { s: Server; host: FakeHost } {
  const r = server();
  r.s.receive(CONNECT, CONNECT.length, A, PORT);
  r.s.receive(CONNECT, CONNECT.length, B, PORT);
  assert.equal(r.s.playerCount(), 2);
  assert.equal(r.s.playerId(0), 0x00010000);
  assert.equal(r.s.playerId(1), 0x00010001);
  return r;
}

/** Everything the server keeps about one player. */
function snapshot(s: Server, slot: number): unknown {
  const ep = s.endpoints[slot];
  return {
    active: s.active[slot], generation: s.generation[slot], address: s.address[slot], port: s.port[slot],
    name: Array.from(s.names.subarray(slot * NAME_LENGTH, (slot + 1) * NAME_LENGTH)), nameLength: s.nameLength[slot],
    ship: s.ship[slot], weapon: s.weapon[slot], input: s.input[slot], misbehaviour: s.misbehaviour[slot],
    known: Array.from(s.known.subarray(slot * s.entities.capacity, (slot + 1) * s.entities.capacity)),
    queue: Array.from(ep.buf.subarray(0, ep.usedBytes)), count: ep.count, firstSeq: ep.firstSeq, nextSeq: ep.nextSeq,
    lastProcessed: ep.lastProcessed, newestTimestamp: ep.newestTimestamp, lastHeard: ep.lastHeard, srtt: ep.srtt,
  };
}

describe("server: bad input is dropped, counted, and touches nobody else", () => {
  it("the first packet to a newcomer is Join, Name, Selection of itself, then Stats and Update", () => {
    const { s, host } = server();
    s.receive(CONNECT, CONNECT.length, A, PORT);
    assert.equal(host.sent.length, 0, "nothing is sent before the tick");
    s.tick(0);
    const golden = hex(
      "f27087c5 00000000 00000000 03 02", //   ack 0 (the Connect), rel 3, unrel 2
      "00000000 67 00010000", //               Join
      "00000001 6d 00010000 506c61796572 2031", "00".repeat(24), // Name "Player 1"
      "00000002 6c 00010000 00 00", //         Selection ship 0, weapon 0
      "c9", "00".repeat(32), //                Stats: no scores, no ping sample yet
      "ca 00", //                              Update with no entities
    );
    assert.equal(host.sent.length, 1);
    assert.deepEqual(host.sent[0], { bytes: golden, address: A, port: PORT });
  });

  it("a full server answers Connect with Reject(1), alone, with ack 0xFFFFFFFF", () => {
    const { s, host } = server({ maxPlayers: 1 });
    s.receive(CONNECT, CONNECT.length, A, PORT);
    host.t = 2500;
    s.receive(CONNECT, CONNECT.length, B, PORT);
    assert.equal(s.playerCount(), 1);
    assert.equal(host.sent.length, 1);
    assert.deepEqual(host.sent[0], { bytes: hex("f27087c5 ffffffff 000009c4 00 01", "cc 01"), address: B, port: PORT });
    assert.equal(s.counters[Counter.Rejects], 1);
    assert.equal(s.counters[Counter.Joins], 1);
  });

  it("unknownPeer: Input from an address that never connected", () => {
    const { s, host } = server();
    const p = hex("f27087c5 ffffffff 00000000 00 01", "cb 0100000000");
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { unknownPeer: 1 });
    assert.equal(s.playerCount(), 0);
    s.tick(0);
    assert.equal(host.sent.length, 0);
  });

  it("unknownPeer: a reliable message other than Connect, or Connect with seqno 1", () => {
    const { s } = server();
    const chat = hex("f27087c5 ffffffff 00000000 01 00", "00000000 69 00010000 686900");
    const late = hex("f27087c5 ffffffff 00000000 01 00", "00000001 65");
    s.receive(chat, chat.length, A, PORT);
    s.receive(late, late.length, A, PORT);
    assert.deepEqual(drops(s.counters), { unknownPeer: 2 });
    assert.equal(s.playerCount(), 0);
  });

  it("unknownPeer: a known address from another port", () => {
    const { s } = twoPlayers();
    const p = hex("f27087c5 ffffffff 00000000 00 01", "cb 0100000000");
    s.receive(p, p.length, A, PORT + 1);
    assert.deepEqual(drops(s.counters), { unknownPeer: 1 });
    assert.equal(s.input[0], 0);
  });

  it("a malformed Connect creates nobody", () => {
    const { s } = server();
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000000 65", "01");
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { trailingBytes: 1 });
    assert.equal(s.playerCount(), 0);
  });

  it("a resent Connect is a duplicate and creates no second player", () => {
    const { s } = server();
    s.receive(CONNECT, CONNECT.length, A, PORT);
    s.receive(CONNECT, CONNECT.length, A, PORT);
    assert.equal(s.playerCount(), 1);
    assert.equal(s.counters[Counter.Joins], 1);
    assert.deepEqual(drops(s.counters), { duplicateReliable: 1 });
  });

  it("spoofedId: Chat naming another player is dropped, not broadcast", () => {
    const { s } = twoPlayers();
    const before = snapshot(s, 1);
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000001 69 00010001 686900"); // A claims B's id
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { spoofedId: 1 });
    assert.equal(s.counters[Counter.Misbehaviour], 1);
    assert.equal(s.misbehaviour[0], 1);
    assert.equal(s.endpoints[0].lastProcessed, 1, "the message is consumed, so the client stops resending it");
    assert.deepEqual(snapshot(s, 1), before);
  });

  it("spoofedId: Name and Selection naming another player", () => {
    const { s } = twoPlayers();
    const before = snapshot(s, 1);
    const p = hex(
      "f27087c5 ffffffff 00000000 02 00",
      "00000001 6d 00010001 4576696c00", "00".repeat(27), // Name "Evil" for B
      "00000002 6c 00010001 02 02", //                      Selection for B
    );
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { spoofedId: 2 });
    assert.equal(s.counters[Counter.Misbehaviour], 2);
    assert.equal(s.misbehaviour[0], 1, "two strikes in one window count once");
    assert.deepEqual(snapshot(s, 1), before);
  });

  it("badChat: a Chat with a control byte", () => {
    const { s } = twoPlayers();
    const before = snapshot(s, 1);
    const queued = s.endpoints[1].count;
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000001 69 00010000 68076900"); // "h\ai"
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badChat: 1 });
    assert.equal(s.misbehaviour[0], 1);
    assert.equal(s.endpoints[1].count, queued, "no Chat broadcast");
    assert.deepEqual(snapshot(s, 1), before);
  });

  it("badChat: 0x7f, 0x80 or 0xff anywhere in a 9-character line", () => {
    for (const bad of [0x7f, 0x80, 0xff]) {
      for (let at = 0; at < 9; at++) {
        const { s } = twoPlayers();
        const line = Array.from({ length: 9 }, (_, i) => (i === at ? bad : 0x61 + i).toString(16).padStart(2, "0")).join("");
        const p = hex("f27087c5 ffffffff 00000000 01 00", "00000001 69 00010000", line, "00");
        s.receive(p, p.length, A, PORT);
        assert.deepEqual(drops(s.counters), { badChat: 1 }, `0x${bad.toString(16)} at ${at}`);
      }
    }
  });

  it("badChat: an empty Chat", () => {
    const { s } = twoPlayers();
    const queued = s.endpoints[1].count;
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000001 69 00010000 00");
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badChat: 1 });
    assert.equal(s.misbehaviour[0], 1);
    assert.equal(s.endpoints[1].count, queued, "no Chat broadcast");
  });

  it("badName: a Name with a non-printable byte", () => {
    const { s } = twoPlayers();
    const before = snapshot(s, 1);
    const queued = s.endpoints[0].count;
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000001 6d 00010000 610762", "00".repeat(29));
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badName: 1 });
    assert.equal(s.misbehaviour[0], 1);
    assert.equal(text(s.names, 0, s.nameLength[0]), "Player 1");
    assert.equal(s.endpoints[0].count, queued, "no Name broadcast");
    assert.deepEqual(snapshot(s, 1), before);
  });

  it("badName: an empty Name", () => {
    const { s } = twoPlayers();
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000001 6d 00010000", "00".repeat(32));
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badName: 1 });
    assert.equal(s.nameLength[0], 8);
  });

  it("badSelection: ship or weapon beyond the configured templates", () => {
    const { s } = twoPlayers();
    const before = snapshot(s, 1);
    const p = hex(
      "f27087c5 ffffffff 00000000 02 00",
      "00000001 6c 00010000 03 00", // 3 ship types: 0..2
      "00000002 6c 00010000 00 03",
    );
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badSelection: 2 });
    assert.equal(s.misbehaviour[0], 1, "two strikes in one window count once");
    assert.deepEqual([s.ship[0], s.weapon[0]], [0, 0]);
    assert.deepEqual(snapshot(s, 1), before);
  });

  it("a valid Selection is applied (the control for badSelection)", () => {
    const { s } = twoPlayers();
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000001 6c 00010000 02 02");
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), {});
    assert.deepEqual([s.ship[0], s.weapon[0]], [2, 2]);
  });

  it("badAck: an ack of a seqno never sent drops the whole packet", () => {
    const { s } = twoPlayers();
    s.tick(0);
    const before = snapshot(s, 0);
    // A has been sent seqnos 0..5; it acks 16 and sends a Chat with it.
    const p = hex("f27087c5 00000010 00000000 01 00", "00000001 69 00010000 686900");
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badAck: 1 });
    assert.equal(s.misbehaviour[0], 1);
    assert.deepEqual(snapshot(s, 0), Object.assign({}, before as object, { misbehaviour: 1 }));
  });

  it("badAck: an ack of a seqno queued but not yet sent", () => {
    const { s } = twoPlayers();
    // Nothing has been sent: the queue holds seqnos 0..2 for A (its own Join, Name and
    // Selection; B is not announced before it acknowledges its Join).
    const p = hex("f27087c5 00000001 00000000 00 00");
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badAck: 1 });
    assert.equal(s.endpoints[0].count, 3);
    s.tick(0);
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { badAck: 1 }, "once sent, the same ack is good");
    assert.equal(s.endpoints[0].count, 1);
  });

  it("malformed packets from a player's address are counted by reason and strike nobody", () => {
    const { s } = twoPlayers();
    const bad = [
      hex("f27087c5 ffffffff 00000000 00 01", "cb 0100000000 01"),
      hex("f27087c4 ffffffff 00000000 00 00"),
      hex("f27087c5 ffffffff 00000000 00 01", "ca 00"),
    ];
    for (const p of bad) s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { trailingBytes: 1, badAppId: 1, wrongDirection: 1 });
    // Anyone can send garbage naming a player's address: only a valid packet can strike.
    assert.equal(s.misbehaviour[0], 0);
    assert.equal(s.misbehaviour[1], 0);
  });

  it("a flood of bad packets from one player leaves the other's state alone", () => {
    const { s, host } = twoPlayers();
    s.tick(0);
    const good = hex("f27087c5 00000002 00000064 00 01", "cb 0100000001"); // ack all 3, forward + shooting
    s.receive(good, good.length, B, PORT);
    const before = snapshot(s, 1);
    const bad = [
      hex("f27087c5 ffffffff 00000000 00 01", "cb 0100000000 01"),
      hex("f27087c5 ffffffff 00000000 00"),
      hex("f27087c5 ffffffff 00000000 01 00", "00000001 69 00010001 686900"),
      hex("f27087c5 ffffffff 00000000 01 00", "00000000 69 00010000 6869"),
      hex("f27087c5 ffffffff 00000000 01 00", "00000002 6c 00010001 02 02"),
    ];
    for (const p of bad) s.receive(p, p.length, A, PORT);
    assert.deepEqual(snapshot(s, 1), before);
    assert.equal(s.input[1], INPUT_FORWARD | INPUT_SHOOTING);
    // The malformed three strike nobody; the two spoofed ones fall in one strike window.
    assert.equal(s.misbehaviour[0], 1);
    assert.deepEqual(drops(s.counters), { trailingBytes: 1, tooShort: 1, spoofedId: 2, unterminatedChat: 1 });
    // B keeps being served: its next Input is applied.
    const next = hex("f27087c5 00000002 000000c8 00 01", "cb 0000010000");
    s.receive(next, next.length, B, PORT);
    assert.equal(s.input[1], INPUT_LEFT);
    // Malformed floods never kick: however many, they strike nobody.
    for (let i = 0; i < 1000; i++) s.receive(bad[0], bad[0].length, A, PORT);
    assert.equal(s.active[0], 1);
    // Sustained spoofing does: one counted strike per window, one decays a second, 16 net.
    const spoof = (seq: number): Uint8Array =>
      hex("f27087c5 ffffffff 00000000 01 00", seq.toString(16).padStart(8, "0") + " 6c 00010001 02 02");
    // A completes its handshake (acks its Join), or it would be dropped after 3 s.
    const ackA = hex("f27087c5 00000002 00000064 00 00");
    s.receive(ackA, ackA.length, A, PORT);
    let seq = 3;
    let windows = 0;
    while (s.active[0] === 1 && windows < 100) {
      host.t += 300;
      s.tick(host.t);
      s.receive(spoof(seq), spoof(seq).length, A, PORT);
      seq++;
      windows++;
    }
    assert.equal(s.active[0], 0);
    // About 15 net strikes at +1 per 300 ms and -1 per second: some 21 spoofs.
    assert.ok(windows >= 18 && windows <= 26, `kicked after ${windows} spoofs 300 ms apart`);
    assert.equal(s.active[1], 1);
    assert.equal(s.counters[Counter.Kicks], 1);
    const last = host.sent[host.sent.length - 1];
    assert.equal(last.address, A);
    assert.equal(validatePacket(last.bytes, last.bytes.length, FROM_SERVER, createCounters()), true);
    assert.equal(headerUnrel(last.bytes), 0);
    const rel = headerRel(last.bytes);
    const end = last.bytes.length;
    assert.equal(last.bytes[end - 5], Msg.Leave, "the kick packet ends with Leave");
    assert.equal(getU32(last.bytes, end - 4), 0x00010000, "of A's own id");
    assert.ok(rel >= 1);
    // B learnt of A when A completed its handshake (Join, Name, Selection), then that it left.
    const ep = s.endpoints[1];
    assert.equal(ep.count, 4);
    assert.deepEqual([ep.buf[4], ep.buf[4 + 9]], [Msg.Join, Msg.Name]);
    const at = ep.usedBytes - 9;
    assert.equal(ep.buf[at + 4], Msg.Leave);
    assert.equal(getU32(ep.buf, at + 5), 0x00010000);
  });

  it("a timestamp far ahead, in a packet from a player's address that validates, does not stop its Input", () => {
    // Anyone can send a valid packet with a player's address, and a corrupted one can still
    // validate. If the server took its timestamp as the newest, every genuine Input after it
    // would be stale for weeks: the ship would stop (stale input) while the player plays on.
    const { s, host } = twoPlayers();
    s.tick(0);
    const input = (ts: number, bits: string): Uint8Array => hex("f27087c5 00000002", ts.toString(16).padStart(8, "0"), "00 01 cb", bits);
    const first = input(100, "0100000000");
    s.receive(first, first.length, A, PORT);
    assert.equal(s.input[0], INPUT_FORWARD);
    const forged = input(100 + 0x40000000, "0000000001");
    s.receive(forged, forged.length, A, PORT);
    for (let t = 150; t <= 1100; t += 50) {
      host.t = t;
      s.tick(t);
      const genuine = input(t, "0000010000");
      s.receive(genuine, genuine.length, A, PORT);
    }
    assert.equal(s.input[0], INPUT_LEFT, "the player's own Inputs steer again");
  });
});
