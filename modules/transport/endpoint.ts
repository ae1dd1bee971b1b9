/**
 * One side's delivery state towards one remote peer: the queue of unacknowledged reliable
 * messages, the receive cursor for reliable messages, the timestamp filter for unreliable
 * ones, and the smoothed round-trip time. It knows the framing (./frame.ts) and nothing of
 * the application's messages beyond what its EndpointConfig says (./channel.ts): the app
 * id, and each message type's payload size.
 *
 * The state and every change to it are native: modules/kernels/transport.c, its only
 * implementation (compiled into XS on the board, the simulator and lwxs; WebAssembly on
 * Node and in the page). An owner's peers share one `EndpointTable`: their state words and
 * queues in one binding (modules/native.ts), so that one call can look at all of them (which
 * peers are due a packet) or copy one message into each (a broadcast). An `Endpoint` is one
 * peer of a table: each method is one native call with its index, and its fields read its
 * state words. `new Endpoint(config)` makes a table of one with the platform's loops.
 *
 * The queue is one preallocated byte buffer. Queued messages are stored already encoded,
 * `seqno u32, type u8, payload`, packed from byte 0; acknowledged ones are cut from the
 * front. A packet is a header followed by a straight copy of the first messages that fit.
 * No length, send time or send count is kept per message:
 * - lengths come from the bytes themselves (the size table, or a text's NUL);
 * - packets always carry messages from the front, so the messages sent at least once are a
 *   prefix of the queue (`sentCount` of them);
 * - RTT is timed on one message at a time, as classic TCP does: the first message sent
 *   while no probe is out becomes the probe, and a resend of it voids the sample (Karn's rule).
 *
 * Writers put messages straight into `buf`: one at a time with `queue`, or several at once
 * (a native loop, say) between `reserve` and `commit`. Nothing allocates after construction.
 *
 * Receiving: ./receive.ts runs the receive step for every owner (server, client, another app)
 * on a datagram the owner has validated; `acknowledge`, `acceptReliable` and
 * `acceptUnreliable` are its parts. Counting what they drop and take is the step's, at the
 * indices the channel names (EndpointConfig.receiveIndex); what the messages mean is the owner's.
 *
 * Times are integer milliseconds (taken as int32, compared by difference); seqnos are uint32.
 */
import { Binding, type Kernels, type NativeOptions, platformMemory } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { EndpointWord, TransportRun, TransportWord } from "../native-words";
import { Channel, type EndpointConfig } from "./channel";
import { HEADER_SIZE, HEADER_UNREL, RELIABLE_HEADER } from "./frame";
import { CURRENT, DUPLICATE, FUTURE, FUTURE_SLACK_MS, OUT_OF_ORDER, PROCESS, STALE } from "./verdicts";

export { CURRENT, DUPLICATE, FUTURE, FUTURE_SLACK_MS, OUT_OF_ORDER, PROCESS, STALE };

/** Where an EndpointTable's arrays are, when its owner carved them (from an Arena, say). */
export interface EndpointPlace {
  /** The peers' state: EndpointWord.Stride / 2 doubles each (8-byte aligned). */
  readonly state: Float64Array;
  /** The peers' queues, channel.queueBytes each, back to back. */
  readonly queues: Uint8Array;
  /**
   * A view from byte 0 of the buffer the owner's packets are written into and its broadcasts
   * copied from (`Endpoint.fill`, `queueCopy`): fill() writes a packet in it in place.
   */
  readonly out: Uint8Array;
  /** When each peer's queue front began to wait: stamped by `broadcast` and by an ack that moves the front. */
  readonly front: Int32Array;
}

/** Why a queueing or a commit failed, by TransportStop code. */
const FAILURES = ["cannot fit a packet", "is of no known type, or not of its type's size", "", "span", "first seqno", "type or size"];

/**
 * The delivery state of `n` peers of one owner, in one native binding: what an owner with
 * many peers (the server) makes once; an owner with one may make an `Endpoint` alone.
 */
export class EndpointTable {
  readonly channel: Channel;
  readonly kernels: Kernels;
  readonly binding: Binding;
  /** The state words of every peer, and the same bytes as doubles (`srtt`). */
  readonly words: Int32Array;
  readonly doubles: Float64Array;
  readonly queues: Uint8Array;
  readonly out: Uint8Array;
  /** When each peer's queue front began to wait (EndpointPlace.front). */
  readonly front: Int32Array;
  /** A packet buffer in `out`, for a fill into a buffer outside it (copied out after). */
  readonly packet: Uint8Array;
  /** Whether the owner placed the table (its packets and broadcasts come from `out`). */
  readonly placed: boolean;
  /** Largest type byte and payload one message may have: what fits a packet after the headers. */
  readonly maxMessage: number;
  readonly endpoints: Endpoint[] = [];

  /**
   * `n` peers on `channel`: in `place` when given (`native` must then be the loops that
   * reach it), else in memory of their own from `native` (the platform's when absent).
   * Start-up only.
   */
  constructor(channel: Channel | EndpointConfig, n: number, native: NativeOptions | null = null, place: EndpointPlace | null = null) {
    const ch = channel instanceof Channel ? channel : new Channel(channel);
    if (!(Number.isInteger(n) && n >= 1 && n <= 16)) throw new RangeError(`an endpoint table of ${n} peers (1..16)`);
    const q = ch.queueBytes;
    const stride = EndpointWord.Stride;
    const maxPacket = ch.maxPacket;
    let opts = native;
    let state: Float64Array;
    let queues: Uint8Array;
    let out: Uint8Array;
    let packet: Uint8Array;
    let front: Int32Array;
    let scratch: Uint32Array | null = null;
    if (place !== null) {
      if (opts === null || opts.kernels == null) throw new RangeError("an endpoint table in its owner's memory needs the owner's native loops (NativeOptions.kernels)");
      state = place.state;
      queues = place.queues;
      out = place.out;
      front = place.front;
      if (front.length !== n || front.buffer !== queues.buffer) throw new RangeError(`endpoint table: a front of ${front.length} words for ${n} peers, or in another buffer`);
      if (state.length !== (n * stride) >> 1 || queues.length !== n * q || out.byteOffset !== 0 || out.buffer !== queues.buffer)
        throw new RangeError(`endpoint table: state of ${state.length} doubles and queues of ${queues.length} bytes for ${n} peers, out from byte 0 of their buffer`);
      packet = out.subarray(0, 0);
    } else {
      const bytes = 4 * n * stride + 4 * n + n * q + maxPacket + 8;
      if (opts === null) opts = platformMemory(bytes + 1024);
      if (opts === null || opts.kernels == null)
        throw new RangeError("an Endpoint needs the platform's native loops: on Node, installNodeKernels() (hosts/node/kernels.ts)");
      const memory = opts.memory ?? null;
      const buffer = memory !== null ? memory.buffer : new ArrayBuffer(bytes);
      const at = memory !== null ? memory.take(bytes) : 0;
      state = new Float64Array(buffer, at, (n * stride) >> 1);
      front = new Int32Array(buffer, at + 4 * n * stride, n);
      queues = new Uint8Array(buffer, at + 4 * n * stride + 4 * n, n * q);
      out = new Uint8Array(buffer);
      const p = at + 4 * n * stride + 4 * n + n * q;
      packet = new Uint8Array(buffer, p, maxPacket);
      scratch = new Uint32Array(buffer, (p + maxPacket + 3) & ~3, 1);
    }
    const kernels = opts.kernels as Kernels;
    // Without a sink the C counts nothing (its indices are -1): any word in the memory will do.
    const counters = ch.counters ?? scratch ?? new Uint32Array(front.buffer, front.byteOffset, 1);
    const memory = opts.memory ?? null;
    if (memory !== null && counters.buffer !== memory.buffer)
      throw new RangeError("the channel's counters must be in the native memory its endpoints are in (carve them from it)");
    this.channel = ch;
    this.kernels = kernels;
    this.words = new Int32Array(state.buffer, state.byteOffset, n * stride);
    this.doubles = state;
    this.queues = queues;
    this.out = out;
    this.packet = packet;
    this.front = front;
    this.placed = place !== null;
    this.maxMessage = maxPacket - HEADER_SIZE - RELIABLE_HEADER + 1;
    const sizes = ch.sizes;
    const b = new Binding(NATIVE_LAYOUT.transport, { state: this.words, queues, out, counters, front }, sizes.length, opts);
    const w = b.words;
    const s = b.scalars;
    w[s + TransportWord.Endpoints] = n;
    w[s + TransportWord.QueueBytes] = q;
    w[s + TransportWord.MaxPacket] = maxPacket;
    w[s + TransportWord.TypeBase] = ch.typeBase;
    w[s + TransportWord.Types] = sizes.length;
    w[s + TransportWord.ResendMs] = ch.resendMs;
    w[s + TransportWord.AppId] = ch.appId | 0;
    w[s + TransportWord.SentIndex] = ch.counters !== null ? ch.sentIndex : -1;
    w[s + TransportWord.ResentIndex] = ch.counters !== null ? ch.resentIndex : -1;
    w[s + TransportWord.TextPrefix] = ch.textPrefix;
    w[s + TransportWord.TextMax] = ch.textMax;
    for (let i = 0; i < sizes.length; i++) w[s + TransportWord.Sizes + i] = sizes[i];
    this.binding = b;
    for (let i = 0; i < n; i++) this.endpoints.push(new Endpoint(ch, this, i));
  }

  /** The peers of `mask` (bit i: peer i) that are due a packet, and (<< 16) those of them owed one now (`due`, `owed`). */
  dueMask(mask: number, now: number): number {
    const b = this.binding;
    return this.kernels.transport(b.layout, b.m0, b.m1, b.m2, b.m3, TransportRun.DueMask, mask, now | 0, 0, 0, 0);
  }

  /**
   * The message at `from` in `out` (its type byte and payload, `bytes` in all) queued for each
   * peer of `mask` that keeps `reserve` bytes free after it: returns those that took it, and
   * (<< 16) those of them whose queue was empty, whose `front` it stamps with `now`. The
   * owner's own messages only: the type and size are not checked against the channel's
   * table, only against a packet's room.
   */
  broadcast(mask: number, from: number, bytes: number, reserve: number, now: number): number {
    if (!this.placed || bytes > this.maxMessage)
      throw new RangeError(`copy of ${bytes} bytes: the queues are not in their owner's memory, or it cannot fit a packet`);
    const b = this.binding;
    return this.kernels.transport(b.layout, b.m0, b.m1, b.m2, b.m3, TransportRun.Broadcast, mask, from, bytes, reserve, now | 0);
  }

  /**
   * Where `bytes` starts in `out`, when at least its first `need` bytes lie in it, else -1: a
   * packet the C may read or write in place. Once per owner buffer, not per packet.
   */
  offsetOf(bytes: Uint8Array, need: number): number {
    const out = this.out;
    const at = bytes.byteOffset - out.byteOffset;
    return bytes.buffer === out.buffer && at >= 0 && bytes.length >= need && at + need <= out.length ? at : -1;
  }
}

export class Endpoint {
  // What every call passes, hottest first: XS finds a property by walking the object's list.
  readonly k: Kernels;
  readonly layout: Uint8Array;
  readonly m0: Uint8Array;
  readonly m1: Uint8Array;
  readonly m2: Uint8Array;
  readonly m3: Uint8Array;
  /** This peer's index in its table, and where its state words start. */
  readonly i: number;
  readonly o: number;
  readonly w: Int32Array;
  /** The payload rules (shared, immutable). */
  readonly channel: Channel;
  /** Encoded queued messages, each `seqno u32, type u8, payload`. */
  readonly buf: Uint8Array;
  /** A DataView on `buf`, for writing 32-bit fields into queued messages with one call. */
  readonly view: DataView;
  /** Bytes of `buf`. */
  readonly capacityBytes: number;
  readonly table: EndpointTable;
  /** The packet buffer fill() last wrote, and its offset in the table's `out`, -1 when it is outside it. */
  private lastOut: Uint8Array | null = null;
  private lastBase = -1;

  /**
   * A peer of `table` at index `i`; with a channel or config alone, a table of one of its own
   * on the platform's native loops.
   */
  constructor(channel: Channel | EndpointConfig, table: EndpointTable | null = null, i = 0) {
    const t = table ?? new EndpointTable(channel, 1);
    // A table of one of its own made an endpoint for its peer: this one takes its place.
    if (table === null) t.endpoints[0] = this;
    const ch = t.channel;
    const b = t.binding;
    this.k = t.kernels;
    this.layout = b.layout;
    this.m0 = b.m0;
    this.m1 = b.m1;
    this.m2 = b.m2;
    this.m3 = b.m3;
    this.i = i;
    this.o = i * EndpointWord.Stride;
    this.w = t.words;
    this.channel = ch;
    this.capacityBytes = ch.queueBytes;
    this.buf = t.queues.subarray(i * ch.queueBytes, (i + 1) * ch.queueBytes);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.table = t;
  }

  /** One native call on this peer. */
  private run(what: number, a: number, b: number, c: number, d: number): number {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, what, this.i, a, b, c, d);
  }

  // ---------------------------------------------------------------- the state, read

  /** Messages queued (unacknowledged). */
  get count(): number {
    return this.w[this.o + EndpointWord.Count];
  }
  /** A reliable message was processed since our last packet: the peer wants an ack soon. */
  get ackDue(): boolean {
    return this.w[this.o + EndpointWord.AckDue] !== 0;
  }
  /** The first `sentCount` queued messages have gone out at least once. */
  get sentCount(): number {
    return this.w[this.o + EndpointWord.SentCount];
  }
  /** Bytes queued: the next message goes at this offset of `buf`. */
  get usedBytes(): number {
    return this.w[this.o + EndpointWord.UsedBytes];
  }
  /** Seqno of the message at the front of the queue. */
  get firstSeq(): number {
    return this.w[this.o + EndpointWord.FirstSeq] >>> 0;
  }
  /** Seqno of the next message queued. */
  get nextSeq(): number {
    return this.w[this.o + EndpointWord.NextSeq] >>> 0;
  }
  /** Seqno of the last reliable message processed from the peer (our ack). */
  get lastProcessed(): number {
    return this.w[this.o + EndpointWord.LastProcessed] >>> 0;
  }
  /** When the peer was last heard (the receive step, `heard`). */
  get lastHeard(): number {
    return this.w[this.o + EndpointWord.LastHeard];
  }
  /** Statistics: messages sent for the first time and resent since `reset`. */
  get sent(): number {
    return this.w[this.o + EndpointWord.Sent];
  }
  get resent(): number {
    return this.w[this.o + EndpointWord.Resent];
  }
  /** Messages the last fill() put in its packet. */
  get filledMessages(): number {
    return this.w[this.o + EndpointWord.FilledMessages];
  }
  /** Newest unreliable timestamp applied from the peer (signed 32-bit, as it came). */
  get newestTimestamp(): number {
    return this.w[this.o + EndpointWord.NewestTimestamp];
  }
  /** Smoothed RTT in ms, 0 before the first sample. */
  get srtt(): number {
    return this.table.doubles[(this.o + EndpointWord.Srtt) >> 1];
  }

  /** Bytes of the preallocated buffers (for the memory budget). */
  poolBytes(): number {
    return this.buf.byteLength;
  }

  // ---------------------------------------------------------------- life cycle

  /** Forget everything; the next seqno sent is `initialSeq` and the peer's first is expected at `peerInitialSeq`. */
  reset(now: number, initialSeq = 0, peerInitialSeq = 0): void {
    this.run(TransportRun.Reset, now | 0, initialSeq | 0, peerInitialSeq | 0, 0);
  }

  /**
   * Forget what was received: the peer's next reliable message is expected at
   * `peerInitialSeq`, and any unreliable timestamp is current again. The queue stays.
   */
  resetReceive(peerInitialSeq: number): void {
    this.run(TransportRun.ReceiveReset, peerInitialSeq | 0, 0, 0, 0);
  }

  /** Start the RTT estimate at `ms` (from an earlier connection, say) instead of the first sample. */
  seedRtt(ms: number): void {
    if (!(ms >= 0)) throw new RangeError(`RTT of ${ms} ms`);
    this.table.doubles[(this.o + EndpointWord.Srtt) >> 1] = ms;
  }

  /** The peer was heard from at `now` (the owner decides what counts: a valid packet, say). */
  heard(now: number): void {
    this.w[this.o + EndpointWord.LastHeard] = now;
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
    const o = this.run(TransportRun.Queue, type, payload, 0, 0);
    if (o < -1) throw new RangeError(`type ${type} with a payload of ${payload} bytes: ${FAILURES[-2 - o]}`);
    return o;
  }

  /**
   * Append a message copied from the owner's memory: its type byte and payload, `bytes`
   * bytes in all, lie at `from` in the table's `out`. Leaves at least `reserve` bytes free
   * after it; returns false, queueing nothing, when they do not fit. The owner's own
   * messages only (see `EndpointTable.broadcast`). Throws when the table is not the owner's.
   */
  queueCopy(from: number, bytes: number, reserve: number): boolean {
    if (!this.table.placed || bytes > this.table.maxMessage)
      throw new RangeError(`copy of ${bytes} bytes: the queue is not in its owner's memory, or it cannot fit a packet`);
    return this.run(TransportRun.QueueCopy, from, bytes, reserve, 0) !== 0;
  }

  /**
   * For a writer that appends messages itself: the offset in `buf` where it may write
   * `bytes` bytes of whole messages, or -1 when they do not fit. Nothing changes until
   * `commit`. Each message is `seqno u32, type u8, payload`, the seqnos `nextSeq`,
   * `nextSeq + 1`, ... in order.
   */
  reserve(bytes: number): number {
    const used = this.usedBytes;
    return used + bytes <= this.capacityBytes ? used : -1;
  }

  /**
   * Take in `messages` messages a writer appended after `usedBytes` (see `reserve`), which
   * now end at offset `end`. Their seqnos must be the next ones; the next message queued
   * gets the seqno after them. The writer is trusted with their boundaries (the native
   * entity sync: what it writes is tested byte for byte); what is checked costs no walk:
   * the span, the first message's seqno, and a lone message's type and size.
   */
  commit(end: number, messages: number): void {
    const r = this.run(TransportRun.Commit, end, messages, 0, 0);
    if (r < 0) throw new RangeError(`commit of ${messages} messages ending at ${end}: a bad ${FAILURES[-2 - r]} (queue at ${this.usedBytes} of ${this.capacityBytes})`);
  }

  /**
   * Apply an ack from the peer. Messages up to and including `ack` leave the queue;
   * if the RTT probe is among them, it gives a sample. Returns false for an ack of
   * something never sent (the caller counts it).
   */
  acknowledge(ack: number, now: number): boolean {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, TransportRun.Acknowledge, this.i, ack | 0, now | 0, 0, 0) !== 0;
  }

  /** Smoothed RTT, as an integer in 0..65535. */
  ping(): number {
    return this.run(TransportRun.Ping, 0, 0, 0, 0);
  }

  // ---------------------------------------------------------------- receiving

  /**
   * Decide what to do with an incoming reliable seqno, and count it: PROCESS advances the
   * cursor (received); DUPLICATE and OUT_OF_ORDER are dropped.
   */
  acceptReliable(seq: number, counters: Uint32Array): number {
    const v = this.run(TransportRun.AcceptReliable, seq | 0, 0, 0, 0);
    const ch = this.channel;
    counters[v === PROCESS ? ch.receivedIndex : v === OUT_OF_ORDER ? ch.outOfOrderIndex : ch.duplicateIndex]++;
    return v;
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
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, TransportRun.AcceptUnreliable, this.i, timestamp | 0, now | 0, 0, 0);
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
    return this.run(TransportRun.WantsSend, now | 0, resendMs | 0, 0, 0) !== 0;
  }

  /**
   * Whether the peer is owed an ack, or messages sent and not acknowledged have waited the
   * channel's resend interval: the part of `due` that cannot wait for a packet soon to go
   * anyway (messages never sent can).
   */
  owed(now: number): boolean {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, TransportRun.Owed, this.i, now | 0, 0, 0, 0) !== 0;
  }

  /**
   * Whether a packet should go out now: the peer is owed an ack, or `wantsSend` with the
   * channel's resend interval.
   */
  due(now: number): boolean {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, TransportRun.Due, this.i, now | 0, 0, 0, 0) !== 0;
  }

  /**
   * Start a packet in `out`: header with our ack and `timestamp`, then every queued
   * message that fits, oldest first (from message `first`, for a final flush that must
   * carry the whole queue over several packets). Returns the offset after them; the caller
   * may add unreliable messages and must then call `finishPacket`. A packet in the table's
   * `out` is written in place; another is written in the table's own packet and copied.
   */
  fill(out: Uint8Array, now: number, timestamp: number, first = 0): number {
    if (out !== this.lastOut) this.look(out);
    const t = this.table;
    let base = this.lastBase;
    if (base < 0) {
      if (t.packet.length === 0) throw new RangeError("fill: a placed table writes packets in its own memory only (the owner's `out`)");
      base = t.packet.byteOffset - t.out.byteOffset;
    }
    const end = this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, TransportRun.Fill, this.i, base, now | 0, timestamp | 0, first);
    if (end < 0) throw new RangeError(`queued messages do not end where the queue does (${this.usedBytes}): a text without its NUL?`);
    if (this.lastBase < 0) {
      // Copied without a new view: the whole packet buffer when `out` can take it (the bytes
      // past `end` are the caller's to overwrite), else byte by byte.
      const packet = t.packet;
      if (out.length >= packet.length) out.set(packet);
      else for (let i = 0; i < end; i++) out[i] = packet[i];
    }
    return end;
  }


  /**
   * The messages the last fill() put in its packet went out once more, in another packet of
   * the same moment that begins with the same bytes (an update spread over several packets,
   * each carrying the queue's front so that any one of them is whole): they count as sent
   * again, and a probe among them is voided (Karn), as a second fill() would have it; the
   * caller keeps the first packet's start instead of writing it again.
   */
  repeat(): void {
    this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, TransportRun.Repeat, this.i, 0, 0, 0, 0);
  }

  /** Remember `out` for fill(): whether it lies in the table's `out` (and where), else -1. Once per owner buffer. */
  private look(out: Uint8Array): void {
    this.lastOut = out;
    this.lastBase = this.table.offsetOf(out, this.channel.maxPacket);
  }
}

/** Patch the unreliable count into a packet started by `Endpoint.fill`. */
export function finishPacket(out: Uint8Array, unrel: number): void {
  out[HEADER_UNREL] = unrel;
}
