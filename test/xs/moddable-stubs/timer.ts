/**
 * Stand-in for the Moddable SDK's `timer` module (test/xs/moddable-host.ts). Timers never
 * fire by themselves: `timers.fire()` runs every live repeating timer once, so a test
 * drives the host's tick itself. Up to 8 timers; making one allocates, firing does not.
 */
type Callback = (timer: Timer) => void;

const MAX_TIMERS = 8;

export default class Timer {
  #callback: Callback;
  #interval: number;
  #live = true;

  private constructor(callback: Callback, interval: number) {
    this.#callback = callback;
    this.#interval = interval;
  }

  static set(callback: Callback, delay = 0, repeat = 0): Timer {
    const timer = new Timer(callback, repeat);
    timers.add(timer, delay);
    return timer;
  }

  static repeat(callback: Callback, interval: number): Timer {
    return Timer.set(callback, interval, interval);
  }

  static clear(timer: Timer | undefined | null): void {
    if (timer) timer.#live = false;
  }

  /** Run the callback if the timer is live; a one-shot timer then dies. */
  static fire(timer: Timer): boolean {
    if (!timer.#live) return false;
    if (timer.#interval === 0) timer.#live = false;
    timer.#callback(timer);
    return true;
  }

  static interval(timer: Timer): number {
    return timer.#interval;
  }
}

class Timers {
  readonly list: (Timer | null)[] = new Array(MAX_TIMERS).fill(null);
  count = 0;
  /** Delay asked for by the last Timer.set. */
  lastDelay = -1;

  add(timer: Timer, delay: number): void {
    if (this.count === MAX_TIMERS) throw new RangeError("stand-in timer: too many timers");
    this.list[this.count++] = timer;
    this.lastDelay = delay;
  }

  /** Fire every live timer once; returns how many fired. */
  fire(): number {
    let fired = 0;
    for (let i = 0; i < this.count; i++) {
      const timer = this.list[i];
      if (timer !== null && Timer.fire(timer)) fired++;
    }
    return fired;
  }
}

export const timers = new Timers();
