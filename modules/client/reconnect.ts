/**
 * When to try again after a connection is lost (server shutdown, kick, silence) or refused:
 * 1, 2 and 4 s after the first failures, then every 5 s; every 5 s from the start while the
 * match is full (a Reject says so). Pure bookkeeping on the caller's clock: no timers, no
 * sockets. The bots (tools/botlib.ts) and the page use it the same way:
 *
 *   on a failure:        at = retry.failed(now, full)
 *   on each tick:        if (retry.due(now)) start a new Client (joinAs the same name, ship, weapon)
 *   while it connects:   if (retry.givenUp(now)) count it as another failure
 *   once it is in:       retry.connected()
 */

/** Delays before the first tries, ms; then RECONNECT_STEADY_MS. */
export const RECONNECT_DELAYS_MS: readonly number[] = Object.freeze([1000, 2000, 4000]);
export const RECONNECT_STEADY_MS = 5000;
/** A try that has had no Join this long after it started is a failure, ms. */
export const RECONNECT_ATTEMPT_MS = 3000;

/** The wait after the `failures`-th failure in a row (1 for the first), ms. */
export function reconnectDelay(failures: number, full: boolean): number {
  if (full || failures > RECONNECT_DELAYS_MS.length) return RECONNECT_STEADY_MS;
  return RECONNECT_DELAYS_MS[failures < 1 ? 0 : failures - 1];
}

export class Reconnect {
  /** Failures since the last connection. */
  failures = 0;
  /** When the next try is due (ms), or -1 when none is waiting. */
  nextAt = -1;
  /** When the current try started, or -1 when none is under way. */
  tryingSince = -1;
  /** Tries started, over the whole life. */
  tries = 0;

  /** A connection was lost or a try failed at `now`; returns when to try next. */
  failed(now: number, full: boolean): number {
    this.failures++;
    this.tryingSince = -1;
    this.nextAt = now + reconnectDelay(this.failures, full);
    return this.nextAt;
  }

  /** Whether a try is due at `now`; if so, it counts as started. */
  due(now: number): boolean {
    if (this.nextAt < 0 || now < this.nextAt) return false;
    this.nextAt = -1;
    this.tryingSince = now;
    this.tries++;
    return true;
  }

  /** Whether the try under way has waited RECONNECT_ATTEMPT_MS without a Join. */
  givenUp(now: number): boolean {
    return this.tryingSince >= 0 && now - this.tryingSince >= RECONNECT_ATTEMPT_MS;
  }

  /** The try succeeded (our Join arrived): the schedule starts over. */
  connected(): void {
    this.failures = 0;
    this.nextAt = -1;
    this.tryingSince = -1;
  }
}
