/**
 * The pilots of the server's own bots: once per tick, before the game steps, each bot's
 * input bits are chosen from the game's tables by modules/pilot.ts (the same decisions as
 * `npm run bot -- --behaviour hunt`): hunt the nearest other ship in sight, or cruise when
 * there is none, and keep off the sun and the arena's edge.
 *
 * How well they hunt is their skill (config.botSkill, BOT_SKILLS): how far they look, how
 * long they take to open fire on a new target, how true they aim and lead. At every skill
 * they leave a ship alone for its first GUARD_MS (the game guards it; docs/game.md).
 *
 * It reads only what every player's ship exposes (the entity table and each slot's ship
 * index), so it works on whatever game the server hosts. Allocates nothing after creation.
 */
import type { EntityTable } from "../game/entities";
import { SPAWN_GUARD_STEPS } from "../game/templates";
import { INPUT_SHOOTING } from "../input";
import { attack, cruise, scramble } from "../pilot";
import { ANGLE_TURN, POS_ONE, STEP_HZ } from "../units";

/**
 * Pilots decide once per game step (30 Hz), not on every server tick: the game reads input
 * only when it steps, and each decision costs some floating-point work, which the ESP32
 * emulates.
 */
const DECIDE_MS = Math.floor(1000 / STEP_HZ);
/** A ship younger than this (ms) is nobody's target: the game's spawn guard. */
export const GUARD_MS = Math.floor((SPAWN_GUARD_STEPS * 1000) / STEP_HZ);
/** A bot's aim error changes this often (ms). */
const WOBBLE_MS = 600;

/** By skill (easy, normal, hard): targets farther than this are not seen (wu). */
const SIGHT: readonly number[] = Object.freeze([6000, 6000, 6000]);
/** ... the trigger waits this long after a new target is picked (ms). */
const REACT_MS: readonly number[] = Object.freeze([1000, 600, 150]);
/** ... fire when the aim is this close (radians), within this share of the weapon's range. */
const AIM: readonly number[] = Object.freeze([0.08, 0.1, 0.15]);
const REACH: readonly number[] = Object.freeze([0.45, 0.55, 0.7]);
/** ... how much of the projectile's flight time the aim leads by, and how far off it may be (radians). */
const LEAD: readonly number[] = Object.freeze([0, 0.6, 1]);
const ERROR: readonly number[] = Object.freeze([0.16, 0.1, 0]);
/**
 * ... a ship that has not fired for QUIET_MS looks this many times as far (squared): easy
 * and normal bots turn on whoever fights first, and leave a player who holds fire for later.
 */
const QUIET: readonly number[] = Object.freeze([4, 4, 1]);
/** A ship that has not fired for this long (ms) is quiet. */
const QUIET_MS = 3000;

const WU = 1 / POS_ONE;
const WU_PER_S = STEP_HZ / POS_ONE;
const RADIANS = (2 * Math.PI) / ANGLE_TURN;

export class Pilots {
  /** 1 for a slot flown by the server. */
  readonly bot: Uint8Array;
  /** Index into BOT_SKILLS (config.botSkill). */
  readonly skill: number;
  /** When the pilots decide next (ms, wrap-safe). */
  #nextAt = 0;
  /** By slot: the ship entity seen last (-1 none), and when it was first seen (ms). */
  readonly #ship: Int32Array;
  readonly #bornAt: Int32Array;
  /** By slot: the slot a bot hunts (-1 none), and since when (ms). */
  readonly #target: Int32Array;
  readonly #since: Int32Array;
  /** By slot: when its input last held the trigger (ms). */
  readonly #firedAt: Int32Array;

  constructor(maxPlayers: number, skill = 1) {
    this.bot = new Uint8Array(maxPlayers);
    this.skill = skill < 0 ? 0 : skill > 2 ? 2 : skill | 0;
    this.#ship = new Int32Array(maxPlayers).fill(-1);
    this.#bornAt = new Int32Array(maxPlayers);
    this.#target = new Int32Array(maxPlayers).fill(-1);
    this.#since = new Int32Array(maxPlayers);
    this.#firedAt = new Int32Array(maxPlayers);
  }

  /** How many slots the server flies now. */
  count(): number {
    let n = 0;
    for (let s = 0; s < this.bot.length; s++) n += this.bot[s];
    return n;
  }

  /**
   * Write each bot's INPUT_* bits into `input`, at most once every DECIDE_MS. `ship` is each slot's ship entity index (-1
   * while it has none), `weapon` each slot's weapon, `now` the server's clock (ms).
   */
  fly(now: number, entities: EntityTable, ship: Int32Array, weapon: Uint8Array, input: Uint8Array): void {
    if (((now - this.#nextAt) | 0) < 0) return;
    this.#nextAt = (now + DECIDE_MS) | 0;
    const bot = this.bot;
    const n = bot.length;
    const ex = entities.x;
    const ey = entities.y;
    const evx = entities.vx;
    const evy = entities.vy;
    const seen = this.#ship;
    const bornAt = this.#bornAt;
    const skill = this.skill;
    const sight = SIGHT[skill] * SIGHT[skill];
    const firedAt = this.#firedAt;
    // Which ships are new (a slot's ship index that changed since the last decision), and who fired.
    for (let t = 0; t < n; t++) {
      if (ship[t] !== seen[t] && ship[t] >= 0) {
        bornAt[t] = now;
        firedAt[t] = (now - QUIET_MS - 1) | 0;
      }
      seen[t] = ship[t];
      if ((input[t] & INPUT_SHOOTING) !== 0) firedAt[t] = now;
    }
    for (let s = 0; s < n; s++) {
      if (bot[s] === 0) continue;
      const i = ship[s];
      if (i < 0) {
        input[s] = 0;
        this.#target[s] = -1;
        continue;
      }
      const x = ex[i] * WU;
      const y = ey[i] * WU;
      const vx = evx[i] * WU_PER_S;
      const vy = evy[i] * WU_PER_S;
      const heading = entities.rot[i] * RADIANS;
      // The nearest other ship in sight and past its guard: every player's ship is in `ship`, so no entity scan.
      let best = -1;
      let bestSlot = -1;
      let bestD = sight;
      for (let t = 0; t < n; t++) {
        const j = ship[t];
        if (t === s || j < 0 || ((now - bornAt[t]) | 0) < GUARD_MS) continue;
        const dx = ex[j] * WU - x;
        const dy = ey[j] * WU - y;
        let d = dx * dx + dy * dy;
        if (((now - firedAt[t]) | 0) > QUIET_MS) d *= QUIET[skill];
        if (d < bestD) {
          bestD = d;
          best = j;
          bestSlot = t;
        }
      }
      if (bestSlot !== this.#target[s]) {
        this.#target[s] = bestSlot;
        this.#since[s] = now;
      }
      if (best < 0) {
        input[s] = cruise(s, now, x, y, vx, vy, heading);
        continue;
      }
      const wobble = scramble(s, Math.floor(now / WOBBLE_MS));
      const error = ERROR[skill] * (((wobble & 0xffff) - 32768) / 32768);
      const fire = ((now - this.#since[s]) | 0) >= REACT_MS[skill];
      input[s] = attack(
        x, y, vx, vy, heading, weapon[s], ex[best] * WU, ey[best] * WU, evx[best] * WU_PER_S, evy[best] * WU_PER_S,
        AIM[skill], REACH[skill], LEAD[skill], error, fire,
      );
    }
  }
}

/** Names the server gives its bots, in order of slot; each is shown with " [bot]". */
export const BOT_NAMES: readonly string[] = Object.freeze(["Vega", "Rigel", "Deneb", "Altair", "Mira", "Spica", "Atria", "Naos"]);
