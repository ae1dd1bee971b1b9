/**
 * What the clock decides about players, on the tick (server.ts calls in): who timed out,
 * who never completed its handshake, whose acknowledgements stalled, whose Input went
 * stale, which strikes decay, and when an admission token comes back. Each check runs on
 * its own period, not on every tick. The tables are in state.ts.
 */
import { Counter } from "../protocol/counters";
import type { Admission } from "./admission";
import { LogEvent } from "./events";
import type { Session } from "./session";
import type { ServerState } from "./state";

/** How often the tick looks for players past their timeout, ms. */
const TIMEOUT_CHECK_MS = 100;
/** A player who has not acknowledged its Join after this long is dropped, ms. */
export const HANDSHAKE_MS = 3000;
/** Input older than this no longer steers or fires, ms. */
export const INPUT_STALE_MS = 500;
/** One strike decays per period, ms (at most one counts per STRIKE_WINDOW_MS, session.ts). */
export const STRIKE_DECAY_MS = 1000;
/** How often the acknowledgement rule is looked at, ms: a staller goes at most this late. */
export const ACK_CHECK_MS = 50;

export class Schedule {
  readonly #state: ServerState;
  readonly #admission: Admission;
  readonly #session: Session;
  #nextTimeoutCheck = 0;
  #nextDecay = 0;
  #nextAckCheck = 0;

  constructor(state: ServerState, admission: Admission, session: Session) {
    this.#state = state;
    this.#admission = admission;
    this.#session = session;
  }

  /**
   * Timeouts are seconds long: looking every TIMEOUT_CHECK_MS is enough. A player silent
   * for timeoutMs is dropped; one whose Join (seqno 0) is not acknowledged within
   * HANDSHAKE_MS is dropped and kept out for a while; one whose Join was just acknowledged
   * is announced; Input older than INPUT_STALE_MS is cleared; a strike decays.
   */
  checkTimeouts(now: number): void {
    if (now < this.#nextTimeoutCheck) return;
    this.#nextTimeoutCheck = now + TIMEOUT_CHECK_MS;
    const t = this.#state;
    const admission = this.#admission;
    admission.refill(now);
    const decay = now >= this.#nextDecay;
    if (decay) this.#nextDecay = now + STRIKE_DECAY_MS;
    const timeout = t.config.timeoutMs;
    // A bot sends nothing and is sent nothing: no clock applies to it. Who is active and who
    // is a bot are bits (a typed-array read costs hundreds of instructions on XS); a player
    // removed in this loop leaves the mask as it was read, so it is tested again.
    const peers = t.activeMask & ~t.botMask;
    for (let s = 0; peers >> s !== 0; s++) {
      if (((peers >> s) & 1) === 0 || ((t.activeMask >> s) & 1) === 0) continue;
      const ep = t.endpoints[s];
      if (now - ep.lastHeard > timeout) {
        t.counters[Counter.Timeouts]++;
        t.host.log(LogEvent.Timeout, s, t.playerId(s));
        admission.remove(s);
        continue;
      }
      if (ep.firstSeq === 0) {
        // A handshake completes or ends: the Join (seqno 0) acknowledged in time, or dropped.
        if (((now - t.joinedAt[s]) | 0) > HANDSHAKE_MS) {
          t.counters[Counter.HandshakeTimeouts]++;
          t.host.log(LogEvent.Timeout, s, t.playerId(s));
          admission.penalize(s, now);
          admission.remove(s);
          continue;
        }
      } else if (t.announced[s] === 0) this.#session.announce(s);
      if (t.input[s] !== 0 && ((now - t.inputAt[s]) | 0) > INPUT_STALE_MS) {
        t.input[s] = 0;
        t.counters[Counter.StaleInputs]++;
      }
      if (decay && t.misbehaviour[s] > 0) t.misbehaviour[s]--;
    }
  }

  /**
   * Liveness is acknowledgement: a player whose oldest unacknowledged reliable message has
   * waited longer than timeoutMs is dropped as timed out, whatever else it sends. The wait
   * starts when a message goes into an empty queue (state.reserve, the ring's pump, the
   * entity sync) or when an acknowledgement moves the queue (the server's receive); it is
   * looked at every ACK_CHECK_MS.
   */
  checkAcks(now: number): void {
    if (now < this.#nextAckCheck) return;
    this.#nextAckCheck = now + ACK_CHECK_MS;
    const t = this.#state;
    const limit = t.config.timeoutMs;
    for (let s = 0; t.activeMask >> s !== 0; s++) {
      if (((t.activeMask >> s) & 1) === 0) continue;
      if (t.endpoints[s].count !== 0 && ((now - t.frontSince[s]) | 0) > limit) {
        t.counters[Counter.Timeouts]++;
        t.counters[Counter.AckStalls]++;
        t.host.log(LogEvent.Timeout, s, t.playerId(s));
        this.#admission.remove(s);
      }
    }
  }
}
