/**
 * The inputs that crashed the original C server stay covered: a reliable seqno 0 in an
 * established session; answers that would overflow 512 bytes (8 players with 31-character
 * names chatting 127 characters at once while the entity pool is full, and a kick that
 * flushes a full queue); more than 32 collisions in one game step.
 */
import assert from "node:assert/strict";
import { ClientState } from "../../modules/client/client";
import { Counter } from "../../modules/protocol/counters";
import { MAX_PACKET, Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { NO_PLAYER } from "../../modules/game/entities";
import { setU32 } from "../../modules/protocol/bytes";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { GameCounter } from "../../modules/game/game";
import { Kind, kindOf } from "../../modules/game/templates";
import { LogEvent } from "../../modules/server/events";
import { Server } from "../../modules/server/server";
import { makeConfig } from "../../modules/config";
import { bytesToAscii } from "../../modules/text";
import { fromWu } from "../../modules/units";
import { TestMatch } from "../../harness/match";
import { SentStreams } from "../helpers/streams";
import { drops, hex } from "../helpers/bytes";
import { FakeHost } from "../helpers/fake-host";

const A = "10.0.0.1";
const PORT = 40000;

describe("the C server's crash inputs: a reliable seqno 0 in an established session", function () {
  /** Player A (id 00010000) admitted, its Join acknowledged, and its chats #1 and #2 processed. */
  function established(): { s: Server; host: FakeHost } {
    const host = new FakeHost();
    const s = new Server(makeConfig(), host);
    const connect = hex("f27087c5 ffffffff 00000000 01 00", "00000000 65");
    s.receive(connect, connect.length, A, PORT);
    s.tick(0);
    const chats = hex("f27087c5 00000002 00000010 02 00", "00000001 69 00010000 6100", "00000002 69 00010000 6200");
    host.t = 300;
    s.receive(chats, chats.length, A, PORT);
    assert.equal(s.endpoints[0].lastProcessed, 2);
    assert.equal(s.counters[Counter.Refused], 0, "two chats at once are within the flood burst");
    assert.equal(s.counters[Counter.ReliableReceived], 3);
    return { s, host };
  }

  for (const [name, message] of [
    ["Connect", "00000000 65"],
    ["Disconnect", "00000000 66"],
    ["Chat", "00000000 69 00010000 7a00"],
    ["Name", "00000000 6d 00010000 5a" + "00".repeat(31)],
    ["Selection", "00000000 6c 00010000 02 02"],
  ] as const) {
    it(`${name} with seqno 0 is a duplicate: dropped, counted, acted on by nobody`, function () {
      const { s, host } = established();
      const before = { name: Array.from(s.names.subarray(0, NAME_LENGTH)), ship: s.ship[0], chat: s.lastChatLength, queued: s.endpoints[0].count };
      const p = hex("f27087c5 00000002 00000020 01 00", message);
      host.t = 900;
      s.receive(p, p.length, A, PORT);
      assert.deepEqual(drops(s.counters), { duplicateReliable: 1 });
      assert.equal(s.playerCount(), 1, "still there");
      assert.equal(s.counters[Counter.Joins], 1);
      assert.equal(s.endpoints[0].lastProcessed, 2);
      assert.deepEqual({ name: Array.from(s.names.subarray(0, NAME_LENGTH)), ship: s.ship[0], chat: s.lastChatLength, queued: s.endpoints[0].count }, before);
    });
  }

  it("a seqno 0 ahead of a new message in one packet: the duplicate is skipped, the new one processed", function () {
    const { s, host } = established();
    const p = hex("f27087c5 00000002 00000020 02 00", "00000000 66", "00000003 6c 00010000 01 02");
    host.t = 900;
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), { duplicateReliable: 1 });
    assert.equal(s.playerCount(), 1, "the Disconnect under seqno 0 did nothing");
    assert.deepEqual([s.ship[0], s.weapon[0]], [1, 2]);
    assert.equal(s.endpoints[0].lastProcessed, 3);
  });

  it("after the seqnos wrap, 0 is the next message again and is processed", function () {
    const { s } = established();
    s.endpoints[0].resetReceive(0);
    const p = hex("f27087c5 00000002 00000020 01 00", "00000000 6c 00010000 02 01");
    s.receive(p, p.length, A, PORT);
    assert.deepEqual(drops(s.counters), {});
    assert.deepEqual([s.ship[0], s.weapon[0]], [2, 1]);
  });
});

describe("the C server's crash inputs: answers that would overflow 512 bytes", function () {
  this.timeout(60_000);

  it("8 players with 31-character names chat 127 characters at once, over and over, while the pool is full; one of them is kicked with a full queue", function () {
    // No jitter: the kick's flush is sent once, and a client takes it only in order.
    const m = new TestMatch({ misbehaviourLimit: 2 }, { seed: 12, delayMs: 2 });
    const sent = new SentStreams(m.serverHost);
    const e = m.server.entities;
    for (let i = 0; e.add(4, NO_PLAYER, fromWu((i % 16) * 100), fromWu((i >> 4) * 100)) >= 0; i++);
    assert.equal(e.count, e.capacity, "the pool is full");
    for (let k = 0; k < 8; k++) m.client().connect();
    assert.ok(m.until(() => m.clients.every((c) => c.state === ClientState.Connected && c.entityCount === e.capacity), 10_000), "everyone in and synced");
    for (const [k, c] of m.clients.entries()) assert.ok(c.rename(`${"Wanderer of the Far Reach"}${k}`.padEnd(31, "~")));
    m.run(1000);
    for (let s = 0; s < 8; s++) assert.equal(m.server.nameLength[s], 31);
    const line = (k: number, n: number): string => `${k}:${n} `.padEnd(127, String.fromCharCode(0x41 + k));
    let rounds = 0;
    let queued = 0;
    /** Everyone (but the deaf) chats at once, the world churns: 20 entities removed and 20 added. */
    const round = (): void => {
      for (const [k, c] of m.clients.entries()) {
        if (m.hosts[k].deaf) continue;
        assert.ok(c.chat(line(k, rounds)), "queued");
        queued++;
      }
      for (let j = 0; j < 20; j++) {
        e.remove((rounds * 20 + j) % e.capacity);
        e.add(5, NO_PLAYER, fromWu(j * 50), fromWu(rounds * 10));
      }
      rounds++;
      m.run(260);
    };
    for (let t = 0; t < 5000; t += 260) round();
    const log = m.serverHost.logEvents;
    const chatsAccepted = (): number => {
      let n = 0;
      for (let i = 0; i < log.length; i += 3) if (log[i] === LogEvent.Chat) n++;
      return n;
    };
    assert.ok(chatsAccepted() >= 0.9 * queued, `${chatsAccepted()} of ${queued} chats went out`);
    // Player 7 stops acknowledging, and its queue fills with everyone's chats; what does
    // not fit waits in the broadcast ring (three rounds do not lap it), refused to nobody.
    const deaf = m.clients[7];
    m.hosts[7].deaf = true;
    for (let t = 0; t < 780; t += 260) round();
    const fullest = m.server.endpoints[deaf.selfSlot].usedBytes;
    assert.ok(fullest > m.config.reliableQueueBytes - 700, `the deaf player's queue holds ${fullest} bytes`);
    // It hears again but what it sends is lost. It sends two Selections that name another
    // player, in two strike windows; they reach the server as raw datagrams from its address
    // (ack none): it is kicked, its whole queue flushed.
    m.hosts[7].deaf = false;
    m.hosts[7].muted = true;
    for (let k = 0; k < 2; k++) {
      const seq = deaf.endpoint.nextSeq;
      setU32(deaf.endpoint.buf, deaf.queueRaw(Msg.Selection, 6), m.clients[0].selfId);
      m.run(10);
      const spoof = hex("f27087c5 ffffffff 00000000 01 00", seq.toString(16).padStart(8, "0"), "6c", m.clients[0].selfId.toString(16).padStart(8, "0"), "00 00");
      m.server.receive(spoof, spoof.length, m.hosts[7].address, m.hosts[7].port);
      m.run(300);
    }
    assert.equal(m.server.counters[Counter.Kicks], 1);
    assert.ok(m.until(() => m.server.endpoints.every((ep, s) => m.server.active[s] === 0 || ep.count === 0), 5000), "queues drained");
    m.run(300);

    assert.ok(sent.longest <= MAX_PACKET && sent.longest > MAX_PACKET - 140, `longest packet ${sent.longest} bytes`);
    assert.equal(sent.invalid, 0, "every packet the server sent was valid");
    const s = m.server.counters;
    assert.equal(s[Counter.QueueOverflows], 0);
    const accepted = chatsAccepted();
    assert.equal(accepted + s[Counter.Refused], queued, "each chat accepted or refused at its source");
    for (let k = 0; k < 7; k++) {
      const c = m.clients[k];
      assert.equal(c.state, ClientState.Connected, `player ${k}`);
      assert.equal(m.recorders[k].count(Msg.Chat), accepted, `player ${k} got every chat once`);
      assert.equal(c.entityCount, e.count, `player ${k} holds the whole pool`);
      for (let j = 0; j < 7; j++) assert.equal(bytesToAscii(c.names, j * NAME_LENGTH, c.nameLength[j]), bytesToAscii(m.server.names, j * NAME_LENGTH, 31));
    }
    assert.equal(deaf.state, ClientState.Kicked, "the kicked player processed its Leave");
  });
});

describe("the C server's crash inputs: more than 32 collisions in one step", function () {
  this.timeout(60_000);

  it("8 cruisers, each with a swarm of enemy shots on top of it: over 50 hits in one step, every client keeps up", function () {
    const m = new TestMatch({}, { seed: 5, delayMs: 2 });
    const game = m.withGame(5, null);
    const sent = new SentStreams(m.serverHost);
    for (let k = 0; k < 8; k++) m.client().connect();
    assert.ok(m.until(() => m.clients.every((c) => c.state === ClientState.Connected && c.playerCount() === 8), 5000));
    for (const c of m.clients) c.select(2, 0);
    m.run(3000);
    for (const c of m.clients) c.setInput(INPUT_SHOOTING);
    m.run(2500);
    for (const c of m.clients) c.setInput(0);
    const e = m.server.entities;
    const ships: number[] = [];
    for (let s = 0; s < 8; s++) if (game.focusIndex[s] >= 0) ships.push(game.focusIndex[s]);
    assert.equal(ships.length, 8, "every ship alive");
    let placed = 0;
    for (let i = 0; i < e.capacity; i++) {
      if (e.alive[i] === 0 || kindOf(e.type[i]) !== Kind.Shot) continue;
      // Onto an enemy ship, moving with it.
      const target = ships[(placed + 1 + ((e.owner[i] & 0xffff) % 7)) % 8];
      if (e.owner[i] === e.owner[target]) continue;
      e.x[i] = e.x[target];
      e.y[i] = e.y[target];
      e.vx[i] = e.vx[target];
      e.vy[i] = e.vy[target];
      placed++;
    }
    assert.ok(placed > 60, `${placed} shots placed`);
    const hits = game.counters[GameCounter.ShotHits];
    const shots = game.shots;
    game.step();
    const step = game.counters[GameCounter.ShotHits] - hits;
    assert.ok(step > 50, `${step} hits in one step`);
    if (process.env.LWAR_REPORT) console.log(`      ${placed} shots placed on enemy ships, ${step} hits in one step`);
    assert.ok(game.shots <= shots - step, "every shot that hit is gone");
    m.run(3000);
    assert.ok(m.until(() => m.server.endpoints.every((ep) => ep.count === 0), 3000));
    m.run(200);
    for (const [k, c] of m.clients.entries()) {
      assert.equal(c.state, ClientState.Connected, `player ${k}`);
      assert.equal(c.entityCount, e.count, `player ${k} holds what the server holds`);
      for (let i = 0; i < e.capacity; i++) if (e.alive[i] !== 0) assert.equal(c.entityId[i], e.id(i));
    }
    assert.equal(sent.invalid, 0);
    assert.ok(sent.longest <= MAX_PACKET);
    assert.equal(m.server.counters[Counter.Kicks] + m.server.counters[Counter.QueueOverflows], 0);
  });
});
