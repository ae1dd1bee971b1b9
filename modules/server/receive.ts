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
import { Counter } from "../protocol/counters";
import { Msg } from "../protocol/constants";
import { readInputView } from "../protocol/codec";
import { CURRENT, DUPLICATE, type Endpoint, PROCESS, STALE } from "../transport/endpoint";
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

  /** Act on the validated datagram in `state.rx` from `slot`, walking the offsets validatePacket recorded. */
  handle(slot: number, now: number): void {
    const t = this.#state;
    const rx = t.rx;
    const ep = t.endpoints[slot];
    const counters = t.counters;
    const v = t.rxView;
    const ack = v.getInt32(4);
    const announced = t.announced[slot] !== 0;
    // The usual case, an ack of nothing new from an announced player, without the call.
    if (((ack - ep.firstSeq) | 0) < 0 && announced) ep.heard(now);
    else if (!this.#acknowledged(slot, ep, ack, now)) return;
    const rel = rx[12];
    const unrel = rx[13];
    const offsets = t.offsets;
    if (rel !== 0) {
      const id = t.playerId(slot);
      const active = t.active;
      const pendingKick = t.pendingKick;
      for (let m = 0; m < rel; m++) {
        const p = offsets[m];
        const seq = v.getUint32(p - 5);
        const verdict = ep.acceptReliable(seq);
        if (verdict !== PROCESS) {
          counters[verdict === DUPLICATE ? Counter.DuplicateReliable : Counter.OutOfOrderReliable]++;
          continue;
        }
        counters[Counter.ReliableReceived]++;
        this.#reliable(slot, id, rx[p - 1], p);
        if (active[slot] === 0 || pendingKick[slot] !== 0) return;
      }
    }
    // Its Join acknowledged, by this packet or before: the others hear of it now.
    if (!announced) this.#announceAcknowledged(slot, ep);
    if (unrel === 0) return;
    // Stale when older than the newest applied, not believed when further ahead than our
    // clock has moved since (signed, modulo 2^32).
    const verdict = ep.acceptUnreliable(v.getInt32(8), now);
    if (verdict !== CURRENT) {
      if (verdict === STALE) counters[Counter.StaleUnreliable] += unrel;
      else counters[Counter.FutureTimestamp]++;
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

  /** The header's ack (signed: only compared modulo 2^32): false when it was bad (counted). */
  #acknowledged(slot: number, ep: Endpoint, ack: number, now: number): boolean {
    // Most datagrams acknowledge nothing new: only call when the ack is past our queue's front.
    if (((ack - ep.firstSeq) | 0) >= 0) {
      const front = ep.firstSeq;
      if (!ep.acknowledge(ack, now)) {
        this.#state.counters[Counter.BadAck]++;
        this.#session.misbehave(slot);
        return false;
      }
      // Progress: the new front (if any) starts its wait now.
      if (ep.firstSeq !== front) this.#state.frontSince[slot] = now;
    }
    ep.heard(now);
    return true;
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
