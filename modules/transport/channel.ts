/**
 * What an Endpoint is told of the application whose messages it carries (EndpointConfig),
 * and that configuration checked once and shared (Channel): the app id, the queue's and a
 * packet's sizes, each message type's payload size, the resend interval, and where the
 * statistics and the receive step count. ./endpoint.ts is the delivery state that uses it.
 */
import { HEADER_SIZE, RELIABLE_HEADER } from "./frame";

/** Largest datagram when the configuration names none: header included, well under any MTU. */
export const DEFAULT_MAX_PACKET = 512;

/** Where the receive step counts, as indices into the counters its caller passes. */
export interface ReceiveIndex {
  /** Datagrams dropped for acknowledging a seqno never sent. */
  readonly badAck: number;
  /** Reliable messages dropped: processed before, or ahead of the next expected. */
  readonly duplicate: number;
  readonly outOfOrder: number;
  /** Reliable messages taken. */
  readonly received: number;
  /** Unreliable messages dropped for a stamp older than the newest applied. */
  readonly stale: number;
  /** Datagrams whose unreliable messages were dropped for a stamp from the future. */
  readonly future: number;
}

/** The receive step's counts when the configuration names no indices: a Uint32Array(RECEIVE_COUNTS) holds them. */
export const RECEIVE_INDEX: ReceiveIndex = /* @__PURE__ */ Object.freeze({ badAck: 0, duplicate: 1, outOfOrder: 2, received: 3, stale: 4, future: 5 });
export const RECEIVE_COUNTS = 6;

/** What an Endpoint needs to know of the application whose messages it carries. */
export interface EndpointConfig {
  /** The 32-bit id at the head of every packet (the receiver checks it). */
  readonly appId: number;
  /** Bytes of the reliable queue: at least `maxPacket`. */
  readonly queueBytes: number;
  /** Unacknowledged messages are sent again after this many ms (`due`). */
  readonly resendMs: number;
  /** Largest datagram, header included; DEFAULT_MAX_PACKET if absent. */
  readonly maxPacket?: number;
  /**
   * Payload bytes of each reliable message type, at `sizes[type - typeBase]`; -1 marks a
   * text: `textPrefix` bytes, then a text that ends at a NUL within `textMax` bytes (the
   * queue finds a message's end from its bytes).
   */
  readonly sizes: Int16Array;
  /** The type at row 0 of `sizes` (0 if absent). */
  readonly typeBase?: number;
  /** A text's fixed bytes before its text, and the most bytes its text takes, NUL included: required when a type is a text. */
  readonly textPrefix?: number;
  readonly textMax?: number;
  /**
   * Optional statistics sink, shared by any number of endpoints: fill() adds the messages
   * it sends for the first time to `counters[sentIndex]` and those it sends again to
   * `counters[resentIndex]`, so an owner keeps its totals without reading them back.
   */
  readonly counters?: Uint32Array | null;
  readonly sentIndex?: number;
  readonly resentIndex?: number;
  /** Where the receive step counts (RECEIVE_INDEX if absent). */
  readonly receiveIndex?: ReceiveIndex;
}

/**
 * An EndpointConfig, checked, with its defaults filled in: immutable, and shared by every
 * Endpoint made with it (a server's endpoints take one between them).
 */
export class Channel {
  readonly appId: number;
  readonly queueBytes: number;
  readonly resendMs: number;
  readonly maxPacket: number;
  readonly sizes: Int16Array;
  readonly typeBase: number;
  readonly textPrefix: number;
  readonly textMax: number;
  /** The statistics sink, or null. */
  readonly counters: Uint32Array | null;
  readonly sentIndex: number;
  readonly resentIndex: number;
  /** The receive step's indices (EndpointConfig.receiveIndex), as numbers: one property read each. */
  readonly badAckIndex: number;
  readonly duplicateIndex: number;
  readonly outOfOrderIndex: number;
  readonly receivedIndex: number;
  readonly staleIndex: number;
  readonly futureIndex: number;
  /** The app id's two 16-bit halves: small integers (the id itself is a double on XS when ≥ 2^31). */
  readonly idHigh: number;
  readonly idLow: number;
  /** The app id as a signed 32-bit integer, as DataView.setInt32 takes it without a double. */
  readonly idI32: number;

  constructor(config: EndpointConfig) {
    const maxPacket = config.maxPacket ?? DEFAULT_MAX_PACKET;
    const queueBytes = config.queueBytes;
    const appId = config.appId;
    const sizes = config.sizes;
    const textPrefix = config.textPrefix ?? -1;
    const textMax = config.textMax ?? -1;
    const counters = config.counters ?? null;
    const sentIndex = config.sentIndex ?? -1;
    const resentIndex = config.resentIndex ?? -1;
    const r = config.receiveIndex ?? RECEIVE_INDEX;
    if (!Number.isInteger(maxPacket) || maxPacket < HEADER_SIZE + RELIABLE_HEADER || maxPacket > 65535) throw new RangeError(`maxPacket of ${maxPacket} bytes`);
    if (!Number.isInteger(queueBytes) || queueBytes < maxPacket) throw new RangeError(`reliable queue must hold at least ${maxPacket} bytes`);
    if (!Number.isInteger(appId) || appId < 0 || appId > 0xffffffff) throw new RangeError(`app id ${appId} is not a 32-bit unsigned integer`);
    if (!(config.resendMs > 0)) throw new RangeError(`resendMs of ${config.resendMs}`);
    if (!(sizes instanceof Int16Array) || sizes.length === 0) throw new TypeError("sizes must be a non-empty Int16Array");
    if (sizes.some((n) => n < -1)) throw new RangeError("a payload size below -1 (-1 marks a text)");
    if (sizes.some((n) => n < 0) && !(Number.isInteger(textPrefix) && textPrefix >= 0 && Number.isInteger(textMax) && textMax > 0))
      throw new TypeError("a text type (size -1) needs textPrefix and textMax");
    if (counters !== null && !(counters instanceof Uint32Array && sentIndex >= 0 && resentIndex >= 0 && sentIndex < counters.length && resentIndex < counters.length))
      throw new RangeError("counters needs sentIndex and resentIndex within it");
    for (const i of [r.badAck, r.duplicate, r.outOfOrder, r.received, r.stale, r.future])
      if (!Number.isInteger(i) || i < 0) throw new RangeError(`receive counter index ${i}`);
    this.appId = appId;
    this.queueBytes = queueBytes;
    this.resendMs = config.resendMs;
    this.maxPacket = maxPacket;
    this.sizes = sizes;
    this.typeBase = config.typeBase ?? 0;
    this.textPrefix = textPrefix;
    this.textMax = textMax;
    this.counters = counters;
    this.sentIndex = counters !== null ? sentIndex : -1;
    this.resentIndex = counters !== null ? resentIndex : -1;
    this.badAckIndex = r.badAck;
    this.duplicateIndex = r.duplicate;
    this.outOfOrderIndex = r.outOfOrder;
    this.receivedIndex = r.received;
    this.staleIndex = r.stale;
    this.futureIndex = r.future;
    this.idHigh = (appId >>> 16) & 0xffff;
    this.idLow = appId & 0xffff;
    this.idI32 = appId | 0;
    Object.freeze(this);
  }
}
