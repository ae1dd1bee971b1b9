/**
 * Integer geometry: unit vectors and lengths from a reciprocal square root (a seed table
 * and two Newton steps). Integer only: on the ESP32 every double operation is emulated, and
 * XS keeps only int32 values as integers. The seed table is the C's too (the game's step
 * and the ship loop, modules/kernels/: lw_unit is geometryUnit there, with the vector
 * scaled to a length and the swept circle test); the JavaScript's own user is the spawn
 * clearance (spawn.ts).
 *
 * Results that are more than one number go into a `Geometry` record, made once by
 * `createGeometry` and reused: nothing here allocates.
 */

/** Q14: 1.0 for unit vectors and the sine table. */
export const ONE = 16384;
/** Entries of the reciprocal square root seed table: index n2 >> 23 for n2 in [2^26, 2^29). */
export const RSQRT_SEEDS = 64;

/** The seed table and the results of `geometryUnit`. */
export interface Geometry {
  /** 2^14/√q seeds, RSQRT_SEEDS entries (`geometrySeeds`). */
  readonly rsqrtSeed: Uint16Array;
  /** geometryUnit: the unit vector (Q14) and the length. */
  ux: number;
  uy: number;
  len: number;
}

/** Fill the seed table (RSQRT_SEEDS entries, doubles once, exact IEEE operations) and make the record around it. */
export function createGeometry(rsqrtSeed: Uint16Array): Geometry {
  if (rsqrtSeed.length < RSQRT_SEEDS) throw new RangeError(`the square root seed table needs ${RSQRT_SEEDS} entries`);
  // Seed for 2^14/√q, q = n2/2^28 at the middle of [k, k+1) · 2^23.
  for (let k = 8; k < RSQRT_SEEDS; k++) rsqrtSeed[k] = Math.round(ONE * Math.sqrt(32 / (k + 0.5)));
  return { rsqrtSeed, ux: 0, uy: 0, len: 0 };
}

/**
 * The unit vector of (dx, dy) into g.ux, g.uy (Q14; each component rounded towards zero, so
 * |u| ≤ 1) and its length into g.len (in dx's units; ~14 significant bits). A zero vector
 * gives (1, 0) and 0. The larger component is shifted to 14 bits, and 1/√(a² + b²) comes
 * from the seed table and two Newton steps, y ← y(3 − q·y²)/2.
 */
export function geometryUnit(g: Geometry, dx: number, dy: number): void {
  const ax = dx < 0 ? 0 - dx : dx;
  const ay = dy < 0 ? 0 - dy : dy;
  const big = ax > ay ? ax : ay;
  if (big === 0) {
    g.ux = ONE;
    g.uy = 0;
    g.len = 0;
    return;
  }
  const k = 18 - Math.clz32(big);
  const a = k > 0 ? ax >> k : ax << (0 - k);
  const b = k > 0 ? ay >> k : ay << (0 - k);
  const n2 = a * a + b * b;
  const hi = n2 >> 14;
  let y = g.rsqrtSeed[n2 >> 23];
  y = (y * (3 * ONE - ((hi * ((y * y) >> 14)) >> 14))) >> 15;
  y = (y * (3 * ONE - ((hi * ((y * y) >> 14)) >> 14))) >> 15;
  let ux = (a * y) >> 14;
  let uy = (b * y) >> 14;
  // The truncations inside the Newton steps can leave y a hair long: trim to |u| ≤ 1.
  while (ux * ux + uy * uy > ONE * ONE) {
    if (ux > uy) ux--;
    else uy--;
  }
  g.ux = dx < 0 ? 0 - ux : ux;
  g.uy = dy < 0 ? 0 - uy : uy;
  const len = (a * ux + b * uy) >> 14;
  g.len = k > 0 ? len << k : len >> (0 - k);
}
