/**
 * The authoritative lwar match: a sun, planets on circular orbits, one ship per player
 * and projectiles, stepped at a fixed 30 Hz in the server's entity table.
 *
 * Everything is 32-bit integer fixed point (modules/units.ts): positions in 1/1024 wu,
 * velocities in 1/1024 wu per step, headings in 1/4096 turn. The ESP32 has no double FPU
 * and XS keeps only int32 values as integers, so a step does no floating-point work except
 * where a rare event (a ram, a spawn) needs a square root. Gravity comes from a table of
 * G·M/r³ indexed by r² (gravity.ts), trigonometry from a quarter-wave sine table (trig.ts),
 * unit vectors from a Newton reciprocal square root (geometry.ts), and swept circle tests
 * compare squares without dividing.
 *
 * All state lives in one `GameWorld` (world.ts), typed arrays sized at construction; a step
 * allocates nothing. Randomness comes from one seeded xorshift and every table is built
 * from IEEE-exact arithmetic, so the same seed and the same inputs give the same world, bit
 * for bit, on any engine. `hash()` proves it.
 *
 * This file composes the parts: the step's clock and order, the hooks the server calls, and,
 * for now, the loops that the native kernels (modules/native.ts) can run: the ships'
 * motion, the projectiles' flight and the spawn clearance, with their bindings. The rest is
 * by concern: bodies.ts (sun and planets), spawn.ts, ships.ts, shots.ts, deaths.ts,
 * motion.ts (a ship's turning, thrust and speed limit, pure), geometry.ts, gravity.ts.
 *
 * Step order: planets, spawns, ships (drift, input, gravity, clamp, boundary, planets and
 * sun, fire), ships against ships, projectiles (lifetime, drift, arena, sun, the sun's
 * gravity, clamp, planets and ships), deaths and removals. Ships are walked by player slot,
 * projectiles over a dense list. On XS a typed-array access costs as much as a couple of
 * bytecodes and a call as a dozen, so the projectile loop is one inlined block that touches
 * few arrays: its broad phase costs one read (see ReachGrid), its gravity one table entry
 * and the next.
 */
import type { Config } from "../config";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../input";
import type { DeathHook, Focus, Players, Simulation } from "../sim";
import { POS_SHIFT } from "../units";
import { Binding, type Kernels } from "../native";
import { bodiesCreate, bodiesMove, bodiesMoved, bodiesRenewMark, PLANET_NEAR } from "./bodies";
import { deathsReap } from "./deaths";
import type { EntityTable } from "./entities";
import { type Geometry, geometryUnit, ONE } from "./geometry";
import { D_SHIFT, gravityBuild, OCT_MAX, OCT_MIN, S_SHIFT, T_MASK, U_FLOOR } from "./gravity";
import type { ReachGrid } from "./grid";
import { CLAMP_SCALE, createShipMotion, motionLimit, motionSteer, SHIP_HEADINGS, type ShipMotion } from "./motion";
import { shipsCollide, shipsEdge, shipsEffects, shipsForget, shipsMark, shipsMoved } from "./ships";
import { shotsCollide, shotsHit, shotsPull } from "./shots";
import { SPAWN_SHOT_CLEARANCE, SPAWN_SUN_CLEARANCE, spawnDue, spawnJoin, spawnShip, WIDE_OPEN } from "./spawn";
import {
  ARENA_RADIUS, Kind, SHIP_BASE, SHIP_MAX_SPEED, SHIP_THRUST, SHIP_TURN, SHIP_TYPES, SHOT_ARM_STEPS, SHOT_BASE, SHOT_TYPES,
  SPAWN_CLEARANCE, STEP_HZ, TEMPLATE_COUNT, TEMPLATE_KIND, WEAPON_LIFE,
} from "./templates";
import {
  ARENA_R2, GameCounter, GameWorld, GRID_HALF, GRID_SHIFT, GRID_SIDE, PLANET_BIT, REACH, SHIP_BIT, SUN_RADIUS, worldHash,
  worldRecount, ZONES,
} from "./world";

export { GAME_COUNTER_COUNT, GAME_COUNTER_NAMES, GameCounter } from "./world";

/** Steps one tick may run to catch up; beyond that the game skips time. */
const MAX_CATCH_UP = 4;
/** Milliseconds between steps, repeating: step k is due ceil(k · 100 / 3) ms after the first tick. */
const STEP_GAP_0 = 34;
const STEP_GAP_1 = 33;

/**
 * #moveShots's binding for native kernels (hosts/moddable/kernels.c reads the same
 * numbers): its arrays, then scalar words; ShotStop says why the C handed a projectile back.
 */
export const enum ShotMem {
  X, Y, VX, VY, Owner, Type, List, Doomed, Expires, Gravity, Radius, BodyIndex, FocusIndex, Hp, PlayerId,
  PrevX, PrevY, BodyPrevX, BodyPrevY, Mask,
  Count,
}
export const enum ShotWord {
  GridHalf, GridShift, GridSide, OctMin, OctMax, TMask, DShift, SShift, Zones, PlanetBit, ShipBit, PlanetBits,
  SunRadius, ArenaR2, PlanetNear, Reach, ArmSteps, ShotBase, Life0, Life1, Life2, Life3,
  Steps, Dither, Count, Doomed, Why, Slot,
  Words,
}
export const enum ShotStop {
  Done, Hit, Pull,
}
/** #moveShips's binding: arrays, then words; Turn0.. and the rest are per ship type. */
export const enum ShipMem {
  X, Y, VX, VY, Rot, Type, Radius, FocusIndex, Input, PrevX, PrevY, Sine, Gravity, Contact, BodyIndex, Pull, Mask,
  Count,
}
export const enum ShipWord {
  ShipBase, Headings, Forward, Backward, Left, Right, Shooting, GridHalf, GridShift, GridSide, OctMin, TMask, DShift,
  SShift, PlanetBit, PlanetBits, Bodies, FarPull, One, ArenaRadius,
  Turn0, Thrust0 = Turn0 + 4, MaxSpeed0 = Thrust0 + 4, ClampScale0 = MaxSpeed0 + 4,
  Steps = ClampScale0 + 4, Dither, Touching, Cos, Sin,
  Words,
}
/** What the C did with a ship: moved it; moved it, and it touches something or may fire; left it to the JavaScript. */
export const enum ShipStop {
  Moved, Effects, Redo,
}
/** #clearance's binding: arrays, then words; Want0 starts TEMPLATE_COUNT pairs (radius counts: 0 or 1, plus). */
export const enum ClearMem {
  Alive, Type, Radius, X, Y, RsqrtSeed,
  Count,
}
export const enum ClearWord {
  Capacity, PosShift, One, Templates, OtherPlus, WideOpen, Want0,
}
/** Planets outside a ship's grid cell pull it every 1 << FAR_PULL = 4 steps (and 4 times as hard). */
const FAR_PULL = 2;

/** The per-player arrays the game reads (input, selection) and writes (scores). The server has them. */
export type GamePlayers = Players;

export class Game implements Simulation, Focus {
  readonly config: Config;
  readonly entities: EntityTable;
  readonly players: GamePlayers;
  readonly seed: number;
  readonly maxPlayers: number;
  /** Most projectiles alive at once: capacity less the sun, planets and one ship per player. */
  readonly shotCapacity: number;
  readonly counters: Uint32Array;

  // The world's arrays the server's planner reads (Focus) and the clearance loop walks; world.ts
  // says what each holds, and the getters below give the rest.
  readonly focusIndex: Int32Array;
  readonly focusX: Int32Array;
  readonly focusY: Int32Array;
  readonly radius: Uint8Array;
  readonly steady: Uint8Array;
  readonly bodies: number;

  readonly #world: GameWorld;
  /** A ship's motion record, for #moveShip. */
  readonly #motion: ShipMotion;
  /** Milliseconds (host clock) at which the next step is due, and where in the 34/33/33 cycle. */
  #nextStepAt = -1;
  #stepGap = 0;

  /*
   * The world's parts under the names the native-kernel code below (the bindings, #moveShips,
   * #moveShots, clearance) uses; they go when that code moves to ships.ts and shots.ts.
   */
  get #gravity(): Int32Array {
    return this.#world.gravity;
  }
  get #rsqrtSeed(): Uint16Array {
    return this.#world.geometry.rsqrtSeed;
  }
  get #contact(): Int32Array {
    return this.#world.contact;
  }
  get #bodyPull(): Int32Array {
    return this.#world.bodyPull;
  }
  get #bodyPrevX(): Int32Array {
    return this.#world.bodyPrevX;
  }
  get #bodyPrevY(): Int32Array {
    return this.#world.bodyPrevY;
  }
  get #shotList(): Uint16Array {
    return this.#world.shotList;
  }
  get #doomed(): Uint16Array {
    return this.#world.doomed;
  }
  get #planetBits(): number {
    return this.#world.planetBits;
  }
  get #grid(): ReachGrid {
    return this.#world.grid;
  }
  get #geometry(): Geometry {
    return this.#world.geometry;
  }
  get #shotCount(): number {
    return this.#world.shotCount;
  }
  set #shotCount(n: number) {
    this.#world.shotCount = n;
  }
  get #doomedCount(): number {
    return this.#world.doomedCount;
  }
  set #doomedCount(n: number) {
    this.#world.doomedCount = n;
  }
  get #dither(): number {
    return this.#world.dither;
  }
  get #ux(): number {
    return this.#geometry.ux;
  }
  get #uy(): number {
    return this.#geometry.uy;
  }
  get #len(): number {
    return this.#geometry.len;
  }
  get #cx(): number {
    return this.#geometry.cx;
  }
  get #cy(): number {
    return this.#geometry.cy;
  }

  /** The platform's native loops (modules/native.ts), or null: the JavaScript here runs. */
  readonly #kernels: Kernels | null;
  /** #moveShots's binding for `#kernels.shots` (ShotMem, ShotWord). */
  readonly #shots: Binding | null = null;
  /** #clearance's binding for `#kernels.clearance` (ClearMem, ClearWord). */
  readonly #clear: Binding | null = null;
  /** #moveShips's binding for `#kernels.ship` (ShipMem, ShipWord). */
  readonly #shipsBinding: Binding | null = null;

  constructor(config: Config, entities: EntityTable, players: GamePlayers, seed: number, kernels: Kernels | null = null) {
    const w = new GameWorld(config, entities, players, seed);
    this.#world = w;
    this.config = config;
    this.entities = entities;
    this.players = players;
    this.seed = seed >>> 0;
    this.maxPlayers = w.maxPlayers;
    this.shotCapacity = w.shotCapacity;
    this.counters = w.counters;
    this.focusIndex = w.focusIndex;
    this.focusX = w.focusX;
    this.focusY = w.focusY;
    this.radius = w.radius;
    this.steady = w.steady;
    this.bodies = w.bodies;
    this.#motion = createShipMotion(w.sine, w.geometry);
    this.#kernels = kernels;
    if (kernels !== null) {
      const e = entities;
      const b = new Binding([
        e.x, e.y, e.vx, e.vy, e.owner, e.type, this.#shotList, this.#doomed, this.expires, this.#gravity, this.radius,
        this.bodyIndex, this.focusIndex, this.hp, this.playerId, this.prevX, this.prevY, this.#bodyPrevX, this.#bodyPrevY,
        this.#grid.mask,
      ], ShotWord.Words);
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
      for (let t = 0; t < SHOT_TYPES; t++) w[at + ShotWord.Life0 + t] = WEAPON_LIFE[t];
      this.#shots = b;
      const c = new Binding([e.alive, e.type, this.radius, e.x, e.y, this.#rsqrtSeed], ClearWord.Want0 + 2 * TEMPLATE_COUNT);
      const cw = c.words;
      const ct = c.scalars;
      cw[ct + ClearWord.Capacity] = e.capacity;
      cw[ct + ClearWord.PosShift] = POS_SHIFT;
      cw[ct + ClearWord.One] = ONE;
      cw[ct + ClearWord.Templates] = TEMPLATE_COUNT;
      cw[ct + ClearWord.OtherPlus] = SPAWN_SUN_CLEARANCE;
      cw[ct + ClearWord.WideOpen] = WIDE_OPEN;
      // What #clearance wants clear of each template: its radius and this much, or this much alone.
      for (let t = 0; t < TEMPLATE_COUNT; t++) {
        const kind = TEMPLATE_KIND[t];
        const shot = kind === Kind.Shot;
        cw[ct + ClearWord.Want0 + 2 * t] = shot ? 0 : 1;
        cw[ct + ClearWord.Want0 + 2 * t + 1] = kind === Kind.Ship || kind === Kind.Planet ? SPAWN_CLEARANCE : shot ? SPAWN_SHOT_CLEARANCE : SPAWN_SUN_CLEARANCE;
      }
      this.#clear = c;
      const sb = new Binding([
        e.x, e.y, e.vx, e.vy, e.rot, e.type, this.radius, this.focusIndex, players.input, this.prevX, this.prevY, this.sine,
        this.#gravity, this.#contact, this.bodyIndex, this.#bodyPull, this.#grid.mask,
      ], ShipWord.Words);
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
        sw[st + ShipWord.Turn0 + t] = SHIP_TURN[t];
        sw[st + ShipWord.Thrust0 + t] = SHIP_THRUST[t];
        sw[st + ShipWord.MaxSpeed0 + t] = SHIP_MAX_SPEED[t];
        sw[st + ShipWord.ClampScale0 + t] = CLAMP_SCALE[t];
      }
      this.#shipsBinding = sb;
    }
    bodiesCreate(w);
    gravityBuild(w.gravity);
  }

  // ---------------------------------------------------------------- hooks

  /** Steps simulated. */
  get steps(): number {
    return this.#world.steps;
  }

  /** Projectiles alive after the last step. */
  get shots(): number {
    return this.#world.shots;
  }

  /** Told of every ship destroyed; null: nobody listens. */
  get onDeath(): DeathHook | null {
    return this.#world.onDeath;
  }
  set onDeath(hook: DeathHook | null) {
    this.#world.onDeath = hook;
  }

  // The rest of the world's arrays, for tools and tests (world.ts says what each holds).
  get present(): Uint8Array {
    return this.#world.present;
  }
  get playerId(): Uint32Array {
    return this.#world.playerId;
  }
  get respawnStep(): Int32Array {
    return this.#world.respawnStep;
  }
  get cooldown(): Uint16Array {
    return this.#world.cooldown;
  }
  get shipType(): Uint8Array {
    return this.#world.shipType;
  }
  get weaponType(): Uint8Array {
    return this.#world.weaponType;
  }
  get kills(): Uint32Array {
    return this.#world.kills;
  }
  get deaths(): Uint32Array {
    return this.#world.deaths;
  }
  get hp(): Int16Array {
    return this.#world.hp;
  }
  get killer(): Uint32Array {
    return this.#world.killer;
  }
  get killedWith(): Uint8Array {
    return this.#world.killedWith;
  }
  get prevX(): Int32Array {
    return this.#world.prevX;
  }
  get prevY(): Int32Array {
    return this.#world.prevY;
  }
  get expires(): Int32Array {
    return this.#world.expires;
  }
  get bodyIndex(): Int32Array {
    return this.#world.bodyIndex;
  }
  get orbitRadius(): Int32Array {
    return this.#world.orbitRadius;
  }
  get orbitOmega(): Int32Array {
    return this.#world.orbitOmega;
  }
  get orbitPhase(): Int32Array {
    return this.#world.orbitPhase;
  }
  get sine(): Int16Array {
    return this.#world.sine;
  }

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
    spawnJoin(this.#world, slot, playerId);
  }

  /** Forget the ship; the server removes it and the player's projectiles right after this. */
  playerLeft(slot: number, _playerId: number): void {
    shipsForget(this.#world, slot);
  }

  /**
   * Entity `i` was put where it is by hand (tests, tools): its swept path this step starts
   * there, as if it had been there since the last step.
   */
  moved(i: number): void {
    shipsMoved(this.#world, i);
    bodiesMoved(this.#world, i);
  }

  // ---------------------------------------------------------------- step

  /** One fixed step of 1/30 s. */
  step(): void {
    const w = this.#world;
    const e = w.entities;
    const sb = this.#shipsBinding;
    const n = w.maxPlayers;
    w.steps++;
    w.counters[GameCounter.Steps]++;
    w.dither = Math.imul(w.steps, -1640531527) & 0x7fffffff;
    if (sb !== null) {
      sb.words[sb.scalars + ShipWord.Steps] = this.steps;
      sb.words[sb.scalars + ShipWord.Dither] = this.#dither;
    }
    // Someone else removed entities (the server, a player's projectiles when they left).
    if (e.count !== w.bodies + w.ships + w.shotCount + w.others) worldRecount(w);
    bodiesMove(w);
    bodiesRenewMark(w);
    for (let s = 0; s < n; s++) {
      if (w.present[s] === 0) continue;
      if (w.cooldown[s] > 0) w.cooldown[s]--;
      if (spawnDue(w, s)) spawnShip(w, s, this);
    }
    w.doomedCount = 0;
    w.grid.clear();
    this.#moveShips();
    shipsMark(w);
    if (shipsCollide(w)) {
      w.grid.clear();
      shipsMark(w);
    }
    this.#moveShots();
    deathsReap(w);
    // Positions, velocities, headings and health changed in place: the server re-encodes.
    e.version = (e.version + 1) & 0x3fffffff;
  }

  /**
   * How far (wu) (x, y) is from being a fair spawn point: the worst shortfall, negative, or
   * WIDE_OPEN when nothing is in the way. Squared distances first; a square root (integer,
   * #unit) only for what is too close.
   */
  clearance(x: number, y: number): number {
    const c = this.#clear;
    if (c !== null) return this.#kernels!.clearance(c.layout, c.m0, c.m1, c.m2, c.m3, x, y);
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
    const motion = this.#motion;
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
    let i: number, st: number, input: number, x: number, y: number, vx: number, vy: number, rot: number;
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

    // Turn and thrust by the input (motion.ts).
    motion.rot = erot[i];
    motion.vx = vx;
    motion.vy = vy;
    motionSteer(motion, st, input);
    rot = motion.rot;
    c = motion.cos;
    s = motion.sin;
    vx = motion.vx;
    vy = motion.vy;

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

    // The speed limit (motion.ts).
    motion.vx = vx;
    motion.vy = vy;
    motionLimit(motion, st);
    vx = motion.vx;
    vy = motion.vy;

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
      n = w[at + ShotWord.Count];
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

  // The parts the native-kernel code above calls by its own names.

  #shipEffects(slot: number, i: number, input: number, touching: number, c: number, s: number): void {
    shipsEffects(this.#world, slot, i, input, touching, c, s);
  }

  #edge(x: number, y: number, vx: number, vy: number, limit: number): void {
    shipsEdge(this.#world, x, y, vx, vy, limit);
  }

  #collide(i: number, near: number): boolean {
    return shotsCollide(this.#world, i, near);
  }

  #pull(i: number): void {
    shotsPull(this.#world, i);
  }

  #shotHit(i: number, s: number): void {
    shotsHit(this.#world, i, s);
  }

  #unit(dx: number, dy: number): void {
    geometryUnit(this.#geometry, dx, dy);
  }

  // ---------------------------------------------------------------- memory, hash

  /** [name, bytes] rows of the game's own arrays, for the memory budget. Allocates. */
  pools(): Array<[string, number]> {
    const rows: Array<[string, number]> = this.#world.rows.map(([name, bytes]): [string, number] => [name, bytes]);
    rows.push(["game broad-phase grid", this.#grid.poolBytes()]);
    return rows;
  }

  /** A 32-bit hash of the whole world: entities, players, scores, step count and PRNG state. */
  hash(): number {
    return worldHash(this.#world);
  }
}
