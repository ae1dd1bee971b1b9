/**
 * What a player's datagram says, once it passed validation (server.ts receive() copied it
 * into `state.rx`; validatePacket recorded its messages' payload offsets in
 * `state.offsets`): its ack, then its reliable messages in order, each to its room
 * (admission.ts, session.ts), then its unreliable ones past the timestamp check (Input).
 *
 * A truthful join: a newcomer is announced to the others (session.announce) once its Join
 * (seqno 0) is acknowledged, after the rest of the acknowledging packet's reliable messages
 * are applied, so that the Name and Selection a client sends with its acknowledgement are
 * the first the others hear of it; a Chat in that packet announces it first. A newcomer
 * that leaves or is to be kicked in that packet is never announced. The tables are in
 * state.ts.
 */
import { Msg } from "../protocol/constants";
import { INPUT_AT, readInputView, SHAPE_ACK, SHAPE_OTHER } from "../protocol/codec";
import { ACK_BAD, CURRENT, type Endpoint, PROCESS } from "../transport/endpoint";
import { HEADER_ACK, HEADER_REL, HEADER_TIMESTAMP, HEADER_UNREL, RELIABLE_HEADER } from "../transport/frame";
import type { Admission } from "./admission";
import type { Session } from "./session";
import type { ServerState } from "./state";

export class Receiver {
  readonly #state: ServerState;
  readonly #admission: Admission;
  readonly #session: Session;

  constructor(state: ServerState, admission: Admission, session: Session) {
    this.#state = state;
    this.#admission = admission;
    this.#session = session;
  }

  /**
   * Act on the validated datagram in `state.rx` from `slot`, of the `shape` validateFromClient
   * found: the transport's receive step (Endpoint.acceptAck, acceptReliable,
   * acceptUnreliable), with the header read through `state.rxView`. An ack alone and an
   * ack + Input, most of what clients send, take a path of their own that reads no count or
   * offset again; any other packet walks the offsets validatePacket recorded.
   */
  handle(slot: number, now: number, shape: number): void {
    const t = this.#state;
    const ep = t.endpoints[slot];
    const v = t.rxView;
    // Signed: the transport compares acks modulo 2^32.
    const ack = v.getInt32(HEADER_ACK);
    const announced = t.announced[slot] !== 0;
    // The usual case, an ack of nothing new, as acceptAck takes it (the peer heard) without the call.
    if (((ack - ep.firstSeq) | 0) < 0) ep.heard(now);
    else if (ep.acceptAck(ack, now, t.counters) === ACK_BAD) {
      this.#session.misbehave(slot);
      return;
    } else t.frontSince[slot] = now; // ACK_NEW: the new front starts its wait now

    if (shape !== SHAPE_OTHER) {
      // No reliable message: its Join acknowledged, by this packet or before, the others hear of it now.
      if (!announced) this.#announceAcknowledged(slot, ep);
      if (shape === SHAPE_ACK) return;
      const verdict = ep.acceptUnreliable(v.getInt32(HEADER_TIMESTAMP), now);
      if (verdict !== CURRENT) ep.dropUnreliable(verdict, 1, t.counters);
      else {
        t.inputAt[slot] = now;
        t.input[slot] = readInputView(v, t.rx, INPUT_AT);
      }
      return;
    }

    const rx = t.rx;
    const rel = rx[HEADER_REL];
    const unrel = rx[HEADER_UNREL];
    const offsets = t.offsets;
    if (rel !== 0) {
      // The counters only where something may be counted: the usual datagram counts nothing here.
      const counters = t.counters;
      const id = t.playerId(slot);
      const active = t.active;
      const pendingKick = t.pendingKick;
      for (let m = 0; m < rel; m++) {
        const p = offsets[m];
        if (ep.acceptReliable(v.getUint32(p - RELIABLE_HEADER), counters) !== PROCESS) continue;
        this.#reliable(slot, id, rx[p - 1], p);
        if (active[slot] === 0 || pendingKick[slot] !== 0) return;
      }
    }
    // Its Join acknowledged, by this packet or before: the others hear of it now.
    if (!announced) this.#announceAcknowledged(slot, ep);
    if (unrel === 0) return;
    // Stale when older than the newest applied, not believed when further ahead than our
    // clock has moved since (signed, modulo 2^32).
    const verdict = ep.acceptUnreliable(v.getInt32(HEADER_TIMESTAMP), now);
    if (verdict !== CURRENT) {
      ep.dropUnreliable(verdict, unrel, t.counters);
      return;
    }
    const input = t.input;
    const inputAt = t.inputAt;
    for (let m = rel; m < rel + unrel; m++) {
      const p = offsets[m];
      if (rx[p - 1] === Msg.Input) {
        inputAt[slot] = now;
        input[slot] = readInputView(v, rx, p);
      }
    }
  }

  /** Announce the newcomer in `slot` if its Join (seqno 0) is acknowledged and it is not announced yet. */
  #announceAcknowledged(slot: number, ep: Endpoint): void {
    if (ep.firstSeq !== 0 && this.#state.announced[slot] === 0) this.#session.announce(slot);
  }

  /** One reliable message from `slot` (player `id`), its payload at `p` in `state.rx`, in order. */
  #reliable(slot: number, id: number, type: number, p: number): void {
    switch (type) {
      case Msg.Connect:
        return; // already admitted; a later Connect changes nothing
      case Msg.Disconnect:
        return this.#admission.disconnect(slot);
      case Msg.Chat:
        // The others hear of the sender before its line.
        this.#announceAcknowledged(slot, this.#state.endpoints[slot]);
        return this.#session.chat(slot, id, p);
      case Msg.Name:
        return this.#session.rename(slot, id, p);
      case Msg.Selection:
        return this.#session.select(slot, id, p);
    }
  }
}
