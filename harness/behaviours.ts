/**
 * Bot behaviours over the client library: each reads what a Client knows (its own
 * ship, the other entities, the selection) and returns INPUT_* bits.
 *   idle    presses nothing (the ship drifts on its spawn orbit)
 *   wander  cruises on headings that change every two seconds, keeps off the sun and
 *           the arena's edge, and fires now and then
 *   hunt    turns on the nearest enemy ship with lead, closes in, fires when aligned
 * They keep no state: the same client view and time give the same bits.
 */
import type { Client } from "../modules/client/client";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../modules/protocol/codec";
import { ARENA_RADIUS, DT, Kind, kindOf, WEAPON_LIFE, WEAPON_SPEED } from "../modules/game/templates";

export const BEHAVIOURS: readonly string[] = Object.freeze(["idle", "wander", "hunt"]);

export function isBehaviour(name: string): boolean {
  return BEHAVIOURS.indexOf(name) >= 0;
}

/** Steering tolerance, radians. */
const ALIGNED = 0.05;
const SUN_DANGER = 520;
const EDGE_DANGER = ARENA_RADIUS - 350;

/** Index of the client's own ship in its entity arrays, or -1. */
export function ownShip(client: Client): number {
  if (client.selfId < 0) return -1;
  for (let i = 0; i < client.entityCapacity; i++)
    if (client.alive[i] !== 0 && client.owner[i] === client.selfId && kindOf(client.type[i]) === Kind.Ship) return i;
  return -1;
}

/** Heading of entity `i` in radians (Update carries degrees × 100). */
export function headingOf(client: Client, i: number): number {
  return (client.rot[i] * Math.PI) / 18000;
}

/** `a` in (−π, π]. */
function wrap(a: number): number {
  while (a > Math.PI) a -= 2 * Math.PI;
  while (a <= -Math.PI) a += 2 * Math.PI;
  return a;
}

/** LEFT or RIGHT to turn `heading` towards `target`, or 0 when within `ALIGNED`. */
function steer(heading: number, target: number): number {
  const d = wrap(target - heading);
  return d > ALIGNED ? INPUT_LEFT : d < -ALIGNED ? INPUT_RIGHT : 0;
}

/** Steering away from the sun or the edge when the ship is in danger, else -1. */
function steerAway(client: Client, i: number): number {
  const x = client.x[i];
  const y = client.y[i];
  const r = Math.hypot(x, y);
  const heading = headingOf(client, i);
  if (r < SUN_DANGER) return steer(heading, Math.atan2(y, x)) | INPUT_FORWARD;
  if (r > EDGE_DANGER) return steer(heading, Math.atan2(-y, -x) + 0.6) | INPUT_FORWARD;
  return -1;
}

/** A small integer hash, so bots of different slots pick different headings. */
function scramble(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35);
  h ^= h >>> 13;
  h = Math.imul(h, 0x27d4eb2f);
  return (h ^ (h >>> 16)) >>> 0;
}

function wander(client: Client, now: number): number {
  const i = ownShip(client);
  if (i < 0) return 0;
  const away = steerAway(client, i);
  if (away >= 0) return away;
  const period = Math.floor(now / 2000);
  const h = scramble(client.selfSlot, period);
  const target = ((h & 0xffff) / 65536) * 2 * Math.PI;
  const heading = headingOf(client, i);
  let bits = steer(heading, target);
  const speed = Math.hypot(client.vx[i], client.vy[i]);
  if (Math.abs(wrap(target - heading)) < 1 && speed < 220) bits |= INPUT_FORWARD;
  if ((h >>> 16) % 3 === 0) bits |= INPUT_SHOOTING;
  return bits;
}

function hunt(client: Client, now: number): number {
  const i = ownShip(client);
  if (i < 0) return 0;
  const away = steerAway(client, i);
  if (away >= 0) return away;
  const x = client.x[i];
  const y = client.y[i];
  let best = -1;
  let bestD = Infinity;
  for (let j = 0; j < client.entityCapacity; j++) {
    if (client.alive[j] === 0 || j === i || kindOf(client.type[j]) !== Kind.Ship) continue;
    const d = Math.hypot(client.x[j] - x, client.y[j] - y);
    if (d < bestD) {
      bestD = d;
      best = j;
    }
  }
  if (best < 0) return wander(client, now);
  const w = client.selfSlot >= 0 ? client.weapon[client.selfSlot] % WEAPON_SPEED.length : 0;
  const speed = WEAPON_SPEED[w];
  const range = speed * WEAPON_LIFE[w] * DT * 0.7;
  // Lead the target by the projectile's flight time, relative to our own motion.
  const t = bestD / speed;
  const tx = client.x[best] + (client.vx[best] - client.vx[i]) * t;
  const ty = client.y[best] + (client.vy[best] - client.vy[i]) * t;
  const target = Math.atan2(ty - y, tx - x);
  const heading = headingOf(client, i);
  const off = Math.abs(wrap(target - heading));
  let bits = steer(heading, target);
  if (bestD > 300 && off < 0.8) bits |= INPUT_FORWARD;
  else if (bestD < 140) bits |= INPUT_BACKWARD;
  if (off < 0.15 && bestD < range) bits |= INPUT_SHOOTING;
  return bits;
}

/** INPUT_* bits for behaviour `name` ("idle", "wander" or "hunt") at time `now` (ms). */
export function behaviourInput(name: string, client: Client, now: number): number {
  switch (name) {
    case "idle":
      return 0;
    case "wander":
      return wander(client, now);
    case "hunt":
      return hunt(client, now);
  }
  throw new RangeError(`unknown behaviour "${name}" (expected ${BEHAVIOURS.join(", ")})`);
}
