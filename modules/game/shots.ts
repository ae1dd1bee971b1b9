/**
 * Projectiles: firing one, their step over the dense list (`ShotsStep`), what the grid
 * cell a projectile ended a step in holds (the sun and the arena's edge, planets, ships)
 * with swept tests against each, the sun's pull, and a hit on a ship.
 *
 * The step has two implementations behind one interface, picked once when the game is
 * made: `JsShotsStep` here (the reference) and `NativeShotsStep` (shots-native.ts, the
 * native kernel `shots`). The game's step calls `move()` and never branches.
 *
 * Swept tests (planets, ships) work at 1/2 wu, relative to the other body: d0 and d1 are
 * the projectile's offsets at the start and end of the step (geometrySweep). At 1/2 wu every
 * term stays below 2^31 for a projectile within reach.
 */
import { POS_SHIFT } from "../units";
import { PLANET_NEAR } from "./bodies";
import { deathsDamage } from "./deaths";
import { geometryClamp, geometrySweep } from "./geometry";
import { D_SHIFT, S_SHIFT, T_MASK, U_FLOOR } from "./gravity";
import {
  SHOT_ARM_STEPS, SHOT_BASE, SHOT_MAX_VELOCITY, TEMPLATE_RADIUS, WEAPON_COOLDOWN, WEAPON_DAMAGE, WEAPON_LIFE, WEAPON_VELOCITY,
} from "./templates";
import {
  ARENA_R2, GameCounter, type GameWorld, GRID_HALF, GRID_SHIFT, GRID_SIDE, PLANET_BIT, REACH, SHIP_BIT, SUN_RADIUS, ZONES,
} from "./world";

/** (SHOT_MAX_VELOCITY / 2)²: a projectile's speed limit squared, at half scale to stay an integer. */
export const SHOT_HALF2 = (SHOT_MAX_VELOCITY >> 1) * (SHOT_MAX_VELOCITY >> 1);

/** Every projectile's step, one implementation picked at start-up. */
export interface ShotsStep {
  /** Move every projectile by a step; those that expired or hit something go to the doomed list. */
  move(): void;
}

/**
 * The projectiles' step in JavaScript: each one's lifetime, its drift, then what the grid
 * cell it ended in holds (shotsCollide), then every other step the sun's pull (shotsPull),
 * the only place its velocity changes. This is the bulk of a step, one inlined loop.
 */
export class JsShotsStep implements ShotsStep {
  readonly #w: GameWorld;

  constructor(w: GameWorld) {
    this.#w = w;
  }

  move(): void {
    const w = this.#w;
    const e = w.entities;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const list = w.shotList;
    const doomed = w.doomed;
    const expires = w.expires;
    const mask = w.grid.mask;
    const steps = w.steps;
    const parity = steps & 1;
    let n = w.shotCount;
    let dc = w.doomedCount;
    // Declared once: on XS a declaration inside the loop costs a little every iteration.
    let i: number, vx: number, vy: number, x: number, y: number, near: number;
    for (let k = 0; k < n; k++) {
      i = list[k];
      if (expires[i] <= steps) {
        doomed[dc++] = i;
        list[k--] = list[--n];
        continue;
      }
      vx = evx[i];
      vy = evy[i];
      x = ex[i] += vx;
      y = ey[i] += vy;
      // What the cell the projectile ended in holds (shotsCollide).
      near = mask[((y + GRID_HALF) >> GRID_SHIFT) * GRID_SIDE + ((x + GRID_HALF) >> GRID_SHIFT)];
      if (near !== 0 && shotsCollide(w, i, near)) {
        doomed[dc++] = i;
        list[k--] = list[--n];
        continue;
      }
      // Every other step (by index parity), twice the sun's pull at the new position.
      if ((i & 1) === parity) shotsPull(w, i);
    }
    w.shotCount = n;
    w.doomedCount = dc;
  }
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

/**
 * Projectile i has moved to where it is, and `near` is what its grid cell holds: the sun
 * or the arena's edge, planets and ships (in that order: a projectile that hits one is
 * gone before the next). Whether it is gone.
 */
export function shotsCollide(w: GameWorld, i: number, near: number): boolean {
  const e = w.entities;
  const ex = e.x;
  const ey = e.y;
  const x = ex[i];
  const y = ey[i];
  const vx = e.vx[i];
  const vy = e.vy[i];
  const steps = w.steps;
  const clz = Math.clz32;
  let b: number, o: number, dx: number, dy: number, m: number;
  if ((near & ZONES) !== 0) {
    const xs = x >> 7;
    const ys = y >> 7;
    const u = xs * xs + ys * ys;
    const t = (SUN_RADIUS + w.radius[i]) << 3;
    if (u > ARENA_R2 || u < t * t) return true;
  }
  for (m = (near >> PLANET_BIT) & w.planetBits; m !== 0; m &= m - 1) {
    b = 32 - clz(m & (0 - m));
    o = w.bodyIndex[b];
    dx = x - ex[o];
    dy = y - ey[o];
    if (dx >= PLANET_NEAR || dx <= -PLANET_NEAR || dy >= PLANET_NEAR || dy <= -PLANET_NEAR) continue;
    if (shotsHitPlanet(w, i, b, x - vx, y - vy, dx, dy)) return true;
  }
  for (m = (near >> SHIP_BIT) & 0xff; m !== 0; m &= m - 1) {
    b = 31 - clz(m & (0 - m));
    o = w.focusIndex[b];
    if (o < 0 || w.hp[b] <= 0) continue;
    dx = x - ex[o];
    dy = y - ey[o];
    if (dx > REACH || dx < -REACH || dy > REACH || dy < -REACH) continue;
    // A fresh projectile cannot hit the ship that fired it.
    if (e.owner[i] === w.playerId[b] && steps - w.expires[i] + WEAPON_LIFE[e.type[i] - SHOT_BASE] < SHOT_ARM_STEPS) continue;
    if (shotsHitShip(w, i, b, x - vx, y - vy, dx, dy)) return true;
  }
  return false;
}

/**
 * Twice the sun's pull on projectile i at its position (it gets it every other step); the
 * velocity changes only here, so it is only limited here (and when fired).
 */
export function shotsPull(w: GameWorld, i: number): void {
  const e = w.entities;
  const xs = e.x[i] >> 7;
  const ys = e.y[i] >> 7;
  const u = xs * xs + ys * ys;
  const oct = 31 - Math.clz32(u | U_FLOOR);
  const entry = w.gravity[(oct << 5) + (u >> (oct - 5)) - 512];
  const t = (entry & T_MASK) - ((((entry >> D_SHIFT) & 1023) * ((u >> (oct - 13)) & 255)) >> 8);
  const sh = (entry >> S_SHIFT) - 1;
  const d = w.dither >> (31 - sh);
  let vx = e.vx[i] + ((d - xs * t) >> sh);
  let vy = e.vy[i] + ((d - ys * t) >> sh);
  // Above 2^31 (1357 wu/s) the sum is a double: rare, and then the exact test.
  if (vx * vx + vy * vy > 0x7fffffff && (vx >> 1) * (vx >> 1) + (vy >> 1) * (vy >> 1) > SHOT_HALF2) {
    const g = w.geometry;
    geometryClamp(g, vx, vy, SHOT_MAX_VELOCITY);
    vx = g.cx;
    vy = g.cy;
  }
  e.vx[i] = vx;
  e.vy[i] = vy;
}

/**
 * Projectile i, which moved from (x0, y0) and ended (dx, dy) from planet (body) b, swept
 * against the planet's own step: whether it hit.
 */
function shotsHitPlanet(w: GameWorld, i: number, b: number, x0: number, y0: number, dx: number, dy: number): boolean {
  const r = (w.radius[w.bodyIndex[b]] + w.radius[i]) << 1;
  return geometrySweep((x0 - w.bodyPrevX[b]) >> 9, (y0 - w.bodyPrevY[b]) >> 9, dx >> 9, dy >> 9, r);
}

/**
 * Projectile i, which moved from (x0, y0) and ended (dx, dy) from the ship of slot s,
 * swept against the ship's step: on a hit the ship takes the weapon's damage.
 */
function shotsHitShip(w: GameWorld, i: number, s: number, x0: number, y0: number, dx: number, dy: number): boolean {
  const r = (w.radius[w.focusIndex[s]] + w.radius[i]) << 1;
  if (!geometrySweep((x0 - w.prevX[s]) >> 9, (y0 - w.prevY[s]) >> 9, dx >> 9, dy >> 9, r)) return false;
  shotsHit(w, i, s);
  return true;
}

/** Projectile i hit the ship of slot s: the ship takes the weapon's damage. */
export function shotsHit(w: GameWorld, i: number, s: number): void {
  const e = w.entities;
  w.counters[GameCounter.ShotHits]++;
  deathsDamage(w, s, WEAPON_DAMAGE[e.type[i] - SHOT_BASE], e.owner[i], e.type[i]);
}
