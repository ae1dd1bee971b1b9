/**
 * The authoritative lwar match: a sun, planets on circular orbits, one ship per player
 * and projectiles, stepped at a fixed 30 Hz in the server's entity table.
 *
 * All state lives in typed arrays sized at construction (the entity table's fields plus
 * the per-entity and per-player arrays below); a step allocates nothing. Randomness
 * comes from one seeded xorshift, trigonometry from ./trig, so the same seed and the
 * same inputs give the same world, bit for bit, on any engine. `hash()` proves it.
 *
 * Step order: planets, spawns, ships (input, gravity, clamp, boundary, sun and planets,
 * fire), ships against ships, projectiles (lifetime, the sun's gravity, sun, planets and
 * ships), deaths and removals, health. Ships are walked by player slot, projectiles once
 * over the pool. On XS every typed-array access is a call, so the projectile loop keeps
 * its reads and writes few: the broad phase costs it one byte (see ReachGrid).
 */
import { Arena } from "../arena";
import { ConfigError, type Config } from "../config";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../protocol/codec";
import { HEADER_SIZE, MAX_PACKET, UPDATE_ENTRY } from "../protocol/constants";
import { Random } from "../random";
import type { GameHooks, Server } from "../server/server";
import { PriorityPlanner, type PlannerFocus } from "../server/updates";
import { EntityError, NO_PLAYER, type EntityTable } from "./entities";
import { ReachGrid } from "./grid";
import {
  ARENA_RADIUS, BOUNDARY_RESTITUTION, DT, JOIN_SPAWN_STEPS, Kind, MAX_PLANET_RADIUS, MAX_SHIP_RADIUS, MAX_SHIP_SPEED, MAX_SHOT_RADIUS,
  ORBIT_INNER, ORBIT_OUTER, ORBIT_SPEED_FACTOR, PLANET_BASE, PLANET_DAMAGE_BASE, PLANET_DAMAGE_FACTOR, PLANET_GM,
  PLANET_RESTITUTION, PLANET_TYPES, RAM_DAMAGE_BASE, RAM_DAMAGE_FACTOR, RESPAWN_STEPS, SHIP_BASE, SHIP_HP, SHIP_MASS,
  SHIP_MAX_SPEED, SHIP_RESTITUTION, SHIP_THRUST, SHIP_TURN, SHIP_TYPES, SHOT_ARM_STEPS, SHOT_BASE, SHOT_MAX_SPEED,
  SHOT_TYPES, SPAWN_ATTEMPTS, SPAWN_CLEARANCE, SPAWN_MAX, SPAWN_MIN, STEP_MS, SUN_GM, TEMPLATE_RADIUS, TemplateId,
  WEAPON_COOLDOWN, WEAPON_DAMAGE, WEAPON_LIFE, WEAPON_SPEED,
} from "./templates";
import { cos, HALF_PI, sin, TWO_PI, wrapAngle } from "./trig";

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
/** A collision below this closing speed (wu/s) bounces without damage. */
const GENTLE_SPEED = 30;
/** Projectiles keep this far from a spawn point. */
const SPAWN_SHOT_CLEARANCE = 120;
const GRID_CELL = 256;
/**
 * How far a projectile or ship can be from a ship at the end of a step and still have
 * touched it: both largest radii, one step of closing motion, and what a push out of a
 * planet or another ship adds. Ships mark the grid this far beyond their radius.
 */
const REACH = MAX_SHIP_RADIUS + MAX_SHOT_RADIUS + (SHOT_MAX_SPEED + MAX_SHIP_SPEED) * DT + 2 * MAX_SHIP_RADIUS;
const SUN_RADIUS = TEMPLATE_RADIUS[TemplateId.Sun];
/** Squared distance from the sun within which some projectile touches it. */
const SUN_REACH2 = (SUN_RADIUS + MAX_SHOT_RADIUS) * (SUN_RADIUS + MAX_SHOT_RADIUS);
/** Radial distance from an orbit within which a projectile may touch that orbit's planet this step. */
const PLANET_NEAR = MAX_PLANET_RADIUS + MAX_SHOT_RADIUS + SHOT_MAX_SPEED * DT;

/** The per-player arrays the game reads (input, selection) and writes (scores). The Server has them. */
export interface GamePlayers {
  readonly input: Uint8Array;
  readonly ship: Uint8Array;
  readonly weapon: Uint8Array;
  readonly scores: Uint16Array;
}

export class Game implements GameHooks, PlannerFocus {
  readonly config: Config;
  readonly entities: EntityTable;
  readonly players: GamePlayers;
  readonly seed: number;
  readonly counters: Uint32Array;
  readonly maxPlayers: number;
  /** Most projectiles alive at once: capacity less the sun, planets and one ship per player. */
  readonly shotCapacity: number;
  /** Told when a player joins, so it forgets what the slot's previous occupant was sent. */
  planner: PriorityPlanner | null = null;
  /** Steps simulated. */
  steps = 0;
  /** Projectiles alive after the last step. */
  shots = 0;

  // Players, by slot.
  readonly present: Uint8Array;
  readonly playerId: Uint32Array;
  /** Entity index of the slot's ship, -1 while dead or not yet spawned (PlannerFocus). */
  readonly focusIndex: Int32Array;
  /** The slot's ship position, kept while it is dead (PlannerFocus). */
  readonly focusX: Float32Array;
  readonly focusY: Float32Array;
  /** Step at which the slot spawns next, -1 while its ship is alive. */
  readonly respawnStep: Int32Array;
  /** Steps until the slot's weapon can fire again. */
  readonly cooldown: Uint16Array;
  /** Ship and weapon type of the current (or last) ship; Selection changes them at spawn. */
  readonly shipType: Uint8Array;
  readonly weaponType: Uint8Array;
  readonly kills: Uint32Array;
  readonly deaths: Uint32Array;

  // Per entity, by index (the entity table holds the rest).
  /** Kind (templates' Kind) and collision radius, set when the game adds the entity. */
  readonly kind: Uint8Array;
  readonly radius: Float32Array;
  /** 1 for projectiles: their paths extrapolate well, so Updates can be rarer (PlannerFocus). */
  readonly steady: Uint8Array;
  /** Ship hit points (the table's `health` is the percentage sent to clients). */
  readonly hp: Int16Array;
  /** Step in which a projectile expires, and the step it was fired in (for the arming delay). */
  readonly expires: Uint32Array;
  readonly fired: Uint32Array;
  /** Position before this step, for swept tests (ships and bodies; projectiles derive theirs). */
  readonly prevX: Float32Array;
  readonly prevY: Float32Array;
  /** Player id of whatever brought the ship to 0 hp this step; NO_PLAYER for the environment. */
  readonly killer: Uint32Array;
  /** Projectiles that hit something or expired this step, in that order; removed at the end of it. */
  readonly #doomedList: Uint16Array;
  #doomedCount = 0;
  /** Ships alive. */
  #ships = 0;

  // Sun (body 0) and planets (bodies 1..planets).
  readonly bodies: number;
  readonly bodyIndex: Int32Array;
  readonly bodyGm: Float64Array;
  readonly orbitRadius: Float64Array;
  readonly orbitOmega: Float64Array;
  readonly orbitPhase: Float64Array;

  readonly #rng: Random;
  readonly #grid: ReachGrid;
  /** Bit views of the Float32 fields, for hash() (made on its first call). */
  #bits: Uint32Array[] | null = null;
  /** Distance between neighbouring orbits (0 with fewer than two planets). */
  readonly #orbitSpacing: number;
  #nextStepAt = -1;
  /** Whether ships bounced off each other this step (the grid is marked again). */
  #rammed = false;
  // Scratch results of #gravity and #sweep.
  #gx = 0;
  #gy = 0;
  #hitX = 0;
  #hitY = 0;

  constructor(config: Config, entities: EntityTable, players: GamePlayers, seed: number) {
    if (config.shipTypes > SHIP_TYPES) throw new ConfigError(`config.shipTypes must be at most ${SHIP_TYPES} for this game`);
    if (config.weaponTypes > SHOT_TYPES) throw new ConfigError(`config.weaponTypes must be at most ${SHOT_TYPES} for this game`);
    const cap = entities.capacity;
    const n = config.maxPlayers;
    const fixed = 1 + config.planets;
    if (cap < fixed + n + 1)
      throw new ConfigError(`config.maxEntities must be at least ${fixed + n + 1} (sun, ${config.planets} planets, ${n} ships, a projectile)`);
    if (entities.count !== 0) throw new EntityError("the game needs an empty entity table");
    this.config = config;
    this.entities = entities;
    this.players = players;
    this.seed = seed >>> 0;
    this.maxPlayers = n;
    this.shotCapacity = cap - fixed - n;
    this.bodies = fixed;

    // Widest elements first (see Arena).
    const a = new Arena(
      8 * (4 * fixed) + 4 * (2 * n + 3 * cap + 5 * n + 3 * cap + fixed + GAME_COUNTER_COUNT) + 2 * (n + 2 * cap) + (3 * n + 2 * cap),
    );
    this.bodyGm = a.f64(fixed);
    this.orbitRadius = a.f64(fixed);
    this.orbitOmega = a.f64(fixed);
    this.orbitPhase = a.f64(fixed);
    this.focusX = a.f32(n);
    this.focusY = a.f32(n);
    this.radius = a.f32(cap);
    this.prevX = a.f32(cap);
    this.prevY = a.f32(cap);
    this.playerId = a.u32(n);
    this.focusIndex = a.i32(n).fill(-1);
    this.respawnStep = a.i32(n).fill(-1);
    this.kills = a.u32(n);
    this.deaths = a.u32(n);
    this.expires = a.u32(cap);
    this.fired = a.u32(cap);
    this.killer = a.u32(cap);
    this.bodyIndex = a.i32(fixed);
    this.counters = a.u32(GAME_COUNTER_COUNT);
    this.cooldown = a.u16(n);
    this.hp = a.i16(cap);
    this.#doomedList = a.u16(cap);
    this.present = a.u8(n);
    this.shipType = a.u8(n);
    this.weaponType = a.u8(n);
    this.kind = a.u8(cap);
    this.steady = a.u8(cap);
    a.done();

    this.#orbitSpacing = config.planets > 1 ? (ORBIT_OUTER - ORBIT_INNER) / (config.planets - 1) : 0;
    this.#rng = new Random(this.seed);
    this.#grid = new ReachGrid(ARENA_RADIUS, GRID_CELL);
    this.#createBodies();
  }

  #createBodies(): void {
    const e = this.entities;
    this.bodyIndex[0] = e.add(TemplateId.Sun, NO_PLAYER, 0, 0);
    this.bodyGm[0] = SUN_GM;
    const planets = this.bodies - 1;
    for (let k = 1; k <= planets; k++) {
      const t = this.#rng.below(PLANET_TYPES);
      const r = planets === 1 ? (ORBIT_INNER + ORBIT_OUTER) / 2 : ORBIT_INNER + (k - 1) * this.#orbitSpacing;
      this.orbitRadius[k] = r;
      this.orbitOmega[k] = ORBIT_SPEED_FACTOR * Math.sqrt(SUN_GM / (r * r * r));
      this.orbitPhase[k] = this.#rng.next() * TWO_PI;
      this.bodyGm[k] = PLANET_GM[t];
      this.bodyIndex[k] = e.add(PLANET_BASE + t, NO_PLAYER, 0, 0);
    }
    for (let b = 0; b < this.bodies; b++) {
      const i = this.bodyIndex[b];
      if (i < 0) throw new EntityError("no room for the sun and planets");
      this.kind[i] = b === 0 ? Kind.Sun : Kind.Planet;
      this.steady[i] = 1;
      this.radius[i] = TEMPLATE_RADIUS[e.type[i]];
      this.hp[i] = 0;
    }
    this.#moveBodies();
  }

  // ---------------------------------------------------------------- hooks

  /** GameHooks: run the fixed steps due by `now` (at most MAX_CATCH_UP, then skip ahead). */
  tick(now: number): void {
    if (this.#nextStepAt < 0) this.#nextStepAt = now + STEP_MS;
    let n = 0;
    while (now >= this.#nextStepAt) {
      if (n === MAX_CATCH_UP) {
        this.counters[GameCounter.StepsSkipped] += Math.floor((now - this.#nextStepAt) / STEP_MS) + 1;
        this.#nextStepAt = now + STEP_MS;
        break;
      }
      this.step();
      this.#nextStepAt += STEP_MS;
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
    this.kills[slot] = 0;
    this.deaths[slot] = 0;
    if (this.planner !== null) this.planner.resetSlot(slot);
  }

  /** The ship goes now; the server removes the player's projectiles right after this. */
  playerLeft(slot: number, _playerId: number): void {
    const i = this.focusIndex[slot];
    if (i >= 0) {
      this.entities.remove(i);
      this.#ships--;
    }
    this.present[slot] = 0;
    this.focusIndex[slot] = -1;
    this.respawnStep[slot] = -1;
  }

  // ---------------------------------------------------------------- step

  /** One fixed step of 1/30 s. */
  step(): void {
    const e = this.entities;
    const n = this.maxPlayers;
    this.steps++;
    this.counters[GameCounter.Steps]++;
    this.#moveBodies();
    for (let s = 0; s < n; s++) {
      if (this.present[s] === 0) continue;
      if (this.cooldown[s] > 0) this.cooldown[s]--;
      if (this.focusIndex[s] < 0 && this.respawnStep[s] >= 0 && this.steps >= this.respawnStep[s]) this.#spawn(s);
    }
    // Only the game adds entities: all that is not a body or a ship is a projectile.
    this.shots = e.count - this.bodies - this.#ships;
    this.#doomedCount = 0;
    for (let s = 0; s < n; s++) if (this.focusIndex[s] >= 0) this.#moveShip(this.focusIndex[s], s);
    this.#markShips();
    this.#rammed = false;
    for (let s = 0; s < n; s++) if (this.focusIndex[s] >= 0) this.#collideShips(s);
    if (this.#rammed) this.#markShips();
    this.#moveShots();
    this.#reap();
  }

  /** Sun and planets: positions straight from the step count, so orbits never drift. */
  #moveBodies(): void {
    const e = this.entities;
    const t = this.steps * DT;
    for (let b = 1; b < this.bodies; b++) {
      const i = this.bodyIndex[b];
      const r = this.orbitRadius[b];
      const w = this.orbitOmega[b];
      const a = wrapAngle(this.orbitPhase[b] + w * t);
      const c = cos(a);
      const s = sin(a);
      this.prevX[i] = e.x[i];
      this.prevY[i] = e.y[i];
      e.x[i] = r * c;
      e.y[i] = r * s;
      e.vx[i] = -w * r * s;
      e.vy[i] = w * r * c;
    }
  }

  /** Gravity of the sun and planets at (x, y) into #gx, #gy (wu/s²). */
  #gravity(x: number, y: number): void {
    const e = this.entities;
    let gx = 0;
    let gy = 0;
    for (let b = 0; b < this.bodies; b++) {
      const i = this.bodyIndex[b];
      const dx = e.x[i] - x;
      const dy = e.y[i] - y;
      const r2 = dx * dx + dy * dy;
      if (r2 < 1) continue;
      const f = this.bodyGm[b] / (r2 * Math.sqrt(r2));
      gx += dx * f;
      gy += dy * f;
    }
    this.#gx = gx;
    this.#gy = gy;
  }

  #spawn(slot: number): void {
    const e = this.entities;
    const rng = this.#rng;
    const st = this.players.ship[slot] < SHIP_TYPES ? this.players.ship[slot] : 0;
    const wt = this.players.weapon[slot] < SHOT_TYPES ? this.players.weapon[slot] : 0;
    let bx = 0;
    let by = 0;
    let ba = 0;
    let best = -Infinity;
    for (let k = 0; k < SPAWN_ATTEMPTS; k++) {
      const a = rng.next() * TWO_PI;
      const r = SPAWN_MIN + rng.next() * (SPAWN_MAX - SPAWN_MIN);
      const x = r * cos(a);
      const y = r * sin(a);
      const clear = this.#clearance(x, y);
      if (clear > best) {
        best = clear;
        bx = x;
        by = y;
        ba = a;
      }
      if (clear >= 0) break;
    }
    if (best < 0) this.counters[GameCounter.CrowdedSpawns]++;
    const i = e.add(SHIP_BASE + st, this.playerId[slot], bx, by);
    // shotCapacity keeps a slot for every player's ship; -1 here means our own bookkeeping broke.
    if (i < 0) throw new EntityError("no entity slot left for a ship");
    // A circular orbit around the sun, counter-clockwise, nose along the velocity.
    const r = Math.sqrt(bx * bx + by * by);
    let v = Math.sqrt(SUN_GM / r);
    if (v > SHIP_MAX_SPEED[st]) v = SHIP_MAX_SPEED[st];
    e.vx[i] = (-by / r) * v;
    e.vy[i] = (bx / r) * v;
    e.rot[i] = wrapAngle(ba + HALF_PI);
    this.prevX[i] = e.x[i];
    this.prevY[i] = e.y[i];
    this.kind[i] = Kind.Ship;
    this.steady[i] = 0;
    this.radius[i] = TEMPLATE_RADIUS[SHIP_BASE + st];
    this.hp[i] = SHIP_HP[st];
    this.killer[i] = NO_PLAYER;
    this.shipType[slot] = st;
    this.weaponType[slot] = wt;
    this.focusIndex[slot] = i;
    this.focusX[slot] = e.x[i];
    this.focusY[slot] = e.y[i];
    this.respawnStep[slot] = -1;
    this.cooldown[slot] = 0;
    this.#ships++;
    this.counters[GameCounter.Spawns]++;
  }

  /** How far (x, y) is from being a fair spawn point; >= 0 is clear. */
  #clearance(x: number, y: number): number {
    const e = this.entities;
    let clear = Infinity;
    for (let i = 0; i < e.capacity; i++) {
      if (e.alive[i] === 0) continue;
      const kind = this.kind[i];
      const dx = e.x[i] - x;
      const dy = e.y[i] - y;
      const d = Math.sqrt(dx * dx + dy * dy);
      let c: number;
      if (kind === Kind.Ship || kind === Kind.Planet) c = d - this.radius[i] - SPAWN_CLEARANCE;
      else if (kind === Kind.Shot) c = d - SPAWN_SHOT_CLEARANCE;
      else c = d - this.radius[i] - SPAWN_MIN / 2;
      if (c < clear) clear = c;
    }
    return clear;
  }

  #moveShip(i: number, slot: number): void {
    const e = this.entities;
    const st = e.type[i] - SHIP_BASE;
    const input = this.players.input[slot];
    let rot = e.rot[i];
    if ((input & INPUT_LEFT) !== 0) rot += SHIP_TURN[st] * DT;
    if ((input & INPUT_RIGHT) !== 0) rot -= SHIP_TURN[st] * DT;
    rot = wrapAngle(rot);
    const c = cos(rot);
    const s = sin(rot);
    let thrust = 0;
    if ((input & INPUT_FORWARD) !== 0) thrust += SHIP_THRUST[st];
    if ((input & INPUT_BACKWARD) !== 0) thrust -= SHIP_THRUST[st] / 2;
    let x = e.x[i];
    let y = e.y[i];
    this.#gravity(x, y);
    let vx = e.vx[i] + (c * thrust + this.#gx) * DT;
    let vy = e.vy[i] + (s * thrust + this.#gy) * DT;
    const max = SHIP_MAX_SPEED[st];
    const v2 = vx * vx + vy * vy;
    if (v2 > max * max) {
      const k = max / Math.sqrt(v2);
      vx *= k;
      vy *= k;
    }
    this.prevX[i] = x;
    this.prevY[i] = y;
    x += vx * DT;
    y += vy * DT;
    const radius = this.radius[i];
    const limit = ARENA_RADIUS - radius;
    const r2 = x * x + y * y;
    if (r2 > limit * limit) {
      const r = Math.sqrt(r2);
      const nx = x / r;
      const ny = y / r;
      x = nx * limit;
      y = ny * limit;
      const vr = vx * nx + vy * ny;
      if (vr > 0) {
        vx -= (1 + BOUNDARY_RESTITUTION) * vr * nx;
        vy -= (1 + BOUNDARY_RESTITUTION) * vr * ny;
      }
    }
    e.x[i] = x;
    e.y[i] = y;
    e.vx[i] = vx;
    e.vy[i] = vy;
    e.rot[i] = rot;
    // The sun sits at the origin and kills; planets bounce.
    const reach = SUN_RADIUS + radius;
    if (x * x + y * y < reach * reach) this.#damage(i, this.hp[i], NO_PLAYER);
    for (let b = 1; b < this.bodies && this.hp[i] > 0; b++) this.#shipPlanet(i, this.bodyIndex[b]);
    if (this.hp[i] <= 0) return;
    if ((input & INPUT_SHOOTING) !== 0 && this.cooldown[slot] === 0) this.#fire(i, slot, c, s);
  }

  #fire(ship: number, slot: number, c: number, s: number): void {
    const e = this.entities;
    const w = this.weaponType[slot];
    this.cooldown[slot] = WEAPON_COOLDOWN[w];
    if (this.shots >= this.shotCapacity) {
      this.counters[GameCounter.ShotsDropped]++;
      return;
    }
    const off = this.radius[ship] + TEMPLATE_RADIUS[SHOT_BASE + w] + 1;
    const j = e.add(SHOT_BASE + w, e.owner[ship], e.x[ship] + c * off, e.y[ship] + s * off);
    if (j < 0) {
      this.counters[GameCounter.ShotsDropped]++;
      return;
    }
    e.vx[j] = e.vx[ship] + c * WEAPON_SPEED[w];
    e.vy[j] = e.vy[ship] + s * WEAPON_SPEED[w];
    e.rot[j] = e.rot[ship];
    this.kind[j] = Kind.Shot;
    this.steady[j] = 1;
    this.radius[j] = TEMPLATE_RADIUS[SHOT_BASE + w];
    this.prevX[j] = e.x[j];
    this.prevY[j] = e.y[j];
    // The firing step is the first of its life.
    this.expires[j] = this.steps + WEAPON_LIFE[w] - 1;
    this.fired[j] = this.steps;
    this.hp[j] = 0;
    this.shots++;
    this.counters[GameCounter.ShotsFired]++;
  }

  /**
   * Every projectile: lifetime, the sun's gravity (planets pull ships only), motion, then
   * the arena, the sun, the planets and the ships. One loop with the arrays in locals:
   * this is the bulk of a step.
   */
  #moveShots(): void {
    const e = this.entities;
    const cap = e.capacity;
    const alive = e.alive;
    const kind = this.kind;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const expires = this.expires;
    const radius = this.radius;
    const mask = this.#grid.mask;
    const grid = this.#grid;
    const side = grid.side;
    const focus = this.focusIndex;
    const bodies = this.bodies;
    const bodyIndex = this.bodyIndex;
    const orbit = this.orbitRadius;
    const spacing = this.#orbitSpacing;
    const steps = this.steps;
    const max2 = SHOT_MAX_SPEED * SHOT_MAX_SPEED;
    const arena2 = ARENA_RADIUS * ARENA_RADIUS;
    // Locals: on XS a property or global lookup per projectile adds up.
    const SHOT = Kind.Shot;
    const sqrt = Math.sqrt;
    for (let i = 0; i < cap; i++) {
      if (alive[i] === 0 || kind[i] !== SHOT) continue;
      if (steps >= expires[i]) {
        this.#doom(i);
        continue;
      }
      const x0 = ex[i];
      const y0 = ey[i];
      const r2 = x0 * x0 + y0 * y0;
      const r = sqrt(r2);
      const f = r2 >= 1 ? (-SUN_GM * DT) / (r2 * r) : 0;
      let vx = evx[i] + x0 * f;
      let vy = evy[i] + y0 * f;
      const v2 = vx * vx + vy * vy;
      if (v2 > max2) {
        const k = SHOT_MAX_SPEED / sqrt(v2);
        vx *= k;
        vy *= k;
      }
      const x = x0 + vx * DT;
      const y = y0 + vy * DT;
      ex[i] = x;
      ey[i] = y;
      evx[i] = vx;
      evy[i] = vy;
      const end2 = x * x + y * y;
      if (end2 > arena2 || (end2 < SUN_REACH2 && end2 < (SUN_RADIUS + radius[i]) * (SUN_RADIUS + radius[i]))) {
        this.#doom(i);
        continue;
      }
      // A planet keeps to its orbit and a shot moves at most SHOT_STEP; orbits are further
      // apart than twice that reach, so only the nearest orbit can hold a planet to hit.
      if (bodies > 1) {
        // Nearest orbit; below the first one the truncation lands on 1 or less, then clamped.
        let b = spacing > 0 ? 1 + (((r - ORBIT_INNER) / spacing + 0.5) | 0) : 1;
        if (b < 1) b = 1;
        else if (b >= bodies) b = bodies - 1;
        const d = r - orbit[b];
        if (d < PLANET_NEAR && d > -PLANET_NEAR) {
          const p = bodyIndex[b];
          const dx = x - ex[p];
          const dy = y - ey[p];
          const close = dx < PLANET_NEAR && dx > -PLANET_NEAR && dy < PLANET_NEAR && dy > -PLANET_NEAR;
          if (close && this.#sweep(this.prevX[p], this.prevY[p], ex[p], ey[p], x0, y0, x, y, radius[p] + radius[i])) {
            this.#doom(i);
            continue;
          }
        }
      }
      // Ships whose reach covers the cell the shot ended in.
      let cx = ((x + ARENA_RADIUS) / GRID_CELL) | 0;
      let cy = ((y + ARENA_RADIUS) / GRID_CELL) | 0;
      if (cx >= side) cx = side - 1;
      if (cy >= side) cy = side - 1;
      let m = mask[cy * side + cx];
      for (let s = 0; m !== 0; s++, m >>= 1) {
        if ((m & 1) === 0) continue;
        const ship = focus[s];
        if (ship < 0) continue;
        // Beyond the reach at the end of the step: no hit this step.
        const dx = ex[ship] - x;
        const dy = ey[ship] - y;
        if (dx > REACH || dx < -REACH || dy > REACH || dy < -REACH) continue;
        if (this.#shipShot(ship, i, x0, y0, x, y)) break;
      }
    }
  }

  #doom(i: number): void {
    this.#doomedList[this.#doomedCount++] = i;
  }

  // ---------------------------------------------------------------- collisions

  /**
   * Whether a (from a0 to a1) and b (from b0 to b1) came within `r` of each other during
   * the step, both moving in straight lines. The relative position of b at closest
   * approach goes to #hitX, #hitY.
   */
  #sweep(
    ax0: number, ay0: number, ax1: number, ay1: number, bx0: number, by0: number, bx1: number, by1: number, r: number,
  ): boolean {
    const d0x = bx0 - ax0;
    const d0y = by0 - ay0;
    const ex = bx1 - ax1 - d0x;
    const ey = by1 - ay1 - d0y;
    // Cheap reject: both ends of the relative path on one side, beyond r.
    const d1x = d0x + ex;
    const d1y = d0y + ey;
    if ((d0x > r && d1x > r) || (d0x < -r && d1x < -r) || (d0y > r && d1y > r) || (d0y < -r && d1y < -r)) return false;
    const len2 = ex * ex + ey * ey;
    let t = len2 > 0 ? -(d0x * ex + d0y * ey) / len2 : 0;
    if (t < 0) t = 0;
    else if (t > 1) t = 1;
    const px = d0x + t * ex;
    const py = d0y + t * ey;
    this.#hitX = px;
    this.#hitY = py;
    return px * px + py * py < r * r;
  }

  /** Apply `amount` damage to a ship; the blow that ends it names the killer. */
  #damage(ship: number, amount: number, source: number): void {
    if (this.hp[ship] <= 0) return;
    const left = this.hp[ship] - amount;
    if (left <= 0) {
      this.hp[ship] = 0;
      this.killer[ship] = source;
    } else this.hp[ship] = left;
  }

  /** A planet pushes the ship out, bounces it and damages it by the closing speed. */
  #shipPlanet(i: number, p: number): void {
    const e = this.entities;
    const reach = this.radius[p] + this.radius[i];
    let nx = e.x[i] - e.x[p];
    let ny = e.y[i] - e.y[p];
    const d2 = nx * nx + ny * ny;
    if (d2 >= reach * reach) return;
    const d = Math.sqrt(d2);
    if (d > 0) {
      nx /= d;
      ny /= d;
    } else {
      nx = 1;
      ny = 0;
    }
    e.x[i] = e.x[p] + nx * reach;
    e.y[i] = e.y[p] + ny * reach;
    const vn = (e.vx[i] - e.vx[p]) * nx + (e.vy[i] - e.vy[p]) * ny;
    if (vn >= 0) return;
    e.vx[i] -= (1 + PLANET_RESTITUTION) * vn * nx;
    e.vy[i] -= (1 + PLANET_RESTITUTION) * vn * ny;
    this.counters[GameCounter.PlanetHits]++;
    if (-vn >= GENTLE_SPEED) this.#damage(i, PLANET_DAMAGE_BASE + Math.floor(-vn * PLANET_DAMAGE_FACTOR), NO_PLAYER);
  }

  /** Every live ship marks the grid cells within REACH of it. */
  #markShips(): void {
    const e = this.entities;
    const g = this.#grid;
    g.clear();
    for (let s = 0; s < this.maxPlayers; s++) {
      const i = this.focusIndex[s];
      if (i >= 0 && this.hp[i] > 0) g.mark(1 << s, e.x[i], e.y[i], REACH);
    }
  }

  /** The ship of slot `s` against the ships of higher slots that reach into its cell. */
  #collideShips(s: number): void {
    const e = this.entities;
    const i = this.focusIndex[s];
    if (this.hp[i] <= 0) return;
    let m = this.#grid.mask[this.#grid.cell(e.x[i], e.y[i])] >> (s + 1);
    for (let t = s + 1; m !== 0 && this.hp[i] > 0; t++, m >>= 1) {
      if ((m & 1) === 0) continue;
      const j = this.focusIndex[t];
      if (j >= 0 && this.hp[j] > 0) this.#shipShip(i, j);
    }
  }

  /** A projectile that moved from (x0, y0) to (x1, y1) against a ship; true when it hit. */
  #shipShot(ship: number, shot: number, x0: number, y0: number, x1: number, y1: number): boolean {
    const e = this.entities;
    if (this.hp[ship] <= 0) return false;
    if (e.owner[shot] === e.owner[ship] && this.steps - this.fired[shot] + 1 < SHOT_ARM_STEPS) return false;
    const reach = this.radius[ship] + this.radius[shot];
    if (!this.#sweep(this.prevX[ship], this.prevY[ship], e.x[ship], e.y[ship], x0, y0, x1, y1, reach)) return false;
    this.#doom(shot);
    this.counters[GameCounter.ShotHits]++;
    this.#damage(ship, WEAPON_DAMAGE[e.type[shot] - SHOT_BASE], e.owner[shot]);
    return true;
  }

  /** Both ships bounce apart (by mass) and both take damage by the closing speed. */
  #shipShip(a: number, b: number): void {
    const e = this.entities;
    const reach = this.radius[a] + this.radius[b];
    const px = this.prevX;
    const py = this.prevY;
    if (!this.#sweep(px[a], py[a], e.x[a], e.y[a], px[b], py[b], e.x[b], e.y[b], reach)) return;
    let nx = this.#hitX;
    let ny = this.#hitY;
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
    // Push apart along the normal if they still overlap.
    const dx = e.x[b] - e.x[a];
    const dy = e.y[b] - e.y[a];
    d = dx * nx + dy * ny;
    if (d < reach) {
      const push = (reach - d) / (ia + ib);
      e.x[a] -= nx * push * ia;
      e.y[a] -= ny * push * ia;
      e.x[b] += nx * push * ib;
      e.y[b] += ny * push * ib;
    }
    const vn = (e.vx[b] - e.vx[a]) * nx + (e.vy[b] - e.vy[a]) * ny;
    if (vn >= 0) return;
    const j = (-(1 + SHIP_RESTITUTION) * vn) / (ia + ib);
    e.vx[a] -= j * ia * nx;
    e.vy[a] -= j * ia * ny;
    e.vx[b] += j * ib * nx;
    e.vy[b] += j * ib * ny;
    this.counters[GameCounter.Rams]++;
    this.#rammed = true;
    if (-vn < GENTLE_SPEED) return;
    const dmg = RAM_DAMAGE_BASE + Math.floor(-vn * RAM_DAMAGE_FACTOR);
    this.#damage(a, dmg, e.owner[b]);
    this.#damage(b, dmg, e.owner[a]);
  }

  // ---------------------------------------------------------------- deaths

  /** Remove spent projectiles and dead ships (scoring the killer); refresh health. */
  #reap(): void {
    const e = this.entities;
    for (let k = 0; k < this.#doomedCount; k++) e.remove(this.#doomedList[k]);
    for (let s = 0; s < this.maxPlayers; s++) {
      const i = this.focusIndex[s];
      if (i < 0) continue;
      if (this.hp[i] <= 0) {
        this.#die(i);
        continue;
      }
      e.health[i] = Math.ceil((this.hp[i] * 100) / SHIP_HP[e.type[i] - SHIP_BASE]);
      this.focusX[s] = e.x[i];
      this.focusY[s] = e.y[i];
    }
    this.shots = e.count - this.bodies - this.#ships;
  }

  #die(i: number): void {
    const e = this.entities;
    const owner = e.owner[i];
    const killer = this.killer[i];
    const slot = owner & 0xffff;
    e.health[i] = 0;
    e.remove(i);
    this.#ships--;
    if (killer === owner) this.counters[GameCounter.Suicides]++;
    else if (killer === NO_PLAYER) this.counters[GameCounter.EnvironmentDeaths]++;
    else {
      const ks = killer & 0xffff;
      if (ks < this.maxPlayers && this.present[ks] !== 0 && this.playerId[ks] === killer) {
        this.kills[ks]++;
        if (this.players.scores[ks] < 0xffff) this.players.scores[ks]++;
      }
      this.counters[GameCounter.Kills]++;
    }
    if (slot < this.maxPlayers && this.present[slot] !== 0 && this.playerId[slot] === owner) {
      this.deaths[slot]++;
      this.focusIndex[slot] = -1;
      this.respawnStep[slot] = this.steps + RESPAWN_STEPS;
    }
  }

  /** [name, bytes] rows of the game's own arrays, for the memory budget. Allocates. */
  pools(): Array<[string, number]> {
    const players =
      this.present.byteLength + this.playerId.byteLength + this.focusIndex.byteLength + this.focusX.byteLength +
      this.focusY.byteLength + this.respawnStep.byteLength + this.cooldown.byteLength + this.shipType.byteLength +
      this.weaponType.byteLength + this.kills.byteLength + this.deaths.byteLength;
    const perEntity =
      this.kind.byteLength + this.radius.byteLength + this.steady.byteLength + this.#doomedList.byteLength + this.hp.byteLength +
      this.expires.byteLength + this.fired.byteLength + this.prevX.byteLength + this.prevY.byteLength +
      this.killer.byteLength;
    const bodies =
      this.bodyIndex.byteLength + this.bodyGm.byteLength + this.orbitRadius.byteLength + this.orbitOmega.byteLength +
      this.orbitPhase.byteLength;
    return [
      ["game players", players],
      ["game entity arrays", perEntity],
      ["game bodies", bodies],
      ["game broad-phase grid", this.#grid.poolBytes()],
      ["game counters", this.counters.byteLength],
    ];
  }

  // ---------------------------------------------------------------- hash

  /** A 32-bit hash of the whole world: entities, players, scores, step count and PRNG state. */
  hash(): number {
    const e = this.entities;
    const cap = e.capacity;
    const bits = (this.#bits ??= [
      new Uint32Array(e.x.buffer, e.x.byteOffset, cap), new Uint32Array(e.y.buffer, e.y.byteOffset, cap),
      new Uint32Array(e.vx.buffer, e.vx.byteOffset, cap), new Uint32Array(e.vy.buffer, e.vy.byteOffset, cap),
      new Uint32Array(e.rot.buffer, e.rot.byteOffset, cap),
    ]);
    let h = mix(0x811c9dc5, this.steps);
    h = mix(h, this.#rng.state);
    for (let i = 0; i < e.capacity; i++) {
      h = mix(h, e.alive[i] | (e.type[i] << 8) | (e.health[i] << 16));
      h = mix(h, e.generation[i]);
      if (e.alive[i] === 0) continue;
      h = mix(h, e.owner[i]);
      for (let f = 0; f < 5; f++) h = mix(h, bits[f][i]);
      h = mix(h, this.hp[i]);
      h = mix(h, this.expires[i]);
      h = mix(h, this.fired[i]);
    }
    for (let s = 0; s < this.maxPlayers; s++) {
      h = mix(h, this.present[s]);
      if (this.present[s] === 0) continue;
      h = mix(h, this.playerId[s]);
      h = mix(h, this.focusIndex[s]);
      h = mix(h, this.respawnStep[s]);
      h = mix(h, this.cooldown[s] | (this.shipType[s] << 16) | (this.weaponType[s] << 24));
      h = mix(h, this.players.scores[s]);
    }
    return h >>> 0;
  }
}

function mix(h: number, v: number): number {
  h = Math.imul(h ^ (v | 0), 0x5bd1e995);
  return h ^ (h >>> 15);
}

/**
 * Build the game into a server: the sun and planets go into its entity table, the
 * game becomes `server.game`, and a PriorityPlanner fed by the game's ship positions
 * becomes `server.planner`. Players already connected are joined.
 */
export function createGame(config: Config, server: Server, seed: number): Game {
  const game = new Game(config, server.entities, server, seed);
  // No tick can carry more Update entries than its packets hold.
  const limit = config.maxUpdatePacketsPerTick * Math.floor((MAX_PACKET - HEADER_SIZE - 2) / UPDATE_ENTRY);
  const planner = new PriorityPlanner(server.entities, config.maxPlayers, game, { limit });
  game.planner = planner;
  server.planner = planner;
  server.game = game;
  for (let s = 0; s < config.maxPlayers; s++) if (server.active[s] !== 0) game.playerJoined(s, server.playerId(s));
  return game;
}
