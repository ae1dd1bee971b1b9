/**
 * The Endpoint's queue, acks, receive cursor and RTT sampling, with seqnos started just
 * short of 0xFFFFFFFF so every test crosses the wrap to 0.
 */
import assert from "node:assert/strict";
import { getU32, setU32 } from "../../modules/protocol/bytes";
import { HEADER_SIZE, MAX_PACKET, Msg, NO_ACK, RELIABLE_HEADER } from "../../modules/protocol/constants";
import { headerAck, headerRel, validatePacket, writeChat, writeName } from "../../modules/protocol/codec";
import { COUNTER_COUNT, Counter, createCounters } from "../../modules/protocol/counters";
import {
  CURRENT, DUPLICATE, Endpoint, EndpointTable, finishPacket, FUTURE, FUTURE_SLACK_MS, OUT_OF_ORDER, PROCESS, STALE,
} from "../../modules/transport/endpoint";
import { lwarChannel } from "../../modules/protocol/channel";
import { nativeWords } from "../../modules/native";
import { placedTable, testMemory } from "../helpers/endpoints";

const FROM_ANY = 3;

/** Queue a 4-byte Join whose payload is `value`; returns its seqno. */
function push(ep: Endpoint, value: number): number {
  const seq = ep.nextSeq;
  const o = ep.queue(Msg.Join, 4);
  assert.ok(o >= 0, "queue has room");
  setU32(ep.buf, o, value);
  return seq;
}

/** Seqnos of the reliable messages in a packet started by `fill`, all of `payload` bytes. */
function seqnosIn(out: Uint8Array, payload = 4): number[] {
  const seqs: number[] = [];
  let o = HEADER_SIZE;
  for (let m = 0; m < headerRel(out); m++) {
    seqs.push(getU32(out, o));
    o += RELIABLE_HEADER + payload;
  }
  return seqs;
}

describe("Endpoint: queue and acks across the wrap", () => {
  it("queued messages carry consecutive seqnos through 0xFFFFFFFF → 0", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    ep.reset(0, 0xfffffffe, 0);
    const seqs = [push(ep, 10), push(ep, 11), push(ep, 12), push(ep, 13)];
    assert.deepEqual(seqs, [0xfffffffe, 0xffffffff, 0, 1]);
    for (let i = 0; i < 4; i++) {
      assert.equal(getU32(ep.buf, i * 9), seqs[i]);
      assert.equal(ep.buf[i * 9 + 4], Msg.Join);
      assert.equal(getU32(ep.buf, i * 9 + 5), 10 + i);
    }
    assert.equal(ep.nextSeq, 2);
    assert.equal(ep.count, 4);
    assert.equal(ep.usedBytes, 36);
  });

  it("an ack across the wrap removes exactly the messages up to it", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0, 0xfffffffe, 0);
    for (let i = 0; i < 4; i++) push(ep, 20 + i);
    ep.fill(out, 10, 10);
    assert.equal(ep.acknowledge(0xffffffff, 20), true);
    assert.equal(ep.count, 2);
    assert.equal(ep.firstSeq, 0);
    assert.equal(getU32(ep.buf, 0), 0);
    assert.equal(getU32(ep.buf, 5), 22);
    assert.equal(ep.acknowledge(1, 30), true);
    assert.equal(ep.count, 0);
    assert.equal(ep.usedBytes, 0);
    assert.equal(ep.firstSeq, 2);
  });

  it("an old ack (before the wrap) changes nothing", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0, 0xfffffffe, 0);
    for (let i = 0; i < 3; i++) push(ep, i);
    ep.fill(out, 10, 10);
    ep.acknowledge(0xffffffff, 20);
    assert.equal(ep.acknowledge(0xfffffffe, 30), true);
    assert.equal(ep.acknowledge(0xfffffff0, 30), true);
    assert.equal(ep.count, 1);
    assert.equal(ep.firstSeq, 0);
  });

  it("an ack of a seqno never queued is refused and changes nothing", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0, 0xfffffffe, 0);
    for (let i = 0; i < 3; i++) push(ep, i);
    ep.fill(out, 10, 10);
    assert.equal(ep.acknowledge(1, 20), false);
    assert.equal(ep.count, 3);
    assert.equal(ep.firstSeq, 0xfffffffe);
  });

  it("an ack of a queued but never sent seqno is refused", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0, 0xffffffff, 0);
    push(ep, 0);
    ep.fill(out, 10, 10);
    push(ep, 1);
    assert.equal(ep.acknowledge(0, 20), false);
    assert.equal(ep.count, 2);
    assert.equal(ep.acknowledge(0xffffffff, 20), true);
    assert.equal(ep.count, 1);
  });

  it("the initial ack of a peer that has processed nothing is accepted", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    ep.reset(0);
    push(ep, 0);
    assert.equal(ep.acknowledge(NO_ACK, 5), true);
    assert.equal(ep.count, 1);
  });

  it("only bytes bound the queue: 113 messages of 9 bytes fill 1024 bytes, the 114th is refused", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    ep.reset(0, 0xffffffc0, 0);
    for (let i = 0; i < 113; i++) push(ep, i);
    assert.equal(ep.usedBytes, 1017);
    assert.equal(ep.canQueue(4), false);
    assert.equal(ep.queue(Msg.Join, 4), -1);
    assert.equal(ep.count, 113);
    assert.equal(ep.nextSeq, 0x31, "a refused message takes no seqno");
  });

  it("queue returns -1 when the bytes are exhausted, and accepts again after an ack", () => {
    const ep = new Endpoint(lwarChannel(512, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    // 12 Names of 41 bytes = 492 bytes; a 13th would need 533.
    for (let i = 0; i < 12; i++) assert.ok(ep.queue(Msg.Name, 36) >= 0);
    assert.equal(ep.usedBytes, 492);
    assert.equal(ep.queue(Msg.Name, 36), -1);
    assert.ok(ep.queue(Msg.Join, 4) >= 0, "smaller messages still fit the last 20 bytes");
    assert.ok(ep.queue(Msg.Join, 4) >= 0);
    assert.equal(ep.usedBytes, 510);
    assert.equal(ep.queue(Msg.Join, 4), -1);
    ep.fill(out, 1, 1);
    assert.equal(ep.acknowledge(0, 2), true);
    assert.ok(ep.queue(Msg.Name, 36) >= 0);
  });

  it("a message that could never fit a packet throws", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    ep.reset(0);
    assert.throws(() => ep.queue(Msg.Chat, MAX_PACKET - HEADER_SIZE - RELIABLE_HEADER + 1), RangeError);
    assert.ok(ep.queue(Msg.Chat, MAX_PACKET - HEADER_SIZE - RELIABLE_HEADER) >= 0);
  });

  it("fill takes the oldest messages that fit one packet, and nothing more", () => {
    const ep = new Endpoint(lwarChannel(2048, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0, 0xfffffffe, 0x42);
    for (let i = 0; i < 12; i++) ep.queue(Msg.Name, 36);
    const end = ep.fill(out, 5, 5);
    finishPacket(out, 0);
    // (512 - 14) / 41 = 12.1: all twelve fit.
    assert.equal(headerRel(out), 12);
    assert.equal(end, HEADER_SIZE + 12 * 41);
    ep.queue(Msg.Join, 4);
    const end2 = ep.fill(out, 6, 6);
    assert.equal(headerRel(out), 12, "a 13th message of 9 bytes (515 in all) waits for the next packet");
    assert.equal(end2, HEADER_SIZE + 12 * 41);
    assert.equal(headerAck(out), 0x41, "the ack is the seqno before the peer's first");
    assert.deepEqual(seqnosIn(out, 36).slice(0, 3), [0xfffffffe, 0xffffffff, 0]);
  });
});

describe("Endpoint: messages of every size, found from their bytes", () => {
  it("a mix of Join, Name and Chat is sent, acked and cut at the right boundaries", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0, 0xfffffffe, 0);
    const text = Uint8Array.of(0x68, 0x69, 0x21); // "hi!"
    writeChat(ep.buf, ep.queue(Msg.Chat, 4 + 3 + 1), 7, text, 0, 3); //  13 bytes
    writeName(ep.buf, ep.queue(Msg.Name, 36), 7, text, 0, 2); //           41 bytes
    push(ep, 5); //                                                         9 bytes
    writeChat(ep.buf, ep.queue(Msg.Chat, 4 + 0 + 1), 7, text, 0, 0); //   10 bytes
    assert.equal(ep.usedBytes, 73);
    const end = ep.fill(out, 10, 10);
    assert.equal(end, HEADER_SIZE + 73);
    assert.equal(headerRel(out), 4);
    assert.ok(validatePacket(out, end, FROM_ANY, createCounters()));
    assert.equal(ep.acknowledge(0xffffffff, 20), true, "acks the Chat and the Name");
    assert.equal(ep.usedBytes, 19);
    assert.equal(getU32(ep.buf, 0), 0);
    assert.equal(ep.buf[4], Msg.Join);
    assert.equal(getU32(ep.buf, 9), 1);
    assert.equal(ep.buf[13], Msg.Chat);
    assert.equal(ep.acknowledge(1, 30), true);
    assert.equal(ep.usedBytes, 0);
    assert.equal(ep.count, 0);
  });
});

/** Largest type byte and payload a message may have: what fits a packet after the headers. */
const MAX_MESSAGE = MAX_PACKET - HEADER_SIZE - RELIABLE_HEADER + 1;

describe("Endpoint: queueCopy, a message copied from the owner's memory", () => {
  /**
   * A queue of 9 × 60 bytes placed in native memory as a server places its players', and
   * after it a source area and a packet buffer (`tx`, where the table's packets go): `src` is
   * the source's offset in `whole`, the buffer's every byte.
   */
  function arena(): { whole: Uint8Array; src: number; tx: Uint8Array; ep: Endpoint } {
    const native = testMemory(4096);
    const placed = placedTable(lwarChannel(540, 100, nativeWords(native, COUNTER_COUNT)), 1, MAX_MESSAGE + MAX_PACKET, native);
    const ep = placed.table.endpoints[0];
    ep.reset(0, 0xffffffff, 0);
    return { whole: placed.whole, src: placed.freeAt, tx: placed.free.subarray(MAX_MESSAGE), ep };
  }

  it("queues the type and payload as queue() and a copy would, with the next seqno, through the wrap", () => {
    const { whole, src, tx, ep } = arena();
    whole[src + 10] = Msg.Join;
    setU32(whole, src + 11, 0x01020304);
    assert.equal(ep.queueCopy(src + 10, 5, 0), true);
    assert.equal(ep.queueCopy(src + 10, 5, 0), true);
    assert.equal(ep.count, 2);
    assert.equal(ep.usedBytes, 18);
    assert.equal(ep.nextSeq, 1);
    assert.deepEqual([getU32(ep.buf, 0), ep.buf[4], getU32(ep.buf, 5)], [0xffffffff, Msg.Join, 0x01020304]);
    assert.deepEqual([getU32(ep.buf, 9), ep.buf[13], getU32(ep.buf, 14)], [0, Msg.Join, 0x01020304]);
    const end = ep.fill(tx, 5, 5);
    assert.equal(headerRel(tx), 2);
    assert.ok(validatePacket(tx, end, FROM_ANY, createCounters()), "the packet it makes is well formed");
  });

  it("queues nothing when the message and the reserve after it do not fit", () => {
    const { whole, src, ep } = arena();
    whole[src] = Msg.Join;
    for (let i = 0; i < 59; i++) assert.equal(ep.queueCopy(src, 5, 0), true);
    assert.equal(ep.usedBytes, 531);
    assert.equal(ep.queueCopy(src, 5, 1), false, "9 bytes fit, 9 + a reserve of 1 do not");
    assert.equal(ep.usedBytes, 531);
    assert.equal(ep.count, 59);
    assert.equal(ep.queueCopy(src, 5, 0), true, "9 fit exactly");
    assert.equal(ep.usedBytes, 540);
  });

  it("throws for a queue outside its owner's memory, and for a message no packet can carry", () => {
    const { whole, src, tx, ep } = arena();
    for (let i = 0; i < MAX_MESSAGE; i++) whole[src + i] = i;
    const plain = new Endpoint(lwarChannel(1024, 100));
    assert.throws(() => plain.queueCopy(0, 5, 0), RangeError, "a table the owner did not place");
    assert.equal(plain.count, 0);
    assert.throws(() => ep.queueCopy(src, MAX_MESSAGE + 1, 0), RangeError, "one byte more than a packet carries");
    assert.equal(ep.count, 0);
    assert.equal(ep.queueCopy(src, MAX_MESSAGE, 0), true, "the longest message a packet carries");
    assert.equal(ep.fill(tx, 1, 1), MAX_PACKET, "and fills a packet");
    assert.equal(headerRel(tx), 1);
    assert.deepEqual(tx.subarray(HEADER_SIZE + 4, MAX_PACKET), whole.subarray(src, src + MAX_MESSAGE), "copied as it was (the owner's bytes are not checked)");
  });
});

describe("Endpoint: misuse", () => {
  it("a lone message a writer committed that does not end where it said throws at the commit, and the queue is as it was", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    ep.reset(0);
    const o = ep.reserve(11);
    setU32(ep.buf, o, ep.nextSeq);
    ep.buf[o + 4] = Msg.Join; // 4 bytes of payload: the message ends at 9, not 11
    assert.throws(() => ep.commit(o + 11, 1), /^RangeError: commit of 1 messages ending at 11: a bad type or size/);
    assert.equal(ep.usedBytes, 0);
    assert.equal(ep.count, 0);
  });

  it("a commit whose first message is not the next seqno, or too short for its count, or a lone one of no known type, throws", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    ep.reset(0);
    const o = ep.reserve(18);
    setU32(ep.buf, o, ep.nextSeq + 1);
    ep.buf[o + 4] = Msg.Remove;
    assert.throws(() => ep.commit(o + 18, 2), /^RangeError: commit of 2 messages ending at 18: a bad first seqno/);
    setU32(ep.buf, o, ep.nextSeq);
    assert.throws(() => ep.commit(o + 9, 2), /^RangeError: commit of 2 messages ending at 9: a bad span/);
    ep.buf[o + 4] = 0;
    assert.throws(() => ep.commit(o + 9, 1), /^RangeError: commit of 1 messages ending at 9: a bad type or size/, "a lone one of no known type");
    assert.equal(ep.count, 0);
    ep.buf[o + 4] = Msg.Remove;
    ep.commit(o + 18, 2);
    assert.equal(ep.count, 2);
  });


  it("a queued Chat whose text was never written (no NUL) throws instead of running off the queue", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    // Queued as "hi!" and its NUL, but the text never written: its NUL is nowhere.
    const o = ep.queue(Msg.Chat, 4 + 3 + 1);
    ep.buf.fill(0x41, o + 4, ep.buf.length);
    assert.throws(() => ep.fill(out, 1, 1), /^RangeError: queued messages do not end where the queue does \(13\): a text without its NUL/);
    ep.buf[o + 4 + 3] = 0;
    assert.equal(ep.fill(out, 2, 2), HEADER_SIZE + 13, "with its NUL, the same queue goes out");
  });
});

describe("Endpoint: what cannot wait (owed)", () => {
  it("an ack owed, or messages waiting the resend interval; not messages merely never sent", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    assert.equal(ep.owed(50), false, "nothing queued, nothing received");
    push(ep, 1);
    assert.equal(ep.due(50), true, "a never-sent message makes a packet due");
    assert.equal(ep.owed(50), false, "but it can wait for a packet that goes anyway");
    assert.equal(ep.owed(500), false, "however long since the last packet of reliables: it was never sent");
    ep.fill(out, 60, 60);
    assert.equal(ep.owed(159), false, "sent 99 ms ago");
    assert.equal(ep.owed(160), true, "sent 100 ms ago: the resend is due");
    ep.acceptReliable(0, createCounters());
    assert.equal(ep.owed(60), true, "a reliable message processed: an ack is owed");
  });
});

describe("Endpoint: receiving across the wrap", () => {
  it("acceptReliable processes only last + 1, through the wrap, and counts each", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const c = createCounters();
    ep.reset(0, 0, 0xfffffffe);
    assert.equal(ep.lastProcessed, 0xfffffffd);
    assert.equal(ep.acceptReliable(0xffffffff, c), OUT_OF_ORDER);
    assert.equal(ep.acceptReliable(0xfffffffe, c), PROCESS);
    assert.equal(ep.acceptReliable(0xfffffffe, c), DUPLICATE);
    assert.equal(ep.acceptReliable(0xffffffff, c), PROCESS);
    assert.equal(ep.acceptReliable(1, c), OUT_OF_ORDER);
    assert.equal(ep.acceptReliable(0, c), PROCESS);
    assert.equal(ep.acceptReliable(0xffffffff, c), DUPLICATE);
    assert.equal(ep.acceptReliable(0xfffffff0, c), DUPLICATE);
    assert.equal(ep.acceptReliable(1, c), PROCESS);
    assert.equal(ep.lastProcessed, 1);
    assert.deepEqual(
      [c[Counter.ReliableReceived], c[Counter.DuplicateReliable], c[Counter.OutOfOrderReliable]],
      [4, 3, 2],
    );
  });

  it("acceptUnreliable ignores timestamps older than the newest applied, across the wrap", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const c = createCounters();
    ep.reset(0);
    assert.equal(ep.acceptUnreliable(0xfffffff0, 0), CURRENT);
    assert.equal(ep.acceptUnreliable(0xffffffef, 0), STALE);
    assert.equal(ep.acceptUnreliable(0xfffffff0, 0), CURRENT, "the same timestamp is not older");
    assert.equal(ep.acceptUnreliable(5, 21), CURRENT);
    assert.equal(ep.acceptUnreliable(0xffffffff, 22), STALE);
    assert.equal(ep.newestTimestamp, 5);
    ep.dropUnreliable(STALE, 3, c);
    assert.equal(c[Counter.StaleUnreliable], 3, "dropUnreliable counts each stale message");
  });

  it("acceptUnreliable does not believe a timestamp further ahead than our clock has moved", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const c = createCounters();
    ep.reset(0);
    assert.equal(ep.acceptUnreliable(1000, 50), CURRENT);
    // 1 s of slack, plus 1/64 of the time elapsed.
    assert.equal(ep.acceptUnreliable(1000 + FUTURE_SLACK_MS + 1, 50), FUTURE);
    assert.equal(ep.acceptUnreliable(1000 + 0x40000000, 60), FUTURE, "a forged stamp weeks ahead");
    assert.equal(ep.newestTimestamp, 1000, "and it changes nothing");
    assert.equal(ep.acceptUnreliable(1100, 150), CURRENT, "genuine packets go on");
    // A peer silent for 10 s comes back 10 s further on: plausible.
    assert.equal(ep.acceptUnreliable(11100, 10150), CURRENT);
    assert.equal(ep.acceptUnreliable(11100 + 64 * 1000, 10150 + 64 * 1000 - FUTURE_SLACK_MS), CURRENT, "clock drift of 1/64");
    ep.dropUnreliable(FUTURE, 3, c);
    assert.deepEqual([c[Counter.FutureTimestamp], c[Counter.StaleUnreliable]], [1, 0], "dropUnreliable counts a packet from the future once");
  });

  it("two endpoints exchange 40 messages through the wrap, exactly once and in order", () => {
    const a = new Endpoint(lwarChannel(2048, 100));
    const b = new Endpoint(lwarChannel(2048, 100));
    a.reset(0, 0xfffffff0, 0x100);
    b.reset(0, 0x100, 0xfffffff0);
    const counters = createCounters();
    const out = new Uint8Array(MAX_PACKET);
    const got: number[] = [];
    let now = 0;
    for (let i = 0; i < 40; i++) push(a, 1000 + i);
    for (let round = 0; round < 10 && a.count > 0; round++) {
      now += 10;
      let end = a.fill(out, now, now);
      finishPacket(out, 0);
      assert.ok(validatePacket(out, end, FROM_ANY, counters));
      let o = HEADER_SIZE;
      for (let m = 0; m < headerRel(out); m++) {
        if (b.acceptReliable(getU32(out, o), counters) === PROCESS) got.push(getU32(out, o + RELIABLE_HEADER));
        o += RELIABLE_HEADER + 4;
      }
      // Every other reply is lost, so some messages are sent again.
      if (round % 2 === 1) continue;
      end = b.fill(out, now, now);
      finishPacket(out, 0);
      assert.equal(end, HEADER_SIZE);
      assert.ok(a.acknowledge(headerAck(out), now + 5));
    }
    const want: number[] = [];
    for (let i = 0; i < 40; i++) want.push(1000 + i);
    assert.deepEqual(got, want);
    assert.equal(a.count, 0);
    assert.equal(a.firstSeq, 0x18);
    assert.equal(b.lastProcessed, 0x17);
    assert.equal(counters[Counter.Truncated] + counters[Counter.TrailingBytes], 0);
  });
});

describe("Endpoint: round-trip time (Karn's rule)", () => {
  it("a message sent once gives a sample", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    push(ep, 0);
    ep.fill(out, 100, 100);
    ep.acknowledge(0, 160);
    assert.equal(ep.srtt, 60);
    assert.equal(ep.ping(), 60);
  });

  it("a message that was resent gives no sample", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    push(ep, 0);
    ep.fill(out, 100, 100);
    ep.acknowledge(0, 160);
    push(ep, 1);
    ep.fill(out, 200, 200);
    ep.fill(out, 300, 300);
    assert.equal(ep.resent, 1);
    ep.acknowledge(1, 310);
    assert.equal(ep.count, 0);
    assert.equal(ep.srtt, 60, "neither 110 nor 10 is trusted");
  });

  it("repeat() after a fill leaves the endpoint as a second fill would: resent counted, the probe voided", () => {
    // The sink the two endpoints share, in the native memory they are in.
    const native = testMemory(8192);
    const counters = nativeWords(native, COUNTER_COUNT);
    const make = (): Endpoint => {
      const ep = new EndpointTable(lwarChannel(1024, 100, counters), 1, native).endpoints[0];
      ep.reset(0);
      push(ep, 0);
      push(ep, 1);
      push(ep, 2);
      return ep;
    };
    const twice = make();
    const once = make();
    const a = new Uint8Array(MAX_PACKET);
    const b = new Uint8Array(MAX_PACKET);
    twice.fill(a, 100, 100);
    const first = a.slice(0, HEADER_SIZE + 3 * (RELIABLE_HEADER + 4));
    twice.fill(a, 100, 100);
    assert.deepEqual(a.slice(0, first.length), first, "a second fill of the same moment writes the same bytes");
    once.fill(b, 100, 100);
    const before = counters[Counter.ReliableResent];
    once.repeat();
    assert.equal(counters[Counter.ReliableResent] - before, 3);
    for (const ep of [twice, once]) {
      assert.equal(ep.resent, 3);
      assert.equal(ep.sentCount, 3);
      assert.equal(ep.filledMessages, 3);
      ep.acknowledge(2, 150);
      assert.equal(ep.srtt, 0, "the probe went out twice: no sample");
    }
    // With nothing in the last packet, repeat() counts nothing.
    once.fill(b, 200, 200);
    once.repeat();
    assert.equal(once.resent, 3);
  });

  it("the first sample is taken as is, later ones are smoothed by 1/8", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    push(ep, 0);
    ep.fill(out, 100, 100);
    ep.acknowledge(0, 160);
    push(ep, 1);
    ep.fill(out, 400, 400);
    ep.acknowledge(1, 420);
    assert.equal(ep.srtt, 55);
    assert.equal(ep.ping(), 55);
  });

  it("the newest message an ack covers decides, even if an older one was resent", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0, 0xffffffff, 0);
    push(ep, 0);
    ep.fill(out, 100, 100);
    push(ep, 1);
    ep.fill(out, 150, 150); // resends 0xFFFFFFFF, first send of 0
    ep.acknowledge(0, 190);
    assert.equal(ep.srtt, 40);
  });

  it("one message at a time is timed: the first new one in a packet, not those after it", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    push(ep, 0);
    ep.fill(out, 100, 100);
    ep.acknowledge(0, 130);
    assert.equal(ep.srtt, 30);
    push(ep, 1);
    push(ep, 2);
    ep.fill(out, 200, 200); // 1 is the probe, 2 rides along untimed
    ep.acknowledge(1, 240);
    assert.equal(ep.srtt, 31.25, "30 + (40 - 30) / 8");
    ep.acknowledge(2, 400);
    assert.equal(ep.count, 0);
    assert.equal(ep.srtt, 31.25, "2 was not timed");
    push(ep, 3);
    ep.fill(out, 500, 500);
    ep.acknowledge(3, 560);
    assert.equal(ep.srtt, 34.84375, "the next packet with a new message starts a new probe: 31.25 + (60 - 31.25) / 8");
  });

  it("no sample before any ack; ping is capped to 16 bits", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    assert.equal(ep.ping(), 0);
    push(ep, 0);
    ep.fill(out, 0, 0);
    ep.acknowledge(0, 100000);
    assert.equal(ep.ping(), 65535);
  });
});

describe("Endpoint: when to send", () => {
  it("wants to send a never-sent message at once, a sent one after resendMs", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    assert.equal(ep.wantsSend(0, 100), false, "nothing queued");
    push(ep, 0);
    assert.equal(ep.wantsSend(1, 100), true);
    ep.fill(out, 1, 1);
    assert.equal(ep.wantsSend(50, 100), false);
    assert.equal(ep.wantsSend(101, 100), true);
    push(ep, 1);
    assert.equal(ep.wantsSend(50, 100), true);
  });

  it("does not count a never-sent message that would not fit the next packet", () => {
    const ep = new Endpoint(lwarChannel(2048, 100));
    const out = new Uint8Array(MAX_PACKET);
    ep.reset(0);
    for (let i = 0; i < 12; i++) ep.queue(Msg.Name, 36);
    ep.fill(out, 1, 1);
    ep.queue(Msg.Name, 36);
    assert.equal(ep.wantsSend(2, 100), false);
    assert.equal(ep.wantsSend(101, 100), true);
  });
});

describe("Endpoint: a packet carved from the queue's memory", () => {
  it("gets the bytes a separate buffer gets, and leaves the same state, on every path of fill", () => {
    // The queue, then the packet buffer, placed in native memory as a server places them.
    const native = testMemory(8192);
    const counters = nativeWords(native, COUNTER_COUNT);
    const placed = placedTable(lwarChannel(2048, 100, counters), 1, MAX_PACKET, native);
    const shared = placed.table.endpoints[0];
    const tx = placed.free;
    assert.ok(placed.table.placed && tx.buffer === placed.table.out.buffer, "the packet is written in place");
    const plain = new Endpoint(lwarChannel(2048, 100));
    const out = new Uint8Array(MAX_PACKET);
    const both = [shared, plain];
    for (const ep of both) ep.reset(0, 0xfffffffd, 7);
    const state = (ep: Endpoint): number[] => [
      ep.count, ep.sentCount, ep.usedBytes, ep.firstSeq, ep.nextSeq, ep.sent, ep.resent, ep.filledMessages, ep.ackDue ? 1 : 0, ep.srtt,
    ];
    const fill = (now: number, first = 0): void => {
      const a = shared.fill(tx, now, now + 5, first);
      const b = plain.fill(out, now, now + 5, first);
      finishPacket(tx, 3);
      finishPacket(out, 3);
      assert.equal(a, b, `length at ${now}`);
      assert.deepEqual(tx.slice(0, a), out.slice(0, b), `bytes at ${now}`);
      assert.deepEqual(state(shared), state(plain), `state at ${now}`);
    };
    const queue = (n: number, type: number = Msg.Name, payload = 36): void => {
      for (let i = 0; i < n; i++) for (const ep of both) assert.ok(ep.queue(type, payload) >= 0);
    };
    const ack = (seq: number, now: number): void => {
      for (const ep of both) ep.acknowledge(seq, now);
    };
    fill(10); // nothing queued
    queue(3);
    fill(20); // every message new, the whole queue fits
    ack(0xfffffffe, 60); // a sample from the probe, one message left
    queue(2);
    fill(130); // one resent, two new
    for (const ep of both) assert.equal(ep.acceptReliable(7, createCounters()), PROCESS);
    queue(12);
    fill(140); // the queue no longer fits one packet
    fill(150, shared.filledMessages); // a flush from a later message
    ack((shared.firstSeq + shared.sentCount - 1) >>> 0, 200);
    fill(210);
    ack((shared.nextSeq - 1) >>> 0, 260);
    queue(1, Msg.Join, 4);
    fill(270); // new again after everything was acknowledged
    assert.ok(counters[Counter.ReliableSent] > 0 && counters[Counter.ReliableResent] > 0);
    assert.equal(shared.sent, counters[Counter.ReliableSent]);
    assert.equal(shared.resent, counters[Counter.ReliableResent]);
  });
});
