/**
 * The transport's receive step (modules/transport/receive.ts), on packets written as byte
 * literals: the ack, the reliable messages in order, the timestamp rule, the unreliable
 * messages, the owner's stop, and the two shapes an owner may name.
 */
import assert from "node:assert/strict";
import { Msg } from "../../modules/protocol/constants";
import { Counter, createCounters } from "../../modules/protocol/counters";
import { lwarChannel } from "../../modules/protocol/channel";
import { Endpoint } from "../../modules/transport/endpoint";
import {
  RECEIVE_BAD_ACK, RECEIVE_CURRENT, RECEIVE_NEW_ACK, RECEIVE_STOPPED, ReceiveStep, type Receiving, SHAPE_ANY, SHAPE_NONE,
  SHAPE_ONE_UNRELIABLE,
} from "../../modules/transport/receive";

/** Bytes from hex, spaces ignored. */
function hex(...parts: string[]): Uint8Array {
  const s = parts.join("").replace(/\s+/g, "");
  return Uint8Array.from(s.match(/../g) ?? [], (b) => Number.parseInt(b, 16));
}

/** What the owner was handed, as text: "r:type@p#seq" and "u:type@p~timestamp". */
class Log implements Receiving {
  readonly seen: string[] = [];
  stopAt = -1;
  reliable(tag: number, type: number, p: number, seq: number): boolean {
    assert.equal(tag, 7, "the owner's tag comes back");
    this.seen.push(`r:${type}@${p}#${seq}`);
    return seq !== this.stopAt;
  }
  unreliable(tag: number, type: number, p: number, timestamp: number): void {
    assert.equal(tag, 7);
    this.seen.push(`u:${type}@${p}~${timestamp}`);
  }
}

const APP = "f27087c5";

function setup(): { ep: Endpoint; counters: Uint32Array; log: Log } {
  const ep = new Endpoint(lwarChannel(1024, 100));
  ep.reset(0);
  return { ep, counters: createCounters(), log: new Log() };
}

function step(ep: Endpoint, counters: Uint32Array, log: Log, packet: Uint8Array, shape: number, offsets: number[], now: number): number {
  return new ReceiveStep(new DataView(packet.buffer), packet, Uint16Array.from(offsets), counters, log).run(ep, shape, now, 7);
}

// Two Joins (type 0x67, seqnos 0 and 1, 4-byte payloads) and an Input (0xcb), stamped 1000, acking nothing.
const TWO_JOINS_AND_INPUT = hex(
  APP, "ffffffff", "000003e8", "02 01",
  "00000000 67", "00000001",
  "00000001 67", "00000002",
  "cb", "0100000000",
);
const OFFSETS = [19, 28, 33];

describe("transport: the receive step", () => {
  it("hands the reliable messages in order, then the unreliable one with the stamp, and counts what it took", () => {
    const { ep, counters, log } = setup();
    assert.equal(step(ep, counters, log, TWO_JOINS_AND_INPUT, SHAPE_ANY, OFFSETS, 50), RECEIVE_CURRENT);
    assert.deepEqual(log.seen, ["r:103@19#0", "r:103@28#1", "u:203@33~1000"]);
    assert.equal(counters[Counter.ReliableReceived], 2);
    assert.equal(ep.lastProcessed, 1);
    assert.equal(ep.lastHeard, 50);
  });

  it("drops a duplicate of every message, counted, and the repeated stamp is not stale", () => {
    const { ep, counters, log } = setup();
    step(ep, counters, log, TWO_JOINS_AND_INPUT, SHAPE_ANY, OFFSETS, 50);
    log.seen.length = 0;
    step(ep, counters, log, TWO_JOINS_AND_INPUT, SHAPE_ANY, OFFSETS, 60);
    assert.deepEqual(log.seen, ["u:203@33~1000"], "an equal stamp is current");
    assert.equal(counters[Counter.DuplicateReliable], 2);
  });

  it("a datagram that acknowledges a seqno never sent is dropped, counted, and the peer is not heard", () => {
    const { ep, counters, log } = setup();
    const acks5 = hex(APP, "00000005", "000003e8", "00 00");
    assert.equal(step(ep, counters, log, acks5, SHAPE_NONE, [], 50), RECEIVE_BAD_ACK);
    assert.equal(counters[Counter.BadAck], 1);
    assert.equal(ep.lastHeard, 0);
    assert.deepEqual(log.seen, []);
  });

  it("an ack across the wrap: old changes nothing but hears the peer, new cuts the queue, one never sent is dropped, a signed one is the same", () => {
    const ep = new Endpoint(lwarChannel(1024, 100));
    const counters = createCounters();
    const log = new Log();
    ep.reset(0, 0xfffffffe);
    for (const seq of [0xfffffffe, 0xffffffff]) {
      const o = ep.queue(Msg.Join, 4);
      assert.ok(o >= 0);
      ep.buf.fill(seq & 0xff, o, o + 4);
    }
    ep.fill(new Uint8Array(512), 5, 5);
    const ack = (seq: string) => hex(APP, seq, "00000000", "00 00");
    assert.equal(step(ep, counters, log, ack("fffffffd"), SHAPE_NONE, [], 10), 0, "acknowledges nothing new");
    assert.deepEqual([ep.count, ep.lastHeard], [2, 10]);
    assert.equal(step(ep, counters, log, ack("fffffffe"), SHAPE_NONE, [], 20), RECEIVE_NEW_ACK);
    assert.deepEqual([ep.count, ep.firstSeq, ep.lastHeard], [1, 0xffffffff, 20]);
    assert.equal(step(ep, counters, log, ack("00000001"), SHAPE_NONE, [], 30), RECEIVE_BAD_ACK, "acks a seqno never sent");
    assert.deepEqual([counters[Counter.BadAck], ep.lastHeard], [1, 20], "counted, the peer not heard");
    // The header's word read signed is the same ack (a DataView's getInt32 of 0xffffffff is -1).
    assert.equal(step(ep, counters, log, ack("ffffffff"), SHAPE_NONE, [], 40), RECEIVE_NEW_ACK);
    assert.deepEqual([ep.count, ep.firstSeq, ep.lastHeard, counters[Counter.BadAck]], [0, 0, 40, 1]);
  });

  it("an ack that moves the queue's front says so", () => {
    const { ep, counters, log } = setup();
    ep.queue(Msg.Join, 4);
    ep.fill(new Uint8Array(512), 10, 10);
    const acks0 = hex(APP, "00000000", "000003e8", "00 00");
    assert.equal(step(ep, counters, log, acks0, SHAPE_NONE, [], 50), RECEIVE_NEW_ACK);
    assert.equal(ep.count, 0);
  });

  it("the owner stops it: nothing after that message, no stamp taken", () => {
    const { ep, counters, log } = setup();
    log.stopAt = 0;
    assert.equal(step(ep, counters, log, TWO_JOINS_AND_INPUT, SHAPE_ANY, OFFSETS, 50), RECEIVE_STOPPED);
    assert.deepEqual(log.seen, ["r:103@19#0"]);
    assert.equal(ep.newestTimestamp, 0);
  });

  it("a processed reliable message takes the stamp: an Input stamped before it, arriving later, is stale", () => {
    const { ep, counters, log } = setup();
    const join0At2000 = hex(APP, "ffffffff", "000007d0", "01 00", "00000000 67", "00000001");
    step(ep, counters, log, join0At2000, SHAPE_ANY, [19], 50);
    const inputAt1500 = hex(APP, "ffffffff", "000005dc", "00 01", "cb", "0100000000");
    step(ep, counters, log, inputAt1500, SHAPE_ONE_UNRELIABLE, [], 60);
    assert.deepEqual(log.seen, ["r:103@19#0"]);
    assert.equal(counters[Counter.StaleUnreliable], 1);
  });

  it("SHAPE_ONE_UNRELIABLE says whether the one message is current, calls nothing, reads no count", () => {
    const { ep, counters, log } = setup();
    // The counts say nothing: the owner's shape is believed (its validation found it).
    const input = hex(APP, "ffffffff", "fffffff0", "00 00", "cb", "0100000000");
    assert.equal(step(ep, counters, log, input, SHAPE_ONE_UNRELIABLE, [], 50), RECEIVE_CURRENT);
    assert.equal(ep.newestTimestamp, -16, "the stamp taken, as a signed word");
    const older = hex(APP, "ffffffff", "ffffffe0", "00 00", "cb", "0100000000");
    assert.equal(step(ep, counters, log, older, SHAPE_ONE_UNRELIABLE, [], 60), 0, "an older one is not current");
    assert.equal(counters[Counter.StaleUnreliable], 1);
    assert.deepEqual(log.seen, []);
  });

  it("use() takes a datagram from another buffer, at an offset in it, and keeps its view while the buffer stays", () => {
    const { ep, counters, log } = setup();
    const own = new Uint8Array(64);
    const step = new ReceiveStep(new DataView(own.buffer), own, Uint16Array.from(OFFSETS), counters, log);
    const backing = new Uint8Array(8 + TWO_JOINS_AND_INPUT.length);
    backing.set(TWO_JOINS_AND_INPUT, 8);
    const received = backing.subarray(8);
    step.use(received);
    const view = step.view;
    assert.equal(step.run(ep, SHAPE_ANY, 50, 7), RECEIVE_CURRENT);
    assert.deepEqual(log.seen, ["r:103@19#0", "r:103@28#1", "u:203@33~1000"]);
    step.use(received);
    assert.equal(step.view, view, "the same buffer: no new view");
  });

  it("a stamp from the future drops the unreliable messages, counted once", () => {
    const { ep, counters, log } = setup();
    step(ep, counters, log, hex(APP, "ffffffff", "00000000", "00 01", "cb", "0100000000"), SHAPE_ANY, [15], 50);
    step(ep, counters, log, hex(APP, "ffffffff", "00100000", "00 01", "cb", "0100000000"), SHAPE_ANY, [15], 60);
    assert.deepEqual(log.seen, ["u:203@15~0"]);
    assert.equal(counters[Counter.FutureTimestamp], 1);
  });
});
