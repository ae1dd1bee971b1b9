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
import { TransportRun } from "../native-words";
import { CURRENT, type Endpoint, OUT_OF_ORDER, PROCESS } from "./endpoint";
import { HEADER_ACK, HEADER_REL, HEADER_SIZE, HEADER_TIMESTAMP, HEADER_UNREL, RELIABLE_HEADER, UNRELIABLE_HEADER } from "./frame";
import { RECEIVE_BAD_ACK, RECEIVE_CURRENT, RECEIVE_NEW_ACK, RECEIVE_STOPPED, SHAPE_ANY, SHAPE_NONE, SHAPE_ONE_UNRELIABLE } from "./verdicts";

export { RECEIVE_BAD_ACK, RECEIVE_CURRENT, RECEIVE_NEW_ACK, RECEIVE_STOPPED, SHAPE_ANY, SHAPE_NONE, SHAPE_ONE_UNRELIABLE };

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
  /** The table `out` whose offset of `packet` is `#base` (-1: not in it). */
  #out: Uint8Array | null = null;
  #base = -1;

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
    this.#out = null;
  }

  /** Where `packet` lies in the `out` of `ep`'s table, or -1: looked up when the table or the packet changes. */
  #place(ep: Endpoint): void {
    this.#out = ep.table.out;
    this.#base = ep.table.offsetOf(this.packet, HEADER_SIZE);
  }


  /**
   * The step on the datagram in `packet`, validated by the owner as of `shape` (for
   * SHAPE_ANY with the offsets recorded, reliable messages first), from the peer of `ep`, at
   * `now`. `tag` goes back to the owner with each message. Returns RECEIVE_* bits.
   */
  run(ep: Endpoint, shape: number, now: number, tag: number): number {
    const v = this.view;
    // The header's ack, the peer heard, and for a datagram of one unreliable message its
    // stamp: one native call (modules/kernels/transport.c), which reads the header itself
    // when the packet lies in the memory of the endpoint's table (the server's receive buffer).
    if (ep.table.out !== this.#out) this.#place(ep);
    const base = this.#base;
    const r =
      base >= 0
        ? ep.k.transport(ep.layout, ep.m0, ep.m1, ep.m2, ep.m3, TransportRun.ReceiveAt, ep.i, base, now | 0, shape, 0)
        : ep.k.transport(ep.layout, ep.m0, ep.m1, ep.m2, ep.m3, TransportRun.Receive, ep.i, v.getInt32(HEADER_ACK),
            shape === SHAPE_ONE_UNRELIABLE ? v.getInt32(HEADER_TIMESTAMP) : 0, now | 0, shape);
    if (r === RECEIVE_BAD_ACK) {
      this.counters[ep.channel.badAckIndex]++;
      return RECEIVE_BAD_ACK;
    }
    if (shape !== SHAPE_ANY) {
      // A stamp that is not current comes back as its verdict, four bits up.
      if (r < 16) return r;
      ep.dropUnreliable(r >> 4, 1, this.counters);
      return r & 15;
    }
    const result = r;
    const packet = this.packet;
    const offsets = this.offsets;
    const counters = this.counters;
    const owner = this.owner;
    const rel = packet[HEADER_REL];
    const unrel = packet[HEADER_UNREL];
    let processed = 0;
    const ch = ep.channel;
    for (let m = 0; m < rel; m++) {
      const p = offsets[m];
      const seq = v.getUint32(p - RELIABLE_HEADER);
      // Endpoint.acceptReliable, its call inlined.
      const verdict = ep.k.transport(ep.layout, ep.m0, ep.m1, ep.m2, ep.m3, TransportRun.AcceptReliable, ep.i, seq | 0, 0, 0, 0);
      if (verdict !== PROCESS) {
        counters[verdict === OUT_OF_ORDER ? ch.outOfOrderIndex : ch.duplicateIndex]++;
        continue;
      }
      counters[ch.receivedIndex]++;
      processed++;
      if (!owner.reliable(tag, packet[p - 1], p, seq)) return result | RECEIVE_STOPPED;
    }
    if (unrel === 0 && processed === 0) return result;
    const timestamp = v.getInt32(HEADER_TIMESTAMP);
    // Endpoint.acceptUnreliable, its call inlined.
    const verdict = ep.k.transport(ep.layout, ep.m0, ep.m1, ep.m2, ep.m3, TransportRun.AcceptUnreliable, ep.i, timestamp, now | 0, 0, 0);
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
