/**
 * Each step's cost in window order, for the device bench's "heaviest steps" (timeReplay
 * reports only sorted statistics). Host-free.
 */
import type { TimeResult } from "../../harness/trace";

/**
 * Wraps the clock given to timeReplay and keeps its last `steps + 1` readings in a ring.
 * timeReplay reads the clock once before each walk of the window and once after each of
 * its steps, and the timed walk is the last, so at the end the ring holds exactly that
 * walk. The store into the ring happens in the dry walks too, so its cost is subtracted
 * with theirs.
 */
export class StepRecorder {
  readonly #ring: Float64Array;
  #calls = 0;
  /** The clock to hand to timeReplay (ms, as the wrapped one). */
  readonly now: () => number;

  constructor(clock: () => number, steps: number) {
    const ring = new Float64Array(steps + 1);
    this.#ring = ring;
    const size = ring.length;
    let i = 0;
    this.now = () => {
      const t = clock();
      ring[i] = t;
      i = i + 1 === size ? 0 : i + 1;
      this.#calls++;
      return t;
    };
  }

  /**
   * Each step's cost in ms, less that step's own dry cost (as timeReplay computes it), in
   * window order; null when the readings do not line up with `result` (timeReplay walks
   * otherwise).
   */
  steps(result: TimeResult): Float64Array | null {
    const n = result.ticks;
    const ring = this.#ring;
    if (n + 1 !== ring.length || this.#calls % ring.length !== 0) return null;
    const costs = new Float64Array(n);
    const dry = result.dryStepMs;
    if (dry.length !== n) return null;
    for (let k = 0; k < n; k++) costs[k] = ring[k + 1] - ring[k] - dry[k];
    // The same median as timeReplay's, or these are not its timed walk.
    const sorted = costs.slice().sort();
    if (Math.abs(sorted[n >> 1] * 1000 - result.medianUs) > 1e-6 * Math.max(1, Math.abs(result.medianUs))) return null;
    return costs;
  }
}
