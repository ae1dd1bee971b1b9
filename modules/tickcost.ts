/**
 * What each tick costs, in whole microseconds, kept in a fixed log-linear histogram: four
 * buckets per power of two (so a quantile read from it is within 25% of the true value),
 * one bucket per microsecond below 8. The host measures the tick and calls `record`,
 * which allocates nothing; reading it (the status line, /status, /metrics) does.
 *
 * Bucket b holds [lower(b), lower(b + 1)) µs. The last bucket also takes everything above
 * its lower bound (about 67 s).
 */
export const TICK_BUCKETS = 104;

/** Bucket of `us` (an integer >= 0). */
export function tickBucket(us: number): number {
  if (us < 8) return us < 0 ? 0 : us;
  const e = 31 - Math.clz32(us);
  const b = ((e - 1) << 2) + ((us >> (e - 2)) & 3);
  return b < TICK_BUCKETS ? b : TICK_BUCKETS - 1;
}

/** Smallest value (µs) bucket `b` holds; `TICK_BUCKETS` gives the end of the last one. */
export function tickBucketLower(b: number): number {
  if (b < 8) return b;
  const e = (b >> 2) + 1;
  return (4 + (b & 3)) * 2 ** (e - 2);
}

export class TickCost {
  /** Ticks by bucket, since start. */
  readonly buckets: Uint32Array;
  /** Ticks measured. */
  count = 0;
  /** Sum of their costs, µs. */
  sumUs = 0;
  /** The dearest tick, µs. */
  maxUs = 0;
  /** The period the host ticks at, ms. */
  readonly periodMs: number;
  /** Where the microseconds come from: "performance.now", "Time.microseconds" or "Time.ticks" (1 ms steps). */
  readonly clock: string;

  constructor(periodMs: number, clock: string) {
    this.periodMs = periodMs;
    this.clock = clock;
    this.buckets = new Uint32Array(TICK_BUCKETS);
  }

  record(us: number): void {
    us = us > 0 ? Math.round(us) : 0;
    this.buckets[tickBucket(us)]++;
    this.count++;
    this.sumUs += us;
    if (us > this.maxUs) this.maxUs = us;
  }
}

/** Mean, a quantile and the share of the period, of the ticks counted in `buckets` (or the difference from `since`). */
export interface TickSummary {
  ticks: number;
  meanUs: number;
  p99Us: number;
  /** Mean cost over the tick period, 0..1 (and beyond, when ticks overrun). */
  share: number;
}

/**
 * Summary of the ticks recorded after the snapshot `since` (buckets, count, sum) was taken,
 * or of all of them when it is null. The p99 is the upper bound of the bucket that holds it.
 */
export function summarize(cost: TickCost, since: { buckets: Uint32Array; count: number; sumUs: number } | null): TickSummary {
  const ticks = cost.count - (since === null ? 0 : since.count);
  const sum = cost.sumUs - (since === null ? 0 : since.sumUs);
  if (ticks <= 0) return { ticks: 0, meanUs: 0, p99Us: 0, share: 0 };
  const want = Math.ceil(ticks * 0.99);
  let seen = 0;
  let p99 = 0;
  for (let b = 0; b < TICK_BUCKETS; b++) {
    seen += cost.buckets[b] - (since === null ? 0 : since.buckets[b]);
    if (seen >= want) {
      p99 = b < TICK_BUCKETS - 1 ? tickBucketLower(b + 1) : cost.maxUs;
      break;
    }
  }
  if (p99 > cost.maxUs) p99 = cost.maxUs;
  const mean = sum / ticks;
  return { ticks, meanUs: mean, p99Us: p99, share: mean / (cost.periodMs * 1000) };
}
