/**
 * Our own shots, predicted: while the trigger is held with a ship, the page fires at the
 * weapon's rate from the frame the key goes down, as the server will a moment later, from
 * our predicted ship (web/predict.ts): at its nose, with its velocity plus the muzzle
 * speed. Each predicted shot flies on its own until the server's projectile for it comes:
 *
 *  - the server's Add of one of our projectiles claims the oldest unclaimed shot (none:
 *    a shot we did not predict, drawn as it comes);
 *  - at that projectile's first Update the page draws it from where the predicted shot is
 *    drawn, the difference fading out (World's smoothing): no double, no jump;
 *  - a shot no Add claims within CLAIM_MS (the server did not fire it: the ship died, the
 *    pool was full, the trigger was let go before the server saw it) fades out over FADE_MS.
 *
 * No DOM here: the Node tests drive it too. A small fixed pool; nothing allocates per shot.
 */
import { SHIP_BASE, SHOT_BASE, STEP_MS, TEMPLATE_RADIUS, WEAPON_COOLDOWN, WEAPON_LIFE, WEAPON_VELOCITY } from "../modules/game/templates";
import { INPUT_SHOOTING } from "../modules/protocol/codec";
import { POS_ONE, STEP_HZ } from "../modules/units";

/** Predicted shots kept at once. */
export const PREDICTED_SHOTS = 16;
/** A predicted shot no Add has claimed this long after its firing (ms) was not fired by the server. */
export const CLAIM_MS = 400;
/** ... and fades out over this long (ms). */
export const FADE_MS = 200;

/** A predicted shot as drawn: wu, and its opacity 0..1. */
export interface ShotPose {
  x: number;
  y: number;
  alpha: number;
}

export class FirePredictor {
  /** Per shot: fired at (ms), where and how fast then (wu, wu/s), template, the server's entity index once claimed (-1 before), and whether it is still drawn. */
  readonly #at = new Float64Array(PREDICTED_SHOTS);
  readonly #x = new Float64Array(PREDICTED_SHOTS);
  readonly #y = new Float64Array(PREDICTED_SHOTS);
  readonly #vx = new Float64Array(PREDICTED_SHOTS);
  readonly #vy = new Float64Array(PREDICTED_SHOTS);
  readonly #type = new Uint8Array(PREDICTED_SHOTS);
  readonly #entity = new Int32Array(PREDICTED_SHOTS).fill(-1);
  readonly #live = new Uint8Array(PREDICTED_SHOTS);
  readonly #pose: ShotPose = { x: 0, y: 0, alpha: 1 };
  /** When the weapon is ready again (ms); the trigger held at the last call. */
  #readyAt = 0;
  #held = false;
  /** Shots fired, claimed by the server, and faded unclaimed (for tests and the debug hook). */
  fired = 0;
  claimed = 0;
  faded = 0;

  /** Forget every shot (our ship is gone, or a new connection). */
  clear(): void {
    this.#live.fill(0);
    this.#entity.fill(-1);
    this.#readyAt = 0;
  }

  /**
   * The trigger is `input`'s INPUT_SHOOTING at `now`, our ship (type `ship`, weapon
   * `weapon`) drawn at (x, y) heading `rot` radians moving (vx, vy) wu/s; false `flying`:
   * no ship. Returns whether a shot was fired now (the page plays its sound).
   */
  advance(now: number, input: number, flying: boolean, ship: number, weapon: number, x: number, y: number, rot: number, vx: number, vy: number): boolean {
    const held = flying && (input & INPUT_SHOOTING) !== 0;
    const pressed = held && !this.#held;
    this.#held = held;
    if (!held || weapon < 0) return false;
    // A fresh press fires at once if the weapon is ready; held, at the weapon's rate.
    if (now < this.#readyAt && !(pressed && now >= this.#readyAt - STEP_MS)) return false;
    let k = -1;
    for (let j = 0; j < PREDICTED_SHOTS; j++) if (this.#live[j] === 0) {
      k = j;
      break;
    }
    if (k < 0) return false;
    const template = SHOT_BASE + weapon;
    const nose = TEMPLATE_RADIUS[SHIP_BASE + ship] + TEMPLATE_RADIUS[template] + 1;
    const muzzle = (WEAPON_VELOCITY[weapon] * STEP_HZ) / POS_ONE;
    const c = Math.cos(rot);
    const s = Math.sin(rot);
    this.#at[k] = now;
    this.#x[k] = x + c * nose;
    this.#y[k] = y + s * nose;
    this.#vx[k] = vx + c * muzzle;
    this.#vy[k] = vy + s * muzzle;
    this.#type[k] = template;
    this.#entity[k] = -1;
    this.#live[k] = 1;
    this.#readyAt = now + WEAPON_COOLDOWN[weapon] * STEP_MS;
    this.fired++;
    return true;
  }

  /** The server added our projectile `i` at `now`: it claims the oldest unclaimed shot. True when one was there. */
  claim(i: number, now: number): boolean {
    let best = -1;
    for (let k = 0; k < PREDICTED_SHOTS; k++) {
      if (this.#live[k] === 0 || this.#entity[k] >= 0 || now - this.#at[k] > CLAIM_MS) continue;
      if (best < 0 || this.#at[k] < this.#at[best]) best = k;
    }
    if (best < 0) return false;
    this.#entity[best] = i;
    this.claimed++;
    return true;
  }

  /** Whether projectile `i` claimed a predicted shot that is still drawn. */
  claims(i: number): boolean {
    for (let k = 0; k < PREDICTED_SHOTS; k++) if (this.#live[k] !== 0 && this.#entity[k] === i) return true;
    return false;
  }

  /**
   * Projectile `i`'s first Update came at `now`: the shot it claimed gives way to it.
   * Returns where that shot is drawn now (reused by the next call), or null when it claimed none.
   */
  handOver(i: number, now: number): ShotPose | null {
    for (let k = 0; k < PREDICTED_SHOTS; k++) {
      if (this.#live[k] === 0 || this.#entity[k] !== i) continue;
      this.#live[k] = 0;
      this.#entity[k] = -1;
      return this.#poseOf(k, now);
    }
    return null;
  }

  /** Projectile `i` is gone: a shot it claimed that was never handed over goes with it. */
  removed(i: number): void {
    for (let k = 0; k < PREDICTED_SHOTS; k++) if (this.#live[k] !== 0 && this.#entity[k] === i) this.#live[k] = 0;
  }

  /** Drop the shots that have faded or outlived their weapon. */
  expire(now: number): void {
    for (let k = 0; k < PREDICTED_SHOTS; k++) {
      if (this.#live[k] === 0) continue;
      const age = now - this.#at[k];
      const life = WEAPON_LIFE[(this.#type[k] - SHOT_BASE) % WEAPON_LIFE.length] * STEP_MS;
      const unclaimed = this.#entity[k] < 0 && age > CLAIM_MS + FADE_MS;
      if (unclaimed || age > life) {
        if (unclaimed) this.faded++;
        this.#live[k] = 0;
        this.#entity[k] = -1;
      }
    }
  }

  /** Shots drawn now, by index 0..PREDICTED_SHOTS − 1: whether `k` is one, then its pose. */
  drawn(k: number): boolean {
    return this.#live[k] !== 0;
  }

  /** Where shot `k` is drawn at `now` (reused by the next call). */
  pose(k: number, now: number): ShotPose {
    return this.#poseOf(k, now);
  }

  /** The template of shot `k`. */
  type(k: number): number {
    return this.#type[k];
  }

  #poseOf(k: number, now: number): ShotPose {
    const dt = Math.max(0, now - this.#at[k]) / 1000;
    const p = this.#pose;
    p.x = this.#x[k] + this.#vx[k] * dt;
    p.y = this.#y[k] + this.#vy[k] * dt;
    const age = now - this.#at[k];
    p.alpha = this.#entity[k] < 0 && age > CLAIM_MS ? Math.max(0, 1 - (age - CLAIM_MS) / FADE_MS) : 1;
    return p;
  }
}
