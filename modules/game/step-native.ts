/**
 * The game's step in C (modules/kernels/game.c, lw_game), from the numbers handed over here
 * once, in the binding NATIVE_LAYOUT.game: planets, spawns due, every ship's step with what
 * it touches and its fire, ships against ships, projectiles, damage, and where each ship
 * ends. One call runs the step until the JavaScript must act, which is where the entity
 * table changes (its listener is the server's) or something rare needs doubles or the
 * random generator; then the next call goes on. A step of a quiet world is one call; each
 * projectile fired, each spawn, ram and death adds one (the spent projectiles' removal is
 * the step's last stop, and needs none).
 *
 * The binding's arrays and words begin with the ship loop's (ship-stepper.ts fills those),
 * so that the step runs that loop on its own memory.
 */
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { GameRun, GameStop, GameWord } from "../native-words";
import { POS_SHIFT } from "../units";
import {
  ORBIT_FRACTION, ORBIT_TURN_MASK, PLANET_BOUNCE, PLANET_DAMAGE, PLANET_MARK, PLANET_MARK_STEPS, PLANET_NEAR,
} from "./bodies";
import { deathsDie, GENTLE, HP_RECIPROCAL } from "./deaths";
import { shipWords } from "./ship-stepper";
import { FAR_PULL, shipsBounce } from "./ships";
import { SPAWN_REACH_WU, spawnShip, spawnWant, spawnWantsRadius } from "./spawn";
import {
  ARENA_RADIUS, PLANET_DAMAGE_BASE, SHIP_HP, SHIP_TYPES, SHOT_ARM_STEPS, SHOT_BASE, SHOT_TYPES, TEMPLATE_COUNT, TEMPLATE_RADIUS,
  WEAPON_COOLDOWN, WEAPON_DAMAGE, WEAPON_LIFE, WEAPON_VELOCITY,
} from "./templates";
import {
  ARENA_R2, DITHER_STEP, type GameWorld, GRID_HALF, GRID_SHIFT, GRID_SIDE, PLANET_BIT, REACH, SHIP_BIT, SUN_RADIUS,
  worldRecount, ZONES,
} from "./world";

export class NativeGameStep {
  readonly #w: GameWorld;
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #words: Int32Array;
  readonly #at: number;

  constructor(w: GameWorld, kernels: Kernels, native: NativeOptions | null) {
    if (SHOT_TYPES > 4) throw new RangeError("the native game step knows 4 weapons");
    const e = w.entities;
    const p = w.players;
    const b = new Binding(NATIVE_LAYOUT.game, {
      x: e.x, y: e.y, vx: e.vx, vy: e.vy, rot: e.rot, type: e.type, radius: w.radius, focusIndex: w.focusIndex,
      input: p.input, prevX: w.prevX, prevY: w.prevY, sine: w.sine, gravity: w.gravity, contact: w.contact,
      bodyIndex: w.bodyIndex, pull: w.bodyPull, mask: w.grid.mask, rsqrtSeed: w.geometry.rsqrtSeed,
      owner: e.owner, health: e.health, steady: w.steady, list: w.shotList, doomed: w.doomed, expires: w.expires,
      hp: w.hp, playerId: w.playerId, bodyPrevX: w.bodyPrevX, bodyPrevY: w.bodyPrevY, present: w.present,
      cooldown: w.cooldown, respawnStep: w.respawnStep, newcomer: w.newcomer, selected: p.selected,
      guardUntil: w.guardUntil, killer: w.killer, killedWith: w.killedWith, shipType: w.shipType,
      weaponType: w.weaponType, focusX: w.focusX, focusY: w.focusY, orbitPhase: w.orbitPhase,
      orbitOmega: w.orbitOmega, orbitR32: w.orbitR32, orbitSpeed: w.orbitSpeed, markX: w.markX, markY: w.markY,
      base: w.grid.base, counters: w.counters, alive: e.alive,
    }, 0, native);
    const words = b.words;
    const at = b.scalars;
    // The ship loop's words (its own binding's numbering is the start of this one's).
    shipWords(words, at);
    words[at + GameWord.GridHalf] = GRID_HALF;
    words[at + GameWord.GridShift] = GRID_SHIFT;
    words[at + GameWord.GridSide] = GRID_SIDE;
    words[at + GameWord.PlanetBit] = PLANET_BIT;
    words[at + GameWord.PlanetBits] = w.planetBits;
    words[at + GameWord.Bodies] = w.bodies;
    words[at + GameWord.FarPull] = FAR_PULL;
    words[at + GameWord.ArenaRadius] = ARENA_RADIUS;
    // The rest of the step's.
    words[at + GameWord.MaxPlayers] = w.maxPlayers;
    words[at + GameWord.DitherStep] = DITHER_STEP;
    words[at + GameWord.Zones] = ZONES;
    words[at + GameWord.ShipBit] = SHIP_BIT;
    words[at + GameWord.SunRadius] = SUN_RADIUS;
    words[at + GameWord.ArenaR2] = ARENA_R2;
    words[at + GameWord.PlanetNear] = PLANET_NEAR;
    words[at + GameWord.Reach] = REACH;
    words[at + GameWord.ArmSteps] = SHOT_ARM_STEPS;
    words[at + GameWord.ShotBase] = SHOT_BASE;
    words[at + GameWord.ShotCapacity] = w.shotCapacity;
    words[at + GameWord.PosShift] = POS_SHIFT;
    words[at + GameWord.OrbitFraction] = ORBIT_FRACTION;
    words[at + GameWord.OrbitTurnMask] = ORBIT_TURN_MASK;
    words[at + GameWord.MarkSteps] = PLANET_MARK_STEPS;
    words[at + GameWord.PlanetMark] = PLANET_MARK;
    words[at + GameWord.Gentle] = GENTLE;
    words[at + GameWord.PlanetBounce] = PLANET_BOUNCE;
    words[at + GameWord.PlanetDamage] = PLANET_DAMAGE;
    words[at + GameWord.PlanetDamageBase] = PLANET_DAMAGE_BASE;
    for (let t = 0; t < SHIP_TYPES; t++) {
      words[at + GameWord.ShipHp + t] = SHIP_HP[t];
      words[at + GameWord.HpReciprocal + t] = HP_RECIPROCAL[t];
    }
    for (let t = 0; t < SHOT_TYPES; t++) {
      words[at + GameWord.WeaponCooldown + t] = WEAPON_COOLDOWN[t];
      words[at + GameWord.WeaponVelocity + t] = WEAPON_VELOCITY[t];
      words[at + GameWord.WeaponLife + t] = WEAPON_LIFE[t];
      words[at + GameWord.WeaponDamage + t] = WEAPON_DAMAGE[t];
      words[at + GameWord.ShotRadius + t] = TEMPLATE_RADIUS[SHOT_BASE + t];
    }
    // What a spawn point must keep clear of each template (spawn.ts spawnWant).
    words[at + GameWord.SpawnReach] = SPAWN_REACH_WU;
    for (let t = 0; t < TEMPLATE_COUNT; t++) {
      words[at + GameWord.SpawnWant + t] = spawnWant(t);
      words[at + GameWord.SpawnRadius + t] = spawnWantsRadius(t) ? 1 : 0;
    }
    this.#w = w;
    this.#kernels = kernels;
    this.#b = b;
    this.#words = words;
    this.#at = at;
  }

  /**
   * How far (wu) (x, y) is from being a fair spawn point (spawn.ts): the worst shortfall,
   * negative, or WIDE_OPEN when nothing is in the way. In C: a spawn tries up to
   * SPAWN_ATTEMPTS points, each a walk over the table.
   */
  clearance(x: number, y: number): number {
    const b = this.#b;
    const words = this.#words;
    const at = this.#at;
    words[at + GameWord.End] = this.#w.entities.end;
    words[at + GameWord.ClearX] = x;
    words[at + GameWord.ClearY] = y;
    return this.#kernels.game(b.layout, b.m0, b.m1, b.m2, b.m3, GameRun.Clear);
  }

  /** Live projectiles now. */
  get shotCount(): number {
    return this.#words[this.#at + GameWord.Listed];
  }

  /** Projectiles alive after the last step. */
  get shots(): number {
    return this.#words[this.#at + GameWord.Shots];
  }

  /** Start-up: the planets where step `steps` has them, and their marks in the grid. */
  place(): void {
    const b = this.#b;
    this.#words[this.#at + GameWord.Steps] = this.#w.steps;
    this.#kernels.game(b.layout, b.m0, b.m1, b.m2, b.m3, GameRun.Place);
  }

  /** One step of the world, `w.steps` (counted by the caller). */
  run(): void {
    const w = this.#w;
    const e = w.entities;
    const b = this.#b;
    const k = this.#kernels;
    const words = this.#words;
    const at = this.#at;
    words[at + GameWord.Steps] = w.steps;
    // Someone else removed entities (the server, a player's projectiles when they left).
    if (e.count !== w.bodies + w.ships + words[at + GameWord.Listed] + w.others) words[at + GameWord.Listed] = worldRecount(w);
    let why = k.game(b.layout, b.m0, b.m1, b.m2, b.m3, GameRun.Step);
    while (why !== GameStop.Done) {
      if (why === GameStop.Fire) {
        words[at + GameWord.Added] = e.add(words[at + GameWord.FireType], words[at + GameWord.FireOwner], words[at + GameWord.FireX], words[at + GameWord.FireY]);
      } else if (why === GameStop.Reap) {
        const doomed = w.doomed;
        for (let j = 0, n = words[at + GameWord.Doomed]; j < n; j++) e.remove(doomed[j]);
        // The step is done, unless ships died: each is a stop of its own.
        if (words[at + GameWord.Dying] === 0) break;
      } else if (why === GameStop.Spawn) spawnShip(w, words[at + GameWord.Slot], this);
      else if (why === GameStop.Die) deathsDie(w, words[at + GameWord.Slot]);
      else if (why === GameStop.Ram) words[at + GameWord.RamDamage] = shipsBounce(w, words[at + GameWord.Slot], words[at + GameWord.Other]);
      else throw new RangeError(`the native game step stopped for ${why}`);
      why = k.game(b.layout, b.m0, b.m1, b.m2, b.m3, GameRun.Resume);
    }
  }
}
