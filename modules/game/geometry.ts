/**
 * Integer geometry: unit vectors and lengths from a reciprocal square root (a seed table
 * and two Newton steps). Integer only: on the ESP32 every double operation is emulated, and
 * XS keeps only int32 values as integers. The arithmetic is the C's (modules/kernels/:
 * lw_unit, with the vector scaled to a length and the swept circle test); the seed table it
 * reads is made here, with the game's world.
 */

/** Q14: 1.0 for unit vectors and the sine table. */
export const ONE = 16384;
/** Entries of the reciprocal square root seed table: index n2 >> 23 for n2 in [2^26, 2^29). */
export const RSQRT_SEEDS = 64;

/** The seed table of lw_unit (modules/kernels/loops.c). */
export interface Geometry {
  /** 2^14/√q seeds, RSQRT_SEEDS entries. */
  readonly rsqrtSeed: Uint16Array;
}

/** Fill the seed table (RSQRT_SEEDS entries, doubles once, exact IEEE operations) and make the record around it. */
export function createGeometry(rsqrtSeed: Uint16Array): Geometry {
  if (rsqrtSeed.length < RSQRT_SEEDS) throw new RangeError(`the square root seed table needs ${RSQRT_SEEDS} entries`);
  // Seed for 2^14/√q, q = n2/2^28 at the middle of [k, k+1) · 2^23.
  for (let k = 8; k < RSQRT_SEEDS; k++) rsqrtSeed[k] = Math.round(ONE * Math.sqrt(32 / (k + 0.5)));
  return { rsqrtSeed };
}

