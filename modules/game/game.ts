/**
 * The authoritative lwar match: a sun, planets on circular orbits, one ship per player
 * and projectiles, stepped at a fixed 30 Hz in the server's entity table.
 *
 * Everything is 32-bit integer fixed point (modules/units.ts): positions in 1/1024 wu,
 * velocities in 1/1024 wu per step, headings in 1/4096 turn. The ESP32 has no double FPU
 * and XS keeps only int32 values as integers, so a step does no floating-point work except
 * where a rare event (a ram, a spawn) needs a square root. Gravity comes from a table of
 * G·M/r³ indexed by r² (interpolated, with an unbiased rounding of the velocity change),
 * trigonometry from a quarter-wave sine table, unit vectors from a Newton reciprocal square
 * root, and swept circle tests compare squares without dividing.
 *
 * All state lives in typed arrays sized at construction (the entity table's fields plus
 * the arrays below); a step allocates nothing. Randomness comes from one seeded xorshift
 * and every table is built from IEEE-exact arithmetic, so the same seed and the same inputs
 * give the same world, bit for bit, on any engine. `hash()` proves it.
 *
 * Step order: planets, spawns, ships (drift, input, gravity, clamp, boundary, planets and
 * sun, fire), ships against ships, projectiles (lifetime, drift, arena, sun, the sun's
 * gravity, clamp, planets and ships), deaths and removals. Ships are walked by player slot,
 * projectiles over a dense list. On XS a typed-array access costs as much as a couple of
 * bytecodes and a call as a dozen, so the projectile loop is one inlined block that touches
 * few arrays: its broad phase costs one read (see ReachGrid), its gravity one table entry
 * and the next.
 */
import { Arena } from "../arena";
import { ConfigError, type Config } from "../config";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../input";
import { Random } from "../random";
import type { DeathHook, Focus, Players, Simulation } from "../sim";
import { ANGLE_MASK, ANGLE_TURN, POS_ONE, POS_SHIFT } from "../units";
import { Binding, kernelsFor, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { ShipStop, ShipWord, ShotStop, ShotWord } from "../native-words";
import { EntityError, NO_PLAYER, type EntityTable } from "./entities";
import { ReachGrid } from "./grid";
import {
  ARENA_RADIUS, BOUNDARY_RESTITUTION, JOIN_SPAWN_STEPS, Kind, MAX_PLANET_RADIUS, MAX_SHIP_RADIUS, MAX_SHIP_SPEED,
  MAX_SHOT_RADIUS, ORBIT_INNER, ORBIT_OUTER, ORBIT_SPEED_FACTOR, PLANET_BASE, PLANET_DAMAGE_BASE, PLANET_DAMAGE_FACTOR,
  PLANET_GM, PLANET_RESTITUTION, PLANET_TYPES, RAM_DAMAGE_BASE, RAM_DAMAGE_FACTOR, RESPAWN_STEPS, SHIP_BASE, SHIP_HP,
  SHIP_MASS, SHIP_MAX_SPEED, SHIP_RESTITUTION, SHIP_THRUST, SHIP_TURN, SHIP_TYPES, SHOT_ARM_STEPS, SHOT_BASE,
  SHOT_MAX_VELOCITY, SHOT_TYPES, SPAWN_ATTEMPTS, SPAWN_CLEARANCE, SPAWN_MAX, SPAWN_MIN, STEP_HZ, SUN_GM,
  TEMPLATE_KIND, TEMPLATE_RADIUS, TemplateId, WEAPON_COOLDOWN, WEAPON_DAMAGE, WEAPON_LIFE, WEAPON_VELOCITY,
} from "./templates";
import { buildSineTable, cosQ, SINE_TABLE_LENGTH, sinQ, TWO_PI } from "./trig";

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
} as const);
export const GAME_COUNTER_COUNT = 12;
export const GAME_COUNTER_NAMES: readonly string[] = Object.freeze([
  "steps", "stepsSkipped", "shotsFired", "shotsDropped", "spawns", "kills", "suicides", "environmentDeaths",
  "shotHits", "rams", "planetHits", "crowdedSpawns",
]);

/** Steps one tick may run to catch up; beyond that the game skips time. */
const MAX_CATCH_UP = 4;
/** Milliseconds between steps, repeating: step k is due ceil(k · 100 / 3) ms after the first tick. */
const STEP_GAP_0 = 34;
const STEP_GAP_1 = 33;
/** A collision below this closing speed (30 wu/s, in velocity units: 1 wu a step) bounces without damage. */
const GENTLE = POS_ONE;
/** Projectiles keep this far (wu) from a spawn point; the sun wants this much more than its radius. */
const SPAWN_SHOT_CLEARANCE = 120;
const SPAWN_SUN_CLEARANCE = SPAWN_MIN >> 1;
/** Nothing is ever this clear of a spawn point (wu): "no entity in the way". */
const WIDE_OPEN = 1 << 30;

/** Q14: 1.0 for unit vectors and the sine table. */
const ONE = 16384;
const SUN_RADIUS = TEMPLATE_RADIUS[TemplateId.Sun];
/** The arena radius in position units, and squared at 1/8 wu (the gravity table's r² scale). */
const ARENA = ARENA_RADIUS * POS_ONE;
const ARENA_R2 = (ARENA_RADIUS * 8) * (ARENA_RADIUS * 8);
/** Grid: 256 wu cells (2^18 position units) over ±3072 wu, 24 a side; the arena fits inside. */
const GRID_SHIFT = 18;
const GRID_HALF = 12 << GRID_SHIFT;
const GRID_SIDE = 24;
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
const REACH = (MAX_SHIP_RADIUS + MAX_SHOT_RADIUS + 2 * MAX_SHIP_RADIUS) * POS_ONE + SHOT_MAX_VELOCITY + MAX_SHIP_SPEED;
/**
 * How far (position units) a projectile can be from a planet at the end of a step and still
 * have touched it: both largest radii, a step of the fastest projectile (50 wu), a step of
 * the fastest planet (3.4 wu at the inner orbit, so 4) and 1 for rounding. 127 wu. Orbits
 * are further apart than twice this less a gravity bucket, so a projectile is near at most
 * two of them.
 */
const PLANET_NEAR = (MAX_PLANET_RADIUS + MAX_SHOT_RADIUS + 4 + 1) * POS_ONE + SHOT_MAX_VELOCITY;

/*
 * The gravity table. r² is taken at 1/8 wu (u = (x >> 7)² + (y >> 7)², below 2^31 for any
 * two points of the arena) and split like a float: octave e = floor(log2 u), 16..30, and 32
 * buckets in each; below 2^16 (r < 32 wu) 32 more buckets hold the value at 2^16. The entry
 * for u is at (e << 5) + (u >> (e − 5)) − 512 with e = 31 − clz(u | 2^16), and holds
 *   bits 0..14   T = round(K(u₀) · 2^S) at the bucket's start u₀, K(u) = G·M☉ / u^1.5 in
 *                velocity units per step and 1/8 wu: the sun changes the velocity of
 *                something at offset (xs, ys) from it (1/8 wu) by −(xs, ys) · K(u) a step;
 *   bits 15..24  D, T less the next bucket's T, for linear interpolation within the bucket;
 *   bits 25..29  S, the octave's shift, so that T keeps 13 to 14 bits in every octave.
 * Interpolated, K is within 0.05 % of G·M/r³. The velocity change is rounded with this
 * step's dither (a fraction that the golden ratio spreads evenly over [0, 1)), so the
 * rounding is unbiased and a pull of 0.3 velocity units a step still counts on average.
 *
 * Where the pull changes slowly, it is applied less often and as many times as strong (an
 * impulse integrator, exact on average): a projectile gets the sun's pull every other step,
 * a ship a planet's every 4th step unless it is in one of the planet's grid cells.
 */
const OCT_MIN = 16;
const OCT_MAX = 30;
const GRAVITY_ENTRIES = (OCT_MAX - OCT_MIN + 2) * 32;
const U_FLOOR = 1 << OCT_MIN;
const T_MASK = 0x7fff;
const D_SHIFT = 15;
const S_SHIFT = 25;
/** Planets outside a ship's grid cell pull it every 1 << FAR_PULL = 4 steps (and 4 times as hard). */
const FAR_PULL = 2;

/** (SHOT_MAX_VELOCITY / 2)²: a projectile's speed limit squared, at half scale to stay an integer. */
const SHOT_HALF2 = (SHOT_MAX_VELOCITY >> 1) * (SHOT_MAX_VELOCITY >> 1);
/**
 * Grid bits. In the slow layer: two fixed zones, where a projectile may be in the sun or
 * beyond the arena's edge, and planet (body) b as bit PLANET_BIT + b − 1. Marked each step:
 * ship slot s as bit SHIP_BIT + s.
 */
const SUN_ZONE = 1;
const EDGE_ZONE = 2;
const ZONES = SUN_ZONE | EDGE_ZONE;
const PLANET_BIT = 2;
const SHIP_BIT = 16;
/**
 * Planets renew their marks every PLANET_MARK_STEPS steps (one planet a step), over their
 * reach plus what they can move meanwhile (3.4 wu a step at most, so 4).
 */
const PLANET_MARK_STEPS = 8;
const PLANET_MARK = PLANET_NEAR + PLANET_MARK_STEPS * 4 * POS_ONE;
/** A ship's heading, masked to the sine table's steps. */
const SHIP_HEADINGS = ANGLE_MASK & ~3;
/** Orbit angles: heading units with 18 fraction bits, modulo a turn (2^30). */
const ORBIT_FRACTION = 18;
const ORBIT_TURN_MASK = 0x3fffffff;
/** The reciprocal square root seeds: index n2 >> 23 for n2 in [2^26, 2^29). */
const RSQRT_SEEDS = 64;
/** 1 + restitution, Q14: what a bounce takes off the velocity along the normal. */
const EDGE_BOUNCE = Math.round((1 + BOUNDARY_RESTITUTION) * ONE);
const PLANET_BOUNCE = Math.round((1 + PLANET_RESTITUTION) * ONE);
/** floor(65536 / hit points) by ship type, for the health percentage without dividing. */
const HP_RECIPROCAL: readonly number[] = Object.freeze(SHIP_HP.map((h) => Math.floor(65536 / h)));
/** ceil(2^42 / max²) by ship type: (v² >> 14) times it, >> 14, is (|v| / max)² in Q14, rounded up. */
const CLAMP_SCALE: readonly number[] = Object.freeze(SHIP_MAX_SPEED.map((m) => Math.ceil(2 ** 42 / (m * m))));

/** The per-player arrays the game reads (input, selection) and writes (scores). The server has them. */
export type GamePlayers = Players;

export class Game implements Simulation, Focus {
  readonly config: Config;
  readonly entities: EntityTable;
  readonly players: GamePlayers;
  readonly seed: number;
  readonly counters!: Uint32Array;
  readonly maxPlayers: number;
  /** Most projectiles alive at once: capacity less the sun, planets and one ship per player. */
  readonly shotCapacity: number;
  /** Steps simulated. */
  steps = 0;
  /** Projectiles alive after the last step. */
  shots = 0;

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
  /** Told of every ship destroyed; null: nobody listens. */
  onDeath: DeathHook | null = null;
  /** The ship's position before this step, for swept tests. */
  readonly prevX!: Int32Array;
  readonly prevY!: Int32Array;

  // Per entity, by index (the entity table holds the rest).
  /** Collision radius, wu, set when the game adds the entity. */
  readonly radius!: Uint8Array;
  /** 1 for projectiles and bodies: their paths extrapolate well, so Updates can be rarer (Focus). */
  readonly steady!: Uint8Array;
  /** Step in which a projectile expires (its firing step is the first of its life). */
  readonly expires!: Int32Array;
  /** Live projectiles, densely; the projectile loop walks this. */
  readonly #shotList!: Uint16Array;
  #shotCount = 0;
  /** Projectiles that hit something or expired this step, in that order; removed at the end of it. */
  readonly #doomed!: Uint16Array;
  #doomedCount = 0;
  /** Ships alive, and live entities the game does not manage (a ship whose player left, not yet removed). */
  #ships = 0;
  #others = 0;

  // Sun (body 0) and planets (bodies 1..planets).
  readonly bodies: number;
  readonly bodyIndex!: Int32Array;
  /** Orbit radius, position units. */
  readonly orbitRadius!: Int32Array;
  /** Angular speed and starting angle, heading units with 18 fraction bits (per step; at step 0). */
  readonly orbitOmega!: Int32Array;
  readonly orbitPhase!: Int32Array;
  /** Orbit radius in 1/32 wu, and orbital speed in velocity units. */
  readonly #orbitR32!: Int32Array;
  readonly #orbitSpeed!: Int32Array;
  /** A planet's G·M is the sun's × pull / 2^(10 + shift): pull | shift << 16. */
  readonly #bodyPull!: Int32Array;
  /** (radius of body b + radius of ship type st)² at 1/8 wu, at st · bodies + b: touching below it. */
  readonly #contact!: Int32Array;
  /** Body positions before this step, for swept tests. */
  readonly #bodyPrevX!: Int32Array;
  readonly #bodyPrevY!: Int32Array;
  /** Bit b − 1 for each planet b (bodies 1..planets). */
  readonly #planetBits: number;
  /** Where each planet's grid mark is centred. */
  readonly #markX!: Int32Array;
  readonly #markY!: Int32Array;

  // Tables, built at construction from IEEE-exact arithmetic.
  /** Quarter-wave sine, Q14, 1025 entries (trig.ts). */
  readonly sine!: Int16Array;
  readonly #gravity!: Int32Array;
  readonly #rsqrtSeed!: Uint16Array;

  readonly #rng: Random;
  readonly #grid: ReachGrid;
  /** The arena's [label, bytes] rows, for the memory budget. */
  readonly #rows: Array<[string, number]>;
  /** Milliseconds (host clock) at which the next step is due, and where in the 34/33/33 cycle. */
  #nextStepAt = -1;
  #stepGap = 0;
  /** Whether ships bounced off each other this step (the grid is marked again). */
  #rammed = false;
  /**
   * This step's rounding offset for velocity changes: a 31-bit fraction, the fractional part
   * of steps × the golden ratio. Non-negative, because on XS `>>>` of a negative integer
   * takes the floating-point path.
   */
  #dither = 0;
  /** Collision damage per velocity unit of closing speed, in 1/65536 hit point. */
  readonly #planetDamage: number;
  readonly #ramDamage: number;
  // Results of #unit and #clamp.
  #ux = 0;
  #uy = 0;
  #len = 0;
  #cx = 0;
  #cy = 0;
  /** The platform's native loops (modules/native.ts), or null: the JavaScript here runs. */
  readonly #kernels: Kernels | null;
  /** #moveShots's binding for `#kernels.shots` (NATIVE_LAYOUT.shot), or null: the JavaScript. */
  readonly #shots: Binding | null = null;
  /** #moveShips's binding for `#kernels.ship` (NATIVE_LAYOUT.ship), or null: the JavaScript. */
  readonly #shipsBinding: Binding | null = null;

  constructor(config: Config, entities: EntityTable, players: GamePlayers, seed: number, native: NativeOptions | null = null) {
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
    this.seed = seed >>> 0;
    this.maxPlayers = n;
    this.shotCapacity = cap - fixed - n;
    this.bodies = fixed;
    this.#planetBits = (1 << config.planets) - 1;

    // Measured, then carved, widest elements first (see Arena); the fields marked `!` are
    // assigned in this loop.
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes);
      this.#gravity = a.i32(GRAVITY_ENTRIES, "game tables (sine, gravity, square roots)");
      this.focusIndex = a.i32(n, "game players");
      this.focusX = a.i32(n, "game players");
      this.focusY = a.i32(n, "game players");
      this.respawnStep = a.i32(n, "game players");
      this.prevX = a.i32(n, "game players");
      this.prevY = a.i32(n, "game players");
      this.playerId = a.u32(n, "game players");
      this.kills = a.u32(n, "game players");
      this.deaths = a.u32(n, "game players");
      this.killer = a.u32(n, "game players");
      this.expires = a.i32(cap, "game entity arrays");
      this.bodyIndex = a.i32(fixed, "game bodies");
      this.orbitRadius = a.i32(fixed, "game bodies");
      this.orbitOmega = a.i32(fixed, "game bodies");
      this.orbitPhase = a.i32(fixed, "game bodies");
      this.#orbitR32 = a.i32(fixed, "game bodies");
      this.#orbitSpeed = a.i32(fixed, "game bodies");
      this.#bodyPull = a.i32(fixed, "game bodies");
      this.#contact = a.i32(SHIP_TYPES * fixed, "game bodies");
      this.#bodyPrevX = a.i32(fixed, "game bodies");
      this.#bodyPrevY = a.i32(fixed, "game bodies");
      this.#markX = a.i32(fixed, "game bodies");
      this.#markY = a.i32(fixed, "game bodies");
      this.counters = a.u32(GAME_COUNTER_COUNT, "game counters");
      this.sine = a.i16(SINE_TABLE_LENGTH, "game tables (sine, gravity, square roots)");
      this.#rsqrtSeed = a.u16(RSQRT_SEEDS, "game tables (sine, gravity, square roots)");
      this.hp = a.i16(n, "game players");
      this.cooldown = a.u16(n, "game players");
      this.#shotList = a.u16(cap, "game entity arrays");
      this.#doomed = a.u16(cap, "game entity arrays");
      this.present = a.u8(n, "game players");
      this.shipType = a.u8(n, "game players");
      this.weaponType = a.u8(n, "game players");
      this.radius = a.u8(cap, "game entity arrays");
      this.steady = a.u8(cap, "game entity arrays");
      this.killedWith = a.u8(n, "game players");
    }
    a.done();
    this.#rows = a.rows();
    this.focusIndex.fill(-1);
    this.respawnStep.fill(-1);

    buildSineTable(this.sine);
    // Seed for 2^14/√q, q = n2/2^28 at the middle of [k, k+1) · 2^23.
    for (let k = 8; k < RSQRT_SEEDS; k++) this.#rsqrtSeed[k] = Math.round(ONE * Math.sqrt(32 / (k + 0.5)));
    this.#planetDamage = Math.round(((PLANET_DAMAGE_FACTOR * STEP_HZ) / POS_ONE) * 65536);
    this.#ramDamage = Math.round(((RAM_DAMAGE_FACTOR * STEP_HZ) / POS_ONE) * 65536);
    this.#rng = new Random(this.seed);
    this.#grid = new ReachGrid(GRID_HALF, GRID_SHIFT);
    this.#kernels = native?.kernels ?? null;
    const made = native?.bindings ?? null;
    const e = entities;
    if (kernelsFor(native, "shots") !== null) {
      const b = new Binding(NATIVE_LAYOUT.shot, {
        x: e.x, y: e.y, vx: e.vx, vy: e.vy, owner: e.owner, type: e.type, list: this.#shotList, doomed: this.#doomed,
        expires: this.expires, gravity: this.#gravity, radius: this.radius, bodyIndex: this.bodyIndex, focusIndex: this.focusIndex,
        hp: this.hp, playerId: this.playerId, prevX: this.prevX, prevY: this.prevY, bodyPrevX: this.#bodyPrevX,
        bodyPrevY: this.#bodyPrevY, mask: this.#grid.mask,
      }, 0, made);
      const w = b.words;
      const at = b.scalars;
      w[at + ShotWord.GridHalf] = GRID_HALF;
      w[at + ShotWord.GridShift] = GRID_SHIFT;
      w[at + ShotWord.GridSide] = GRID_SIDE;
      w[at + ShotWord.OctMin] = OCT_MIN;
      w[at + ShotWord.OctMax] = OCT_MAX;
      w[at + ShotWord.TMask] = T_MASK;
      w[at + ShotWord.DShift] = D_SHIFT;
      w[at + ShotWord.SShift] = S_SHIFT;
      w[at + ShotWord.Zones] = ZONES;
      w[at + ShotWord.PlanetBit] = PLANET_BIT;
      w[at + ShotWord.ShipBit] = SHIP_BIT;
      w[at + ShotWord.PlanetBits] = this.#planetBits;
      w[at + ShotWord.SunRadius] = SUN_RADIUS;
      w[at + ShotWord.ArenaR2] = ARENA_R2;
      w[at + ShotWord.PlanetNear] = PLANET_NEAR;
      w[at + ShotWord.Reach] = REACH;
      w[at + ShotWord.ArmSteps] = SHOT_ARM_STEPS;
      w[at + ShotWord.ShotBase] = SHOT_BASE;
      if (SHOT_TYPES > 4) throw new RangeError("the native projectile loop knows 4 weapons' lives");
      for (let t = 0; t < SHOT_TYPES; t++) w[at + ShotWord.Life + t] = WEAPON_LIFE[t];
      this.#shots = b;
    }
    if (kernelsFor(native, "ship") !== null) {
      const sb = new Binding(NATIVE_LAYOUT.ship, {
        x: e.x, y: e.y, vx: e.vx, vy: e.vy, rot: e.rot, type: e.type, radius: this.radius, focusIndex: this.focusIndex,
        input: players.input, prevX: this.prevX, prevY: this.prevY, sine: this.sine, gravity: this.#gravity,
        contact: this.#contact, bodyIndex: this.bodyIndex, pull: this.#bodyPull, mask: this.#grid.mask,
      }, 0, made);
      const sw = sb.words;
      const st = sb.scalars;
      if (SHIP_TYPES > 4) throw new RangeError("the native ship loop knows 4 ship types");
      sw[st + ShipWord.ShipBase] = SHIP_BASE;
      sw[st + ShipWord.Headings] = SHIP_HEADINGS;
      sw[st + ShipWord.Forward] = INPUT_FORWARD;
      sw[st + ShipWord.Backward] = INPUT_BACKWARD;
      sw[st + ShipWord.Left] = INPUT_LEFT;
      sw[st + ShipWord.Right] = INPUT_RIGHT;
      sw[st + ShipWord.Shooting] = INPUT_SHOOTING;
      sw[st + ShipWord.GridHalf] = GRID_HALF;
      sw[st + ShipWord.GridShift] = GRID_SHIFT;
      sw[st + ShipWord.GridSide] = GRID_SIDE;
      sw[st + ShipWord.OctMin] = OCT_MIN;
      sw[st + ShipWord.TMask] = T_MASK;
      sw[st + ShipWord.DShift] = D_SHIFT;
      sw[st + ShipWord.SShift] = S_SHIFT;
      sw[st + ShipWord.PlanetBit] = PLANET_BIT;
      sw[st + ShipWord.PlanetBits] = this.#planetBits;
      sw[st + ShipWord.Bodies] = this.bodies;
      sw[st + ShipWord.FarPull] = FAR_PULL;
      sw[st + ShipWord.One] = ONE;
      sw[st + ShipWord.ArenaRadius] = ARENA_RADIUS;
      for (let t = 0; t < SHIP_TYPES; t++) {
        sw[st + ShipWord.Turn + t] = SHIP_TURN[t];
        sw[st + ShipWord.Thrust + t] = SHIP_THRUST[t];
        sw[st + ShipWord.MaxSpeed + t] = SHIP_MAX_SPEED[t];
        sw[st + ShipWord.ClampScale + t] = CLAMP_SCALE[t];
      }
      this.#shipsBinding = sb;
    }
    // Cells with a point within the largest projectile's reach of the sun, and cells with a
    // point beyond the arena (a corner at or past its radius).
    const sunReach = (SUN_RADIUS + MAX_SHOT_RADIUS) * POS_ONE;
    this.#grid.setFixed(SUN_ZONE, (x0, y0, x1, y1) => {
      const nx = x0 > 0 ? x0 : x1 < 0 ? x1 : 0;
      const ny = y0 > 0 ? y0 : y1 < 0 ? y1 : 0;
      return nx * nx + ny * ny < sunReach * sunReach;
    });
    this.#grid.setFixed(EDGE_ZONE, (x0, y0, x1, y1) => {
      const fx = Math.max(-x0, x1);
      const fy = Math.max(-y0, y1);
      return fx * fx + fy * fy >= ARENA * ARENA;
    });
    this.#createBodies();
    for (let b = 1; b < this.bodies; b++) this.#markPlanet(b, true);
    this.#buildGravity();
  }

  #createBodies(): void {
    const e = this.entities;
    this.bodyIndex[0] = e.add(TemplateId.Sun, NO_PLAYER, 0, 0);
    const planets = this.bodies - 1;
    const spacing = planets > 1 ? (ORBIT_OUTER - ORBIT_INNER) / (planets - 1) : 0;
    for (let k = 1; k <= planets; k++) {
      const t = this.#rng.below(PLANET_TYPES);
      const r = planets === 1 ? (ORBIT_INNER + ORBIT_OUTER) / 2 : ORBIT_INNER + (k - 1) * spacing;
      // rad/s, then heading units per step with 18 fraction bits; the angle is exact from then on.
      const w = ORBIT_SPEED_FACTOR * Math.sqrt(SUN_GM / (r * r * r));
      this.orbitRadius[k] = Math.round(r * POS_ONE);
      this.#orbitR32[k] = Math.round(r * 32);
      this.orbitOmega[k] = Math.round((w / STEP_HZ / TWO_PI) * ANGLE_TURN * (1 << ORBIT_FRACTION));
      this.#orbitSpeed[k] = Math.round(((w * r) / STEP_HZ) * POS_ONE);
      this.orbitPhase[k] = this.#rng.nextU32() >>> 2;
      let shift = 0;
      const ratio = PLANET_GM[t] / SUN_GM;
      while (ratio * 2 ** (10 + shift) < 512) shift++;
      this.#bodyPull[k] = Math.round(ratio * 2 ** (10 + shift)) | (shift << 16);
      this.bodyIndex[k] = e.add(PLANET_BASE + t, NO_PLAYER, 0, 0);
    }
    for (let b = 0; b < this.bodies; b++) {
      const i = this.bodyIndex[b];
      if (i < 0) throw new EntityError("no room for the sun and planets");
      this.steady[i] = 1;
      this.radius[i] = TEMPLATE_RADIUS[e.type[i]];
      for (let st = 0; st < SHIP_TYPES; st++) this.#contact[st * this.bodies + b] = ((this.radius[i] + TEMPLATE_RADIUS[SHIP_BASE + st]) * 8) ** 2;
    }
    this.#moveBodies();
  }

  /** The gravity table (see OCT_MIN): doubles here, once, and exact IEEE operations only. */
  #buildGravity(): void {
    // Velocity change per step (velocity units) = xs · G / u^1.5 with xs and u at 1/8 wu.
    const G = (65536 * SUN_GM) / (STEP_HZ * STEP_HZ);
    const table = this.#gravity;
    for (let e = OCT_MIN; e <= OCT_MAX; e++) {
      const top = G / (2 ** e * Math.sqrt(2 ** e));
      let s = 0;
      while (top * 2 ** (s + 1) < 16384) s++;
      const step = 2 ** (e - 5);
      let t = Math.round((G / (2 ** e * Math.sqrt(2 ** e))) * 2 ** s);
      for (let m = 0; m < 32; m++) {
        const lo = (32 + m) * step;
        const hi = lo + step;
        const next = Math.round((G / (hi * Math.sqrt(hi))) * 2 ** s);
        if (t > T_MASK || t - next > 1023 || s > 29 || s < 4) throw new RangeError("gravity table entry out of range");
        table[(e - OCT_MIN + 1) * 32 + m] = t | ((t - next) << D_SHIFT) | (s << S_SHIFT);
        t = next;
      }
    }
    // Below 2^16, the value at 2^16.
    for (let m = 0; m < 32; m++) table[m] = table[32] & (T_MASK | (31 << S_SHIFT));
  }

  // ---------------------------------------------------------------- hooks

  /** Simulation: run the fixed steps due by `now` (at most MAX_CATCH_UP, then skip ahead). */
  tick(now: number): void {
    if (this.#nextStepAt < 0) {
      // An integer clock stays integer (XS keeps it so); a fractional one stays as it is.
      const whole = now | 0;
      this.#nextStepAt = (whole === now ? whole : now) + STEP_GAP_0;
      this.#stepGap = 1;
    }
    if (now < this.#nextStepAt) return;
    let n = 0;
    while (now >= this.#nextStepAt) {
      if (n === MAX_CATCH_UP) {
        this.counters[GameCounter.StepsSkipped] += Math.floor(((now - this.#nextStepAt) * STEP_HZ) / 1000) + 1;
        this.#nextStepAt = now + STEP_GAP_0;
        this.#stepGap = 1;
        break;
      }
      this.step();
      this.#nextStepAt += this.#stepGap === 0 ? STEP_GAP_0 : STEP_GAP_1;
      this.#stepGap = this.#stepGap === 2 ? 0 : this.#stepGap + 1;
      n++;
    }
  }

  playerJoined(slot: number, playerId: number): void {
    this.present[slot] = 1;
    this.playerId[slot] = playerId;
    this.focusIndex[slot] = -1;
    this.focusX[slot] = 0;
    this.focusY[slot] = 0;
    this.respawnStep[slot] = this.steps + JOIN_SPAWN_STEPS;
    this.cooldown[slot] = 0;
    this.hp[slot] = 0;
    this.kills[slot] = 0;
    this.deaths[slot] = 0;
  }

  /** Forget the ship; the server removes it and the player's projectiles right after this. */
  playerLeft(slot: number, _playerId: number): void {
    if (this.focusIndex[slot] >= 0) {
      this.#ships--;
      this.#others++;
    }
    this.present[slot] = 0;
    this.focusIndex[slot] = -1;
    this.respawnStep[slot] = -1;
    this.hp[slot] = 0;
  }

  /**
   * Entity `i` was put where it is by hand (tests, tools): its swept path this step starts
   * there, as if it had been there since the last step.
   */
  moved(i: number): void {
    for (let s = 0; s < this.maxPlayers; s++) {
      if (this.focusIndex[s] !== i) continue;
      this.prevX[s] = this.entities.x[i];
      this.prevY[s] = this.entities.y[i];
    }
    for (let b = 0; b < this.bodies; b++) {
      if (this.bodyIndex[b] !== i) continue;
      this.#bodyPrevX[b] = this.entities.x[i];
      this.#bodyPrevY[b] = this.entities.y[i];
    }
  }

  // ---------------------------------------------------------------- step

  /** One fixed step of 1/30 s. */
  step(): void {
    const e = this.entities;
    const sb = this.#shipsBinding;
    const n = this.maxPlayers;
    const focus = this.focusIndex;
    this.steps++;
    this.counters[GameCounter.Steps]++;
    this.#dither = Math.imul(this.steps, -1640531527) & 0x7fffffff;
    if (sb !== null) {
      sb.words[sb.scalars + ShipWord.Steps] = this.steps;
      sb.words[sb.scalars + ShipWord.Dither] = this.#dither;
    }
    // Someone else removed entities (the server, a player's projectiles when they left).
    if (e.count !== this.bodies + this.#ships + this.#shotCount + this.#others) this.#recount();
    this.#moveBodies();
    const renew = 1 + (this.steps & (PLANET_MARK_STEPS - 1));
    if (renew < this.bodies) this.#markPlanet(renew, false);
    for (let s = 0; s < n; s++) {
      if (this.present[s] === 0) continue;
      if (this.cooldown[s] > 0) this.cooldown[s]--;
      if (focus[s] < 0 && this.respawnStep[s] >= 0 && this.steps >= this.respawnStep[s]) this.#spawn(s);
    }
    this.#doomedCount = 0;
    this.#grid.clear();
    this.#moveShips();
    this.#markShips();
    this.#rammed = false;
    this.#collideShips();
    if (this.#rammed) {
      this.#grid.clear();
      this.#markShips();
    }
    this.#moveShots();
    this.#reap();
    // Positions, velocities, headings and health changed in place: the server re-encodes.
    e.version = (e.version + 1) & 0x3fffffff;
  }

  /** Rebuild the projectile list and the counts from the table. */
  #recount(): void {
    const e = this.entities;
    let shots = 0;
    for (let i = 0; i < e.capacity; i++)
      if (e.alive[i] !== 0 && e.type[i] >= SHOT_BASE && e.type[i] < SHOT_BASE + SHOT_TYPES) this.#shotList[shots++] = i;
    this.#shotCount = shots;
    let ships = 0;
    for (let s = 0; s < this.maxPlayers; s++) if (this.focusIndex[s] >= 0) ships++;
    this.#ships = ships;
    this.#others = e.count - this.bodies - ships - shots;
  }

  /**
   * Planets: the angle straight from the step count (phase + steps · ω, modulo a turn, in
   * integers), so orbits never drift; sine and cosine interpolated between table entries.
   */
  #moveBodies(): void {
    const e = this.entities;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const sine = this.sine;
    const bodyIndex = this.bodyIndex;
    const phase = this.orbitPhase;
    const omega = this.orbitOmega;
    const radius = this.#orbitR32;
    const speed = this.#orbitSpeed;
    const prevX = this.#bodyPrevX;
    const prevY = this.#bodyPrevY;
    const steps = this.steps;
    const imul = Math.imul;
    for (let b = 1; b < this.bodies; b++) {
      const i = bodyIndex[b];
      prevX[b] = ex[i];
      prevY[b] = ey[i];
      const angle = (phase[b] + (imul(steps, omega[b]) & ORBIT_TURN_MASK)) & ORBIT_TURN_MASK;
      // Table step (4 headings) and a 10-bit fraction of it.
      const q = (angle >> (ORBIT_FRACTION + 2)) & 255;
      const f = (angle >> (ORBIT_FRACTION - 8)) & 1023;
      const lo0 = sine[q];
      const hi0 = sine[256 - q];
      const lo = lo0 + (((sine[q + 1] - lo0) * f) >> 10);
      const hi = hi0 + (((sine[255 - q] - hi0) * f) >> 10);
      // (c, s) = (cos, sin) of the angle; `0 - v`, not `-v`: on XS −0 is a double.
      let c: number;
      let s: number;
      switch (angle >> (ORBIT_FRACTION + 10)) {
        case 0: c = hi; s = lo; break;
        case 1: c = 0 - lo; s = hi; break;
        case 2: c = 0 - hi; s = 0 - lo; break;
        default: c = lo; s = 0 - hi;
      }
      const r = radius[b];
      const v = speed[b];
      ex[i] = (r * c) >> 9;
      ey[i] = (r * s) >> 9;
      evx[i] = 0 - ((v * s) >> 14);
      evy[i] = (v * c) >> 14;
    }
  }

  #spawn(slot: number): void {
    const e = this.entities;
    const rng = this.#rng;
    const sine = this.sine;
    const st = this.players.ship[slot] < SHIP_TYPES ? this.players.ship[slot] : 0;
    const wt = this.players.weapon[slot] < SHOT_TYPES ? this.players.weapon[slot] : 0;
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
      const clear = this.clearance(x, y);
      if (clear > best) {
        best = clear;
        bx = x;
        by = y;
        ba = a;
        br = r;
      }
      if (clear >= 0) break;
    }
    if (best < 0) this.counters[GameCounter.CrowdedSpawns]++;
    const i = e.add(SHIP_BASE + st, this.playerId[slot], bx, by);
    // shotCapacity keeps a slot for every player's ship; -1 here means our own bookkeeping broke.
    if (i < 0) throw new EntityError("no entity slot left for a ship");
    // A circular orbit around the sun, counter-clockwise, nose along the velocity. A spawn
    // is rare: the square root of G·M/r may be a double.
    let v = Math.round((Math.sqrt(SUN_GM / br) * POS_ONE) / STEP_HZ);
    if (v > SHIP_MAX_SPEED[st]) v = SHIP_MAX_SPEED[st];
    e.vx[i] = 0 - ((sinQ(sine, ba) * v) >> 14);
    e.vy[i] = (cosQ(sine, ba) * v) >> 14;
    e.rot[i] = (ba + (ANGLE_TURN >> 2)) & ANGLE_MASK;
    this.prevX[slot] = bx;
    this.prevY[slot] = by;
    this.steady[i] = 0;
    this.radius[i] = TEMPLATE_RADIUS[SHIP_BASE + st];
    this.hp[slot] = SHIP_HP[st];
    this.killer[slot] = NO_PLAYER;
    this.shipType[slot] = st;
    this.weaponType[slot] = wt;
    this.focusIndex[slot] = i;
    this.focusX[slot] = bx;
    this.focusY[slot] = by;
    this.respawnStep[slot] = -1;
    this.cooldown[slot] = 0;
    this.#ships++;
    this.counters[GameCounter.Spawns]++;
  }

  /**
   * How far (wu) (x, y) is from being a fair spawn point: the worst shortfall, negative, or
   * WIDE_OPEN when nothing is in the way. Squared distances first; a square root (integer,
   * #unit) only for what is too close.
   */
  clearance(x: number, y: number): number {
    const e = this.entities;
    let worst = WIDE_OPEN;
    for (let i = 0; i < e.capacity; i++) {
      if (e.alive[i] === 0) continue;
      const kind = TEMPLATE_KIND[e.type[i]];
      const want =
        kind === Kind.Ship || kind === Kind.Planet ? this.radius[i] + SPAWN_CLEARANCE
        : kind === Kind.Shot ? SPAWN_SHOT_CLEARANCE
        : this.radius[i] + SPAWN_SUN_CLEARANCE;
      const dx = (e.x[i] - x) >> POS_SHIFT;
      const dy = (e.y[i] - y) >> POS_SHIFT;
      if (dx * dx + dy * dy >= want * want) continue;
      this.#unit(dx, dy);
      const c = this.#len - want;
      if (c < worst) worst = c;
    }
    return worst;
  }

  /**
   * Every ship: drift by its velocity, turn and thrust by the input, gravity of the sun and
   * the planets at the new position, the speed limit, the arena's edge, planets and the
   * sun; then fire. One loop with the arrays in locals; what is rare (a clamp far over the
   * limit, the edge, a planet, firing) calls helpers. The arithmetic is integer.
   */
  #moveShips(): void {
    const b = this.#shipsBinding;
    const focus = this.focusIndex;
    for (let slot = 0; slot < this.maxPlayers; slot++) {
      if (focus[slot] < 0) continue;
      if (b !== null) {
        // The C moves the ship unless it meets the arena's edge or goes far over its speed
        // limit; then the JavaScript below does the whole ship.
        const r = this.#kernels!.ship(b.layout, b.m0, b.m1, b.m2, b.m3, slot);
        if (r !== ShipStop.Redo) {
          const w = b.words;
          const at = b.scalars;
          if (r === ShipStop.Effects)
            this.#shipEffects(slot, focus[slot], this.players.input[slot], w[at + ShipWord.Touching], w[at + ShipWord.Cos], w[at + ShipWord.Sin]);
          continue;
        }
      }
      this.#moveShip(slot);
    }
  }

  /**
   * One ship: drift by its velocity, turn and thrust by the input, gravity of the sun and
   * the planets at the new position, the speed limit, the arena's edge; then what it
   * touches and its fire (#shipEffects). The arrays in locals; what is rare (a clamp far
   * over the limit, the edge, a planet, firing) calls helpers. The arithmetic is integer.
   */
  #moveShip(slot: number): void {
    const e = this.entities;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const erot = e.rot;
    const focus = this.focusIndex;
    const inputs = this.players.input;
    const prevX = this.prevX;
    const prevY = this.prevY;
    const sine = this.sine;
    const table = this.#gravity;
    const contact = this.#contact;
    const bodyIndex = this.bodyIndex;
    const pull = this.#bodyPull;
    const planets = this.#planetBits;
    const mask = this.#grid.mask;
    const dither = this.#dither;
    const steps = this.steps;
    const bodies = this.bodies;
    const clz = Math.clz32;
    const last = GRID_SIDE - 1;
    let i: number, st: number, input: number, x: number, y: number, vx: number, vy: number, rot: number, q: number;
    let c: number, s: number, touching: number, xs: number, ys: number, u: number, row: number, oct: number;
    let w: number, t: number, sh: number, d: number, cx: number, cy: number, near: number, p: number, m: number, b: number;
    i = focus[slot];
    if (i < 0) return;
    st = e.type[i] - SHIP_BASE;
    input = inputs[slot];
    x = ex[i];
    y = ey[i];
    vx = evx[i];
    vy = evy[i];
    prevX[slot] = x;
    prevY[slot] = y;
    x += vx;
    y += vy;

    // Ship headings keep to the sine table's steps (4 headings, 1/1024 turn): spawns and
    // turn rates are multiples of it, and a heading set from outside is rounded down to one.
    rot = erot[i];
    if ((input & INPUT_LEFT) !== 0) rot += SHIP_TURN[st];
    if ((input & INPUT_RIGHT) !== 0) rot -= SHIP_TURN[st];
    rot &= SHIP_HEADINGS;
    q = (rot >> 2) & 255;
    // (c, s) = (cos, sin) of the heading; `0 - v`, not `-v`: on XS −0 is a double.
    switch (rot >> 10) {
      case 0: c = sine[256 - q]; s = sine[q]; break;
      case 1: c = 0 - sine[q]; s = sine[256 - q]; break;
      case 2: c = 0 - sine[256 - q]; s = 0 - sine[q]; break;
      default: c = sine[q]; s = 0 - sine[256 - q];
    }
    if ((input & (INPUT_FORWARD | INPUT_BACKWARD)) !== 0) {
      t = 0;
      if ((input & INPUT_FORWARD) !== 0) t += SHIP_THRUST[st];
      if ((input & INPUT_BACKWARD) !== 0) t -= SHIP_THRUST[st] >> 1;
      vx += (c * t + 8192) >> 14;
      vy += (s * t + 8192) >> 14;
    }

    // Gravity (see the gravity table), and which bodies the ship touches: the sun, at the
    // origin, as for projectiles; then planets, whose G·M is the sun's × pull / 2^(10 + shift).
    xs = x >> 7;
    ys = y >> 7;
    u = xs * xs + ys * ys;
    row = st * bodies;
    touching = u < contact[row] ? 1 : 0;
    oct = 31 - clz(u | U_FLOOR);
    w = table[(oct << 5) + (u >> (oct - 5)) - 512];
    t = (w & T_MASK) - ((((w >> D_SHIFT) & 1023) * ((u >> (oct - 13)) & 255)) >> 8);
    sh = w >> S_SHIFT;
    d = dither >> (31 - sh);
    vx += (d - xs * t) >> sh;
    vy += (d - ys * t) >> sh;
    // Planets in the ship's grid cell pull every step, and may touch it; the others every
    // 4th step, 4 times as hard: planet b when b + steps + slot is a multiple of 4, so bit
    // b − 1 ≡ 3 − (steps + slot).
    cx = (x + GRID_HALF) >> GRID_SHIFT;
    cy = (y + GRID_HALF) >> GRID_SHIFT;
    cx = cx < 0 ? 0 : cx > last ? last : cx;
    cy = cy < 0 ? 0 : cy > last ? last : cy;
    near = (mask[cy * GRID_SIDE + cx] >> PLANET_BIT) & planets;
    for (let left = near | ((0x1111 << (3 - ((steps + slot) & 3))) & planets); left !== 0; left &= left - 1) {
      b = 32 - clz(left & (0 - left));
      m = (near >> (b - 1)) & 1 ? 0 : FAR_PULL;
      p = bodyIndex[b];
      xs = (ex[p] - x) >> 7;
      ys = (ey[p] - y) >> 7;
      u = xs * xs + ys * ys;
      if (u < contact[row + b]) touching |= 1 << b;
      oct = 31 - clz(u | U_FLOOR);
      w = table[(oct << 5) + (u >> (oct - 5)) - 512];
      t = (w & T_MASK) - ((((w >> D_SHIFT) & 1023) * ((u >> (oct - 13)) & 255)) >> 8);
      sh = (w >> S_SHIFT) - m;
      m = pull[b];
      sh += m >> 16;
      m &= 0xffff;
      if (sh <= 30) {
        xs = ((xs * t) >> 10) * m;
        ys = ((ys * t) >> 10) * m;
      } else {
        // A far planet: drop 6 more bits first, so the shift stays within 31.
        xs = ((xs * t) >> 16) * m;
        ys = ((ys * t) >> 16) * m;
        sh -= 6;
      }
      d = dither >> (31 - sh);
      vx += (xs + d) >> sh;
      vy += (ys + d) >> sh;
    }

    // The speed limit: scale by max/|v|. Just over it (the usual case: thrust at top
    // speed), two Newton steps for 1/√q from 1, q = (|v|/max)² rounded up, which never
    // overshoot; far over it, #clamp.
    m = SHIP_MAX_SPEED[st];
    m *= m;
    u = vx * vx + vy * vy;
    if (u > m) {
      if (u <= m + (m >> 2)) {
        q = ((((u >> 14) + 1) * CLAMP_SCALE[st]) >> 14) + 1;
        t = (3 * ONE - q) >> 1;
        t = (t * (3 * ONE - ((q * ((t * t) >> 14)) >> 14))) >> 15;
        vx = vx < 0 ? 0 - (((0 - vx) * t) >> 14) : (vx * t) >> 14;
        vy = vy < 0 ? 0 - (((0 - vy) * t) >> 14) : (vy * t) >> 14;
      } else {
        this.#clamp(vx, vy, SHIP_MAX_SPEED[st]);
        vx = this.#cx;
        vy = this.#cy;
      }
    }

    // The arena's edge: back onto it, the outward velocity reflected at half its size.
    // Within 1 wu of it (at 1/8 wu, in integers), the exact test: x² + y² is whole but
    // beyond 2^31, so a double, which is rare.
    xs = x >> 7;
    ys = y >> 7;
    m = (ARENA_RADIUS - this.radius[i]) << 3;
    if (xs * xs + ys * ys > (m - 8) * (m - 8) && x * x + y * y > (m << 7) * (m << 7)) {
      this.#edge(x, y, vx, vy, m << 2);
      x = this.#cx;
      y = this.#cy;
      vx = this.#ux;
      vy = this.#uy;
    }
    ex[i] = x;
    ey[i] = y;
    evx[i] = vx;
    evy[i] = vy;
    erot[i] = rot;
    this.#shipEffects(slot, i, input, touching, c, s);
  }

  /** What ship i of `slot` touches (bit 0 the sun, bit b planet b), then its fire. */
  #shipEffects(slot: number, i: number, input: number, touching: number, c: number, s: number): void {
    const hp = this.hp;
    if (touching !== 0) {
      // The sun sits at the origin and kills; planets bounce.
      if ((touching & 1) !== 0) this.#damage(slot, hp[slot], NO_PLAYER, TemplateId.Sun);
      for (let b = 1; b < this.bodies && hp[slot] > 0; b++) if ((touching & (1 << b)) !== 0) this.#shipPlanet(i, slot, b);
    }
    if (hp[slot] > 0 && (input & INPUT_SHOOTING) !== 0 && this.cooldown[slot] === 0) this.#fire(i, slot, c, s);
  }

  /**
   * A ship at (x, y), moving (vx, vy), went past the arena's edge (`limit`, in 1/32 wu from
   * the sun): back onto it into #cx, #cy, and its outward velocity reflected at half its
   * size into #ux, #uy.
   */
  #edge(x: number, y: number, vx: number, vy: number, limit: number): void {
    this.#unit(x, y);
    const ux = this.#ux;
    const uy = this.#uy;
    this.#cx = (ux * limit) >> 9;
    this.#cy = (uy * limit) >> 9;
    const vr = (vx * ux + vy * uy) >> 14;
    if (vr > 0) {
      const back = (vr * EDGE_BOUNCE) >> 14;
      vx -= (back * ux) >> 14;
      vy -= (back * uy) >> 14;
    }
    this.#ux = vx;
    this.#uy = vy;
  }

  #fire(ship: number, slot: number, c: number, s: number): void {
    const e = this.entities;
    const w = this.weaponType[slot];
    this.cooldown[slot] = WEAPON_COOLDOWN[w];
    if (this.#shotCount >= this.shotCapacity) {
      this.counters[GameCounter.ShotsDropped]++;
      return;
    }
    const off = (this.radius[ship] + TEMPLATE_RADIUS[SHOT_BASE + w] + 1) << POS_SHIFT;
    const j = e.add(SHOT_BASE + w, e.owner[ship], e.x[ship] + ((c * off) >> 14), e.y[ship] + ((s * off) >> 14));
    if (j < 0) {
      this.counters[GameCounter.ShotsDropped]++;
      return;
    }
    let vx = e.vx[ship] + ((c * WEAPON_VELOCITY[w] + 8192) >> 14);
    let vy = e.vy[ship] + ((s * WEAPON_VELOCITY[w] + 8192) >> 14);
    const hx = vx >> 1;
    const hy = vy >> 1;
    if (hx * hx + hy * hy > SHOT_HALF2) {
      this.#clamp(vx, vy, SHOT_MAX_VELOCITY);
      vx = this.#cx;
      vy = this.#cy;
    }
    e.vx[j] = vx;
    e.vy[j] = vy;
    e.rot[j] = e.rot[ship];
    this.steady[j] = 1;
    this.radius[j] = TEMPLATE_RADIUS[SHOT_BASE + w];
    // The firing step is the first of its life.
    this.expires[j] = this.steps + WEAPON_LIFE[w] - 1;
    this.#shotList[this.#shotCount++] = j;
    this.counters[GameCounter.ShotsFired]++;
  }

  /**
   * Every projectile: its lifetime, its drift, then what the grid cell it ended in holds
   * (#collide: the sun and the arena's edge, planets, ships), then every other step the
   * sun's pull (#pull), the only place its velocity changes. This is the bulk of a step;
   * a platform with native loops runs it in C (#moveShotsNative).
   *
   * Swept tests (planets, ships) work at 1/2 wu, relative to the other body: d0 and d1 are
   * the projectile's offsets at the start and end of the step, f = d1 − d0. The closest
   * approach is at t = −(d0·f)/|f|², clamped to [0, 1]; inside the step its squared
   * distance is (d0 × f)²/|f|², so `(d0 × f)² < R²·|f|²` tests it without dividing. At
   * 1/2 wu every term stays below 2^31 for a projectile within reach.
   */
  #moveShots(): void {
    if (this.#shots !== null) {
      this.#moveShotsNative(this.#shots);
      return;
    }
    const e = this.entities;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const list = this.#shotList;
    const doomed = this.#doomed;
    const expires = this.expires;
    const mask = this.#grid.mask;
    const steps = this.steps;
    const parity = steps & 1;
    let n = this.#shotCount;
    let dc = this.#doomedCount;
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
      // What the cell the projectile ended in holds (see #collide).
      near = mask[((y + GRID_HALF) >> GRID_SHIFT) * GRID_SIDE + ((x + GRID_HALF) >> GRID_SHIFT)];
      if (near !== 0 && this.#collide(i, near)) {
        doomed[dc++] = i;
        list[k--] = list[--n];
        continue;
      }
      // Every other step (by index parity), twice the sun's pull at the new position.
      if ((i & 1) === parity) this.#pull(i);
    }
    this.#shotCount = n;
    this.#doomedCount = dc;
  }

  /**
   * #moveShots in C (hosts/moddable/kernels.c, xs_lwar_shots), #collide's tests included.
   * The C stops where a projectile hits a ship (the damage, the kill and its log are the
   * game's business: #shotHit) or where its pull leaves the gravity table's plain range (a
   * speed that may need the cap: #pull); this does that one projectile's rest with the
   * methods the loop above calls, and the C goes on after it.
   */
  #moveShotsNative(b: Binding): void {
    const k0 = this.#kernels!;
    const w = b.words;
    const at = b.scalars;
    const list = this.#shotList;
    const doomed = this.#doomed;
    w[at + ShotWord.Steps] = this.steps;
    w[at + ShotWord.Dither] = this.#dither;
    let n = this.#shotCount;
    let dc = this.#doomedCount;
    let k = 0;
    for (;;) {
      k = k0.shots(b.layout, b.m0, b.m1, b.m2, b.m3, k, n, dc);
      n = w[at + ShotWord.Listed];
      dc = w[at + ShotWord.Doomed];
      const why = w[at + ShotWord.Why];
      if (why === ShotStop.Done) break;
      const i = list[k];
      if (why === ShotStop.Hit) {
        this.#shotHit(i, w[at + ShotWord.Slot]);
        doomed[dc++] = i;
        list[k] = list[--n];
      } else {
        this.#pull(i);
        k++;
      }
    }
    this.#shotCount = n;
    this.#doomedCount = dc;
  }

  /**
   * Projectile i has moved to where it is, and `near` is what its grid cell holds: the sun
   * or the arena's edge, planets and ships (in that order: a projectile that hits one is
   * gone before the next). Whether it is gone.
   */
  #collide(i: number, near: number): boolean {
    const e = this.entities;
    const ex = e.x;
    const ey = e.y;
    const x = ex[i];
    const y = ey[i];
    const vx = e.vx[i];
    const vy = e.vy[i];
    const steps = this.steps;
    const clz = Math.clz32;
    let b: number, o: number, dx: number, dy: number, m: number;
    if ((near & ZONES) !== 0) {
      const xs = x >> 7;
      const ys = y >> 7;
      const u = xs * xs + ys * ys;
      const t = (SUN_RADIUS + this.radius[i]) << 3;
      if (u > ARENA_R2 || u < t * t) return true;
    }
    for (m = (near >> PLANET_BIT) & this.#planetBits; m !== 0; m &= m - 1) {
      b = 32 - clz(m & (0 - m));
      o = this.bodyIndex[b];
      dx = x - ex[o];
      dy = y - ey[o];
      if (dx >= PLANET_NEAR || dx <= -PLANET_NEAR || dy >= PLANET_NEAR || dy <= -PLANET_NEAR) continue;
      if (this.#hitsPlanet(i, b, x - vx, y - vy, dx, dy)) return true;
    }
    for (m = (near >> SHIP_BIT) & 0xff; m !== 0; m &= m - 1) {
      b = 31 - clz(m & (0 - m));
      o = this.focusIndex[b];
      if (o < 0 || this.hp[b] <= 0) continue;
      dx = x - ex[o];
      dy = y - ey[o];
      if (dx > REACH || dx < -REACH || dy > REACH || dy < -REACH) continue;
      // A fresh projectile cannot hit the ship that fired it.
      if (e.owner[i] === this.playerId[b] && steps - this.expires[i] + WEAPON_LIFE[e.type[i] - SHOT_BASE] < SHOT_ARM_STEPS) continue;
      if (this.#hitsShip(i, b, x - vx, y - vy, dx, dy)) return true;
    }
    return false;
  }

  /**
   * Twice the sun's pull on projectile i at its position (it gets it every other step); the
   * velocity changes only here, so it is only limited here (and when fired).
   */
  #pull(i: number): void {
    const e = this.entities;
    const xs = e.x[i] >> 7;
    const ys = e.y[i] >> 7;
    const u = xs * xs + ys * ys;
    const oct = 31 - Math.clz32(u | U_FLOOR);
    const w = this.#gravity[(oct << 5) + (u >> (oct - 5)) - 512];
    const t = (w & T_MASK) - ((((w >> D_SHIFT) & 1023) * ((u >> (oct - 13)) & 255)) >> 8);
    const sh = (w >> S_SHIFT) - 1;
    const d = this.#dither >> (31 - sh);
    let vx = e.vx[i] + ((d - xs * t) >> sh);
    let vy = e.vy[i] + ((d - ys * t) >> sh);
    // Above 2^31 (1357 wu/s) the sum is a double: rare, and then the exact test.
    if (vx * vx + vy * vy > 0x7fffffff && (vx >> 1) * (vx >> 1) + (vy >> 1) * (vy >> 1) > SHOT_HALF2) {
      this.#clamp(vx, vy, SHOT_MAX_VELOCITY);
      vx = this.#cx;
      vy = this.#cy;
    }
    e.vx[i] = vx;
    e.vy[i] = vy;
  }

  /**
   * Projectile i, which moved from (x0, y0) and ended (dx, dy) from planet (body) b, swept
   * against the planet's own step (see sweep()): whether it hit.
   */
  #hitsPlanet(i: number, b: number, x0: number, y0: number, dx: number, dy: number): boolean {
    const r = (this.radius[this.bodyIndex[b]] + this.radius[i]) << 1;
    return sweep((x0 - this.#bodyPrevX[b]) >> 9, (y0 - this.#bodyPrevY[b]) >> 9, dx >> 9, dy >> 9, r);
  }

  /**
   * Projectile i, which moved from (x0, y0) and ended (dx, dy) from the ship of slot s,
   * swept against the ship's step: on a hit the ship takes the weapon's damage.
   */
  #hitsShip(i: number, s: number, x0: number, y0: number, dx: number, dy: number): boolean {
    const r = (this.radius[this.focusIndex[s]] + this.radius[i]) << 1;
    if (!sweep((x0 - this.prevX[s]) >> 9, (y0 - this.prevY[s]) >> 9, dx >> 9, dy >> 9, r)) return false;
    this.#shotHit(i, s);
    return true;
  }

  /** Projectile i hit the ship of slot s: the ship takes the weapon's damage. */
  #shotHit(i: number, s: number): void {
    const e = this.entities;
    this.counters[GameCounter.ShotHits]++;
    this.#damage(s, WEAPON_DAMAGE[e.type[i] - SHOT_BASE], e.owner[i], e.type[i]);
  }

  // ---------------------------------------------------------------- integer geometry

  /**
   * The unit vector of (dx, dy) into #ux, #uy (Q14; each component rounded towards zero, so
   * |u| ≤ 1) and its length into #len (in dx's units; ~14 significant bits). A zero vector
   * gives (1, 0) and 0. Integer only: the larger component is shifted to 14 bits, and
   * 1/√(a² + b²) comes from a seed table and two Newton steps, y ← y(3 − q·y²)/2.
   */
  #unit(dx: number, dy: number): void {
    const ax = dx < 0 ? 0 - dx : dx;
    const ay = dy < 0 ? 0 - dy : dy;
    const big = ax > ay ? ax : ay;
    if (big === 0) {
      this.#ux = ONE;
      this.#uy = 0;
      this.#len = 0;
      return;
    }
    const k = 18 - Math.clz32(big);
    const a = k > 0 ? ax >> k : ax << (0 - k);
    const b = k > 0 ? ay >> k : ay << (0 - k);
    const n2 = a * a + b * b;
    const hi = n2 >> 14;
    let y = this.#rsqrtSeed[n2 >> 23];
    y = (y * (3 * ONE - ((hi * ((y * y) >> 14)) >> 14))) >> 15;
    y = (y * (3 * ONE - ((hi * ((y * y) >> 14)) >> 14))) >> 15;
    let ux = (a * y) >> 14;
    let uy = (b * y) >> 14;
    // The truncations inside the Newton steps can leave y a hair long: trim to |u| ≤ 1.
    while (ux * ux + uy * uy > ONE * ONE) {
      if (ux > uy) ux--;
      else uy--;
    }
    this.#ux = dx < 0 ? 0 - ux : ux;
    this.#uy = dy < 0 ? 0 - uy : uy;
    const len = (a * ux + b * uy) >> 14;
    this.#len = k > 0 ? len << k : len >> (0 - k);
  }

  /** (vx, vy) scaled to length `max` into #cx, #cy, rounded towards zero: never longer than `max`. */
  #clamp(vx: number, vy: number, max: number): void {
    this.#unit(vx, vy);
    const ux = this.#ux;
    const uy = this.#uy;
    this.#cx = ux < 0 ? 0 - (((0 - ux) * max) >> 14) : (ux * max) >> 14;
    this.#cy = uy < 0 ? 0 - (((0 - uy) * max) >> 14) : (uy * max) >> 14;
  }

  // ---------------------------------------------------------------- collisions

  /** Apply `amount` damage to the ship of `slot`; the blow that ends it names the killer and `cause` (a template id). */
  #damage(slot: number, amount: number, source: number, cause: number): void {
    const hp = this.hp[slot];
    if (hp <= 0) return;
    const left = hp - amount;
    const i = this.focusIndex[slot];
    if (left <= 0) {
      this.hp[slot] = 0;
      this.killer[slot] = source;
      this.killedWith[slot] = cause;
      return;
    }
    this.hp[slot] = left;
    // ceil(left · 100 / max) without dividing: count up from an estimate below it.
    const type = this.shipType[slot];
    const max = SHIP_HP[type];
    const n = left * 100;
    let pct = (n * HP_RECIPROCAL[type]) >> 16;
    while (pct * max < n) pct++;
    this.entities.health[i] = pct;
  }

  /** A planet (body b) pushes the ship out, bounces it and damages it by the closing speed. */
  #shipPlanet(i: number, slot: number, b: number): void {
    const e = this.entities;
    const p = this.bodyIndex[b];
    const reach = this.radius[p] + this.radius[i];
    const dx = e.x[i] - e.x[p];
    const dy = e.y[i] - e.y[p];
    if (((dx >> 7) * (dx >> 7)) + ((dy >> 7) * (dy >> 7)) >= reach * reach * 64) return;
    this.#unit(dx, dy);
    const ux = this.#ux;
    const uy = this.#uy;
    // Onto the surface, a hair outside it (the unit vector is never longer than 1).
    const out = reach * 32 + 1;
    e.x[i] = e.x[p] + ((ux * out) >> 9);
    e.y[i] = e.y[p] + ((uy * out) >> 9);
    const vn = ((e.vx[i] - e.vx[p]) * ux + (e.vy[i] - e.vy[p]) * uy) >> 14;
    if (vn >= 0) return;
    const back = (vn * PLANET_BOUNCE) >> 14;
    e.vx[i] -= (back * ux) >> 14;
    e.vy[i] -= (back * uy) >> 14;
    this.counters[GameCounter.PlanetHits]++;
    if (vn <= -GENTLE) this.#damage(slot, PLANET_DAMAGE_BASE + (((0 - vn) * this.#planetDamage) >> 16), NO_PLAYER, e.type[p]);
  }

  /**
   * Planet (body) b's mark in the grid's slow layer: its cells within PLANET_MARK of where it
   * is, after taking the last one away (`fresh`: there is none yet).
   */
  #markPlanet(b: number, fresh: boolean): void {
    const g = this.#grid;
    const bit = 1 << (PLANET_BIT + b - 1);
    if (!fresh) g.markBase(bit, false, this.#markX[b], this.#markY[b], PLANET_MARK);
    const p = this.bodyIndex[b];
    this.#markX[b] = this.entities.x[p];
    this.#markY[b] = this.entities.y[p];
    g.markBase(bit, true, this.#markX[b], this.#markY[b], PLANET_MARK);
  }

  /** Every live ship marks the grid cells within REACH of it. */
  #markShips(): void {
    const e = this.entities;
    const g = this.#grid;
    for (let s = 0; s < this.maxPlayers; s++) {
      const i = this.focusIndex[s];
      if (i >= 0 && this.hp[s] > 0) g.mark(1 << (SHIP_BIT + s), e.x[i], e.y[i], REACH);
    }
  }

  /** Each ship against the ships of higher slots that reach into its cell. */
  #collideShips(): void {
    const e = this.entities;
    const focus = this.focusIndex;
    const mask = this.#grid.mask;
    const last = GRID_SIDE - 1;
    for (let s = 0; s < this.maxPlayers; s++) {
      const i = focus[s];
      if (i < 0 || this.hp[s] <= 0) continue;
      let cx = (e.x[i] + GRID_HALF) >> GRID_SHIFT;
      let cy = (e.y[i] + GRID_HALF) >> GRID_SHIFT;
      cx = cx < 0 ? 0 : cx > last ? last : cx;
      cy = cy < 0 ? 0 : cy > last ? last : cy;
      let m = ((mask[cy * GRID_SIDE + cx] >> SHIP_BIT) & 0xff) >> (s + 1);
      for (let t = s + 1; m !== 0 && this.hp[s] > 0; t++, m >>= 1) {
        if ((m & 1) === 0) continue;
        if (focus[t] >= 0 && this.hp[t] > 0) this.#shipShip(s, t);
      }
    }
  }

  /**
   * Ships of slots sa and sb: a swept test (integer, as for projectiles); on contact they
   * bounce apart by mass and both take damage by the closing speed. A ram is rare, so its
   * response is worked out in doubles and rounded back into the table.
   */
  #shipShip(sa: number, sb: number): void {
    const e = this.entities;
    const a = this.focusIndex[sa];
    const b = this.focusIndex[sb];
    const d0x = (this.prevX[sb] - this.prevX[sa]) >> 9;
    const d0y = (this.prevY[sb] - this.prevY[sa]) >> 9;
    const d1x = (e.x[b] - e.x[a]) >> 9;
    const d1y = (e.y[b] - e.y[a]) >> 9;
    if (!sweep(d0x, d0y, d1x, d1y, (this.radius[a] + this.radius[b]) << 1)) return;
    const fx = d1x - d0x;
    const fy = d1y - d0y;
    const dot = d0x * fx + d0y * fy;
    const l = fx * fx + fy * fy;
    const t = dot >= 0 ? 0 : dot <= -l ? 1 : -dot / l;
    // They touched: the normal at the closest approach.
    let nx = d0x + t * fx;
    let ny = d0y + t * fy;
    let d = Math.sqrt(nx * nx + ny * ny);
    if (d > 0) {
      nx /= d;
      ny /= d;
    } else {
      nx = 1;
      ny = 0;
    }
    const ia = 1 / SHIP_MASS[e.type[a] - SHIP_BASE];
    const ib = 1 / SHIP_MASS[e.type[b] - SHIP_BASE];
    const reach = (this.radius[a] + this.radius[b]) * POS_ONE;
    // Push apart along the normal if they still overlap.
    d = (e.x[b] - e.x[a]) * nx + (e.y[b] - e.y[a]) * ny;
    if (d < reach) {
      const push = (reach - d) / (ia + ib);
      e.x[a] = Math.round(e.x[a] - nx * push * ia);
      e.y[a] = Math.round(e.y[a] - ny * push * ia);
      e.x[b] = Math.round(e.x[b] + nx * push * ib);
      e.y[b] = Math.round(e.y[b] + ny * push * ib);
    }
    const vn = (e.vx[b] - e.vx[a]) * nx + (e.vy[b] - e.vy[a]) * ny;
    if (vn >= 0) return;
    const j = (-(1 + SHIP_RESTITUTION) * vn) / (ia + ib);
    e.vx[a] = Math.round(e.vx[a] - j * ia * nx);
    e.vy[a] = Math.round(e.vy[a] - j * ia * ny);
    e.vx[b] = Math.round(e.vx[b] + j * ib * nx);
    e.vy[b] = Math.round(e.vy[b] + j * ib * ny);
    this.counters[GameCounter.Rams]++;
    this.#rammed = true;
    if (vn > -GENTLE) return;
    const dmg = RAM_DAMAGE_BASE + ((Math.floor(-vn) * this.#ramDamage) >> 16);
    this.#damage(sa, dmg, e.owner[b], e.type[b]);
    this.#damage(sb, dmg, e.owner[a], e.type[a]);
  }

  // ---------------------------------------------------------------- deaths

  /** Remove spent projectiles and dead ships (scoring the killer); note where ships are. */
  #reap(): void {
    const e = this.entities;
    for (let k = 0; k < this.#doomedCount; k++) e.remove(this.#doomed[k]);
    for (let s = 0; s < this.maxPlayers; s++) {
      const i = this.focusIndex[s];
      if (i < 0) continue;
      if (this.hp[s] <= 0) {
        this.#die(s, i);
        continue;
      }
      this.focusX[s] = e.x[i];
      this.focusY[s] = e.y[i];
    }
    this.shots = this.#shotCount;
  }

  #die(slot: number, i: number): void {
    const e = this.entities;
    const owner = e.owner[i];
    const killer = this.killer[slot];
    e.health[i] = 0;
    e.remove(i);
    this.#ships--;
    let by = -1;
    if (killer === owner) {
      this.counters[GameCounter.Suicides]++;
      by = slot;
    } else if (killer === NO_PLAYER) this.counters[GameCounter.EnvironmentDeaths]++;
    else {
      const ks = killer & 0xffff;
      if (ks < this.maxPlayers && this.present[ks] !== 0 && this.playerId[ks] === killer) {
        this.kills[ks]++;
        if (this.players.scores[ks] < 0xffff) this.players.scores[ks]++;
        by = ks;
      }
      this.counters[GameCounter.Kills]++;
    }
    if (this.onDeath !== null) this.onDeath(slot, by, this.killedWith[slot]);
    this.deaths[slot]++;
    this.focusIndex[slot] = -1;
    this.respawnStep[slot] = this.steps + RESPAWN_STEPS;
  }

  /** [name, bytes] rows of the game's own arrays, for the memory budget. Allocates. */
  pools(): Array<[string, number]> {
    const rows: Array<[string, number]> = this.#rows.map(([name, bytes]): [string, number] => [name, bytes]);
    rows.push(["game broad-phase grid", this.#grid.poolBytes()]);
    return rows;
  }

  // ---------------------------------------------------------------- hash

  /** A 32-bit hash of the whole world: entities, players, scores, step count and PRNG state. */
  hash(): number {
    const e = this.entities;
    let h = mix(0x811c9dc5, this.steps);
    h = mix(h, this.#rng.state);
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
      h = mix(h, this.expires[i]);
    }
    for (let s = 0; s < this.maxPlayers; s++) {
      h = mix(h, this.present[s]);
      if (this.present[s] === 0) continue;
      h = mix(h, this.playerId[s]);
      h = mix(h, this.focusIndex[s]);
      h = mix(h, this.respawnStep[s]);
      h = mix(h, this.cooldown[s] | (this.shipType[s] << 16) | (this.weaponType[s] << 24));
      h = mix(h, this.hp[s]);
      h = mix(h, this.players.scores[s]);
    }
    return h >>> 0;
  }
}

/**
 * Whether a body moving relative to another, from offset (d0x, d0y) to (d1x, d1y) in a
 * straight line, came closer than r (all at the same integer scale): the closest approach
 * at t = −(d0·f)/|f|² with f = d1 − d0, clamped to [0, 1]; inside the step its squared
 * distance is (d0 × f)²/|f|², so `(d0 × f)² < r²·|f|²` decides without dividing.
 */
function sweep(d0x: number, d0y: number, d1x: number, d1y: number, r: number): boolean {
  // Cheap reject: both ends on one side, beyond r.
  if ((d0x > r && d1x > r) || (d0x < -r && d1x < -r) || (d0y > r && d1y > r) || (d0y < -r && d1y < -r)) return false;
  const fx = d1x - d0x;
  const fy = d1y - d0y;
  const a = d0x * fx + d0y * fy;
  if (a >= 0) return d0x * d0x + d0y * d0y < r * r;
  const l = fx * fx + fy * fy;
  if (a <= -l) return d1x * d1x + d1y * d1y < r * r;
  const c = d0x * fy - d0y * fx;
  return c * c < r * r * l;
}

function mix(h: number, v: number): number {
  h = Math.imul(h ^ (v | 0), 0x5bd1e995);
  return h ^ ((h >> 15) & 0x1ffff);
}
