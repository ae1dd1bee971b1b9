/**
 * When and where ships appear: a player's first ship once the player has selected its ship
 * and weapon (Players.selected) or JOIN_SPAWN_STEPS after joining, whichever comes first;
 * the next RESPAWN_STEPS after a death; at the best of up to SPAWN_ATTEMPTS random points
 * of the spawn ring (clear of bodies, ships and projectiles, then as far from enemy ships
 * as SPAWN_ENEMY_CLEARANCE asks), on a circular orbit around the sun. A new ship is guarded:
 * it takes no damage for SPAWN_GUARD_STEPS, or until it fires.
 *
 * The game's step (in C, modules/kernels/game.c) finds a slot due a ship; the spawn itself,
 * rare and drawing on the random generator, is here.
 */
import { ANGLE_MASK, ANGLE_TURN, POS_ONE, POS_SHIFT, STEP_HZ } from "../units";
import { EntityError, NO_PLAYER } from "./entities";
import {
  JOIN_SPAWN_STEPS, Kind, RESPAWN_STEPS, SHIP_BASE, SHIP_HP, SHIP_MAX_SPEED, SHIP_TYPES, SHOT_TYPES, SPAWN_ATTEMPTS,
  SPAWN_CLEARANCE, SPAWN_ENEMY_CLEARANCE, SPAWN_GUARD_STEPS, SPAWN_MAX, SPAWN_MIN, SUN_GM, TEMPLATE_KIND,
  TEMPLATE_RADIUS,
} from "./templates";
import { cosQ, sinQ } from "./trig";
import { GameCounter, type GameWorld } from "./world";

/** Projectiles keep this far (wu) from a spawn point; the sun wants this much more than its radius. */
export const SPAWN_SHOT_CLEARANCE = 120;
export const SPAWN_SUN_CLEARANCE = SPAWN_MIN >> 1;
/** Nothing is ever this clear of a spawn point (wu): "no entity in the way". */
export const WIDE_OPEN = 1 << 30;
/** SPAWN_ENEMY_CLEARANCE squared (wu²): a spawn point this far from every enemy ship is good enough. */
const ENEMY_FAR2 = SPAWN_ENEMY_CLEARANCE * SPAWN_ENEMY_CLEARANCE;
/**
 * The most any entity asks of a spawn point (wu): the largest radius and the largest
 * clearance. An entity further than this along x alone is clear without reading more of it.
 */
export const SPAWN_REACH_WU = Math.max(...TEMPLATE_RADIUS) + Math.max(SPAWN_CLEARANCE, SPAWN_SUN_CLEARANCE, SPAWN_SHOT_CLEARANCE);


/** A player joined `slot`: its first ship comes when it has selected, JOIN_SPAWN_STEPS from now at the latest. */
export function spawnJoin(w: GameWorld, slot: number, playerId: number): void {
  w.present[slot] = 1;
  w.playerId[slot] = playerId;
  w.focusIndex[slot] = -1;
  w.focusX[slot] = 0;
  w.focusY[slot] = 0;
  w.respawnStep[slot] = w.steps + JOIN_SPAWN_STEPS;
  w.newcomer[slot] = 1;
  w.guardUntil[slot] = 0;
  w.cooldown[slot] = 0;
  w.hp[slot] = 0;
  w.kills[slot] = 0;
  w.deaths[slot] = 0;
}

/** The ship of `slot` died this step: the next one comes RESPAWN_STEPS from now. */
export function spawnAfterDeath(w: GameWorld, slot: number): void {
  w.respawnStep[slot] = w.steps + RESPAWN_STEPS;
}

/** A ship for `slot`, of the player's selection, at the clearest point found (`clear`: the step's). */
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
  // A point's worth: its shortfall (negative, wu) when something is too close, else the
  // squared distance (wu²) to the nearest enemy ship, up to ENEMY_FAR2. The best wins.
  let best = -WIDE_OPEN;
  for (let k = 0; k < SPAWN_ATTEMPTS; k++) {
    const a = (rng.nextU32() >>> 22) << 2;
    const r = SPAWN_MIN + (((rng.nextU32() >>> 16) * (SPAWN_MAX - SPAWN_MIN)) >>> 16);
    const x = (r * 32 * cosQ(sine, a)) >> 9;
    const y = (r * 32 * sinQ(sine, a)) >> 9;
    let c = clear.clearance(x, y);
    if (c >= 0) c = spawnEnemyDistance2(w, slot, x, y);
    if (c > best) {
      best = c;
      bx = x;
      by = y;
      ba = a;
      br = r;
    }
    if (c >= ENEMY_FAR2) break;
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
  w.guardUntil[slot] = w.steps + SPAWN_GUARD_STEPS;
  w.newcomer[slot] = 0;
  w.cooldown[slot] = 0;
  w.ships++;
  w.counters[GameCounter.Spawns]++;
}

/** What a spawn point must keep clear of an entity of template `t` (wu), beyond its radius where spawnWantsRadius says so. */
export function spawnWant(t: number): number {
  const kind = TEMPLATE_KIND[t];
  return kind === Kind.Ship || kind === Kind.Planet ? SPAWN_CLEARANCE : kind === Kind.Shot ? SPAWN_SHOT_CLEARANCE : SPAWN_SUN_CLEARANCE;
}

/** Whether an entity of template `t` adds its radius to spawnWant (all but projectiles). */
export function spawnWantsRadius(t: number): boolean {
  return TEMPLATE_KIND[t] !== Kind.Shot;
}

/**
 * How far a spawn point is from being fair: the step's C (step-native.ts, `clearance`;
 * modules/kernels/game.c, lw_game_clearance) walks the table up to its high-water mark; an
 * entity further than SPAWN_REACH_WU along x is passed over after its x alone, the rest by
 * squared distance, and the length (with a square root's Newton steps, integer) only for
 * what is too close: the worst shortfall, negative, or WIDE_OPEN.
 */
export interface SpawnClearance {
  clearance(x: number, y: number): number;
}

/**
 * The squared distance (wu², at most ENEMY_FAR2) from (x, y) to the nearest ship of another
 * player than `slot`'s. Whole wu: within the arena every term stays below 2^31.
 */
export function spawnEnemyDistance2(w: GameWorld, slot: number, x: number, y: number): number {
  const e = w.entities;
  let nearest = ENEMY_FAR2;
  for (let s = 0; s < w.maxPlayers; s++) {
    const i = w.focusIndex[s];
    if (s === slot || i < 0) continue;
    const dx = (e.x[i] - x) >> POS_SHIFT;
    const dy = (e.y[i] - y) >> POS_SHIFT;
    const d = dx * dx + dy * dy;
    if (d < nearest) nearest = d;
  }
  return nearest;
}
