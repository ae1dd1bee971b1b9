/**
 * One side's delivery state towards one remote peer: the queue of unacknowledged
 * reliable messages, the receive cursor for reliable messages, the timestamp filter
 * for unreliable ones, and the smoothed round-trip time. Used by the server (one per
 * player slot) and by the client library (one).
 *
 * The queue is one preallocated byte buffer and nothing else. Queued messages are
 * stored already encoded, seqno and type included, packed from byte 0; acknowledged
 * ones are cut from the front with copyWithin. A packet is then a header followed by a
 * straight copy of the first messages that fit. No length, send time or send count is
 * kept per message:
 * - lengths come from the bytes themselves (`queuedSize`);
 * - packets always carry messages from the front, so the messages sent at least once
 *   are a prefix of the queue (`sentCount` of them);
 * - RTT is timed on one message at a time, as classic TCP does: the first message sent
 *   while no probe is out becomes the probe, and a resend of it voids the sample
 *   (Karn's rule).
 */
import { HEADER_SIZE, MAX_PACKET, NO_ACK, RELIABLE_HEADER, TYPE_BASE, typeTable } from "../protocol/constants";
import { seqDiff, seqGreater, seqNext } from "../protocol/seq";
import { queuedSize } from "../protocol/codec";

/** Results of `acceptUnreliable`. */
export const CURRENT = 0;
export const STALE = 1;
export const FUTURE = 2;
/** How far a peer's timestamp may run ahead of our own clock's progress, ms. */
export const FUTURE_SLACK_MS = 1000;

/** Result of `acceptReliable`. */
export const PROCESS = 0;
export const DUPLICATE = 1;
export const OUT_OF_ORDER = 2;

export class Endpoint {
  readonly capacityBytes: number;
  /** Encoded queued messages, each `seqno u32, type u8, payload`. */
  readonly buf: Uint8Array;
  /** A DataView on `buf`, for writing 32-bit fields into queued messages with one call. */
  readonly view: DataView;
  /** Bytes and messages queued. */
  usedBytes = 0;
  count = 0;
  /** The first `sentCount` queued messages (`sentBytes` bytes) have gone out at least once. */
  sentCount = 0;
  sentBytes = 0;
  /** Seqno of the message at the front of the queue, and of the next one queued. */
  firstSeq = 0;
  nextSeq = 0;
  /** Seqno of the last reliable message processed from the peer (our ack). */
  lastProcessed = NO_ACK;
  /** Newest unreliable timestamp applied from the peer, and our time when it was. */
  newestTimestamp = 0;
  newestAt = 0;
  hasTimestamp = false;
  /** Smoothed RTT in ms, 0 before the first sample. */
  srtt = 0;
  /** The message being timed for an RTT sample, and when it first went out (ms mod 2^32). */
  #probing = false;
  #probeSeq = 0;
  #probeSent = 0;
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
  /** Fixed payload sizes by type - TYPE_BASE (-1: variable), from the protocol's one table. */
  readonly #sizes: Int16Array;
  /**
   * A view of the whole buffer that `buf` and the owner's packet buffer are carved from,
   * and where `buf` starts in it: fill() then copies a run of messages into the packet with
   * one native copyWithin instead of a loop over bytes. null: copy byte by byte.
   */
  readonly #whole: Uint8Array | null;
  readonly #base: number;

  /**
   * `storage`, if given, is the queue's buffer (a view from the owner's Arena); `whole`, a
   * view of all of that Arena's buffer (the owner's packets should come from it too).
   */
  constructor(capacityBytes: number, storage?: Uint8Array, whole?: Uint8Array) {
    if (capacityBytes < MAX_PACKET) throw new RangeError(`reliable queue must hold at least ${MAX_PACKET} bytes`);
    if (storage !== undefined && storage.length !== capacityBytes) throw new RangeError(`queue storage of ${storage.length} bytes, ${capacityBytes} wanted`);
    this.capacityBytes = capacityBytes;
    this.buf = storage ?? new Uint8Array(capacityBytes);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, capacityBytes);
    this.#sizes = typeTable().size;
    const shared = whole !== undefined && storage !== undefined && whole.buffer === storage.buffer && whole.byteOffset === 0;
    this.#whole = shared ? whole : null;
    this.#base = shared ? storage.byteOffset : 0;
  }

  /** Size of the queued message at `o` (header included): the table, or a scan for Chat. */
  #queued(o: number): number {
    const fixed = this.#sizes[this.buf[o + 4] - TYPE_BASE];
    return fixed >= 0 ? RELIABLE_HEADER + fixed : queuedSize(this.buf, o);
  }

  /** Bytes of the preallocated buffers (for the memory budget). */
  poolBytes(): number {
    return this.buf.byteLength;
  }

  /** Forget everything; the next seqno sent is `initialSeq` and the peer's first is expected at `peerInitialSeq`. */
  reset(now: number, initialSeq = 0, peerInitialSeq = 0): void {
    this.usedBytes = 0;
    this.count = 0;
    this.sentCount = 0;
    this.sentBytes = 0;
    this.firstSeq = initialSeq >>> 0;
    this.nextSeq = initialSeq >>> 0;
    this.lastProcessed = (peerInitialSeq - 1) >>> 0;
    this.newestTimestamp = 0;
    this.hasTimestamp = false;
    this.srtt = 0;
    this.#probing = false;
    this.ackDue = false;
    this.lastReliableSend = now;
    this.lastHeard = now;
    this.sent = 0;
    this.resent = 0;
  }

  /** Free bytes for one more message of `payload` bytes, or false. */
  canQueue(payload: number): boolean {
    return this.usedBytes + RELIABLE_HEADER + payload <= this.capacityBytes;
  }

  /**
   * Append a reliable message: writes seqno and type, returns the payload's offset in
   * `buf` for the caller to fill with exactly `payload` bytes of a well-formed payload
   * (the queue finds message boundaries by reading them), or -1 when the queue is full
   * (the caller kicks).
   */
  queue(type: number, payload: number): number {
    if (RELIABLE_HEADER + payload > MAX_PACKET - HEADER_SIZE) throw new RangeError(`message of ${payload} bytes cannot fit a packet`);
    if (!this.canQueue(payload)) return -1;
    const o = this.usedBytes;
    this.view.setUint32(o, this.nextSeq);
    this.buf[o + 4] = type;
    this.count++;
    this.usedBytes += RELIABLE_HEADER + payload;
    this.nextSeq = seqNext(this.nextSeq);
    return o + RELIABLE_HEADER;
  }

  /**
   * Apply an ack from the peer. Messages up to and including `ack` leave the queue;
   * if the RTT probe is among them, it gives a sample. Returns false for an ack of
   * something never sent (the caller counts it).
   */
  acknowledge(ack: number, now: number): boolean {
    const n = seqDiff(ack, this.firstSeq) + 1;
    if (n <= 0) return true; // old or initial ack
    if (n > this.sentCount) return false; // acks a seqno never sent
    if (this.#probing && seqDiff(this.#probeSeq, this.firstSeq) < n) {
      this.#probing = false;
      this.#sample(((now >>> 0) - this.#probeSent) >>> 0);
    }
    const buf = this.buf;
    const sizes = this.#sizes;
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const fixed = sizes[buf[bytes + 4] - TYPE_BASE];
      bytes += fixed >= 0 ? RELIABLE_HEADER + fixed : queuedSize(buf, bytes);
    }
    buf.copyWithin(0, bytes, this.usedBytes);
    this.usedBytes -= bytes;
    this.count -= n;
    this.sentCount -= n;
    this.sentBytes -= bytes;
    this.firstSeq = (this.firstSeq + n) >>> 0;
    return true;
  }

  #sample(rtt: number): void {
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

  /**
   * Whether unreliable messages stamped `timestamp` are current: CURRENT (and it becomes the
   * newest), STALE (older than the newest applied), or FUTURE: further ahead of the newest
   * than our own clock has moved since it was applied, plus FUTURE_SLACK_MS. A peer's clock
   * runs at our pace; a stamp from the future is forged or corrupted, and believing it would
   * make every genuine packet stale for as long as the stamp is ahead.
   */
  acceptUnreliable(timestamp: number, now: number): number {
    if (this.hasTimestamp) {
      const ahead = seqDiff(timestamp, this.newestTimestamp);
      if (ahead < 0) return STALE;
      const elapsed = now - this.newestAt;
      if (ahead > elapsed + FUTURE_SLACK_MS + (elapsed >> 6)) return FUTURE;
    }
    this.newestTimestamp = timestamp;
    this.newestAt = now;
    this.hasTimestamp = true;
    return CURRENT;
  }

  /**
   * Whether a packet should go out now for the sake of reliable messages: one sent now
   * would carry a never-sent message, or unacked ones have waited `resendMs`.
   */
  wantsSend(now: number, resendMs: number): boolean {
    if (this.count === 0) return false;
    if (this.count > this.sentCount && this.sentBytes + this.#queued(this.sentBytes) <= MAX_PACKET - HEADER_SIZE) return true;
    return now - this.lastReliableSend >= resendMs;
  }

  /**
   * Start a packet in `out`: header with our ack and `timestamp`, then every queued
   * message that fits, oldest first (from message `first`, for a final flush that must
   * carry the whole queue over several packets). Returns the offset after them; the caller may add
   * unreliable messages and must then call `finish`.
   */
  fill(out: Uint8Array, now: number, timestamp: number, first = 0): number {
    // writeHeader, inlined (this runs for every packet): appId 0xf27087c5, ack, timestamp.
    const ack = this.lastProcessed;
    out[0] = 0xf2;
    out[1] = 0x70;
    out[2] = 0x87;
    out[3] = 0xc5;
    out[4] = ack >>> 24;
    out[5] = ack >>> 16;
    out[6] = ack >>> 8;
    out[7] = ack;
    out[8] = timestamp >>> 24;
    out[9] = timestamp >>> 16;
    out[10] = timestamp >>> 8;
    out[11] = timestamp;
    out[13] = 0;
    const start = HEADER_SIZE;
    this.ackDue = false;
    const buf = this.buf;
    const sizes = this.#sizes;
    let from = 0;
    for (let k = 0; k < first; k++) from += this.#queued(from);
    const begin = from;
    // Measure the run of messages that fits; nothing is copied yet.
    let o = start;
    let i = first;
    for (; i < this.count; i++) {
      const fixed = sizes[buf[from + 4] - TYPE_BASE];
      const len = fixed >= 0 ? RELIABLE_HEADER + fixed : queuedSize(buf, from);
      if (o + len > MAX_PACKET) break;
      from += len;
      o += len;
    }
    const whole = this.#whole;
    if (from === begin) {
      // Nothing to copy.
    } else if (whole !== null && out.buffer === whole.buffer) {
      const at = out.byteOffset + start;
      whole.copyWithin(at, this.#base + begin, this.#base + from);
    } else {
      for (let k = begin, d = start; k < from; k++, d++) out[d] = buf[k];
    }
    // Messages first .. i-1 went out: those below sentCount again, the rest for the first time.
    const resentEnd = i < this.sentCount ? i : this.sentCount;
    if (resentEnd > first) {
      this.resent += resentEnd - first;
      // Karn: a resent probe's ack could answer either copy.
      if (this.#probing) {
        const probe = seqDiff(this.#probeSeq, this.firstSeq);
        if (probe >= first && probe < resentEnd) this.#probing = false;
      }
    }
    if (i > this.sentCount) {
      const firstNew = this.sentCount > first ? this.sentCount : first;
      this.sent += i - firstNew;
      if (!this.#probing) {
        this.#probing = true;
        this.#probeSeq = (this.firstSeq + firstNew) >>> 0;
        this.#probeSent = now >>> 0;
      }
      this.sentCount = i;
      this.sentBytes = from;
    }
    if (i > first) this.lastReliableSend = now;
    out[12] = i - first;
    this.filledMessages = i - first;
    return o;
  }
}

/** Patch the unreliable count into a packet started by `Endpoint.fill`. */
export function finishPacket(out: Uint8Array, unrel: number): void {
  out[13] = unrel;
}
