/**
 * How one ship moves by its own input, apart from the world around it: turning, thrust and
 * the speed limit. Pure integer rules on a small record (`ShipMotion`) and the ship type's
 * numbers from templates.ts, with no reference to the game's tables, so that a client can
 * predict its own ship with the very rules the server runs.
 *
 * A server step does, for each ship: drift (position += velocity), `motionSteer`, the
 * gravity of the sun and the planets, `motionLimit`, then the arena's edge and contacts.
 * A client without the bodies can leave gravity out and still turn and thrust exactly as
 * the server does. The native ship loop (hosts/moddable/kernels.c) has the same rules in C,
 * from the numbers the game hands it (SHIP_HEADINGS, CLAMP_SCALE and the ship templates).
 *
 * To make one: a quarter-wave sine table (trig.ts `buildSineTable` into an Int16Array of
 * SINE_TABLE_LENGTH) and a `Geometry` (geometry.ts `createGeometry` on a Uint16Array of
 * RSQRT_SEEDS), then `createShipMotion(sine, geometry)`.
 */
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT } from "../input";
import { ANGLE_MASK } from "../units";
import { type Geometry, geometryClamp, ONE } from "./geometry";
import { SHIP_MAX_SPEED, SHIP_THRUST, SHIP_TURN } from "./templates";

/** A ship's heading, masked to the sine table's steps (4 headings, 1/1024 turn). */
export const SHIP_HEADINGS = ANGLE_MASK & ~3;
/** ceil(2^42 / max²) by ship type: (v² >> 14) times it, >> 14, is (|v| / max)² in Q14, rounded up. */
export const CLAMP_SCALE: readonly number[] = Object.freeze(SHIP_MAX_SPEED.map((m) => Math.ceil(2 ** 42 / (m * m))));

/** One ship's heading and velocity, in and out of the rules; made once, reused. */
export interface ShipMotion {
  /** Heading, 1/4096 turn (modules/units.ts). */
  rot: number;
  /** Velocity, velocity units. */
  vx: number;
  vy: number;
  /** Cosine and sine of the heading after `motionSteer`, Q14: where the nose and the guns point. */
  cos: number;
  sin: number;
  /** The quarter-wave sine table (trig.ts). */
  readonly sine: Int16Array;
  /** For a clamp far over the speed limit. */
  readonly geometry: Geometry;
}

export function createShipMotion(sine: Int16Array, geometry: Geometry): ShipMotion {
  return { rot: 0, vx: 0, vy: 0, cos: 0, sin: 0, sine, geometry };
}

/**
 * The heading of a ship of `type` after one step of `input` (INPUT_* bits). Ship headings
 * keep to the sine table's steps: spawns and turn rates are multiples of it, and a heading
 * set from outside is rounded down to one.
 */
export function motionTurn(rot: number, input: number, type: number): number {
  if ((input & INPUT_LEFT) !== 0) rot += SHIP_TURN[type];
  if ((input & INPUT_RIGHT) !== 0) rot -= SHIP_TURN[type];
  return rot & SHIP_HEADINGS;
}

/**
 * Turn m.rot by `input`, set m.cos and m.sin from the new heading, and thrust m.vx, m.vy
 * along it: forward at the type's thrust, backward at half of it.
 */
export function motionSteer(m: ShipMotion, type: number, input: number): void {
  const sine = m.sine;
  const rot = motionTurn(m.rot, input, type);
  const q = (rot >> 2) & 255;
  let c: number;
  let s: number;
  // (c, s) = (cos, sin) of the heading; `0 - v`, not `-v`: on XS −0 is a double.
  switch (rot >> 10) {
    case 0: c = sine[256 - q]; s = sine[q]; break;
    case 1: c = 0 - sine[q]; s = sine[256 - q]; break;
    case 2: c = 0 - sine[256 - q]; s = 0 - sine[q]; break;
    default: c = sine[q]; s = 0 - sine[256 - q];
  }
  m.rot = rot;
  m.cos = c;
  m.sin = s;
  if ((input & (INPUT_FORWARD | INPUT_BACKWARD)) !== 0) {
    let t = 0;
    if ((input & INPUT_FORWARD) !== 0) t += SHIP_THRUST[type];
    if ((input & INPUT_BACKWARD) !== 0) t -= SHIP_THRUST[type] >> 1;
    m.vx += (c * t + 8192) >> 14;
    m.vy += (s * t + 8192) >> 14;
  }
}

/**
 * The speed limit of a ship of `type` on m.vx, m.vy: scale by max/|v|. Just over it (the
 * usual case: thrust at top speed), two Newton steps for 1/√q from 1, q = (|v|/max)²
 * rounded up, which never overshoot; far over it, geometryClamp.
 */
export function motionLimit(m: ShipMotion, type: number): void {
  let vx = m.vx;
  let vy = m.vy;
  let max = SHIP_MAX_SPEED[type];
  max *= max;
  const u = vx * vx + vy * vy;
  if (u <= max) return;
  if (u <= max + (max >> 2)) {
    const q = ((((u >> 14) + 1) * CLAMP_SCALE[type]) >> 14) + 1;
    let t = (3 * ONE - q) >> 1;
    t = (t * (3 * ONE - ((q * ((t * t) >> 14)) >> 14))) >> 15;
    vx = vx < 0 ? 0 - (((0 - vx) * t) >> 14) : (vx * t) >> 14;
    vy = vy < 0 ? 0 - (((0 - vy) * t) >> 14) : (vy * t) >> 14;
  } else {
    const g = m.geometry;
    geometryClamp(g, vx, vy, SHIP_MAX_SPEED[type]);
    vx = g.cx;
    vy = g.cy;
  }
  m.vx = vx;
  m.vy = vy;
}
