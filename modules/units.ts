/**
 * Fixed-point units of the world, shared by the game (which steps it), the server (which
 * encodes it into Update entries and plans by distance) and the tools. Everything is an
 * integer: the ESP32 has no double-precision FPU, so on XS a non-integer number costs a
 * software floating-point routine per operation, while 32-bit integers stay integers.
 *
 *   position   1/1024 world unit (wu)           x_wu = x / POS_ONE        (±3000 wu: ±3,072,000)
 *   velocity   1/1024 wu per step (1/30 s)      v_wu/s = v × STEP_HZ / POS_ONE
 *   heading    1/4096 turn, 0..4095, counter-clockwise from +x
 *
 * The wire (Update) wants int16 wu, int16 wu/s and centidegrees 0..35999; `toWire*` below
 * are the reference conversions (round half up, as Math.round), and the server's encoder
 * inlines the same arithmetic.
 */
export const POS_SHIFT = 10;
export const POS_ONE = 1 << POS_SHIFT;
/** Game steps per second: a velocity unit is 1/1024 wu per step. */
export const STEP_HZ = 30;
export const ANGLE_BITS = 12;
export const ANGLE_TURN = 1 << ANGLE_BITS;
export const ANGLE_MASK = ANGLE_TURN - 1;
/** Centidegrees in a turn (the wire's rot). */
export const CENTIDEGREES = 36000;

function clamp16(v: number): number {
  return v < -32768 ? -32768 : v > 32767 ? 32767 : v;
}

/** Position units to the wire's int16 world units. */
export function toWirePosition(p: number): number {
  return clamp16((p + (POS_ONE >> 1)) >> POS_SHIFT);
}

/** Velocity units to the wire's int16 wu/s. */
export function toWireVelocity(v: number): number {
  return clamp16((v * STEP_HZ + (POS_ONE >> 1)) >> POS_SHIFT);
}

/** Heading units to the wire's centidegrees (0..35999). */
export function toWireAngle(a: number): number {
  return (((a & ANGLE_MASK) * CENTIDEGREES) + (ANGLE_TURN >> 1)) >> ANGLE_BITS;
}

/** World units (any number) to position units, for set-up code and tests. */
export function fromWu(wu: number): number {
  return Math.round(wu * POS_ONE);
}

/** wu/s to velocity units, for set-up code and tests. */
export function fromWuPerSecond(v: number): number {
  return Math.round((v * POS_ONE) / STEP_HZ);
}

/** Position units to world units (a double), for tools and tests. */
export function toWu(p: number): number {
  return p / POS_ONE;
}

/** Velocity units to wu/s (a double), for tools and tests. */
export function toWuPerSecond(v: number): number {
  return (v * STEP_HZ) / POS_ONE;
}

/** Radians to heading units, for set-up code and tests. */
export function fromRadians(r: number): number {
  return Math.round((r * ANGLE_TURN) / (2 * Math.PI)) & ANGLE_MASK;
}

/** Heading units to radians in [0, 2π), for tools and tests. */
export function toRadians(a: number): number {
  return ((a & ANGLE_MASK) * 2 * Math.PI) / ANGLE_TURN;
}
