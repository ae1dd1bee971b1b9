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
import { INPUT_AT, readInputView, SHAPE_ACK_INPUT } from "../protocol/codec";
import type { Endpoint } from "../transport/endpoint";
import { RECEIVE_BAD_ACK, RECEIVE_CURRENT, RECEIVE_STOPPED, ReceiveStep, type Receiving } from "../transport/receive";
import type { Admission } from "./admission";
import type { Session } from "./session";
import type { ServerState } from "./state";

const CHAT = Msg.Chat;
const NAME = Msg.Name;
const SELECTION = Msg.Selection;
const DISCONNECT = Msg.Disconnect;
const INPUT = Msg.Input;

export class Receiver implements Receiving {
  readonly #state: ServerState;
  readonly #admission: Admission;
  readonly #session: Session;
  readonly #step: ReceiveStep;
  /**
   * The state's tables handle() reads for every datagram, held here: they are carved once,
   * before the rooms are made, and never replaced. On XS a private name is found in a short
   * list of its own, while `state.inputAt` walks much of the state's ~60 properties.
   */
  readonly #endpoints: Endpoint[];
  readonly #inputAt: Int32Array;
  readonly #input: Uint8Array;
  readonly #rxView: DataView;
  readonly #rx: Uint8Array;
  readonly #announced: Uint8Array;

  constructor(state: ServerState, admission: Admission, session: Session) {
    this.#state = state;
    this.#admission = admission;
    this.#session = session;
    this.#step = new ReceiveStep(state.rxView, state.rx, state.offsets, state.counters, this);
    this.#endpoints = state.endpoints;
    this.#inputAt = state.inputAt;
    this.#input = state.input;
    this.#rxView = state.rxView;
    this.#rx = state.rx;
    this.#announced = state.announced;
  }

  /**
   * Act on the validated datagram in `state.rx` from `slot`, of the `shape` shapeFromClient
   * found (its SHAPE_ACK and SHAPE_ACK_INPUT are the transport's SHAPE_NONE and
   * SHAPE_ONE_UNRELIABLE): the transport's receive step, with the header read through
   * `state.rxView`, calls `reliable` and `unreliable` below for what it accepts.
   */
  handle(slot: number, now: number, shape: number): void {
    const ep = this.#endpoints[slot];
    const r = this.#step.run(ep, shape, now, slot);
    if (r === RECEIVE_BAD_ACK) {
      this.#session.misbehave(slot);
      return;
    }
    // An ack + Input (SHAPE_ACK_INPUT) whose stamp is current: the Input is ours to take.
    if (shape === SHAPE_ACK_INPUT && (r & RECEIVE_CURRENT) !== 0) {
      this.#inputAt[slot] = now;
      this.#input[slot] = readInputView(this.#rxView, this.#rx, INPUT_AT);
    }
    // (A new front of the queue started its wait now: the step stamped state.frontSince.)
    // Its Join acknowledged, by this packet or before: the others hear of it now (not if it
    // left or is to be kicked in this packet).
    if ((r & RECEIVE_STOPPED) === 0 && this.#state.unannounced !== 0 && this.#announced[slot] === 0) this.#announceAcknowledged(slot, ep);
  }

  /** Receiving: one reliable message from `slot`, its payload at `p` in `state.rx`, in order. False: the player is leaving. */
  reliable(slot: number, type: number, p: number): boolean {
    const t = this.#state;
    // The types as module constants: on XS `Msg.Chat` walks the frozen table's properties.
    switch (type) {
      case CHAT:
        // The others hear of the sender before its line.
        this.#announceAcknowledged(slot, this.#endpoints[slot]);
        this.#session.chat(slot, t.playerId(slot), p);
        break;
      case NAME:
        this.#session.rename(slot, t.playerId(slot), p);
        break;
      case SELECTION:
        this.#session.select(slot, t.playerId(slot), p);
        break;
      case DISCONNECT:
        this.#admission.disconnect(slot);
        break;
      // CONNECT: already admitted; a later Connect changes nothing.
    }
    return ((t.activeMask >> slot) & 1) !== 0 && (!t.kickPending || t.pendingKick[slot] === 0);
  }

  /** Receiving: a current unreliable message from `slot`: an Input steers its ship from now. */
  unreliable(slot: number, type: number, p: number): void {
    if (type !== INPUT) return;
    const t = this.#state;
    t.inputAt[slot] = t.now;
    t.input[slot] = readInputView(t.rxView, t.rx, p);
  }

  /** Announce the newcomer in `slot` if its Join (seqno 0) is acknowledged and it is not announced yet. */
  #announceAcknowledged(slot: number, ep: Endpoint): void {
    if (this.#announced[slot] === 0 && ep.firstSeq !== 0) this.#session.announce(slot);
  }

}
