/**
 * When and where ships appear: a player's first ship JOIN_SPAWN_STEPS after joining, the
 * next RESPAWN_STEPS after a death, at the clearest of up to SPAWN_ATTEMPTS random points
 * of the spawn ring, on a circular orbit around the sun. How clear a point is comes from
 * the game (`SpawnClearance`), which may run it natively.
 */
import { ANGLE_MASK, ANGLE_TURN, POS_ONE } from "../units";
import { EntityError, NO_PLAYER } from "./entities";
import {
  JOIN_SPAWN_STEPS, RESPAWN_STEPS, SHIP_BASE, SHIP_HP, SHIP_MAX_SPEED, SHIP_TYPES, SHOT_TYPES, SPAWN_ATTEMPTS, SPAWN_MAX,
  SPAWN_MIN, STEP_HZ, SUN_GM, TEMPLATE_RADIUS,
} from "./templates";
import { cosQ, sinQ } from "./trig";
import { GameCounter, type GameWorld } from "./world";

/** Projectiles keep this far (wu) from a spawn point; the sun wants this much more than its radius. */
export const SPAWN_SHOT_CLEARANCE = 120;
export const SPAWN_SUN_CLEARANCE = SPAWN_MIN >> 1;
/** Nothing is ever this clear of a spawn point (wu): "no entity in the way". */
export const WIDE_OPEN = 1 << 30;

/** How far (wu) a point is from being a fair spawn point: the worst shortfall, negative, or WIDE_OPEN. */
export interface SpawnClearance {
  clearance(x: number, y: number): number;
}

/** A player joined `slot`: its first ship comes JOIN_SPAWN_STEPS from now. */
export function spawnJoin(w: GameWorld, slot: number, playerId: number): void {
  w.present[slot] = 1;
  w.playerId[slot] = playerId;
  w.focusIndex[slot] = -1;
  w.focusX[slot] = 0;
  w.focusY[slot] = 0;
  w.respawnStep[slot] = w.steps + JOIN_SPAWN_STEPS;
  w.cooldown[slot] = 0;
  w.hp[slot] = 0;
  w.kills[slot] = 0;
  w.deaths[slot] = 0;
}

/** The ship of `slot` died this step: the next one comes RESPAWN_STEPS from now. */
export function spawnAfterDeath(w: GameWorld, slot: number): void {
  w.respawnStep[slot] = w.steps + RESPAWN_STEPS;
}

/** Whether `slot`, present, is waiting for a ship that is due. */
export function spawnDue(w: GameWorld, slot: number): boolean {
  return w.focusIndex[slot] < 0 && w.respawnStep[slot] >= 0 && w.steps >= w.respawnStep[slot];
}

/** A ship for `slot`, of the player's selection, at the clearest point found. */
export function spawnShip(w: GameWorld, slot: number, clear: SpawnClearance): void {
  const e = w.entities;
  const rng = w.rng;
  const sine = w.sine;
  const st = w.players.ship[slot] < SHIP_TYPES ? w.players.ship[slot] : 0;
  const wt = w.players.weapon[slot] < SHOT_TYPES ? w.players.weapon[slot] : 0;
  let bx = 0;
  let by = 0;
  let ba = 0;
  let br = 0;
  let best = -WIDE_OPEN;
  for (let k = 0; k < SPAWN_ATTEMPTS; k++) {
    const a = (rng.nextU32() >>> 22) << 2;
    const r = SPAWN_MIN + (((rng.nextU32() >>> 16) * (SPAWN_MAX - SPAWN_MIN)) >>> 16);
    const x = (r * 32 * cosQ(sine, a)) >> 9;
    const y = (r * 32 * sinQ(sine, a)) >> 9;
    const c = clear.clearance(x, y);
    if (c > best) {
      best = c;
      bx = x;
      by = y;
      ba = a;
      br = r;
    }
    if (c >= 0) break;
  }
  if (best < 0) w.counters[GameCounter.CrowdedSpawns]++;
  const i = e.add(SHIP_BASE + st, w.playerId[slot], bx, by);
  // shotCapacity keeps a slot for every player's ship; -1 here means our own bookkeeping broke.
  if (i < 0) throw new EntityError("no entity slot left for a ship");
  // A circular orbit around the sun, counter-clockwise, nose along the velocity. A spawn
  // is rare: the square root of G·M/r may be a double.
  let v = Math.round((Math.sqrt(SUN_GM / br) * POS_ONE) / STEP_HZ);
  if (v > SHIP_MAX_SPEED[st]) v = SHIP_MAX_SPEED[st];
  e.vx[i] = 0 - ((sinQ(sine, ba) * v) >> 14);
  e.vy[i] = (cosQ(sine, ba) * v) >> 14;
  e.rot[i] = (ba + (ANGLE_TURN >> 2)) & ANGLE_MASK;
  w.prevX[slot] = bx;
  w.prevY[slot] = by;
  w.steady[i] = 0;
  w.radius[i] = TEMPLATE_RADIUS[SHIP_BASE + st];
  w.hp[slot] = SHIP_HP[st];
  w.killer[slot] = NO_PLAYER;
  w.shipType[slot] = st;
  w.weaponType[slot] = wt;
  w.focusIndex[slot] = i;
  w.focusX[slot] = bx;
  w.focusY[slot] = by;
  w.respawnStep[slot] = -1;
  w.cooldown[slot] = 0;
  w.ships++;
  w.counters[GameCounter.Spawns]++;
}
