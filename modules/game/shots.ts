/**
 * Projectiles: firing one, and a hit on a ship. Their step over the dense list (`ShotsStep`:
 * each one's lifetime, its drift, what the grid cell it ended in holds, the sun and the
 * arena's edge, planets and ships, with swept tests against each, and every other step the
 * sun's pull) is the native kernel `shots` (modules/kernels/loops.c, through
 * shots-native.ts); the game's step calls `move()`.
 *
 * Swept tests (planets, ships) work at 1/2 wu, relative to the other body: d0 and d1 are
 * the projectile's offsets at the start and end of the step. At 1/2 wu every term stays
 * below 2^31 for a projectile within reach.
 */
import { POS_SHIFT } from "../units";
import { deathsDamage } from "./deaths";
import { geometryClamp } from "./geometry";
import { SHOT_BASE, SHOT_MAX_VELOCITY, TEMPLATE_RADIUS, WEAPON_COOLDOWN, WEAPON_DAMAGE, WEAPON_LIFE, WEAPON_VELOCITY } from "./templates";
import { GameCounter, type GameWorld } from "./world";

/** (SHOT_MAX_VELOCITY / 2)²: a projectile's speed limit squared, at half scale to stay an integer. */
export const SHOT_HALF2 = (SHOT_MAX_VELOCITY >> 1) * (SHOT_MAX_VELOCITY >> 1);

/** Every projectile's step (shots-native.ts). */
export interface ShotsStep {
  /** Move every projectile by a step; those that expired or hit something go to the doomed list. */
  move(): void;
}

/** Ship `ship` of `slot` fires its weapon along (c, s) (Q14), if the pool has room. */
export function shotsFire(w: GameWorld, ship: number, slot: number, c: number, s: number): void {
  const e = w.entities;
  const wt = w.weaponType[slot];
  w.cooldown[slot] = WEAPON_COOLDOWN[wt];
  // Firing ends the guard of a new ship (spawn.ts).
  w.guardUntil[slot] = 0;
  if (w.shotCount >= w.shotCapacity) {
    w.counters[GameCounter.ShotsDropped]++;
    return;
  }
  const off = (w.radius[ship] + TEMPLATE_RADIUS[SHOT_BASE + wt] + 1) << POS_SHIFT;
  const j = e.add(SHOT_BASE + wt, e.owner[ship], e.x[ship] + ((c * off) >> 14), e.y[ship] + ((s * off) >> 14));
  if (j < 0) {
    w.counters[GameCounter.ShotsDropped]++;
    return;
  }
  let vx = e.vx[ship] + ((c * WEAPON_VELOCITY[wt] + 8192) >> 14);
  let vy = e.vy[ship] + ((s * WEAPON_VELOCITY[wt] + 8192) >> 14);
  const hx = vx >> 1;
  const hy = vy >> 1;
  if (hx * hx + hy * hy > SHOT_HALF2) {
    const g = w.geometry;
    geometryClamp(g, vx, vy, SHOT_MAX_VELOCITY);
    vx = g.cx;
    vy = g.cy;
  }
  e.vx[j] = vx;
  e.vy[j] = vy;
  e.rot[j] = e.rot[ship];
  w.steady[j] = 1;
  w.radius[j] = TEMPLATE_RADIUS[SHOT_BASE + wt];
  // The firing step is the first of its life.
  w.expires[j] = w.steps + WEAPON_LIFE[wt] - 1;
  w.shotList[w.shotCount++] = j;
  w.counters[GameCounter.ShotsFired]++;
}

/** Projectile i hit the ship of slot s: the ship takes the weapon's damage. */
export function shotsHit(w: GameWorld, i: number, s: number): void {
  const e = w.entities;
  w.counters[GameCounter.ShotHits]++;
  deathsDamage(w, s, WEAPON_DAMAGE[e.type[i] - SHOT_BASE], e.owner[i], e.type[i]);
}
