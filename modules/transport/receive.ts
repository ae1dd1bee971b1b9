/**
 * The receive step: what the transport does with a datagram its owner has validated, the
 * same for every owner (the server, the client, the chat relay example):
 *   1. the header's ack, here (Endpoint.acknowledge cuts the queue): a datagram that
 *      acknowledges a seqno never sent is dropped, counted; any other means the peer was heard;
 *   2. the reliable messages, in order (Endpoint.acceptReliable): the next expected is
 *      handed to the owner, a duplicate or one ahead of it is dropped, counted;
 *   3. the datagram's timestamp (Endpoint.acceptUnreliable), taken when it carries an
 *      unreliable message or a reliable one was processed (what that said is newer than any
 *      unreliable message stamped before it: such a message arriving late is stale);
 *   4. its unreliable messages, each handed to the owner when the stamp is current, else
 *      dropped, counted (Endpoint.dropUnreliable).
 * What a message means is the owner's business: the step calls the owner's `Receiving`
 * methods with the message's type and where its payload starts in the packet.
 *
 * An owner that has validated the datagram may say what its shape is: no message, or one
 * unreliable message right after the header (most of what a game's clients send: an ack,
 * an ack and an input). Then the step reads no count or offset, and for the second it only
 * says whether the message is current: the owner acts on it without a call back (on XS a
 * call with its arguments is a good share of such a datagram's cost). Offsets into the
 * header come from ./frame.ts.
 */
import { CURRENT, type Endpoint, PROCESS } from "./endpoint";
import { HEADER_ACK, HEADER_REL, HEADER_SIZE, HEADER_TIMESTAMP, HEADER_UNREL, RELIABLE_HEADER, UNRELIABLE_HEADER } from "./frame";

/** What the owner does with the messages the step accepts. */
export interface Receiving {
  /**
   * A reliable message accepted in order: its `type`, its payload at `p` in the packet, its
   * seqno. `tag` is what the owner passed to `receiveStep` (the sender's slot, say). Returns
   * false to take nothing more from this datagram (the peer left or is to be dropped).
   */
  reliable(tag: number, type: number, p: number, seq: number): boolean;
  /** An unreliable message whose stamp is current: its `type`, its payload at `p`, the datagram's `timestamp` (signed 32-bit). */
  unreliable(tag: number, type: number, p: number, timestamp: number): void;
}

/** A datagram's shape as its owner's validation found it: no message; one unreliable message at the header's end; anything (counts and offsets read). */
export const SHAPE_NONE = 1;
export const SHAPE_ONE_UNRELIABLE = 2;
export const SHAPE_ANY = 3;

/** Bits of `ReceiveStep.run`'s result. BAD_ACK alone: the datagram was dropped, counted. */
export const RECEIVE_BAD_ACK = 1;
/** The ack moved the queue's front. */
export const RECEIVE_NEW_ACK = 2;
/** The owner stopped the step (`reliable` returned false). */
export const RECEIVE_STOPPED = 4;
/**
 * SHAPE_ONE_UNRELIABLE: the message's stamp is current, and the message (at
 * ONE_UNRELIABLE_AT, its type byte before it) is the owner's to act on: for this shape the
 * step calls nothing, so that the commonest datagram costs one call.
 */
export const RECEIVE_CURRENT = 8;

/** Where the unreliable message of a SHAPE_ONE_UNRELIABLE datagram starts: after the header and its type byte. */
export const ONE_UNRELIABLE_AT = HEADER_SIZE + UNRELIABLE_HEADER;

/**
 * One owner's receive step: the owner's receive buffer (`packet`, viewed from its byte 0 by
 * `view`; an owner that is handed datagrams in other buffers calls `use` before `run`), where
 * its validation records the messages' payload offsets, its counters (counted at its
 * channel's indices), and the owner. Made once, at start-up.
 */
export class ReceiveStep {
  view: DataView;
  packet: Uint8Array;
  readonly offsets: Uint16Array;
  readonly counters: Uint32Array;
  readonly owner: Receiving;

  constructor(view: DataView, packet: Uint8Array, offsets: Uint16Array, counters: Uint32Array, owner: Receiving) {
    this.view = view;
    this.packet = packet;
    this.offsets = offsets;
    this.counters = counters;
    this.owner = owner;
  }

  /**
   * Receive from `bytes` (viewed from its byte 0) instead: a new DataView only when `bytes`
   * is another array than the last (a host receives into one buffer), so a datagram
   * allocates nothing.
   */
  use(bytes: Uint8Array): void {
    if (bytes === this.packet) return;
    this.packet = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /**
   * The step on the datagram in `packet`, validated by the owner as of `shape` (for
   * SHAPE_ANY with the offsets recorded, reliable messages first), from the peer of `ep`, at
   * `now`. `tag` goes back to the owner with each message. Returns RECEIVE_* bits.
   */
  run(ep: Endpoint, shape: number, now: number, tag: number): number {
    let result = 0;
    const v = this.view;
    // Signed: acks compare modulo 2^32, and XS keeps a signed word an integer.
    const ack = v.getInt32(HEADER_ACK);
    // The ack (compared modulo 2^32): most datagrams acknowledge nothing new and call nothing
    // here; one past the queue's front cuts it (Endpoint.acknowledge), and one of a seqno
    // never sent drops the datagram, counted, the peer not heard. Then the peer was heard:
    // the transport's own write of the field `heard` sets.
    if (((ack - ep.firstSeq) | 0) >= 0) {
      if (!ep.acknowledge(ack, now)) {
        this.counters[ep.channel.badAckIndex]++;
        return RECEIVE_BAD_ACK;
      }
      result = RECEIVE_NEW_ACK;
    }
    (ep as { lastHeard: number }).lastHeard = now;
    if (shape === SHAPE_NONE) return result;
    if (shape === SHAPE_ONE_UNRELIABLE) {
      const verdict = ep.acceptUnreliable(v.getInt32(HEADER_TIMESTAMP), now);
      if (verdict === CURRENT) return result | RECEIVE_CURRENT;
      ep.dropUnreliable(verdict, 1, this.counters);
      return result;
    }
    const packet = this.packet;
    const offsets = this.offsets;
    const counters = this.counters;
    const owner = this.owner;
    const rel = packet[HEADER_REL];
    const unrel = packet[HEADER_UNREL];
    let processed = 0;
    for (let m = 0; m < rel; m++) {
      const p = offsets[m];
      const seq = v.getUint32(p - RELIABLE_HEADER);
      if (ep.acceptReliable(seq, counters) !== PROCESS) continue;
      processed++;
      if (!owner.reliable(tag, packet[p - 1], p, seq)) return result | RECEIVE_STOPPED;
    }
    if (unrel === 0 && processed === 0) return result;
    const timestamp = v.getInt32(HEADER_TIMESTAMP);
    const verdict = ep.acceptUnreliable(timestamp, now);
    if (unrel === 0) return result;
    if (verdict !== CURRENT) {
      ep.dropUnreliable(verdict, unrel, counters);
      return result;
    }
    for (let m = rel; m < rel + unrel; m++) {
      const p = offsets[m];
      owner.unreliable(tag, packet[p - 1], p, timestamp);
    }
    return result | RECEIVE_CURRENT;
  }
}
