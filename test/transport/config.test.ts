/**
 * The Endpoint as another application configures it: its own app id, packet size and
 * message sizes (a table, and a text that ends at its NUL), and the API that keeps
 * its state private: reserve/commit for writers that append messages themselves, due(),
 * heard(), resetReceive(), seedRtt(), the counters sink, and the checks on misuse.
 */
import assert from "node:assert/strict";
import {
  Channel, CURRENT, Endpoint, EndpointTable, finishPacket, type EndpointConfig, HEADER_ACK, HEADER_SIZE, headerAck, headerRel, headerTimestamp, PROCESS,
  RECEIVE_BAD_ACK, RECEIVE_COUNTS, RECEIVE_INDEX, ReceiveStep, RELIABLE_HEADER, SHAPE_NONE, STALE,
} from "../../modules/transport/index";
import { getU32, setU32 } from "../../modules/protocol/bytes";
import { lwarChannel } from "../../modules/protocol/channel";
import { Msg } from "../../modules/protocol/constants";
import { nativeWords } from "../../modules/native";
import { carvePlace, testMemory } from "../helpers/endpoints";

/*
 * A made-up application: types 1..3.
 *   1  Ping   fixed, 2 bytes
 *   2  Text   a text: u8 sender, then the text and its NUL, 32 bytes at most
 *   3  Bye    fixed, 0 bytes
 */
const PING = 1;
const TEXT = 2;
const BYE = 3;
const TEXT_MAX = 32;

function appConfig(over: Partial<EndpointConfig> = {}): EndpointConfig {
  return { appId: 0x1234abcd, queueBytes: 256, resendMs: 50, maxPacket: 64, sizes: Int16Array.of(0, 2, -1, 0), textPrefix: 1, textMax: TEXT_MAX, ...over };
}

function ping(ep: Endpoint, value: number): void {
  const o = ep.queue(PING, 2);
  assert.ok(o >= 0);
  ep.buf[o] = value >> 8;
  ep.buf[o + 1] = value;
}

/** A Text from `sender`: its payload is the sender, `s` and a NUL. */
function text(ep: Endpoint, s: string, sender = 9): void {
  const o = ep.queue(TEXT, 1 + s.length + 1);
  assert.ok(o >= 0);
  ep.buf[o] = sender;
  for (let i = 0; i < s.length; i++) ep.buf[o + 1 + i] = s.charCodeAt(i);
  ep.buf[o + 1 + s.length] = 0;
}

describe("Endpoint: an application's own configuration", () => {
  it("writes the configured app id, our ack and the timestamp in the header", () => {
    const ep = new Endpoint(appConfig());
    ep.reset(0, 0, 7);
    ep.acceptReliable(7, new Uint32Array(RECEIVE_COUNTS));
    const out = new Uint8Array(64).fill(0xee);
    const end = ep.fill(out, 1, 0x01020304);
    finishPacket(out, 0);
    assert.equal(end, HEADER_SIZE);
    assert.deepEqual(Array.from(out.subarray(0, HEADER_SIZE)), [0x12, 0x34, 0xab, 0xcd, 0, 0, 0, 7, 1, 2, 3, 4, 0, 0]);
    assert.equal(headerAck(out), 7);
    assert.equal(headerTimestamp(out), 0x01020304);
  });

  it("sizes fixed types from the table and texts to their NUL, and packs no more than maxPacket", () => {
    const ep = new Endpoint(appConfig());
    const out = new Uint8Array(64);
    ep.reset(0);
    ping(ep, 0x0102); //          7 bytes
    text(ep, "hello world"); //  18 bytes
    ep.queue(BYE, 0); //          5 bytes
    text(ep, "x".repeat(30)); // 37 bytes: 14 + 30 + 37 = 81 > 64
    assert.equal(ep.usedBytes, 67);
    const end = ep.fill(out, 10, 10);
    assert.equal(headerRel(out), 3, "the long Text waits for the next packet");
    assert.equal(end, HEADER_SIZE + 30);
    assert.equal(out[HEADER_SIZE + 4], PING);
    assert.equal(out[HEADER_SIZE + 7 + 4], TEXT);
    assert.equal(out[HEADER_SIZE + 7 + 5], 9, "the Text's sender");
    assert.equal(String.fromCharCode(...out.subarray(HEADER_SIZE + 7 + 6, HEADER_SIZE + 7 + 17)), "hello world");
    assert.equal(out[HEADER_SIZE + 7 + 17], 0, "and its NUL");
    assert.equal(out[HEADER_SIZE + 25 + 4], BYE);
    assert.equal(ep.acknowledge(1, 20), true, "acks the Ping and the first Text");
    assert.equal(ep.usedBytes, 42);
    assert.equal(ep.buf[4], BYE);
    assert.equal(ep.buf[5 + 4], TEXT);
    const end2 = ep.fill(out, 30, 30);
    assert.equal(headerRel(out), 2);
    assert.equal(end2, HEADER_SIZE + 42);
    assert.equal(ep.acknowledge(3, 40), true);
    assert.equal(ep.count, 0);
    assert.equal(ep.usedBytes, 0);
  });

  it("a typeBase shifts the table: row 0 is that type", () => {
    const ep = new Endpoint(appConfig({ sizes: Int16Array.of(4), typeBase: 200, textPrefix: undefined, textMax: undefined }));
    ep.reset(0);
    assert.ok(ep.queue(200, 4) >= 0);
    assert.throws(() => ep.queue(201, 4), RangeError);
    assert.throws(() => ep.queue(199, 4), RangeError);
  });

  it("lwarChannel carries lwar's app id, packet size and table", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(512);
    ep.reset(0);
    ep.fill(out, 0, 0);
    assert.equal(getU32(out, 0), 0xf27087c5);
    assert.equal(ep.channel.maxPacket, 512);
    assert.equal(ep.capacityBytes, 1024);
    assert.throws(() => ep.queue(Msg.Join, 5), RangeError, "a Join is 4 bytes");
  });
});

describe("Endpoint: misuse of the configuration throws", () => {
  it("a queue smaller than one packet", () => {
    assert.throws(() => new Endpoint(appConfig({ queueBytes: 63 })), RangeError);
  });

  it("a packet too small for a header and a message header", () => {
    assert.throws(() => new Endpoint(appConfig({ maxPacket: HEADER_SIZE + RELIABLE_HEADER - 1, queueBytes: 64 })), RangeError);
  });

  it("an app id that is not a 32-bit unsigned integer", () => {
    assert.throws(() => new Endpoint(appConfig({ appId: 2 ** 32 })), RangeError);
    assert.throws(() => new Endpoint(appConfig({ appId: -1 })), RangeError);
    assert.throws(() => new Endpoint(appConfig({ appId: 1.5 })), RangeError);
  });

  it("a text type (size -1) without a valid textPrefix and textMax; a size below -1", () => {
    assert.throws(() => new Endpoint(appConfig({ textPrefix: undefined, textMax: undefined })), TypeError);
    assert.throws(() => new Endpoint(appConfig({ textPrefix: undefined })), TypeError);
    assert.throws(() => new Endpoint(appConfig({ textMax: undefined })), TypeError);
    assert.throws(() => new Endpoint(appConfig({ textPrefix: -1 })), TypeError);
    assert.throws(() => new Endpoint(appConfig({ textPrefix: 1.5 })), TypeError);
    assert.throws(() => new Endpoint(appConfig({ textMax: 0 })), TypeError);
    assert.throws(() => new Endpoint(appConfig({ sizes: Int16Array.of(0, 2, -2, 0) })), RangeError);
    // A table without a text needs neither; a text may have no fixed bytes before it.
    assert.ok(new Endpoint(appConfig({ sizes: Int16Array.of(0, 2, 3, 0), textPrefix: undefined, textMax: undefined })));
    assert.ok(new Endpoint(appConfig({ textPrefix: 0 })));
  });

  it("no resend interval", () => {
    assert.throws(() => new Endpoint(appConfig({ resendMs: 0 })), RangeError);
  });

  it("a table of no peers or too many, or placed in arrays not of its sizes, or without the loops that reach them", () => {
    const native = testMemory(8192);
    const channel = new Channel(appConfig({ counters: nativeWords(native, 4), sentIndex: 1, resentIndex: 3 }));
    assert.throws(() => new EndpointTable(channel, 0), RangeError);
    assert.throws(() => new EndpointTable(channel, 17), RangeError);
    const { place } = carvePlace(native, channel, 2, 64);
    const { state, queues, out, front } = place;
    const misplaced = [
      { ...place, state: state.subarray(1) }, //                      a peer's state short
      { ...place, queues: queues.subarray(0, queues.length - 1) }, // a queue of 255 bytes
      { ...place, queues: new Uint8Array(2 * 256) }, //               queues in another buffer
      { ...place, out: out.subarray(8) }, //                          out not from byte 0
      { ...place, front: front.subarray(1) }, //                      a front word short
      { ...place, front: new Int32Array(2) }, //                      fronts in another buffer
    ];
    for (const p of misplaced) assert.throws(() => new EndpointTable(channel, 2, native, p), RangeError);
    assert.throws(() => new EndpointTable(channel, 3, native, place), RangeError, "arrays for 2 peers, not 3");
    assert.throws(() => new EndpointTable(channel, 2, null, place), RangeError, "no loops");
    assert.throws(() => new EndpointTable(channel, 2, { memory: native.memory }, place), RangeError, "no loops");
    const table = new EndpointTable(channel, 2, native, place);
    assert.equal(table.endpoints[1].buf.byteOffset, queues.byteOffset + 256, "the peers' queues back to back");
  });

  it("a counters sink without indices inside it", () => {
    assert.throws(() => new Channel(appConfig({ counters: new Uint32Array(2) })), RangeError);
    assert.throws(() => new Channel(appConfig({ counters: new Uint32Array(2), sentIndex: 0, resentIndex: 2 })), RangeError);
  });

  it("a counters sink outside the native memory of its endpoints", () => {
    const config = appConfig({ counters: new Uint32Array(4), sentIndex: 1, resentIndex: 3 });
    assert.ok(new Channel(config), "a good sink");
    const native = testMemory(8192);
    if (native.memory == null) {
      // XS: the loops reach any buffer, so any sink will do.
      assert.ok(new Endpoint(config));
      return;
    }
    assert.throws(() => new Endpoint(config), RangeError, "but not in the endpoint's memory");
    assert.throws(() => new EndpointTable(appConfig({ counters: nativeWords(testMemory(64), 4), sentIndex: 1, resentIndex: 3 }), 1, native), RangeError, "in another memory");
    assert.ok(new EndpointTable(appConfig({ counters: nativeWords(native, 4), sentIndex: 1, resentIndex: 3 }), 1, native), "in the same one");
  });

  it("a fixed-size type queued with another size", () => {
    const ep = new Endpoint(appConfig());
    ep.reset(0);
    assert.throws(() => ep.queue(PING, 3), RangeError);
    assert.equal(ep.count, 0, "and nothing was queued");
  });

  it("a queued Text without its NUL within textMax throws at the fill instead of running on", () => {
    const ep = new Endpoint(appConfig());
    const out = new Uint8Array(64);
    ep.reset(0);
    text(ep, "y".repeat(TEXT_MAX - 1)); // the longest text: 31 bytes and its NUL
    assert.equal(ep.fill(out, 1, 1), HEADER_SIZE + RELIABLE_HEADER + 1 + TEXT_MAX);
    const broken = new Endpoint(appConfig());
    broken.reset(0);
    text(broken, "y".repeat(TEXT_MAX)); // its NUL one byte too far
    assert.throws(() => broken.fill(out, 1, 1), RangeError);
  });
});

describe("Endpoint: writers that append messages themselves (reserve, commit)", () => {
  it("messages appended at usedBytes and committed go out as if queued one by one", () => {
    const a = new Endpoint(appConfig());
    const b = new Endpoint(appConfig());
    a.reset(0, 0xfffffffe, 0);
    b.reset(0, 0xfffffffe, 0);
    ping(a, 0x0a0b);
    ping(a, 0x0c0d);
    // The same two Pings, written straight into b's queue.
    const at = b.reserve(14);
    assert.equal(at, b.usedBytes);
    let seq = b.nextSeq;
    for (let k = 0, o = at; k < 2; k++, o += 7) {
      setU32(b.buf, o, seq);
      seq = (seq + 1) >>> 0;
      b.buf[o + 4] = PING;
      b.buf[o + 5] = 0x0a + 2 * k;
      b.buf[o + 6] = 0x0b + 2 * k;
    }
    b.commit(at + 14, 2);
    assert.equal(b.count, 2);
    assert.equal(b.nextSeq, 0, "the seqnos went on through the wrap");
    assert.deepEqual(Array.from(b.buf.subarray(0, 14)), Array.from(a.buf.subarray(0, 14)));
    const outA = new Uint8Array(64);
    const outB = new Uint8Array(64);
    const endA = a.fill(outA, 5, 5);
    const endB = b.fill(outB, 5, 5);
    assert.deepEqual(Array.from(outB.subarray(0, endB)), Array.from(outA.subarray(0, endA)));
    ping(b, 0x0e0f);
    assert.equal(getU32(b.buf, 14), 0, "a message queued after the commit takes the next seqno");
  });

  it("reserve refuses what does not fit and changes nothing", () => {
    const ep = new Endpoint(appConfig());
    ep.reset(0);
    assert.equal(ep.reserve(256), 0);
    assert.equal(ep.reserve(257), -1);
    ping(ep, 1);
    assert.equal(ep.reserve(249), 7);
    assert.equal(ep.reserve(250), -1);
    assert.equal(ep.room(), 249);
    assert.equal(ep.count, 1);
  });

  it("a commit that does not match what fits or what was written throws", () => {
    const ep = new Endpoint(appConfig());
    ep.reset(0);
    ping(ep, 1);
    assert.throws(() => ep.commit(6, 1), RangeError, "ends before the queue");
    assert.throws(() => ep.commit(257, 1), RangeError, "ends past the queue");
    assert.throws(() => ep.commit(14, 0), RangeError, "bytes but no message");
    assert.throws(() => ep.commit(7, 1), RangeError, "a message but no bytes");
    assert.throws(() => ep.commit(14, -1), RangeError);
    ep.commit(7, 0);
    assert.equal(ep.count, 1);
    assert.equal(ep.nextSeq, 1);
  });
});

describe("Endpoint: state behind methods", () => {
  it("due(): an ack owed, a never-sent message, or a resend after the configured resendMs", () => {
    const ep = new Endpoint(appConfig());
    const out = new Uint8Array(64);
    ep.reset(0);
    assert.equal(ep.due(1000), false, "nothing queued, nothing owed");
    assert.equal(ep.acceptReliable(0, new Uint32Array(RECEIVE_COUNTS)), PROCESS);
    assert.equal(ep.due(0), true, "an ack is owed");
    ep.fill(out, 0, 0);
    assert.equal(ep.due(0), false);
    ping(ep, 1);
    assert.equal(ep.due(1), true, "a never-sent message");
    ep.fill(out, 1, 1);
    assert.equal(ep.due(50), false);
    assert.equal(ep.due(51), true, "50 ms without an ack");
  });

  it("the receive step counts at RECEIVE_INDEX, or at the indices the configuration names", () => {
    // A datagram, header alone, that acknowledges seqno 3, never sent: the step drops it, counted.
    const badAck = (ep: Endpoint, counters: Uint32Array): number => {
      const d = new Uint8Array(HEADER_SIZE);
      const v = new DataView(d.buffer);
      v.setUint32(HEADER_ACK, 3);
      return new ReceiveStep(v, d, new Uint16Array(1), counters, { reliable: () => true, unreliable: () => {} }).run(ep, SHAPE_NONE, 1, 0);
    };
    const plain = new Endpoint(appConfig());
    const c = new Uint32Array(RECEIVE_COUNTS);
    plain.reset(0);
    assert.equal(badAck(plain, c), RECEIVE_BAD_ACK);
    plain.acceptReliable(0, c);
    plain.acceptReliable(0, c);
    plain.acceptReliable(5, c);
    plain.acceptUnreliable(100, 1);
    plain.dropUnreliable(plain.acceptUnreliable(50, 2), 2, c);
    plain.dropUnreliable(plain.acceptUnreliable(100 + 0x10000000, 3), 1, c);
    const r = RECEIVE_INDEX;
    assert.deepEqual([c[r.badAck], c[r.received], c[r.duplicate], c[r.outOfOrder], c[r.stale], c[r.future]], [1, 1, 1, 1, 2, 1]);
    const own = new Endpoint(appConfig({ receiveIndex: { badAck: 10, duplicate: 11, outOfOrder: 12, received: 13, stale: 14, future: 15 } }));
    const d = new Uint32Array(16);
    own.reset(0);
    badAck(own, d);
    own.acceptReliable(0, d);
    own.acceptReliable(0, d);
    own.acceptUnreliable(100, 1);
    assert.equal(own.acceptUnreliable(50, 2), STALE);
    own.dropUnreliable(STALE, 2, d);
    assert.deepEqual(Array.from(d), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 2, 0]);
    assert.throws(() => new Channel(appConfig({ receiveIndex: { ...RECEIVE_INDEX, stale: -1 } })), RangeError);
  });

  it("heard() sets lastHeard; reset() starts it at now", () => {
    const ep = new Endpoint(appConfig());
    ep.reset(100);
    assert.equal(ep.lastHeard, 100);
    ep.heard(250);
    assert.equal(ep.lastHeard, 250);
  });

  it("resetReceive() moves the receive cursor and forgets the timestamp, and leaves the queue alone", () => {
    const ep = new Endpoint(appConfig());
    ep.reset(0);
    ping(ep, 1);
    assert.equal(ep.acceptReliable(0, new Uint32Array(RECEIVE_COUNTS)), PROCESS);
    ep.acceptUnreliable(5000, 0);
    ep.resetReceive(0x80000000);
    assert.equal(ep.lastProcessed, 0x7fffffff);
    assert.equal(ep.ackDue, false);
    assert.equal(ep.acceptUnreliable(10, 1), CURRENT, "an older stamp is current again");
    assert.equal(ep.acceptReliable(0x80000000, new Uint32Array(RECEIVE_COUNTS)), PROCESS);
    assert.equal(ep.count, 1);
  });

  it("seedRtt() starts the estimate; samples then smooth it", () => {
    const ep = new Endpoint(appConfig());
    const out = new Uint8Array(64);
    ep.reset(0);
    ep.seedRtt(80);
    assert.equal(ep.srtt, 80);
    ping(ep, 1);
    ep.fill(out, 0, 0);
    ep.acknowledge(0, 40);
    assert.equal(ep.srtt, 75, "80 + (40 - 80) / 8");
    assert.throws(() => ep.seedRtt(-1), RangeError);
  });

  it("the counters sink: fill() adds first sends and resends of every endpoint sharing it", () => {
    // The sink and the endpoints in one native memory: two of one table, one of another.
    const native = testMemory(8192);
    const counters = nativeWords(native, 4);
    const config = appConfig({ counters, sentIndex: 1, resentIndex: 3 });
    const [a, b] = new EndpointTable(config, 2, native).endpoints;
    const c = new EndpointTable(config, 1, native).endpoints[0];
    const out = new Uint8Array(64);
    a.reset(0);
    b.reset(0);
    c.reset(0);
    ping(a, 1);
    ping(a, 2);
    ping(b, 3);
    ping(c, 4);
    a.fill(out, 0, 0);
    b.fill(out, 0, 0);
    c.fill(out, 0, 0);
    assert.deepEqual(Array.from(counters), [0, 4, 0, 0]);
    a.fill(out, 100, 100);
    assert.deepEqual(Array.from(counters), [0, 4, 0, 2]);
    assert.equal(a.sent + b.sent + c.sent, 4);
    assert.equal(a.resent, 2);
  });

  it("a Channel is checked once, frozen, and shared; a plain config gets a Channel of its own", () => {
    const channel = new Channel(appConfig());
    const a = new Endpoint(channel);
    const b = new Endpoint(channel);
    assert.equal(a.channel, channel);
    assert.equal(b.channel, channel);
    assert.ok(Object.isFrozen(channel));
    assert.equal(Reflect.set(channel, "maxPacket", 512), false, "its rules cannot change under the endpoints");
    assert.equal(channel.maxPacket, 64);
    const c = new Endpoint(appConfig());
    assert.ok(c.channel instanceof Channel && c.channel !== channel);
    assert.deepEqual([c.channel.idHigh, c.channel.idLow], [0x1234, 0xabcd]);
  });
});
