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
 * This file composes the parts: the step's clock, and the hooks the server calls. The rest
 * is by concern: bodies.ts (sun and planets), spawn.ts, ships.ts, shots.ts, deaths.ts,
 * motion.ts (a ship's turning, thrust and speed limit), geometry.ts, gravity.ts. The step
 * itself is the platform's native loop (modules/native.ts: the C of modules/kernels/game.c,
 * through step-native.ts), which the constructor takes from its `NativeOptions`: on XS a
 * typed-array access costs hundreds of machine instructions and a call over a thousand, so
 * the step is one call into C, and the JavaScript acts only where the entity table changes
 * (its listener is the server's) or something rare needs doubles or the random generator:
 * a spawn, a projectile to add, the spent ones to remove, a ram's bounce, a death.
 *
 * Step order: planets, spawns, ships (drift, input, gravity, clamp, boundary, planets and
 * sun, fire), ships against ships, projectiles (lifetime, drift, arena, sun, the sun's
 * gravity, clamp, planets and ships), deaths and removals. Ships are walked by player slot,
 * projectiles over a dense list; the broad phase (ReachGrid) costs a projectile one read.
 */
import type { Config } from "../config";
import { type NativeOptions, platformNative, requireKernels } from "../native";
import type { DeathHook, Focus, Players, Simulation } from "../sim";
import { bodiesCreate, bodiesMoved } from "./bodies";
import type { EntityTable } from "./entities";
import { gravityBuild } from "./gravity";
import type { ReachGrid } from "./grid";
import { shipsForget, shipsMoved } from "./ships";
import { spawnJoin } from "./spawn";
import { NativeGameStep } from "./step-native";
import { STEP_HZ } from "../units";
import { GameCounter, GameWorld, worldHash } from "./world";

export { GAME_COUNTER_COUNT, GAME_COUNTER_NAMES, GameCounter } from "./world";

/** Steps one tick may run to catch up; beyond that the game skips time. */
const MAX_CATCH_UP = 4;
/** Milliseconds between steps, repeating: step k is due ceil(k · 100 / 3) ms after the first tick. */
const STEP_GAP_0 = 34;
const STEP_GAP_1 = 33;

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

  // The world's arrays the server's planner reads (Focus) and the radii tools set; world.ts
  // says what each holds, and the getters below give the rest.
  readonly focusIndex: Int32Array;
  readonly focusX: Int32Array;
  readonly focusY: Int32Array;
  readonly radius: Uint8Array;
  readonly steady: Uint8Array;
  readonly bodies: number;

  readonly #world: GameWorld;
  /** The step, in C. */
  readonly #step: NativeGameStep;
  /** Milliseconds (host clock) at which the next step is due, and where in the 34/33/33 cycle. */
  #nextStepAt = -1;
  #stepGap = 0;

  constructor(config: Config, entities: EntityTable, players: GamePlayers, seed: number, native: NativeOptions | null = platformNative(config)) {
    const kernels = requireKernels(native, "the game");
    const w = new GameWorld(config, entities, players, seed, native?.memory ?? null);
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
    this.#step = new NativeGameStep(w, kernels, native);
    bodiesCreate(w);
    this.#step.place();
    gravityBuild(w.gravity);
  }

  // ---------------------------------------------------------------- hooks

  /** Steps simulated. */
  get steps(): number {
    return this.#world.steps;
  }

  /** Projectiles alive after the last step. */
  get shots(): number {
    return this.#step.shots;
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
  get guardUntil(): Int32Array {
    return this.#world.guardUntil;
  }

  /** Whether the ship of `slot` is within its guard (spawn.ts): it takes no damage. */
  guarded(slot: number): boolean {
    const w = this.#world;
    return w.focusIndex[slot] >= 0 && w.steps < w.guardUntil[slot];
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
  get grid(): ReachGrid {
    return this.#world.grid;
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
    w.steps++;
    this.#step.run();
    // Positions, velocities, headings and health changed in place: the server re-encodes.
    e.version = (e.version + 1) & 0x3fffffff;
  }

  /** How far (wu) (x, y) is from being a fair spawn point (spawn.ts spawnClearance), for tests and tools. */
  clearance(x: number, y: number): number {
    return this.#step.clearance(x, y);
  }

  // ---------------------------------------------------------------- memory, hash

  /** [name, bytes] rows of the game's own arrays, for the memory budget. Allocates. */
  pools(): Array<[string, number]> {
    const rows: Array<[string, number]> = this.#world.rows.map(([name, bytes]): [string, number] => [name, bytes]);
    rows.push(["game broad-phase grid", this.#world.grid.poolBytes()]);
    return rows;
  }

  /** A 32-bit hash of the whole world: entities, players, scores, step count and PRNG state. */
  hash(): number {
    return worldHash(this.#world);
  }
}
