/**
 * The pilots of the server's own bots: once per tick, before the game steps, each bot's
 * input bits are chosen from the game's tables by modules/pilot.ts (the same decisions as
 * `npm run bot -- --behaviour hunt`): hunt the nearest other ship, or cruise when there is
 * none, and keep off the sun and the arena's edge.
 *
 * It reads only what every player's ship exposes (the entity table and each slot's ship
 * index), so it works on whatever game the server hosts. Allocates nothing after creation.
 */
import type { EntityTable } from "../game/entities";
import { attack, cruise } from "../pilot";
import { ANGLE_TURN, POS_ONE, STEP_HZ } from "../units";

/**
 * Pilots decide once per game step (30 Hz), not on every server tick: the game reads input
 * only when it steps, and each decision costs some floating-point work, which the ESP32
 * emulates.
 */
const DECIDE_MS = Math.floor(1000 / STEP_HZ);

const WU = 1 / POS_ONE;
const WU_PER_S = STEP_HZ / POS_ONE;
const RADIANS = (2 * Math.PI) / ANGLE_TURN;

export class Pilots {
  /** 1 for a slot flown by the server. */
  readonly bot: Uint8Array;
  /** When the pilots decide next (ms, wrap-safe). */
  #nextAt = 0;

  constructor(maxPlayers: number) {
    this.bot = new Uint8Array(maxPlayers);
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
    for (let s = 0; s < n; s++) {
      if (bot[s] === 0) continue;
      const i = ship[s];
      if (i < 0) {
        input[s] = 0;
        continue;
      }
      const x = ex[i] * WU;
      const y = ey[i] * WU;
      const vx = evx[i] * WU_PER_S;
      const vy = evy[i] * WU_PER_S;
      const heading = entities.rot[i] * RADIANS;
      // The nearest other ship: every player's ship is in `ship`, so no entity scan.
      let best = -1;
      let bestD = Infinity;
      for (let t = 0; t < n; t++) {
        const j = ship[t];
        if (t === s || j < 0) continue;
        const dx = ex[j] * WU - x;
        const dy = ey[j] * WU - y;
        const d = dx * dx + dy * dy;
        if (d < bestD) {
          bestD = d;
          best = j;
        }
      }
      input[s] =
        best < 0
          ? cruise(s, now, x, y, vx, vy, heading)
          : attack(x, y, vx, vy, heading, weapon[s], ex[best] * WU, ey[best] * WU, evx[best] * WU_PER_S, evy[best] * WU_PER_S);
    }
  }
}

/** Names the server gives its bots, in order of slot; each is shown with " [bot]". */
export const BOT_NAMES: readonly string[] = Object.freeze(["Vega", "Rigel", "Deneb", "Altair", "Mira", "Spica", "Atria", "Naos"]);
