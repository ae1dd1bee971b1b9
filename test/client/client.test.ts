/**
 * The client library (modules/client/client.ts) against a scripted server: packets to it
 * are byte literals or built with the codec, and its host records what it sends. Its
 * states (connecting, connected, rejected, kicked, closed, timed out), its roster and
 * entity table, what it sends and when, and what it refuses to send or to believe.
 */
import assert from "node:assert/strict";
import { CHAT_DEFAULT_RTT_MS, CHAT_MARGIN_MS, CHAT_PENDING, Client, ClientState, DISCONNECT_WAIT_MS } from "../../modules/client/client";
import { makeConfig, type Config } from "../../modules/config";
import { Counter } from "../../modules/protocol/counters";
import { Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { NO_PLAYER } from "../../modules/game/entities";
import { getU32, setU32 } from "../../modules/protocol/bytes";
import {
  headerAck, headerRel, headerTimestamp, headerUnrel, INPUT_FORWARD, INPUT_SHOOTING, writeAdd, writeChat, writeHeader,
  writeId, writeName, writeReject, writeSelection, writeUpdateEntry,
} from "../../modules/protocol/codec";
import { bytesToAscii } from "../../modules/text";
import { ascii, drops, hex } from "../helpers/bytes";
import { FakeHost } from "../helpers/fake-host";

const SERVER = "10.0.0.9";
const PORT = 32422;
const SELF = 0x00010002; // generation 1, slot 2
const OTHER = 0x00010005;

/** A scripted server: it numbers its reliable messages and stamps packets with its clock. */
class Script {
  seq = 0;
  ts = 1000;
  /** Seqno of the last reliable message of the client's it claims to have processed. */
  ack = 0;
  readonly b = new Uint8Array(512);
  readonly messages: { type: number; write: (b: Uint8Array, o: number) => number }[] = [];
  reliable(type: number, write: (b: Uint8Array, o: number) => number): this {
    this.messages.push({ type, write });
    return this;
  }
  /** A packet of the queued reliable messages (each with the next seqno) and `unrel` written by `tail`. */
  packet(unrel = 0, tail?: (b: Uint8Array, o: number) => number): Uint8Array {
    let o = writeHeader(this.b, this.ack, this.ts, this.messages.length, unrel);
    for (const m of this.messages) {
      setU32(this.b, o, this.seq++);
      this.b[o + 4] = m.type;
      o = m.write(this.b, o + 5);
    }
    this.messages.length = 0;
    if (tail) o = tail(this.b, o);
    return this.b.slice(0, o);
  }
}

function setup(overrides?: Partial<Config>): { c: Client; host: FakeHost; s: Script } {
  const host = new FakeHost();
  host.t = 1000;
  const c = new Client(makeConfig(overrides), host, SERVER, PORT);
  return { c, host, s: new Script() };
}

function deliver(c: Client, p: Uint8Array, address = SERVER, port = PORT): void {
  c.receive(p, p.length, address, port);
}

/** A client admitted as SELF, with the Join, Name and Selection of itself processed. */
function connected(overrides?: Partial<Config>): { c: Client; host: FakeHost; s: Script } {
  const r = setup(overrides);
  r.c.connect();
  const name = ascii("Player 3");
  r.s
    .reliable(Msg.Join, (b, o) => writeId(b, o, SELF))
    .reliable(Msg.Name, (b, o) => writeName(b, o, SELF, name, 0, name.length))
    .reliable(Msg.Selection, (b, o) => writeSelection(b, o, SELF, 1, 2));
  deliver(r.c, r.s.packet());
  assert.equal(r.c.state, ClientState.Connected);
  return r;
}

/** Advance the host's clock in 10 ms ticks of the client. */
function run(c: Client, host: FakeHost, ms: number): void {
  for (const end = host.t + ms; host.t < end; ) {
    host.t += 10;
    c.tick(host.t);
  }
}

describe("client: connecting", function () {
  it("sends Connect at once, at its next tick and then every 50 ms until admitted, and connect() twice throws", function () {
    const { c, host } = setup();
    c.connect();
    assert.equal(c.state, ClientState.Connecting);
    assert.equal(host.sent.length, 1);
    run(c, host, 200);
    assert.equal(host.sent.length, 6, "at 0, 10, 50, 100, 150 and 200 ms");
    for (const p of host.sent) {
      assert.deepEqual(Array.from(p.bytes.subarray(12)), [1, 0, 0, 0, 0, 0, Msg.Connect], "rel 1, unrel 0, seqno 0, Connect");
      assert.equal(p.address, SERVER);
      assert.equal(p.port, PORT);
    }
    assert.throws(() => c.connect(), /connect\(\) called twice/);
  });

  it("the first Join is its own: it learns its id and slot, its name and selection, and starts sending Input", function () {
    const { c, host } = connected();
    assert.equal(c.selfId, SELF);
    assert.equal(c.selfSlot, 2);
    assert.equal(c.present[2], 1);
    assert.equal(bytesToAscii(c.names, 2 * NAME_LENGTH, c.nameLength[2]), "Player 3");
    assert.deepEqual([c.ship[2], c.weapon[2]], [1, 2]);
    c.setInput(INPUT_FORWARD | INPUT_SHOOTING);
    const before = host.sent.length;
    run(c, host, 100);
    const last = host.sent[host.sent.length - 1].bytes;
    assert.ok(host.sent.length - before >= 2);
    assert.equal(headerAck(last), 2, "it acknowledges the three messages");
    assert.equal(headerUnrel(last), 1);
    assert.deepEqual(Array.from(last.subarray(last.length - 6)), [Msg.Input, 1, 0, 0, 0, 1]);
  });

  it("a Reject makes it Rejected with the reason, and it goes quiet", function () {
    const { c, host } = setup();
    c.connect();
    deliver(c, hex("f27087c5 ffffffff 00000000 00 01", "cc 01"));
    assert.equal(c.state, ClientState.Rejected);
    assert.equal(c.rejectReason, 1);
    const before = host.sent.length;
    run(c, host, 500);
    assert.equal(host.sent.length, before);
    assert.equal(c.chat("hi"), false);
  });
});

describe("client: timeouts and the end of a session", function () {
  it("times out when nothing is heard for timeoutMs while connecting, and sends nothing more", function () {
    const { c, host } = setup({ timeoutMs: 2000 });
    c.connect();
    run(c, host, 1990);
    assert.equal(c.state, ClientState.Connecting);
    run(c, host, 20);
    assert.equal(c.state, ClientState.TimedOut);
    const before = host.sent.length;
    run(c, host, 500);
    assert.equal(host.sent.length, before);
    assert.equal(c.isOpen(), false);
  });

  it("times out when a connected server falls silent; every valid packet from it resets the clock", function () {
    const { c, host, s } = connected({ timeoutMs: 2000 });
    for (let k = 0; k < 5; k++) {
      run(c, host, 1500);
      s.ts += 1500;
      deliver(c, s.packet(1, (b, o) => {
        b[o] = Msg.Update;
        b[o + 1] = 0;
        return o + 2;
      }));
    }
    assert.equal(c.state, ClientState.Connected);
    // Garbage and strangers' packets are no sign of life.
    run(c, host, 1000);
    deliver(c, hex("f27087c5 ffffffff 00000000 00"));
    deliver(c, hex("f27087c5 00000000 00000000 00 00"), "10.0.0.66", PORT);
    run(c, host, 1010);
    assert.equal(c.state, ClientState.TimedOut);
  });

  it("Leave of its own id means it was dropped: Kicked", function () {
    const { c, s } = connected();
    deliver(c, s.reliable(Msg.Join, (b, o) => writeId(b, o, OTHER)).reliable(Msg.Leave, (b, o) => writeId(b, o, OTHER)).packet());
    assert.equal(c.state, ClientState.Connected);
    assert.equal(c.present[5], 0, "another player's Leave only updates the roster");
    deliver(c, s.reliable(Msg.Leave, (b, o) => writeId(b, o, SELF)).packet());
    assert.equal(c.state, ClientState.Kicked);
  });

  it("disconnect() closes once the server acknowledges the Disconnect", function () {
    const { c, host, s } = connected();
    c.disconnect();
    assert.equal(c.state, ClientState.Disconnecting);
    const p = host.sent[host.sent.length - 1].bytes;
    assert.equal(headerRel(p), 1);
    assert.equal(p[14 + 4], Msg.Disconnect);
    const seq = getU32(p, 14);
    s.ack = seq;
    deliver(c, s.packet());
    assert.equal(c.state, ClientState.Closed);
  });

  it(`disconnect() closes anyway after ${DISCONNECT_WAIT_MS} ms when the acknowledgement is lost`, function () {
    const { c, host } = connected();
    c.disconnect();
    run(c, host, DISCONNECT_WAIT_MS);
    assert.equal(c.state, ClientState.Disconnecting);
    run(c, host, 20);
    assert.equal(c.state, ClientState.Closed);
  });
});

describe("client: what it sends", function () {
  it("chat takes 1..127 characters (longer text is cut), and nothing before its Join", function () {
    const { c: early } = setup();
    early.connect();
    assert.equal(early.chat("too soon"), false);
    const { c, host } = connected();
    assert.equal(c.chat(""), false);
    assert.equal(c.chat("x".repeat(200)), true);
    run(c, host, 10);
    const p = host.sent[host.sent.length - 1].bytes;
    assert.equal(p[14 + 4], Msg.Chat);
    assert.equal(getU32(p, 14 + 5), SELF);
    assert.equal(p[14 + 5 + 4 + 127], 0, "127 characters and the NUL");
  });

  it("rename takes 1..31 characters; select sends both types", function () {
    const { c } = connected();
    assert.equal(c.rename(""), false);
    assert.equal(c.rename("n".repeat(32)), false);
    assert.equal(c.rename("n".repeat(31)), true);
    assert.equal(c.select(2, 1), true);
    assert.equal(c.endpoint.count, 2);
  });

  it("a full queue refuses more and counts it", function () {
    const { c } = connected({ reliableQueueBytes: 512 });
    let n = 0;
    while (c.chat("x".repeat(100))) n++;
    assert.equal(n, 4, "4 × 110 bytes fit 512");
    assert.equal(c.counters[Counter.QueueOverflows], 1);
  });
});

/** A connected client whose chat outcomes are recorded as "+text" (delivered) or "-text". */
function chatting(srtt: number): { c: Client; host: FakeHost; s: Script; outcomes: string[]; echo: (id: number, text: string) => void } {
  const r = connected();
  r.c.endpoint.seedRtt(srtt);
  const outcomes: string[] = [];
  r.c.onChatOutcome = (delivered, text, o, n) => {
    outcomes.push((delivered ? "+" : "-") + bytesToAscii(text, o, n));
  };
  const echo = (id: number, text: string): void => {
    const b = ascii(text);
    r.s.ts += 10;
    deliver(r.c, r.s.reliable(Msg.Chat, (p, o) => writeChat(p, o, id, b, 0, b.length)).packet());
  };
  return { ...r, outcomes, echo };
}

describe("client: the fate of its own chat lines", function () {
  it("its line echoed under its own id is delivered; another player's line of the same text is not its echo", function () {
    const { c, host, outcomes, echo } = chatting(20);
    assert.equal(c.chat("hello"), true);
    assert.equal(c.chatsPending, 1);
    run(c, host, 30);
    echo(OTHER, "hello");
    assert.deepEqual(outcomes, []);
    echo(SELF, "hello");
    assert.deepEqual(outcomes, ["+hello"]);
    assert.deepEqual([c.chatsDelivered, c.chatsNotDelivered, c.chatsPending], [1, 0, 0]);
  });

  it("a line not echoed within 2 RTT + 100 ms is not delivered; before an RTT sample, 250 ms is assumed", function () {
    const { c, host, outcomes } = chatting(0);
    const limit = 2 * CHAT_DEFAULT_RTT_MS + CHAT_MARGIN_MS;
    c.chat("lost in the flood");
    run(c, host, limit);
    assert.deepEqual(outcomes, [], `still awaited ${limit} ms after it was sent`);
    run(c, host, 10);
    assert.deepEqual(outcomes, ["-lost in the flood"]);
    assert.deepEqual([c.chatsDelivered, c.chatsNotDelivered, c.chatsPending], [0, 1, 0]);
    c.endpoint.seedRtt(40);
    c.chat("sooner");
    run(c, host, 2 * 40 + CHAT_MARGIN_MS);
    assert.equal(outcomes.length, 1);
    run(c, host, 10);
    assert.deepEqual(outcomes, ["-lost in the flood", "-sooner"]);
  });

  it("an echo of a later line settles the lines before it as refused at once, in order", function () {
    const { c, outcomes, echo } = chatting(20);
    for (const t of ["one", "two", "three", "four"]) c.chat(t);
    echo(SELF, "three");
    assert.deepEqual(outcomes, ["-one", "-two", "+three"]);
    assert.equal(c.chatsPending, 1);
    echo(SELF, "four");
    assert.deepEqual(outcomes, ["-one", "-two", "+three", "+four"]);
  });

  it("two lines of the same text are matched oldest first", function () {
    const { c, host, outcomes, echo } = chatting(20);
    c.chat("gg");
    c.chat("gg");
    echo(SELF, "gg");
    assert.deepEqual(outcomes, ["+gg"]);
    run(c, host, 2 * 20 + CHAT_MARGIN_MS + 10);
    assert.deepEqual(outcomes, ["+gg", "-gg"]);
  });

  it("an echo that comes after its line was given up changes nothing", function () {
    const { c, host, outcomes, echo } = chatting(20);
    c.chat("late");
    run(c, host, 200);
    assert.deepEqual(outcomes, ["-late"]);
    c.chat("next");
    echo(SELF, "late");
    assert.deepEqual(outcomes, ["-late"]);
    assert.deepEqual([c.chatsDelivered, c.chatsNotDelivered, c.chatsPending], [0, 1, 1]);
  });

  it(`a line sent with ${CHAT_PENDING} awaited reports the oldest not delivered first`, function () {
    const { c, outcomes, echo } = chatting(20);
    for (let i = 0; i < CHAT_PENDING; i++) c.chat("line " + i);
    assert.deepEqual(outcomes, []);
    c.chat("x".repeat(127));
    assert.deepEqual(outcomes, ["-line 0"]);
    assert.equal(c.chatsPending, CHAT_PENDING);
    echo(SELF, "x".repeat(127));
    assert.equal(outcomes.length, CHAT_PENDING + 1);
    assert.equal(outcomes[CHAT_PENDING], "+" + "x".repeat(127));
    assert.deepEqual([c.chatsDelivered, c.chatsNotDelivered, c.chatsPending], [1, CHAT_PENDING, 0]);
  });

  it("lines it refuses to send (empty, before its Join, queue full) are not awaited", function () {
    const { c: early } = setup();
    early.connect();
    early.chat("too soon");
    assert.equal(early.chatsPending, 0);
    const { c } = connected({ reliableQueueBytes: 512 });
    c.chat("");
    while (c.chat("x".repeat(100)));
    assert.equal(c.chatsPending, 4);
  });
});

describe("client: what it believes", function () {
  it("keeps its entity table from Add, Update and Remove", function () {
    const { c, s } = connected();
    const e1 = 0x00030007;
    deliver(c, s.reliable(Msg.Add, (b, o) => writeAdd(b, o, e1, OTHER, 5)).packet(1, (b, o) => {
      b[o] = Msg.Update;
      b[o + 1] = 1;
      return writeUpdateEntry(b, o + 2, e1, -120, 340, 5, -6, 9000, 77);
    }));
    assert.equal(c.entityCount, 1);
    assert.deepEqual([c.alive[7], c.entityId[7], c.owner[7], c.type[7]], [1, e1, OTHER, 5]);
    assert.deepEqual([c.x[7], c.y[7], c.vx[7], c.vy[7], c.rot[7], c.health[7]], [-120, 340, 5, -6, 9000, 77]);
    s.ts += 50;
    deliver(c, s.reliable(Msg.Remove, (b, o) => writeId(b, o, e1)).packet());
    assert.equal(c.entityCount, 0);
    assert.equal(c.alive[7], 0);
    assert.equal(c.unknownEntities, 0);
  });

  it("counts Updates and Removes of entities it does not hold, and Adds beyond its capacity, and ignores them", function () {
    const { c, s } = connected({ maxEntities: 16 });
    deliver(c, s.reliable(Msg.Add, (b, o) => writeAdd(b, o, 0x00010003, NO_PLAYER, 0)).packet());
    s.ts += 10;
    deliver(c, s.reliable(Msg.Remove, (b, o) => writeId(b, o, 0x00020003)).reliable(Msg.Add, (b, o) => writeAdd(b, o, 0x00010020, NO_PLAYER, 1)).packet(1, (b, o) => {
      b[o] = Msg.Update;
      b[o + 1] = 2;
      o = writeUpdateEntry(b, o + 2, 0x00020003, 1, 1, 0, 0, 0, 50); // the wrong generation
      return writeUpdateEntry(b, o, 0x00010009, 1, 1, 0, 0, 0, 50); // never added
    }));
    assert.equal(c.unknownEntities, 4);
    assert.equal(c.entityCount, 1);
    assert.equal(c.entityId[3], 0x00010003);
    assert.equal(c.x[3], 0, "the update for another generation was not applied");
  });

  it("an Update written before a Remove and delivered after it is stale and ignored", function () {
    const { c, s, host } = connected();
    const e = 0x00010004;
    deliver(c, s.reliable(Msg.Add, (b, o) => writeAdd(b, o, e, NO_PLAYER, 2)).packet());
    const updates = c.updatesReceived;
    // The server sends an Update at 2000, then Remove at 2050; they arrive the other way round
    // (our clock has moved on as much: a stamp further ahead than that would not be believed).
    host.t += 2050;
    s.ts = 2000;
    const late = s.packet(1, (b, o) => {
      b[o] = Msg.Update;
      b[o + 1] = 1;
      return writeUpdateEntry(b, o + 2, e, 9, 9, 0, 0, 0, 10);
    });
    s.ts = 2050;
    deliver(c, s.reliable(Msg.Remove, (b, o) => writeId(b, o, e)).packet());
    deliver(c, late);
    assert.equal(c.updatesReceived, updates);
    assert.equal(c.counters[Counter.StaleUnreliable], 1);
    assert.equal(c.unknownEntities, 0);
  });

  it("reliable messages are processed once and in order: duplicates and gaps are dropped and counted", function () {
    const { c, s } = connected();
    const chat = ascii("hello");
    const first = s.reliable(Msg.Chat, (b, o) => writeChat(b, o, OTHER, chat, 0, chat.length)).packet();
    const gap = s.reliable(Msg.Chat, (b, o) => writeChat(b, o, OTHER, chat, 0, chat.length)).packet();
    s.seq--; // resend seqno 4 below
    deliver(c, gap);
    deliver(c, first);
    deliver(c, first);
    assert.deepEqual(drops(c.counters), { duplicateReliable: 1, outOfOrderReliable: 1 });
    assert.equal(c.endpoint.lastProcessed, 3);
  });

  it("drops packets from anyone but its server, over 512 bytes, or malformed, by reason", function () {
    const { c, s } = connected();
    const p = s.packet();
    deliver(c, p, SERVER, PORT + 1);
    deliver(c, p, "10.0.0.10", PORT);
    deliver(c, new Uint8Array(513));
    deliver(c, hex("f27087c5 00000000 00000000 00 01", "cb 0000000000")); // Input from a server
    deliver(c, hex("f27087c5 00000000 00000000 00 00 01"));
    assert.deepEqual(drops(c.counters), { unknownPeer: 2, tooLong: 1, wrongDirection: 1, trailingBytes: 1 });
    assert.equal(c.state, ClientState.Connected);
  });

  it("an ack of something it never sent drops the packet (badAck)", function () {
    const { c, s } = connected();
    s.ack = 7;
    deliver(c, s.reliable(Msg.Leave, (b, o) => writeId(b, o, SELF)).packet());
    assert.deepEqual(drops(c.counters), { badAck: 1 });
    assert.equal(c.state, ClientState.Connected);
  });

  it("applies Stats, and a Reject only in a packet of its own kind", function () {
    const { c, s } = connected();
    deliver(c, s.packet(1, (b, o) => {
      b[o] = Msg.Stats;
      for (let i = 0; i < 32; i++) b[o + 1 + i] = i;
      return o + 33;
    }));
    assert.equal(c.statsReceived, 1);
    assert.equal(c.scores[1], (2 << 8) | 3);
    assert.equal(c.pings[0], (16 << 8) | 17);
    s.ts -= 100;
    deliver(c, s.packet(1, (b, o) => {
      b[o] = Msg.Reject;
      return writeReject(b, o + 1, 1);
    }));
    assert.equal(c.state, ClientState.Rejected, "applied whatever its timestamp");
  });

  it("a timestamp far ahead, in a packet that validates, does not stop its Updates", function () {
    // A corrupted or forged packet from the server's address can carry any timestamp. If the
    // client took it as the newest, every genuine Update after it would be stale for weeks.
    const { c, host, s } = connected();
    const update = (b: Uint8Array, o: number): number => {
      b[o] = Msg.Update;
      b[o + 1] = 0;
      return o + 2;
    };
    deliver(c, s.packet(1, update));
    const forged = s.packet(1, update);
    forged[8] ^= 0x40; // the timestamp, 2^30 ms ahead
    assert.equal(headerTimestamp(forged), s.ts + 0x40000000);
    deliver(c, forged);
    const before = c.updatesReceived;
    for (let k = 0; k < 30; k++) {
      run(c, host, 66);
      s.ts += 66;
      deliver(c, s.packet(1, update));
    }
    assert.ok(c.updatesReceived - before >= 25, `${c.updatesReceived - before} of 30 genuine Updates applied`);
  });
});
