/**
 * One side's delivery state towards one remote peer: the queue of unacknowledged
 * reliable messages, the receive cursor for reliable messages, the timestamp filter
 * for unreliable ones, and the smoothed round-trip time. It knows the framing
 * (./frame.ts) and nothing of the application's messages beyond what its
 * EndpointConfig says (./channel.ts): the app id, and each message type's payload size.
 *
 * The queue is one preallocated byte buffer and nothing else. Queued messages are
 * stored already encoded, seqno and type included, packed from byte 0; acknowledged
 * ones are cut from the front with copyWithin. A packet is then a header followed by a
 * straight copy of the first messages that fit. No length, send time or send count is
 * kept per message:
 * - lengths come from the bytes themselves (the size table, or `measure`);
 * - packets always carry messages from the front, so the messages sent at least once
 *   are a prefix of the queue (`sentCount` of them);
 * - RTT is timed on one message at a time, as classic TCP does: the first message sent
 *   while no probe is out becomes the probe, and a resend of it voids the sample
 *   (Karn's rule).
 *
 * Other code reads the state (its fields are `readonly` to it) and changes it only through
 * the methods. (Not getters and #private names: on XS each costs heap slots, and a getter
 * a call on every read.) Writers put messages straight into `buf`: one at a time with
 * `queue`, or several at once (a native loop, say) between `reserve` and `commit`. Nothing
 * allocates after construction.
 *
 * Receiving: the methods below (acknowledge, acceptReliable, acceptUnreliable,
 * dropUnreliable) are the parts of the receive step, which ./receive.ts runs for every owner
 * (server, client, another app) on a datagram the owner has validated (the header's ack is
 * the step's own: it calls acknowledge only for an ack past the queue's front). They count what they
 * drop and take in the owner's `counters`, at the indices the channel names
 * (EndpointConfig.receiveIndex); what the messages mean is the owner's. The hot path (an ack
 * of nothing new, current unreliable messages) passes no more than it needs: counters go
 * only to the calls that may count.
 */
import { Channel, type EndpointConfig } from "./channel";
import { HEADER_ACK, HEADER_APP_ID, HEADER_REL, HEADER_SIZE, HEADER_TIMESTAMP, HEADER_UNREL, RELIABLE_HEADER } from "./frame";

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

/** The endpoint as its own methods see it: the fields other code reads are writable here. */
type Own = { -readonly [K in keyof Endpoint]: Endpoint[K] };

export class Endpoint {
  // Fields come hottest first: XS finds a property by walking the object's list in order,
  // so a field read on every due(), fill() or ack costs least near the top.
  /** Messages queued (unacknowledged). */
  readonly count: number = 0;
  /** A reliable message was processed since our last packet: the peer wants an ack soon. */
  readonly ackDue: boolean = false;
  /** The payload rules (shared, immutable). */
  readonly channel: Channel;
  /** The first `sentCount` queued messages (`sentBytes` bytes) have gone out at least once. */
  readonly sentCount: number = 0;
  /** When a packet carrying reliable messages last went out. */
  private lastReliableSend = 0;
  /** Bytes queued: the next message goes at this offset of `buf`. */
  readonly usedBytes: number = 0;
  /** Seqno of the message at the front of the queue. */
  readonly firstSeq: number = 0;
  /** Encoded queued messages, each `seqno u32, type u8, payload`. */
  readonly buf: Uint8Array;
  private sentBytes = 0;
  /** The packet buffer fill() last wrote, and its offset in `whole`'s buffer, -1 when it is not carved from it (look). */
  private lastOut: Uint8Array | null = null;
  private lastBase = -1;
  /** A DataView of all of `whole`'s buffer: fill() writes the header's three words with a call each, and its two counts with one. */
  private readonly wholeView: DataView | null;
  /** Seqno of the last reliable message processed from the peer (our ack). */
  readonly lastProcessed: number = 0xffffffff;
  /** The message being timed for an RTT sample, and when it first went out (ms mod 2^32). */
  private probing = false;
  private probeSeq = 0;
  private probeSent = 0;
  /** Seqno of the next message queued. */
  readonly nextSeq: number = 0;
  /** When the peer was last heard (`heard`). */
  readonly lastHeard: number = 0;
  /**
   * A message of variable size went into the queue through queue() since the last fill:
   * its payload was written after its size was given, so fill() measures the messages never
   * sent (a Chat without its NUL throws there, before anything goes out).
   */
  private unmeasured = false;
  /**
   * A view of the whole buffer that `buf` and the owner's packet buffer are carved from,
   * and where `buf` starts in it: fill() then copies a run of messages into the packet with
   * one native copyWithin instead of a loop over bytes. null: copy byte by byte.
   */
  private readonly whole: Uint8Array | null;
  private readonly at: number;
  /** Statistics: messages sent for the first time and resent since `reset`. */
  readonly sent: number = 0;
  readonly resent: number = 0;
  /** Messages the last fill() put in its packet. */
  readonly filledMessages: number = 0;
  /** Newest unreliable timestamp applied from the peer (as it was passed in), and our time when it was. */
  private hasTimestamp = false;
  readonly newestTimestamp: number = 0;
  private newestAt = 0;
  /** Bytes of `buf`. */
  readonly capacityBytes: number;
  /** A DataView on `buf`, for writing 32-bit fields into queued messages with one call. */
  readonly view: DataView;
  /** Smoothed RTT in ms, 0 before the first sample. */
  readonly srtt: number = 0;
  /** Largest type byte and payload one message may have: what fits a packet after the headers. */
  private readonly maxMessage: number;

  /**
   * `channel`: the payload rules (a Channel shares them between endpoints; a plain config
   * is checked into one of this endpoint's own). `storage`, if given, is the queue's buffer
   * (a view from the owner's Arena, `queueBytes` long); `whole`, a view of all of that
   * Arena's buffer (the owner's packets should come from it too); `wholeView`, a DataView
   * of the same buffer that the owner shares between its endpoints (else each makes its own).
   */
  constructor(channel: Channel | EndpointConfig, storage?: Uint8Array, whole?: Uint8Array, wholeView?: DataView) {
    const ch = channel instanceof Channel ? channel : new Channel(channel);
    const capacityBytes = ch.queueBytes;
    if (storage !== undefined && storage.length !== capacityBytes) throw new RangeError(`queue storage of ${storage.length} bytes, ${capacityBytes} wanted`);
    this.channel = ch;
    this.capacityBytes = capacityBytes;
    this.buf = storage ?? new Uint8Array(capacityBytes);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, capacityBytes);
    const shared = whole !== undefined && storage !== undefined && whole.buffer === storage.buffer && whole.byteOffset === 0;
    this.whole = shared ? whole : null;
    this.wholeView = !shared ? null : wholeView !== undefined && wholeView.buffer === whole.buffer && wholeView.byteOffset === 0 ? wholeView : new DataView(whole.buffer);
    this.at = shared ? storage.byteOffset : 0;
    this.maxMessage = ch.maxPacket - HEADER_SIZE - RELIABLE_HEADER + 1;
  }

  /** Size of the queued message at `o` (header included): the table, or measure(). */
  private queued(o: number): number {
    const ch = this.channel;
    const fixed = ch.sizes[this.buf[o + 4] - ch.typeBase];
    return fixed >= 0 ? RELIABLE_HEADER + fixed : (ch.measure as (q: Uint8Array, at: number) => number)(this.buf, o);
  }

  /** Bytes of the preallocated buffers (for the memory budget). */
  poolBytes(): number {
    return this.buf.byteLength;
  }

  // ---------------------------------------------------------------- life cycle

  /** Forget everything; the next seqno sent is `initialSeq` and the peer's first is expected at `peerInitialSeq`. */
  reset(now: number, initialSeq = 0, peerInitialSeq = 0): void {
    const s = this as Own;
    s.usedBytes = 0;
    s.count = 0;
    s.sentCount = 0;
    this.sentBytes = 0;
    s.firstSeq = initialSeq >>> 0;
    s.nextSeq = initialSeq >>> 0;
    this.unmeasured = false;
    this.resetReceive(peerInitialSeq);
    s.srtt = 0;
    this.probing = false;
    this.lastReliableSend = now;
    s.lastHeard = now;
    s.sent = 0;
    s.resent = 0;
  }

  /**
   * Forget what was received: the peer's next reliable message is expected at
   * `peerInitialSeq`, and any unreliable timestamp is current again. The queue stays.
   */
  resetReceive(peerInitialSeq: number): void {
    const s = this as Own;
    s.lastProcessed = (peerInitialSeq - 1) >>> 0;
    s.newestTimestamp = 0;
    this.hasTimestamp = false;
    s.ackDue = false;
  }

  /** Start the RTT estimate at `ms` (from an earlier connection, say) instead of the first sample. */
  seedRtt(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`RTT of ${ms} ms`);
    (this as Own).srtt = ms;
  }

  /** The peer was heard from at `now` (the owner decides what counts: a valid packet, say). */
  heard(now: number): void {
    (this as Own).lastHeard = now;
  }

  // ---------------------------------------------------------------- queueing

  /** Free bytes in the queue. */
  room(): number {
    return this.capacityBytes - this.usedBytes;
  }

  /** Free bytes for one more message of `payload` bytes, or false. */
  canQueue(payload: number): boolean {
    return this.usedBytes + RELIABLE_HEADER + payload <= this.capacityBytes;
  }

  /**
   * Append a reliable message: writes seqno and type, returns the payload's offset in
   * `buf` for the caller to fill with exactly `payload` bytes of a well-formed payload
   * (the queue finds message boundaries by reading them), or -1 when the queue is full
   * (the caller kicks). Throws for a message that could never fit a packet, and for a
   * fixed-size type given another size.
   */
  queue(type: number, payload: number): number {
    const ch = this.channel;
    if (RELIABLE_HEADER + payload > ch.maxPacket - HEADER_SIZE) throw new RangeError(`message of ${payload} bytes cannot fit a packet`);
    const fixed = ch.sizes[type - ch.typeBase];
    if (fixed === undefined || (fixed >= 0 && fixed !== payload)) throw new RangeError(`type ${type} with a payload of ${payload} bytes`);
    const s = this as Own;
    const o = s.usedBytes;
    if (o + RELIABLE_HEADER + payload > this.capacityBytes) return -1;
    this.view.setUint32(o, s.nextSeq);
    this.buf[o + 4] = type;
    if (fixed < 0) this.unmeasured = true;
    s.count++;
    s.usedBytes = o + RELIABLE_HEADER + payload;
    s.nextSeq = (s.nextSeq + 1) >>> 0;
    return o + RELIABLE_HEADER;
  }

  /**
   * Append a message copied from the owner's arena: its type byte and payload, `bytes` bytes
   * in all, lie at `from` in `whole` (the view the endpoint was made with). Leaves at least
   * `reserve` bytes free after it; returns false, queueing nothing, when they do not fit.
   * queue() and the copy in one call, for an owner that sends one message to many peers (on
   * XS it saves the type byte's write, the size table's read and a call per peer). The
   * owner's own messages only: the type and size are not checked against the channel's
   * table, only against a packet's room. Throws when the queue is not in the arena.
   */
  queueCopy(from: number, bytes: number, reserve: number): boolean {
    const whole = this.whole;
    if (whole === null || bytes > this.maxMessage) throw new RangeError(`copy of ${bytes} bytes: the queue is not in its owner's arena, or it cannot fit a packet`);
    const s = this as Own;
    const o = s.usedBytes;
    const end = o + RELIABLE_HEADER - 1 + bytes;
    if (end + reserve > this.capacityBytes) return false;
    const at = this.at + o;
    (this.wholeView as DataView).setUint32(at, s.nextSeq);
    whole.copyWithin(at + RELIABLE_HEADER - 1, from, from + bytes);
    s.count++;
    s.usedBytes = end;
    s.nextSeq = (s.nextSeq + 1) >>> 0;
    return true;
  }

  /**
   * For a writer that appends messages itself: the offset in `buf` where it may write
   * `bytes` bytes of whole messages, or -1 when they do not fit. Nothing changes until
   * `commit`. Each message is `seqno u32, type u8, payload`, the seqnos `nextSeq`,
   * `nextSeq + 1`, ... in order.
   */
  reserve(bytes: number): number {
    return this.usedBytes + bytes <= this.capacityBytes ? this.usedBytes : -1;
  }

  /**
   * Take in `messages` messages a writer appended after `usedBytes` (see `reserve`), which
   * now end at offset `end`. Their seqnos must be the next ones; the next message queued
   * gets the seqno after them. The writer is trusted with their boundaries (the native
   * entity sync: what it writes is tested byte for byte); what is checked here costs no
   * walk: the span, the first message's seqno, and a lone message's type and size.
   */
  commit(end: number, messages: number): void {
    const s = this as Own;
    const used = s.usedBytes;
    // The span: empty for no message, else at least a header each (so past `used`), within the queue.
    if (!(end <= this.capacityBytes && (messages === 0 ? end === used : messages > 0 && end - used >= messages * RELIABLE_HEADER)))
      throw new RangeError(`commit of ${messages} messages ending at ${end}: queue at ${used} of ${this.capacityBytes}`);
    const next = s.nextSeq;
    if (messages !== 0 && this.view.getUint32(used) !== next)
      throw new RangeError(`commit of ${messages} messages ending at ${end}: the first is not the next seqno`);
    if (messages === 1) {
      const ch = this.channel;
      const fixed = ch.sizes[this.buf[used + 4] - ch.typeBase];
      if (fixed === undefined || (fixed >= 0 && end - used !== RELIABLE_HEADER + fixed))
        throw new RangeError(`commit of a message ending at ${end}: of no known type, or not ${end - used} bytes long`);
    }
    s.usedBytes = end;
    s.count += messages;
    s.nextSeq = (next + messages) >>> 0;
  }

  /**
   * Apply an ack from the peer. Messages up to and including `ack` leave the queue;
   * if the RTT probe is among them, it gives a sample. Returns false for an ack of
   * something never sent (the caller counts it).
   */
  acknowledge(ack: number, now: number): boolean {
    const s = this as Own;
    const n = ((ack - s.firstSeq) | 0) + 1;
    if (n <= 0) return true; // old or initial ack
    if (n > s.sentCount) return false; // acks a seqno never sent
    if (this.probing && ((this.probeSeq - s.firstSeq) | 0) < n) {
      this.probing = false;
      // The RTT sample, smoothed (1/8 of each new one) from the first, which stands alone.
      const rtt = ((now >>> 0) - this.probeSent) >>> 0;
      s.srtt = s.srtt === 0 ? (rtt > 0 ? rtt : 0.5) : s.srtt + (rtt - s.srtt) / 8;
    }
    const buf = this.buf;
    let bytes = 0;
    if (n === s.sentCount) bytes = this.sentBytes; // every message sent is acknowledged (the usual case): no walk
    else {
      const ch = this.channel;
      const sizes = ch.sizes;
      const typeBase = ch.typeBase;
      for (let i = 0; i < n; i++) {
        const fixed = sizes[buf[bytes + 4] - typeBase];
        bytes += fixed >= 0 ? RELIABLE_HEADER + fixed : this.queued(bytes);
      }
    }
    buf.copyWithin(0, bytes, s.usedBytes);
    s.usedBytes -= bytes;
    s.count -= n;
    s.sentCount -= n;
    this.sentBytes -= bytes;
    s.firstSeq = (s.firstSeq + n) >>> 0;
    return true;
  }

  /** Smoothed RTT, as an integer in 0..65535. */
  ping(): number {
    const p = Math.round(this.srtt);
    return p > 65535 ? 65535 : p;
  }

  // ---------------------------------------------------------------- receiving

  /**
   * Decide what to do with an incoming reliable seqno, and count it: PROCESS advances the
   * cursor (received); DUPLICATE and OUT_OF_ORDER are dropped.
   */
  acceptReliable(seq: number, counters: Uint32Array): number {
    const s = this as Own;
    const last = s.lastProcessed;
    if (seq === ((last + 1) >>> 0)) {
      s.lastProcessed = seq;
      s.ackDue = true;
      counters[this.channel.receivedIndex]++;
      return PROCESS;
    }
    if (((seq - last) | 0) > 0) {
      counters[this.channel.outOfOrderIndex]++;
      return OUT_OF_ORDER;
    }
    counters[this.channel.duplicateIndex]++;
    return DUPLICATE;
  }

  /**
   * Whether unreliable messages stamped `timestamp` are current: CURRENT (and it becomes the
   * newest), STALE (older than the newest applied), or FUTURE: further ahead of the newest
   * than our own clock has moved since it was applied, plus FUTURE_SLACK_MS. A peer's clock
   * runs at our pace; a stamp from the future is forged or corrupted, and believing it would
   * make every genuine packet stale for as long as the stamp is ahead. The owner drops the
   * messages of any other verdict than CURRENT through `dropUnreliable`.
   */
  acceptUnreliable(timestamp: number, now: number): number {
    if (this.hasTimestamp) {
      const ahead = (timestamp - this.newestTimestamp) | 0;
      if (ahead < 0) return STALE;
      const elapsed = now - this.newestAt;
      if (ahead > elapsed + FUTURE_SLACK_MS + (elapsed >> 6)) return FUTURE;
    }
    (this as Own).newestTimestamp = timestamp;
    this.newestAt = now;
    this.hasTimestamp = true;
    return CURRENT;
  }

  /** Count the `messages` unreliable messages of a datagram that acceptUnreliable found STALE (each) or FUTURE (once). */
  dropUnreliable(verdict: number, messages: number, counters: Uint32Array): void {
    if (verdict === STALE) counters[this.channel.staleIndex] += messages;
    else counters[this.channel.futureIndex]++;
  }

  // ---------------------------------------------------------------- sending

  /**
   * Whether a packet should go out now for the sake of reliable messages: one sent now
   * would carry a never-sent message, or unacked ones have waited `resendMs`.
   */
  wantsSend(now: number, resendMs: number): boolean {
    if (this.count === 0) return false;
    if (this.count > this.sentCount && this.sentBytes + this.queued(this.sentBytes) <= this.channel.maxPacket - HEADER_SIZE) return true;
    return now - this.lastReliableSend >= resendMs;
  }

  /**
   * Whether the peer is owed an ack, or messages sent and not acknowledged have waited the
   * channel's resend interval: the part of `due` that cannot wait for a packet soon to go
   * anyway (messages never sent can).
   */
  owed(now: number): boolean {
    return this.ackDue || (this.sentCount !== 0 && now - this.lastReliableSend >= this.channel.resendMs);
  }

  /**
   * Whether a packet should go out now: the peer is owed an ack, or `wantsSend` with the
   * channel's resend interval.
   */
  due(now: number): boolean {
    if (this.ackDue) return true;
    const count = this.count;
    if (count === 0) return false;
    const ch = this.channel;
    if (now - this.lastReliableSend >= ch.resendMs) return true;
    if (!(count > this.sentCount)) return false;
    // The first message never sent, sized as queued() would, without its call (this runs a
    // few times a tick for each peer): does it fit a packet after those sent?
    const o = this.sentBytes;
    const fixed = ch.sizes[this.buf[o + 4] - ch.typeBase];
    return o + (fixed >= 0 ? RELIABLE_HEADER + fixed : this.queued(o)) <= ch.maxPacket - HEADER_SIZE;
  }

  /**
   * Start a packet in `out`: header with our ack and `timestamp`, then every queued
   * message that fits, oldest first (from message `first`, for a final flush that must
   * carry the whole queue over several packets). Returns the offset after them; the caller
   * may add unreliable messages and must then call `finishPacket`.
   */
  fill(out: Uint8Array, now: number, timestamp: number, first = 0): number {
    const s = this as Own;
    const ch = this.channel;
    // The header (frame.ts): this runs for every packet. A packet carved from the same
    // buffer as the queue takes its three words with one DataView call each (signed: no
    // double on XS), and its two counts (adjacent bytes, rel then unrel) with a fourth at
    // the end, unrel 0 for finishPacket to patch; another, byte by byte.
    // Whether `out` is such a packet, and where it starts, is kept from the last call: an
    // owner sends from one buffer.
    if (out !== this.lastOut) this.look(out);
    const ack = s.lastProcessed;
    const base = this.lastBase;
    const wv = this.wholeView as DataView;
    if (base >= 0) {
      wv.setInt32(base + HEADER_APP_ID, ch.idI32);
      wv.setInt32(base + HEADER_ACK, ack | 0);
      wv.setInt32(base + HEADER_TIMESTAMP, timestamp | 0);
    } else {
      const hi = ch.idHigh;
      const lo = ch.idLow;
      const id = HEADER_APP_ID;
      out[id] = hi >> 8;
      out[id + 1] = hi;
      out[id + 2] = lo >> 8;
      out[id + 3] = lo;
      const a = HEADER_ACK;
      out[a] = ack >>> 24;
      out[a + 1] = ack >>> 16;
      out[a + 2] = ack >>> 8;
      out[a + 3] = ack;
      const ts = HEADER_TIMESTAMP;
      out[ts] = timestamp >>> 24;
      out[ts + 1] = timestamp >>> 16;
      out[ts + 2] = timestamp >>> 8;
      out[ts + 3] = timestamp;
      out[HEADER_UNREL] = 0;
    }
    s.ackDue = false;
    const count = s.count;
    if (count === 0) {
      // Nothing queued (most Update packets): the header alone.
      if (base >= 0) wv.setInt16(base + HEADER_REL, 0);
      else out[HEADER_REL] = 0;
      s.filledMessages = 0;
      return HEADER_SIZE;
    }
    const sentCount = s.sentCount;
    const used = s.usedBytes;
    if (sentCount === 0 && first === 0 && base >= 0 && !this.unmeasured && HEADER_SIZE + used <= ch.maxPacket) {
      // The usual case, kept short as it runs for most packets that carry messages: all of
      // them new (the last packet's were acknowledged), the whole queue fits, and the
      // packet is carved from the queue's buffer. What the general path below does, less
      // the measuring and the resends.
      const at = this.at;
      (this.whole as Uint8Array).copyWithin(base + HEADER_SIZE, at, at + used);
      s.sent += count;
      ch.counters[ch.sentIndex] += count;
      if (!this.probing) {
        this.probing = true;
        this.probeSeq = s.firstSeq;
        this.probeSent = now >>> 0;
      }
      s.sentCount = count;
      this.sentBytes = used;
      this.lastReliableSend = now;
      wv.setInt16(base + HEADER_REL, count << 8);
      s.filledMessages = count;
      return HEADER_SIZE + used;
    }
    const start = HEADER_SIZE;
    const max = ch.maxPacket;
    let from: number;
    let begin: number;
    let i: number;
    if (first === 0 && start + used <= max) {
      // The whole queue fits (the usual case): nothing to measure, unless queue() took a
      // message of variable size since the last fill. Then the messages never sent are
      // measured, and must end where the queue does (a misuse throws before anything goes out).
      if (this.unmeasured) {
        if (count > sentCount) {
          const buf = this.buf;
          const sizes = ch.sizes;
          const typeBase = ch.typeBase;
          let at = this.sentBytes;
          for (let k = sentCount; k < count; k++) {
            const fixed = sizes[buf[at + 4] - typeBase];
            at += fixed >= 0 ? RELIABLE_HEADER + fixed : this.queued(at);
          }
          if (at !== used) throw new RangeError(`queued messages end at ${at}, the queue at ${used}`);
        }
        this.unmeasured = false;
      }
      begin = 0;
      from = used;
      i = count;
    } else {
      // Measure the run of messages that fits; nothing is copied yet.
      const buf = this.buf;
      const sizes = ch.sizes;
      const typeBase = ch.typeBase;
      from = 0;
      for (let k = 0; k < first; k++) from += this.queued(from);
      begin = from;
      let o = start;
      for (i = first; i < count; i++) {
        const fixed = sizes[buf[from + 4] - typeBase];
        const len = fixed >= 0 ? RELIABLE_HEADER + fixed : this.queued(from);
        if (o + len > max) break;
        from += len;
        o += len;
      }
    }
    if (from === begin) {
      // Nothing to copy.
    } else if (base >= 0) {
      const at = this.at;
      (this.whole as Uint8Array).copyWithin(base + start, at + begin, at + from);
    } else {
      const buf = this.buf;
      for (let k = begin, d = start; k < from; k++, d++) out[d] = buf[k];
    }
    // Messages first .. i-1 went out: those below sentCount again, the rest for the first time.
    let probing = this.probing;
    if (sentCount > first) {
      const resentEnd = i < sentCount ? i : sentCount;
      if (resentEnd > first) {
        s.resent += resentEnd - first;
        ch.counters[ch.resentIndex] += resentEnd - first;
        // Karn: a resent probe's ack could answer either copy.
        if (probing) {
          const probe = (this.probeSeq - s.firstSeq) | 0;
          if (probe >= first && probe < resentEnd) this.probing = probing = false;
        }
      }
    }
    if (i > sentCount) {
      const firstNew = sentCount > first ? sentCount : first;
      s.sent += i - firstNew;
      ch.counters[ch.sentIndex] += i - firstNew;
      if (!probing) {
        this.probing = true;
        this.probeSeq = (s.firstSeq + firstNew) >>> 0;
        this.probeSent = now >>> 0;
      }
      s.sentCount = i;
      this.sentBytes = from;
    }
    const n = i - first;
    if (n > 0) this.lastReliableSend = now;
    if (base >= 0) wv.setInt16(base + HEADER_REL, n << 8);
    else out[HEADER_REL] = n;
    s.filledMessages = n;
    return start + from - begin;
  }

  /**
   * The messages the last fill() put in its packet went out once more, in another packet of
   * the same moment that begins with the same bytes (an update spread over several packets,
   * each carrying the queue's front so that any one of them is whole): they count as sent
   * again, and a probe among them is voided (Karn), as a second fill() would have it; the
   * caller keeps the first packet's start instead of writing it again.
   */
  repeat(): void {
    const n = this.filledMessages;
    if (n === 0) return;
    const ch = this.channel;
    (this as Own).resent += n;
    ch.counters[ch.resentIndex] += n;
    if (this.probing && ((this.probeSeq - this.firstSeq) | 0) < n) this.probing = false;
  }

  /** Remember `out` for fill(): whether it is carved from the queue's buffer, and where it starts there. Once per owner buffer. */
  private look(out: Uint8Array): void {
    const whole = this.whole;
    this.lastOut = out;
    this.lastBase = whole !== null && out.buffer === whole.buffer ? out.byteOffset : -1;
  }
}

/** Patch the unreliable count into a packet started by `Endpoint.fill`. */
export function finishPacket(out: Uint8Array, unrel: number): void {
  out[HEADER_UNREL] = unrel;
}
