/**
 * Entity templates and world constants, declared once. A template id is what Add
 * carries as `typeId`; docs/game.md and docs/protocol.md ("Template ids") list them.
 *
 * Units: the numbers a person reads (radii, arena, G·M, orbits, spawn band, muzzle speeds)
 * are in world units (wu), seconds and steps of 1/30 s. The numbers the step uses directly
 * are in the fixed-point units of modules/units.ts, and say so: velocities in 1/1024 wu per
 * step, headings in 1/4096 turn. The world is y-up; a heading of 0 points along +x and
 * grows counter-clockwise ("left").
 */
import { STEP_HZ } from "../units";

/** Template ids (Add.typeId). Contiguous ranges: planets, ships, projectiles. */
export const TemplateId = Object.freeze({
  Sun: 0,
  PlanetSmall: 1,
  PlanetMedium: 2,
  PlanetLarge: 3,
  Interceptor: 4,
  Fighter: 5,
  Cruiser: 6,
  Pulse: 7,
  Cannon: 8,
  Torpedo: 9,
} as const);

export const PLANET_BASE = 1;
export const PLANET_TYPES = 3;
/** Ship type s (Selection.shipType) is template SHIP_BASE + s. */
export const SHIP_BASE = 4;
export const SHIP_TYPES = 3;
/** Weapon type w (Selection.weaponType) fires template SHOT_BASE + w. */
export const SHOT_BASE = 7;
export const SHOT_TYPES = 3;
export const TEMPLATE_COUNT = 10;

/** What a template is. */
export const Kind = Object.freeze({ Sun: 1, Planet: 2, Ship: 3, Shot: 4 } as const);

export const TEMPLATE_KIND: readonly number[] = Object.freeze([
  Kind.Sun, Kind.Planet, Kind.Planet, Kind.Planet, Kind.Ship, Kind.Ship, Kind.Ship, Kind.Shot, Kind.Shot, Kind.Shot,
]);
/** Collision radius by template id, wu. */
export const TEMPLATE_RADIUS: readonly number[] = Object.freeze([150, 28, 42, 64, 10, 14, 20, 3, 5, 8]);
export const TEMPLATE_NAME: readonly string[] = Object.freeze([
  "sun", "small planet", "planet", "gas giant", "interceptor", "fighter", "cruiser", "pulse", "cannon", "torpedo",
]);

/** Kind of a template id; 0 for ids this game does not use. */
export function kindOf(typeId: number): number {
  return typeId < TEMPLATE_COUNT ? TEMPLATE_KIND[typeId] : 0;
}

// ---------------------------------------------------------------- world

// STEP_HZ is declared with the units it defines (modules/units.ts).
export const STEP_MS = 1000 / STEP_HZ;
export const DT = 1 / STEP_HZ;
/** Ships bounce off this circle; projectiles beyond it vanish. Well inside int16. */
export const ARENA_RADIUS = 3000;
/** Gravitational parameter (G·M) of the sun, wu³/s²: 67 wu/s² at 600 wu, 11 at 1500. */
export const SUN_GM = 24000000;
/** G·M of each planet template (small, medium, large). */
export const PLANET_GM: readonly number[] = Object.freeze([150000, 300000, 600000]);
/** Planet orbits: evenly spaced radii from the inner to the outer orbit. */
export const ORBIT_INNER = 600;
export const ORBIT_OUTER = 2550;
/** Planets circle at this fraction of the Kepler angular speed, counter-clockwise. */
export const ORBIT_SPEED_FACTOR = 0.5;
/** Ships spawn at a distance from the sun in this band, on a circular orbit. */
export const SPAWN_MIN = 700;
export const SPAWN_MAX = 2700;
/** Clearance a spawn point wants from other ships and from planets, wu. */
export const SPAWN_CLEARANCE = 250;
export const SPAWN_ATTEMPTS = 24;
/**
 * A spawn point wants enemy ships this far away (wu): the farthest of the tries that are
 * clear of everything else is taken, and the first one this far from every ship ends the
 * search.
 */
export const SPAWN_ENEMY_CLEARANCE = 1200;
/** A new ship takes no damage for this many steps (2 s), or until it fires: its guard. */
export const SPAWN_GUARD_STEPS = 60;
/**
 * Steps from death to respawn (2 s), and from joining to the first spawn at the latest
 * (1 s): a newcomer's first ship comes as soon as its Selection has (Players.selected).
 */
export const RESPAWN_STEPS = 60;
export const JOIN_SPAWN_STEPS = 30;
/** Projectiles never move faster than this (gravity slingshots), wu/s: 50 wu a step. */
export const SHOT_MAX_SPEED = 1500;
/** SHOT_MAX_SPEED in velocity units (1/1024 wu per step). */
export const SHOT_MAX_VELOCITY = 51200;
/** Steps before a projectile can hit the ship that fired it. */
export const SHOT_ARM_STEPS = 9;
/** Velocity kept along the normal after a bounce. */
export const PLANET_RESTITUTION = 0.5;
export const SHIP_RESTITUTION = 0.8;
export const BOUNDARY_RESTITUTION = 0.5;
/** Collision damage: base + factor × closing speed (wu/s), in hit points. */
export const PLANET_DAMAGE_BASE = 8;
export const PLANET_DAMAGE_FACTOR = 0.05;
export const RAM_DAMAGE_BASE = 6;
export const RAM_DAMAGE_FACTOR = 0.05;

// ---------------------------------------------------------------- ships, by ship type

export const SHIP_NAME: readonly string[] = Object.freeze(["interceptor", "fighter", "cruiser"]);
/**
 * Forward thrust, velocity units gained per step (1/1024 wu per step, each step): 420.1,
 * 299.7 and 200.4 wu/s². Backward thrust is half of it, rounded down.
 */
export const SHIP_THRUST: readonly number[] = Object.freeze([478, 341, 228]);
/**
 * Turn per step while left or right is held, heading units (1/4096 turn), multiples of the
 * sine table's step of 4: 4.42, 3.50 and 2.39 rad/s.
 */
export const SHIP_TURN: readonly number[] = Object.freeze([96, 76, 52]);
/** Top speed, velocity units (1/1024 wu per step): 420, 330 and 249.99 wu/s. */
export const SHIP_MAX_SPEED: readonly number[] = Object.freeze([14336, 11264, 8533]);
export const SHIP_HP: readonly number[] = Object.freeze([60, 100, 180]);
/** Mass for ship-against-ship bounces (relative). */
export const SHIP_MASS: readonly number[] = Object.freeze([1, 2, 4]);

// ---------------------------------------------------------------- weapons, by weapon type

export const WEAPON_NAME: readonly string[] = Object.freeze(["pulse", "cannon", "torpedo"]);
/** Steps between shots: 10, 3 and 1.25 shots per second. */
export const WEAPON_COOLDOWN: readonly number[] = Object.freeze([3, 10, 24]);
/** Muzzle speed added to the ship's velocity, wu/s. */
export const WEAPON_SPEED: readonly number[] = Object.freeze([650, 520, 360]);
/** WEAPON_SPEED in velocity units (1/1024 wu per step): 650.01, 519.99 and 360 wu/s. */
export const WEAPON_VELOCITY: readonly number[] = Object.freeze([22187, 17749, 12288]);
export const WEAPON_DAMAGE: readonly number[] = Object.freeze([8, 22, 55]);
/** Lifetime in steps: 3 s, 2.5 s, 4 s. */
export const WEAPON_LIFE: readonly number[] = Object.freeze([90, 75, 120]);

/** The largest radii (wu) and the largest of SHIP_MAX_SPEED (velocity units), for the broad phase. */
export const MAX_SHIP_RADIUS = 20;
export const MAX_PLANET_RADIUS = 64;
export const MAX_SHOT_RADIUS = 8;
export const MAX_SHIP_SPEED = 14336;
