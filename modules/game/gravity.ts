/**
 * The gravity table: the sun's pull by squared distance, which ships and projectiles read
 * inline (a planet's pull is the sun's scaled, bodies.ts).
 *
 * r² is taken at 1/8 wu (u = (x >> 7)² + (y >> 7)², below 2^31 for any two points of the
 * arena) and split like a float: octave e = floor(log2 u), 16..30, and 32 buckets in each;
 * below 2^16 (r < 32 wu) 32 more buckets hold the value at 2^16. The entry for u is at
 * (e << 5) + (u >> (e − 5)) − 512 with e = 31 − clz(u | 2^16), and holds
 *   bits 0..14   T = round(K(u₀) · 2^S) at the bucket's start u₀, K(u) = G·M☉ / u^1.5 in
 *                velocity units per step and 1/8 wu: the sun changes the velocity of
 *                something at offset (xs, ys) from it (1/8 wu) by −(xs, ys) · K(u) a step;
 *   bits 15..24  D, T less the next bucket's T, for linear interpolation within the bucket;
 *   bits 25..29  S, the octave's shift, so that T keeps 13 to 14 bits in every octave.
 * Interpolated, K is within 0.05 % of G·M/r³. The velocity change is rounded with the step's
 * dither (a fraction that the golden ratio spreads evenly over [0, 1)), so the rounding is
 * unbiased and a pull of 0.3 velocity units a step still counts on average.
 *
 * Where the pull changes slowly, it is applied less often and as many times as strong (an
 * impulse integrator, exact on average): a projectile gets the sun's pull every other step,
 * a ship a planet's every 4th step unless it is in one of the planet's grid cells.
 */
import { STEP_HZ } from "../units";
import { SUN_GM } from "./templates";

export const OCT_MIN = 16;
export const OCT_MAX = 30;
export const GRAVITY_ENTRIES = (OCT_MAX - OCT_MIN + 2) * 32;
export const U_FLOOR = 1 << OCT_MIN;
export const T_MASK = 0x7fff;
export const D_SHIFT = 15;
export const S_SHIFT = 25;

/** Fill `table` (GRAVITY_ENTRIES): doubles here, once, and exact IEEE operations only. */
export function gravityBuild(table: Int32Array): void {
  // Velocity change per step (velocity units) = xs · G / u^1.5 with xs and u at 1/8 wu.
  const G = (65536 * SUN_GM) / (STEP_HZ * STEP_HZ);
  for (let e = OCT_MIN; e <= OCT_MAX; e++) {
    const top = G / (2 ** e * Math.sqrt(2 ** e));
    let s = 0;
    while (top * 2 ** (s + 1) < 16384) s++;
    const step = 2 ** (e - 5);
    let t = Math.round((G / (2 ** e * Math.sqrt(2 ** e))) * 2 ** s);
    for (let m = 0; m < 32; m++) {
      const lo = (32 + m) * step;
      const hi = lo + step;
      const next = Math.round((G / (hi * Math.sqrt(hi))) * 2 ** s);
      if (t > T_MASK || t - next > 1023 || s > 29 || s < 4) throw new RangeError("gravity table entry out of range");
      table[(e - OCT_MIN + 1) * 32 + m] = t | ((t - next) << D_SHIFT) | (s << S_SHIFT);
      t = next;
    }
  }
  // Below 2^16, the value at 2^16.
  for (let m = 0; m < 32; m++) table[m] = table[32] & (T_MASK | (31 << S_SHIFT));
}
