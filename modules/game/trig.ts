/**
 * Integer trigonometry for headings of 1/4096 turn (modules/units.ts): a quarter-wave sine
 * table in Q14, 257 entries for 0..256 steps of 4 headings (a quarter turn), built at
 * start-up and read with linear interpolation.
 *
 * The table comes from `sin` below, a Taylor series evaluated with +, −, × and floor only,
 * each of which IEEE 754 fixes to the bit, and Math.round, which is exact. So the table is
 * the same on every engine (V8, XS on x86, XS on an ESP32), while Math.sin may differ in
 * the last bit between libms. The game reads the table inline; `sinQ` and `cosQ` are the
 * reference lookups for set-up code, tools and tests.
 */
export const PI = Math.PI;
export const TWO_PI = 6.283185307179586;
export const HALF_PI = 1.5707963267948966;

/** Q14: the table's 1.0. */
export const SINE_ONE = 16384;
/** Entries per quarter turn (a step of 4 headings); the table has SINE_STEPS + 1 entries. */
export const SINE_STEPS = 256;
export const SINE_TABLE_LENGTH = SINE_STEPS + 1;

/** `a` reduced to [0, 2π). */
export function wrapAngle(a: number): number {
  const r = a - TWO_PI * Math.floor(a / TWO_PI);
  return r >= TWO_PI || r < 0 ? 0 : r;
}

/** sin(a) in doubles; absolute error below 1e-13 after reduction to [−π/2, π/2]. */
export function sin(a: number): number {
  let x = a - TWO_PI * Math.floor((a + PI) / TWO_PI);
  if (x > HALF_PI) x = PI - x;
  else if (x < -HALF_PI) x = -PI - x;
  const x2 = x * x;
  // Taylor series through x^17, Horner form; the coefficients are 1/n!.
  return x * (1 + x2 * (-0.16666666666666666 + x2 * (0.008333333333333333 + x2 * (-0.0001984126984126984 +
    x2 * (0.0000027557319223985893 + x2 * (-2.505210838544172e-8 + x2 * (1.6059043836821613e-10 +
    x2 * (-7.647163731819816e-13 + x2 * 2.8114572543455206e-15))))))));
}

export function cos(a: number): number {
  return sin(a + HALF_PI);
}

/** Fill `out[0..256]` with round(16384 · sin(k/256 · π/2)). Runs once, at start-up. */
export function buildSineTable(out: Int16Array): Int16Array {
  if (out.length < SINE_TABLE_LENGTH) throw new RangeError(`a sine table needs ${SINE_TABLE_LENGTH} entries`);
  for (let k = 0; k <= SINE_STEPS; k++) out[k] = Math.round(SINE_ONE * sin((k * HALF_PI) / SINE_STEPS));
  return out;
}

/**
 * Q14 sine of heading `a` (any integer; taken modulo 4096), interpolated linearly between
 * table entries (within 5e-6 of the sine, below the Q14 step). The game inlines the same.
 */
export function sinQ(table: Int16Array, a: number): number {
  a &= 4095;
  const q = a & 1023;
  const k = q >> 2;
  const f = q & 3;
  // sin and cos of the angle within the quadrant.
  const lo = table[k] + (((table[k + 1] - table[k]) * f) >> 2);
  const hi = table[256 - k] + (((table[255 - k] - table[256 - k]) * f) >> 2);
  switch (a >> 10) {
    case 0: return lo;
    case 1: return hi;
    case 2: return 0 - lo;
    default: return 0 - hi;
  }
}

/** Q14 cosine of heading `a`. */
export function cosQ(table: Int16Array, a: number): number {
  return sinQ(table, a + 1024);
}
