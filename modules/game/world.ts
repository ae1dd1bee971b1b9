/**
 * The game's state, in one object made at start-up and handed to every part of the game
 * (bodies.ts, spawn.ts, ships.ts, deaths.ts, and the step in C through step-native.ts): the
 * per-player and per-entity typed arrays (the entity table holds the rest), the sun's and
 * planets' tables, the sine, gravity and square root tables, the counters, the broad-phase
 * grid and the random generator, all carved from one arena; and the counts the JavaScript
 * keeps. What a step carries from one part to the next (the projectiles listed and doomed,
 * the dither) is the step's, in its binding's words. Nothing in it allocates after
 * construction.
 *
 * The grid layout is here too, as every part reads it: 256 wu cells over ±3072 wu, each
 * holding bits of what reaches into it.
 */
import { Arena, type FixedMemory } from "../arena";
import { ConfigError, type Config } from "../config";
import { Random } from "../random";
import type { DeathHook, Players } from "../sim";
import { POS_ONE } from "../units";
import { EntityError, type EntityTable } from "./entities";
import { createGeometry, type Geometry, RSQRT_SEEDS } from "./geometry";
import { GRAVITY_ENTRIES } from "./gravity";
import { ReachGrid } from "./grid";
import {
  ARENA_RADIUS, MAX_SHIP_RADIUS, MAX_SHIP_SPEED, MAX_SHOT_RADIUS, SHIP_TYPES, SHOT_BASE, SHOT_MAX_VELOCITY, SHOT_TYPES,
  TEMPLATE_RADIUS, TemplateId,
} from "./templates";
import { buildSineTable, SINE_TABLE_LENGTH } from "./trig";

/** Indices into `Game.counters`. */
export const GameCounter = Object.freeze({
  Steps: 0,
  /** Steps dropped because the host fell more than MAX_CATCH_UP steps behind. */
  StepsSkipped: 1,
  ShotsFired: 2,
  /** Shots not fired because the projectile pool was full. */
  ShotsDropped: 3,
  Spawns: 4,
  Kills: 5,
  Suicides: 6,
  EnvironmentDeaths: 7,
  ShotHits: 8,
  Rams: 9,
  PlanetHits: 10,
  /** Spawns with no point clear of everything; the clearest one was taken. */
  CrowdedSpawns: 11,
  /** Blows a new ship's guard took (spawn.ts): damage not dealt. */
  GuardedBlows: 12,
} as const);
export const GAME_COUNTER_COUNT = 13;
export const GAME_COUNTER_NAMES: readonly string[] = Object.freeze([
  "steps", "stepsSkipped", "shotsFired", "shotsDropped", "spawns", "kills", "suicides", "environmentDeaths",
  "shotHits", "rams", "planetHits", "crowdedSpawns", "guardedBlows",
]);

export const SUN_RADIUS = TEMPLATE_RADIUS[TemplateId.Sun];
/** The arena radius in position units, and squared at 1/8 wu (the gravity table's r² scale). */
export const ARENA = ARENA_RADIUS * POS_ONE;
export const ARENA_R2 = (ARENA_RADIUS * 8) * (ARENA_RADIUS * 8);
/** Grid: 256 wu cells (2^18 position units) over ±3072 wu, 24 a side; the arena fits inside. */
export const GRID_SHIFT = 18;
export const GRID_HALF = 12 << GRID_SHIFT;
export const GRID_SIDE = 24;
/**
 * Grid bits. In the slow layer: two fixed zones, where a projectile may be in the sun or
 * beyond the arena's edge, and planet (body) b as bit PLANET_BIT + b − 1. Marked each step:
 * ship slot s as bit SHIP_BIT + s.
 */
export const SUN_ZONE = 1;
export const EDGE_ZONE = 2;
export const ZONES = SUN_ZONE | EDGE_ZONE;
export const PLANET_BIT = 2;
export const SHIP_BIT = 16;
/*
 * Constants the step compares against are built from integer operations only: on XS the
 * result of `/` is a double even when it is whole, and every comparison with it would then
 * be an emulated floating-point operation on the ESP32. A velocity in velocity units is
 * also the distance moved in a step, in position units.
 */
/**
 * How far (position units) a projectile or ship can be from a ship at the end of a step and
 * still have touched it: both largest radii, one step of closing motion (the fastest
 * projectile and the fastest ship), and what a push out of a planet or another ship adds.
 * Ships mark the grid this far beyond their centre. 132 wu.
 */
export const REACH = (MAX_SHIP_RADIUS + MAX_SHOT_RADIUS + 2 * MAX_SHIP_RADIUS) * POS_ONE + SHOT_MAX_VELOCITY + MAX_SHIP_SPEED;
/**
 * A step's rounding offset for velocity changes is the fractional part of steps × the
 * golden ratio, 31 bits: steps × DITHER_STEP (2^32 / φ, as an int32), masked to stay
 * non-negative (on XS `>>>` of a negative integer takes the floating-point path).
 */
export const DITHER_STEP = -1640531527;

const PLAYERS = "game players";
const ENTITIES = "game entity arrays";
const BODIES = "game bodies";
const TABLES = "game tables (sine, gravity, square roots)";

export class GameWorld {
  readonly config: Config;
  readonly entities: EntityTable;
  readonly players: Players;
  readonly maxPlayers: number;
  /** Most projectiles alive at once: capacity less the sun, planets and one ship per player. */
  readonly shotCapacity: number;
  /** The sun (body 0) and the planets (bodies 1..planets). */
  readonly bodies: number;
  /** Bit b − 1 for each planet b. */
  readonly planetBits: number;
  readonly counters!: Uint32Array;

  /** Steps simulated. */
  steps = 0;
  /** Ships alive, and live entities the game does not manage (a ship whose player left, not yet removed). */
  ships = 0;
  others = 0;
  /** Told of every ship destroyed; null: nobody listens. */
  onDeath: DeathHook | null = null;

  // Players, by slot.
  readonly present!: Uint8Array;
  readonly playerId!: Uint32Array;
  /** Entity index of the slot's ship, -1 while dead or not yet spawned (Focus). */
  readonly focusIndex!: Int32Array;
  /** The slot's ship position (position units), kept while it is dead (Focus). */
  readonly focusX!: Int32Array;
  readonly focusY!: Int32Array;
  /** Step at which the slot spawns next, -1 while its ship is alive. */
  readonly respawnStep!: Int32Array;
  /** Step at which the guard of the slot's ship ends (SPAWN_GUARD_STEPS after its spawn; 0 once it fired). */
  readonly guardUntil!: Int32Array;
  /** 1 from joining until the first ship: it may come early, once the player has selected. */
  readonly newcomer!: Uint8Array;
  /** Steps until the slot's weapon can fire again. */
  readonly cooldown!: Uint16Array;
  /** Ship and weapon type of the current (or last) ship; Selection changes them at spawn. */
  readonly shipType!: Uint8Array;
  readonly weaponType!: Uint8Array;
  readonly kills!: Uint32Array;
  readonly deaths!: Uint32Array;
  /** Hit points of the slot's ship (the table's `health` is the percentage sent to clients). */
  readonly hp!: Int16Array;
  /** Player id of whatever brought the ship to 0 hp this step; NO_PLAYER for the environment. */
  readonly killer!: Uint32Array;
  /** Template id of what dealt that blow (see DeathHook). */
  readonly killedWith!: Uint8Array;
  /** The ship's position before this step, for swept tests. */
  readonly prevX!: Int32Array;
  readonly prevY!: Int32Array;

  // Per entity, by index.
  /** Collision radius, wu, set when the game adds the entity. */
  readonly radius!: Uint8Array;
  /** 1 for projectiles and bodies: their paths extrapolate well, so Updates can be rarer (Focus). */
  readonly steady!: Uint8Array;
  /** Step in which a projectile expires (its firing step is the first of its life). */
  readonly expires!: Int32Array;
  /** Live projectiles, densely; the projectile loop walks this (its length is the step's: step-native.ts). */
  readonly shotList!: Uint16Array;
  /** Projectiles that hit something or expired this step, in that order; removed at the end of it. */
  readonly doomed!: Uint16Array;

  // Bodies (bodies.ts).
  readonly bodyIndex!: Int32Array;
  /** Orbit radius, position units. */
  readonly orbitRadius!: Int32Array;
  /** Angular speed and starting angle, heading units with 18 fraction bits (per step; at step 0). */
  readonly orbitOmega!: Int32Array;
  readonly orbitPhase!: Int32Array;
  /** Orbit radius in 1/32 wu, and orbital speed in velocity units. */
  readonly orbitR32!: Int32Array;
  readonly orbitSpeed!: Int32Array;
  /** A planet's G·M is the sun's × pull / 2^(10 + shift): pull | shift << 16. */
  readonly bodyPull!: Int32Array;
  /** (radius of body b + radius of ship type st)² at 1/8 wu, at st · bodies + b: touching below it. */
  readonly contact!: Int32Array;
  /** Body positions before this step, for swept tests. */
  readonly bodyPrevX!: Int32Array;
  readonly bodyPrevY!: Int32Array;
  /** Where each planet's grid mark is centred. */
  readonly markX!: Int32Array;
  readonly markY!: Int32Array;

  // Tables, built at construction from IEEE-exact arithmetic.
  /** Quarter-wave sine, Q14, 1025 entries (trig.ts). */
  readonly sine!: Int16Array;
  /** gravity.ts. */
  readonly gravity!: Int32Array;
  /** The square root seeds and the results of geometry.ts. */
  readonly geometry: Geometry;

  readonly rng: Random;
  readonly grid: ReachGrid;
  /** The arena's [label, bytes] rows, for the memory budget. */
  readonly rows: Array<[string, number]>;

  constructor(config: Config, entities: EntityTable, players: Players, seed: number, memory: FixedMemory | null = null) {
    if (config.shipTypes > SHIP_TYPES) throw new ConfigError(`config.shipTypes must be at most ${SHIP_TYPES} for this game`);
    if (config.weaponTypes > SHOT_TYPES) throw new ConfigError(`config.weaponTypes must be at most ${SHOT_TYPES} for this game`);
    const cap = entities.capacity;
    const n = config.maxPlayers;
    const fixed = 1 + config.planets;
    if (cap < fixed + n + 1)
      throw new ConfigError(`config.maxEntities must be at least ${fixed + n + 1} (sun, ${config.planets} planets, ${n} ships, a projectile)`);
    if (entities.count !== 0) throw new EntityError("the game needs an empty entity table");
    if (config.planets > 16 - PLANET_BIT) throw new ConfigError(`config.planets must be at most ${16 - PLANET_BIT} for this game`);
    this.config = config;
    this.entities = entities;
    this.players = players;
    this.maxPlayers = n;
    this.shotCapacity = cap - fixed - n;
    this.bodies = fixed;
    this.planetBits = (1 << config.planets) - 1;

    // Measured, then carved, widest elements first (see Arena); the fields marked `!` are
    // assigned in this loop.
    let a = Arena.measuring();
    let rsqrtSeed!: Uint16Array;
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, memory);
      this.gravity = a.i32(GRAVITY_ENTRIES, TABLES);
      this.focusIndex = a.i32(n, PLAYERS);
      this.focusX = a.i32(n, PLAYERS);
      this.focusY = a.i32(n, PLAYERS);
      this.respawnStep = a.i32(n, PLAYERS);
      this.guardUntil = a.i32(n, PLAYERS);
      this.prevX = a.i32(n, PLAYERS);
      this.prevY = a.i32(n, PLAYERS);
      this.playerId = a.u32(n, PLAYERS);
      this.kills = a.u32(n, PLAYERS);
      this.deaths = a.u32(n, PLAYERS);
      this.killer = a.u32(n, PLAYERS);
      this.expires = a.i32(cap, ENTITIES);
      this.bodyIndex = a.i32(fixed, BODIES);
      this.orbitRadius = a.i32(fixed, BODIES);
      this.orbitOmega = a.i32(fixed, BODIES);
      this.orbitPhase = a.i32(fixed, BODIES);
      this.orbitR32 = a.i32(fixed, BODIES);
      this.orbitSpeed = a.i32(fixed, BODIES);
      this.bodyPull = a.i32(fixed, BODIES);
      this.contact = a.i32(SHIP_TYPES * fixed, BODIES);
      this.bodyPrevX = a.i32(fixed, BODIES);
      this.bodyPrevY = a.i32(fixed, BODIES);
      this.markX = a.i32(fixed, BODIES);
      this.markY = a.i32(fixed, BODIES);
      this.counters = a.u32(GAME_COUNTER_COUNT, "game counters");
      this.sine = a.i16(SINE_TABLE_LENGTH, TABLES);
      rsqrtSeed = a.u16(RSQRT_SEEDS, TABLES);
      this.hp = a.i16(n, PLAYERS);
      this.cooldown = a.u16(n, PLAYERS);
      this.shotList = a.u16(cap, ENTITIES);
      this.doomed = a.u16(cap, ENTITIES);
      this.present = a.u8(n, PLAYERS);
      this.shipType = a.u8(n, PLAYERS);
      this.weaponType = a.u8(n, PLAYERS);
      this.newcomer = a.u8(n, PLAYERS);
      this.radius = a.u8(cap, ENTITIES);
      this.steady = a.u8(cap, ENTITIES);
      this.killedWith = a.u8(n, PLAYERS);
    }
    a.done();
    this.rows = a.rows();
    this.focusIndex.fill(-1);
    this.respawnStep.fill(-1);
    buildSineTable(this.sine);
    this.geometry = createGeometry(rsqrtSeed);
    this.rng = new Random(seed >>> 0);
    this.grid = new ReachGrid(GRID_HALF, GRID_SHIFT, memory);
    // Cells with a point within the largest projectile's reach of the sun, and cells with a
    // point beyond the arena (a corner at or past its radius).
    const sunReach = (SUN_RADIUS + MAX_SHOT_RADIUS) * POS_ONE;
    this.grid.setFixed(SUN_ZONE, (x0, y0, x1, y1) => {
      const nx = x0 > 0 ? x0 : x1 < 0 ? x1 : 0;
      const ny = y0 > 0 ? y0 : y1 < 0 ? y1 : 0;
      return nx * nx + ny * ny < sunReach * sunReach;
    });
    this.grid.setFixed(EDGE_ZONE, (x0, y0, x1, y1) => {
      const fx = Math.max(-x0, x1);
      const fy = Math.max(-y0, y1);
      return fx * fx + fy * fy >= ARENA * ARENA;
    });
  }
}

/** Rebuild the projectile list and the counts from the table (someone else removed entities); returns the list's length. */
export function worldRecount(w: GameWorld): number {
  const e = w.entities;
  let shots = 0;
  for (let i = 0; i < e.capacity; i++)
    if (e.alive[i] !== 0 && e.type[i] >= SHOT_BASE && e.type[i] < SHOT_BASE + SHOT_TYPES) w.shotList[shots++] = i;
  let ships = 0;
  for (let s = 0; s < w.maxPlayers; s++) if (w.focusIndex[s] >= 0) ships++;
  w.ships = ships;
  w.others = e.count - w.bodies - ships - shots;
  return shots;
}

/** A 32-bit hash of the whole world: entities, players, scores, step count and PRNG state. */
export function worldHash(w: GameWorld): number {
  const e = w.entities;
  let h = mix(0x811c9dc5, w.steps);
  h = mix(h, w.rng.state);
  for (let i = 0; i < e.capacity; i++) {
    h = mix(h, e.alive[i] | (e.type[i] << 8) | (e.health[i] << 16));
    h = mix(h, e.generation[i]);
    if (e.alive[i] === 0) continue;
    h = mix(h, e.owner[i]);
    h = mix(h, e.x[i]);
    h = mix(h, e.y[i]);
    h = mix(h, e.vx[i]);
    h = mix(h, e.vy[i]);
    h = mix(h, e.rot[i]);
    h = mix(h, w.expires[i]);
  }
  for (let s = 0; s < w.maxPlayers; s++) {
    h = mix(h, w.present[s]);
    if (w.present[s] === 0) continue;
    h = mix(h, w.playerId[s]);
    h = mix(h, w.focusIndex[s]);
    h = mix(h, w.respawnStep[s]);
    h = mix(h, w.newcomer[s]);
    h = mix(h, w.cooldown[s] | (w.shipType[s] << 16) | (w.weaponType[s] << 24));
    h = mix(h, w.hp[s]);
    h = mix(h, w.guardUntil[s]);
    h = mix(h, w.players.scores[s]);
  }
  return h >>> 0;
}

function mix(h: number, v: number): number {
  h = Math.imul(h ^ (v | 0), 0x5bd1e995);
  return h ^ ((h >> 15) & 0x1ffff);
}
