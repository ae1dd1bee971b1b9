/**
 * A pilot's decisions, as INPUT_* bits, from plain numbers: where its ship is, where the
 * target is, and the clock. The bots that play over the network (harness/behaviours.ts,
 * reading what a client knows) and the bots inside the server (modules/server/bots.ts,
 * reading the game's tables) both steer by these functions, so a server bot flies like
 * `npm run bot -- --behaviour hunt`.
 *
 * Units: world units (wu), wu per second, radians (counter-clockwise, 0 along +x). The
 * functions keep no state and allocate nothing.
 */
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "./input";
import { ARENA_RADIUS, DT, WEAPON_LIFE, WEAPON_SPEED } from "./game/templates";

/** Steering tolerance, radians. */
const ALIGNED = 0.05;
/** Closer than this to the sun (wu), a pilot turns away and thrusts. */
export const SUN_DANGER = 520;
/** Farther than this from the centre (wu), a pilot turns back inwards. */
export const EDGE_DANGER = ARENA_RADIUS - 350;
const TWO_PI = 2 * Math.PI;

/** `a` in (−π, π]. */
export function wrapAngle(a: number): number {
  while (a > Math.PI) a -= TWO_PI;
  while (a <= -Math.PI) a += TWO_PI;
  return a;
}

/** LEFT or RIGHT to turn `heading` towards `target`, or 0 when within a twentieth of a radian. */
export function steer(heading: number, target: number): number {
  const d = wrapAngle(target - heading);
  return d > ALIGNED ? INPUT_LEFT : d < -ALIGNED ? INPUT_RIGHT : 0;
}

/** Turning away from the sun or back from the edge, with thrust, when the ship is in danger; else -1. */
export function avoid(x: number, y: number, heading: number): number {
  const r = Math.hypot(x, y);
  if (r < SUN_DANGER) return steer(heading, Math.atan2(y, x)) | INPUT_FORWARD;
  if (r > EDGE_DANGER) return steer(heading, Math.atan2(-y, -x) + 0.6) | INPUT_FORWARD;
  return -1;
}

/** A small integer hash, so pilots of different slots pick different headings. */
export function scramble(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 13;
  h = Math.imul(h, 0x27d4eb2f);
  return (h ^ (h >>> 16)) >>> 0;
}

/**
 * Cruising with nothing to hunt: a heading that changes every two seconds (a different one
 * per `slot`), thrust up to 220 wu/s when roughly on it, and a shot now and then.
 */
export function cruise(slot: number, now: number, x: number, y: number, vx: number, vy: number, heading: number): number {
  const away = avoid(x, y, heading);
  if (away >= 0) return away;
  const h = scramble(slot, Math.floor(now / 2000));
  const target = ((h & 0xffff) / 65536) * TWO_PI;
  let bits = steer(heading, target);
  if (Math.abs(wrapAngle(target - heading)) < 1 && Math.hypot(vx, vy) < 220) bits |= INPUT_FORWARD;
  if ((h >>> 16) % 3 === 0) bits |= INPUT_SHOOTING;
  return bits;
}

/**
 * Hunting the ship at (tx, ty) moving at (tvx, tvy): turn onto it with lead for the
 * projectile's flight time (relative to our own motion), close in past 300 wu, back off
 * inside 140 wu, and fire when within `aim` rad (0.15) and `reach` (70 %) of the weapon's
 * range. `lead` scales the lead (1: the whole flight time), `error` turns the aim point
 * that many radians off, and `fire` false holds the trigger: the server's bots fly by
 * these (their skill, modules/server/pilots.ts); the defaults are the network bots'.
 */
export function attack(
  x: number, y: number, vx: number, vy: number, heading: number, weapon: number,
  tx: number, ty: number, tvx: number, tvy: number,
  aim = 0.15, reach = 0.7, lead = 1, error = 0, fire = true,
): number {
  const away = avoid(x, y, heading);
  if (away >= 0) return away;
  const w = weapon % WEAPON_SPEED.length;
  const speed = WEAPON_SPEED[w];
  const range = speed * WEAPON_LIFE[w] * DT * reach;
  const d = Math.hypot(tx - x, ty - y);
  const t = (d / speed) * lead;
  const lx = tx + (tvx - vx) * t;
  const ly = ty + (tvy - vy) * t;
  const target = Math.atan2(ly - y, lx - x) + error;
  const off = Math.abs(wrapAngle(target - heading));
  let bits = steer(heading, target);
  if (d > 300 && off < 0.8) bits |= INPUT_FORWARD;
  else if (d < 140) bits |= INPUT_BACKWARD;
  if (fire && off < aim && d < range) bits |= INPUT_SHOOTING;
  return bits;
}
