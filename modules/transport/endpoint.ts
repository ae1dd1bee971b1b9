/**
 * One side's delivery state towards one remote peer: the queue of unacknowledged
 * reliable messages (a preallocated byte buffer plus per-message metadata), the
 * receive cursor for reliable messages, the timestamp filter for unreliable ones,
 * and the smoothed round-trip time. Used by the server (one per player slot) and
 * by the client library (one).
 *
 * Queued messages are stored already encoded, seqno and type included, packed from
 * byte 0; acknowledged ones are cut from the front with copyWithin. A packet is then
 * a header followed by a straight copy of the first messages that fit.
 */
import { HEADER_SIZE, MAX_PACKET, NO_ACK, RELIABLE_HEADER } from "../protocol/constants";
import { setU32 } from "../protocol/bytes";
import { seqDiff, seqGreater, seqNext } from "../protocol/seq";
import { writeHeader } from "../protocol/codec";

/** Result of `acceptReliable`. */
export const PROCESS = 0;
export const DUPLICATE = 1;
export const OUT_OF_ORDER = 2;

export class Endpoint {
  readonly capacityBytes: number;
  readonly capacityMessages: number;
  /** Encoded queued messages, each `seqno u32, type u8, payload`. */
  readonly buf: Uint8Array;
  readonly #length: Uint16Array;
  /** First-send time of each message, in ms mod 2^32 (RTT samples are far shorter than the wrap). */
  readonly #firstSent: Uint32Array;
  readonly #sends: Uint8Array;
  /** Bytes and messages queued. */
  usedBytes = 0;
  count = 0;
  /** Seqno of the message at the front of the queue, and of the next one queued. */
  firstSeq = 0;
  nextSeq = 0;
  /** Seqno of the last reliable message processed from the peer (our ack). */
  lastProcessed = NO_ACK;
  /** Newest unreliable timestamp applied from the peer. */
  newestTimestamp = 0;
  hasTimestamp = false;
  /** Smoothed RTT in ms, 0 before the first sample. */
  srtt = 0;
  /** When a packet carrying reliable messages last went out, and when the peer was last heard. */
  lastReliableSend = 0;
  lastHeard = 0;
  /** Statistics for tools: messages sent for the first time and resent. */
  sent = 0;
  resent = 0;
  /** Set by fill(): messages it copied. */
  filledMessages = 0;
  /** A reliable message was processed since our last packet: the peer wants an ack soon. */
  ackDue = false;

  constructor(capacityBytes: number, capacityMessages: number) {
    if (capacityBytes < MAX_PACKET) throw new RangeError(`reliable queue must hold at least ${MAX_PACKET} bytes`);
    this.capacityBytes = capacityBytes;
    this.capacityMessages = capacityMessages;
    this.buf = new Uint8Array(capacityBytes);
    this.#length = new Uint16Array(capacityMessages);
    this.#firstSent = new Uint32Array(capacityMessages);
    this.#sends = new Uint8Array(capacityMessages);
  }

  /** Bytes of the preallocated buffers (for the memory budget). */
  poolBytes(): number {
    return this.buf.byteLength + this.#length.byteLength + this.#firstSent.byteLength + this.#sends.byteLength;
  }

  /** Forget everything; the next seqno sent is `initialSeq` and the peer's first is expected at `peerInitialSeq`. */
  reset(now: number, initialSeq = 0, peerInitialSeq = 0): void {
    this.usedBytes = 0;
    this.count = 0;
    this.firstSeq = initialSeq >>> 0;
    this.nextSeq = initialSeq >>> 0;
    this.lastProcessed = (peerInitialSeq - 1) >>> 0;
    this.newestTimestamp = 0;
    this.hasTimestamp = false;
    this.srtt = 0;
    this.ackDue = false;
    this.lastReliableSend = now;
    this.lastHeard = now;
    this.sent = 0;
    this.resent = 0;
  }

  /** Free bytes for one more message of `payload` bytes, or false. */
  canQueue(payload: number): boolean {
    return this.count < this.capacityMessages && this.usedBytes + RELIABLE_HEADER + payload <= this.capacityBytes;
  }

  /**
   * Append a reliable message: writes seqno and type, returns the payload's offset in
   * `buf` for the caller to fill, or -1 when the queue is full (the caller kicks).
   */
  queue(type: number, payload: number): number {
    if (RELIABLE_HEADER + payload > MAX_PACKET - HEADER_SIZE) throw new RangeError(`message of ${payload} bytes cannot fit a packet`);
    if (!this.canQueue(payload)) return -1;
    const o = this.usedBytes;
    setU32(this.buf, o, this.nextSeq);
    this.buf[o + 4] = type;
    this.#length[this.count] = RELIABLE_HEADER + payload;
    this.#sends[this.count] = 0;
    this.#firstSent[this.count] = 0;
    this.count++;
    this.usedBytes += RELIABLE_HEADER + payload;
    this.nextSeq = seqNext(this.nextSeq);
    return o + RELIABLE_HEADER;
  }

  /**
   * Apply an ack from the peer. Messages up to and including `ack` leave the queue;
   * the newest of them that was sent exactly once gives an RTT sample (Karn's rule).
   * Returns false for an ack of something never sent (the caller counts it).
   */
  acknowledge(ack: number, now: number): boolean {
    const n = seqDiff(ack, this.firstSeq) + 1;
    if (n <= 0) return true; // old or initial ack
    if (n > this.count || this.#sends[n - 1] === 0) return false; // acks a seqno never sent
    if (this.#sends[n - 1] === 1) this.#sample(((now >>> 0) - this.#firstSent[n - 1]) >>> 0);
    let bytes = 0;
    for (let i = 0; i < n; i++) bytes += this.#length[i];
    this.buf.copyWithin(0, bytes, this.usedBytes);
    this.#length.copyWithin(0, n, this.count);
    this.#firstSent.copyWithin(0, n, this.count);
    this.#sends.copyWithin(0, n, this.count);
    this.usedBytes -= bytes;
    this.count -= n;
    this.firstSeq = (this.firstSeq + n) >>> 0;
    return true;
  }

  #sample(rtt: number): void {
    if (rtt < 0) rtt = 0;
    this.srtt = this.srtt === 0 ? (rtt > 0 ? rtt : 0.5) : this.srtt + (rtt - this.srtt) / 8;
  }

  /** Smoothed RTT for Stats, as an integer in 0..65535. */
  ping(): number {
    const p = Math.round(this.srtt);
    return p > 65535 ? 65535 : p;
  }

  /** Decide what to do with an incoming reliable seqno; PROCESS advances the cursor. */
  acceptReliable(seq: number): number {
    if (seq === seqNext(this.lastProcessed)) {
      this.lastProcessed = seq;
      this.ackDue = true;
      return PROCESS;
    }
    return seqGreater(seq, this.lastProcessed) ? OUT_OF_ORDER : DUPLICATE;
  }

  /** Whether unreliable messages stamped `timestamp` are current (not older than the newest applied). */
  acceptUnreliable(timestamp: number): boolean {
    if (this.hasTimestamp && seqDiff(timestamp, this.newestTimestamp) < 0) return false;
    this.newestTimestamp = timestamp;
    this.hasTimestamp = true;
    return true;
  }

  /**
   * Whether a packet should go out now for the sake of reliable messages: one sent now
   * would carry a never-sent message, or unacked ones have waited `resendMs`.
   */
  wantsSend(now: number, resendMs: number): boolean {
    if (this.count === 0) return false;
    let room = MAX_PACKET - HEADER_SIZE;
    for (let i = 0; i < this.count; i++) {
      const len = this.#length[i];
      if (len > room) break;
      if (this.#sends[i] === 0) return true;
      room -= len;
    }
    return now - this.lastReliableSend >= resendMs;
  }

  /**
   * Start a packet in `out`: header with our ack and `timestamp`, then every queued
   * message that fits, oldest first (from message `first`, for a final flush that must
   * carry the whole queue over several packets). Returns the offset after them; the caller may add
   * unreliable messages and must then call `finish`.
   */
  fill(out: Uint8Array, now: number, timestamp: number, first = 0): number {
    let o = writeHeader(out, this.lastProcessed, timestamp >>> 0, 0, 0);
    this.ackDue = false;
    let from = 0;
    for (let k = 0; k < first; k++) from += this.#length[k];
    let i = first;
    for (; i < this.count; i++) {
      const len = this.#length[i];
      if (o + len > MAX_PACKET) break;
      const buf = this.buf;
      for (let k = 0; k < len; k++) out[o + k] = buf[from + k];
      from += len;
      o += len;
      if (this.#sends[i] === 0) {
        this.#firstSent[i] = now >>> 0;
        this.sent++;
      } else this.resent++;
      if (this.#sends[i] < 255) this.#sends[i]++;
    }
    if (i > first) this.lastReliableSend = now;
    out[12] = i - first;
    this.filledMessages = i - first;
    return o;
  }

  /** Drop every queued message and reuse their seqnos: the next message takes the
   * seqno right after the last acknowledged one. For a final packet to a kicked peer. */
  rewind(): void {
    this.usedBytes = 0;
    this.count = 0;
    this.nextSeq = this.firstSeq;
  }
}

/** Patch the unreliable count into a packet started by `Endpoint.fill`. */
export function finishPacket(out: Uint8Array, unrel: number): void {
  out[13] = unrel;
}
