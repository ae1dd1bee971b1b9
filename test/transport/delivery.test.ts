/**
 * Reliable and unreliable delivery over the seeded in-memory lossy link, at the
 * Endpoint level: two peers push numbered reliable messages at each other as fast as
 * their queues allow, and stamp an unreliable message into every packet.
 */
import assert from "node:assert/strict";
import { CURRENT, Endpoint, PROCESS, finishPacket } from "../../modules/transport/endpoint";
import { lwarChannel } from "../../modules/protocol/channel";
import { Msg, HEADER_SIZE, RELIABLE_HEADER, MAX_PACKET } from "../../modules/protocol/constants";
import { getU32, setU32 } from "../../modules/protocol/bytes";
import { headerAck, headerRel, headerTimestamp, headerUnrel, validatePacket } from "../../modules/protocol/codec";
import { createCounters } from "../../modules/protocol/counters";
import { seqDiff } from "../../modules/protocol/seq";
import type { Core } from "../../modules/host";
import { Network, type MemHost, type LinkOptions } from "../../harness/link";

/** A peer that sends `total` reliable Join-typed messages whose payload is their index. */
class Pusher implements Core {
  readonly ep = new Endpoint(lwarChannel(2048, 100));
  readonly counters = createCounters();
  readonly tx = new Uint8Array(MAX_PACKET);
  queued = 0;
  /** Payloads of reliable messages processed, in order. */
  received: number[] = [];
  /** Timestamps of packets whose unreliable message was applied. */
  applied: number[] = [];
  staleDropped = 0;
  #nextSend = 0;
  constructor(readonly host: MemHost, readonly peer: MemHost, readonly total: number, initialSeq: number, peerSeq: number) {
    this.ep.reset(0, initialSeq, peerSeq);
  }
  tick(now: number): void {
    while (this.queued < this.total && this.ep.canQueue(4)) {
      const o = this.ep.queue(Msg.Join, 4);
      setU32(this.ep.buf, o, this.queued++);
    }
    if (now >= this.#nextSend || this.ep.wantsSend(now, 30)) {
      this.#nextSend = now + 20;
      let o = this.ep.fill(this.tx, now, now);
      // One unreliable message per packet: Input, whose bytes we don't care about.
      if (o + 6 <= MAX_PACKET) {
        this.tx[o] = Msg.Input;
        for (let i = 1; i <= 5; i++) this.tx[o + i] = 0;
        o += 6;
        finishPacket(this.tx, 1);
      }
      this.host.send(this.tx, o, this.peer.address, this.peer.port);
    }
  }
  receive(b: Uint8Array, length: number): void {
    assert.ok(validatePacket(b, length, 3, this.counters), "the link never corrupts packets");
    assert.ok(this.ep.acknowledge(headerAck(b), this.host.now()));
    let o = HEADER_SIZE;
    for (let m = 0; m < headerRel(b); m++) {
      const seq = getU32(b, o);
      if (this.ep.acceptReliable(seq, this.counters) === PROCESS) this.received.push(getU32(b, o + RELIABLE_HEADER));
      o += RELIABLE_HEADER + 4;
    }
    if (headerUnrel(b) > 0) {
      const ts = headerTimestamp(b);
      if (this.ep.acceptUnreliable(ts, this.host.now()) === CURRENT) this.applied.push(ts);
      else this.staleDropped++;
    }
  }
}

function pair(link: LinkOptions, total: number, seqA = 0, seqB = 0): { net: Network; a: Pusher; b: Pusher } {
  const net = new Network(link);
  const ha = net.host("mem:a", 1);
  const hb = net.host("mem:b", 2);
  const a = new Pusher(ha, hb, total, seqA, seqB);
  const b = new Pusher(hb, ha, total, seqB, seqA);
  ha.core = a;
  hb.core = b;
  return { net, a, b };
}

function runUntilDone(net: Network, a: Pusher, b: Pusher, limitMs: number): void {
  while (net.now < limitMs && (a.received.length < b.total || b.received.length < a.total || a.ep.count > 0 || b.ep.count > 0)) net.run(100, 5);
}

function assertInOrder(received: number[], total: number): void {
  assert.equal(received.length, total, "every message arrives exactly once");
  for (let i = 0; i < total; i++) if (received[i] !== i) assert.fail(`message ${i} arrived as ${received[i]}`);
}

function assertNeverStale(applied: number[]): void {
  for (let i = 1; i < applied.length; i++) assert.ok(seqDiff(applied[i], applied[i - 1]) >= 0, `unreliable at ${applied[i]} applied after ${applied[i - 1]}`);
}

const LOSSY: LinkOptions = { seed: 42, loss: 0.2, duplicate: 0.1, reorder: 0.2, delayMs: 2, jitterMs: 8, reorderMs: 25 };

describe("delivery over a lossy link", function () {
  it("10,000 reliable messages each way arrive exactly once and in order (20% loss, 10% dup, 20% reorder, jitter)", function () {
    const { net, a, b } = pair(LOSSY, 10000);
    runUntilDone(net, a, b, 600_000);
    assertInOrder(a.received, 10000);
    assertInOrder(b.received, 10000);
    // The link really was hostile.
    const sent = net.sent;
    assert.ok(net.lost > sent * 0.15 && net.duplicated > sent * 0.05 && net.reordered > sent * 0.1, `sent ${sent} lost ${net.lost} dup ${net.duplicated} reordered ${net.reordered}`);
    assert.ok(a.ep.resent > 0 && b.ep.resent > 0);
  });

  it("unreliable messages are never applied out of date, and late ones are dropped", function () {
    const { net, a, b } = pair(LOSSY, 2000);
    runUntilDone(net, a, b, 120_000);
    assertNeverStale(a.applied);
    assertNeverStale(b.applied);
    assert.ok(a.staleDropped + b.staleDropped > 0, "reordering produced late packets that were filtered");
  });

  it("seqnos wrap across 0xFFFFFFFF → 0 without loss or reordering of messages", function () {
    const { net, a, b } = pair(LOSSY, 3000, 0xffffff00, 0xfffffa00);
    runUntilDone(net, a, b, 300_000);
    assertInOrder(a.received, 3000);
    assertInOrder(b.received, 3000);
    assert.ok(a.ep.nextSeq < 0x1000 && b.ep.nextSeq < 0x1000, "both sides wrapped");
  });

  it("every other packet dropped still delivers everything", function () {
    const { net, a, b } = pair({ seed: 7, loss: 0.5, delayMs: 1 }, 1000);
    runUntilDone(net, a, b, 300_000);
    assertInOrder(a.received, 1000);
    assertInOrder(b.received, 1000);
  });

});
