/**
 * Who killed whom, inferred from what a Rev 1 client sees. The wire has no kill message:
 * a ship's Remove says only that it is gone. The server's own record (LogEvent.Death)
 * names the killer and the template of what dealt the last blow; this rebuilds it from
 *
 *  - the Remove of a ship whose owner is still in the match (a player who leaves loses
 *    the ship after the Leave: not a death),
 *  - where everything was at its last Update, carried forward by its velocity (a
 *    projectile never updated is placed at its owner's nose, as the game fires it),
 *  - the projectiles removed about then, with the owners and templates their Adds gave,
 *  - and the next Stats: a kill by another player scores 1 for the killer, while a death
 *    by the sun, a planet or one's own projectile scores nothing.
 *
 * A death waits for the first Stats after its Remove (or SETTLE_MS). Every candidate cause
 * gets a miss distance: the closest approach of its track to the victim's over the last
 * LOOKBACK_MS, less both radii. A player whose score rose is a killer with a bonus; another
 * player whose score did not is none; the sun, a planet or one's own projectile take their
 * distance as it is. The smallest wins. docs/game.md ("Kills seen by a client") has the
 * measured agreement with the server's Death events.
 *
 * Fixed memory: every table is made in the constructor, and nothing here allocates.
 */
import type { Client } from "./client";
import { MAX_PLAYERS } from "../protocol/constants";
import { NO_PLAYER } from "../game/entities";
import {
  Kind, kindOf, RAM_DAMAGE_BASE, RAM_DAMAGE_FACTOR, SHIP_BASE, SHIP_HP, SHIP_TYPES, SHOT_BASE, SHOT_TYPES, TEMPLATE_COUNT,
  TEMPLATE_RADIUS, WEAPON_DAMAGE, WEAPON_VELOCITY,
} from "../game/templates";

/** What a kill is put down to. Edge is reserved: the arena's edge bounces ships and kills nobody. */
export const KillCause = Object.freeze({ Unknown: 0, Shot: 1, Sun: 2, Planet: 3, Ram: 4, Edge: 5 } as const);

/** The server's Death cause (a template id) as a KillCause. */
export function causeOfTemplate(template: number): number {
  switch (kindOf(template)) {
    case Kind.Sun:
      return KillCause.Sun;
    case Kind.Planet:
      return KillCause.Planet;
    case Kind.Ship:
      return KillCause.Ram;
    case Kind.Shot:
      return KillCause.Shot;
  }
  return KillCause.Unknown;
}

/** victim and killer are player ids (killer -1 when none); weapon is the projectile template id or -1. */
export type KillListener = (victim: number, killer: number, cause: number, weapon: number) => void;

/** The closest approach is looked for over this long before the Remove arrived, ms. */
export const LOOKBACK_MS = 250;
/** A projectile removed within this of the ship (either side) may be what hit it, ms. */
export const SAME_TICK_MS = 20;
/** A death is decided without Stats after this long, ms. */
export const SETTLE_MS = 1500;
/** A score rise not matched to a death within this is forgotten, ms. */
export const CREDIT_MS = 3000;
/** Miss distance taken off a candidate whose owner's score rose, wu. */
export const CREDIT_BONUS = 150;
/** No candidate missing by more than this is believed, wu. */
export const FAR = 300;
/** A projectile removed with the ship and missing by at most this hit it, wu. */
export const SHOT_HIT = 20;
/** A ship hurt this long before another's death, or after it, may have rammed it, ms. */
export const HURT_BEFORE_MS = 100;
/** Another ship missing by at most this touched the victim: a ram, unless its Updates say it was not hurt, wu. */
export const RAM_CONTACT = 16;
/** A ship this close to a planet touched it, wu. */
export const PLANET_CONTACT = 8;
/** Ships closing slower than this (wu/s) bounce without damage. */
const RAM_GENTLE = 30;
/** A ship this close to the sun touched it, wu. */
export const SUN_CONTACT = 5;

const REMOVED = 64;
const PENDING = 16;
const NONE = -1;

/** Muzzle speeds in wu/s (the wire's velocity unit), by weapon type. */
function muzzle(w: number): number {
  return (WEAPON_VELOCITY[w] * 30) / 1024;
}

/**
 * Follows one Client's entity table and reports each death once, through `client.onKill`.
 * The Client calls it as it applies messages; it reads the Client's arrays.
 */
export class KillTracker {
  readonly #c: Client;
  /** Per entity: where it was (wu) and how fast (wu/s) at time `#at` (ms; -1 unknown). */
  readonly #x: Float64Array;
  readonly #y: Float64Array;
  readonly #vx: Float64Array;
  readonly #vy: Float64Array;
  readonly #at: Float64Array;
  /** Per entity: its health at its last Update, and when it last fell (ms; -1 never). */
  readonly #health: Uint8Array;
  readonly #hurtAt: Float64Array;
  /** Entity index of each slot's ship, or -1. */
  readonly #ship: Int16Array;

  // Ships and projectiles removed lately (a ring): template, owner, track, when.
  readonly #rType: Uint8Array;
  readonly #rOwner: Uint32Array;
  readonly #rX: Float64Array;
  readonly #rY: Float64Array;
  readonly #rVx: Float64Array;
  readonly #rVy: Float64Array;
  readonly #rAt: Float64Array;
  #rNext = 0;

  // Deaths awaiting Stats, oldest first: victim id, ship template, track, health, when.
  readonly #dVictim: Uint32Array;
  readonly #dType: Uint8Array;
  /** The victim's health (percent) at its last Update. */
  readonly #dHealth: Uint8Array;
  readonly #dX: Float64Array;
  readonly #dY: Float64Array;
  readonly #dVx: Float64Array;
  readonly #dVy: Float64Array;
  readonly #dAt: Float64Array;
  #dCount = 0;

  // Scores by slot at the last Stats, and rises not yet matched to a death.
  readonly #score: Uint16Array;
  readonly #credit: Uint8Array;
  readonly #creditAt: Float64Array;
  #scored = false;

  // The candidate being weighed.
  #miss = 0;

  /** Deaths reported, by KillCause. */
  readonly reported: Uint32Array;

  constructor(client: Client) {
    this.#c = client;
    const cap = client.entityCapacity;
    this.#x = new Float64Array(cap);
    this.#y = new Float64Array(cap);
    this.#vx = new Float64Array(cap);
    this.#vy = new Float64Array(cap);
    this.#at = new Float64Array(cap).fill(NONE);
    this.#ship = new Int16Array(MAX_PLAYERS).fill(NONE);
    this.#health = new Uint8Array(cap);
    this.#hurtAt = new Float64Array(cap);
    this.#rType = new Uint8Array(REMOVED).fill(0xff);
    this.#rOwner = new Uint32Array(REMOVED);
    this.#rX = new Float64Array(REMOVED);
    this.#rY = new Float64Array(REMOVED);
    this.#rVx = new Float64Array(REMOVED);
    this.#rVy = new Float64Array(REMOVED);
    this.#rAt = new Float64Array(REMOVED).fill(NONE);
    this.#dVictim = new Uint32Array(PENDING);
    this.#dType = new Uint8Array(PENDING);
    this.#dHealth = new Uint8Array(PENDING);
    this.#dX = new Float64Array(PENDING);
    this.#dY = new Float64Array(PENDING);
    this.#dVx = new Float64Array(PENDING);
    this.#dVy = new Float64Array(PENDING);
    this.#dAt = new Float64Array(PENDING);
    this.#score = new Uint16Array(MAX_PLAYERS);
    this.#credit = new Uint8Array(MAX_PLAYERS);
    this.#creditAt = new Float64Array(MAX_PLAYERS);
    this.reported = new Uint32Array(6);
  }

  /** Deaths seen and not yet reported. */
  get pending(): number {
    return this.#dCount;
  }

  /** Entity i was added (its Add applied). A projectile starts at its owner's nose. */
  added(i: number, now: number): void {
    const c = this.#c;
    const t = c.type[i];
    const kind = kindOf(t);
    this.#at[i] = NONE;
    this.#health[i] = 100;
    this.#hurtAt[i] = NONE;
    const slot = c.owner[i] & 0xffff;
    if (kind === Kind.Ship) {
      if (slot < MAX_PLAYERS) this.#ship[slot] = i;
      return;
    }
    if (kind !== Kind.Shot || c.owner[i] === NO_PLAYER || slot >= MAX_PLAYERS) return;
    const s = this.#ship[slot];
    if (s < 0 || c.alive[s] === 0 || c.owner[s] !== c.owner[i] || this.#at[s] < 0) return;
    const a = (c.rot[s] * Math.PI) / 18000;
    const cos = Math.cos(a);
    const sin = Math.sin(a);
    const dt = (now - this.#at[s]) / 1000;
    const nose = TEMPLATE_RADIUS[c.type[s]] + TEMPLATE_RADIUS[t] + 1;
    const v = muzzle((t - SHOT_BASE) % SHOT_TYPES);
    this.#x[i] = this.#x[s] + this.#vx[s] * dt + cos * nose;
    this.#y[i] = this.#y[s] + this.#vy[s] * dt + sin * nose;
    this.#vx[i] = this.#vx[s] + cos * v;
    this.#vy[i] = this.#vy[s] + sin * v;
    this.#at[i] = now;
  }

  /** Entity i's Update was applied. */
  updated(i: number, now: number): void {
    const c = this.#c;
    this.#x[i] = c.x[i];
    this.#y[i] = c.y[i];
    this.#vx[i] = c.vx[i];
    this.#vy[i] = c.vy[i];
    this.#at[i] = now;
    if (c.health[i] < this.#health[i]) this.#hurtAt[i] = now;
    this.#health[i] = c.health[i];
  }

  /** Entity i is about to be removed (its Remove applied). */
  removed(i: number, now: number): void {
    const c = this.#c;
    const t = c.type[i];
    const kind = kindOf(t);
    if (kind !== Kind.Ship && kind !== Kind.Shot) return;
    const owner = c.owner[i];
    const slot = owner & 0xffff;
    if (kind === Kind.Ship && slot < MAX_PLAYERS && this.#ship[slot] === i) this.#ship[slot] = NONE;
    if (this.#at[i] < 0) return;
    const dt = (now - this.#at[i]) / 1000;
    const x = this.#x[i] + this.#vx[i] * dt;
    const y = this.#y[i] + this.#vy[i] * dt;
    const k = this.#rNext;
    this.#rNext = (k + 1) % REMOVED;
    this.#rType[k] = t;
    this.#rOwner[k] = owner;
    this.#rX[k] = x;
    this.#rY[k] = y;
    this.#rVx[k] = this.#vx[i];
    this.#rVy[k] = this.#vy[i];
    this.#rAt[k] = now;
    // A ship whose owner is still here died; one whose owner left goes with its owner.
    if (kind !== Kind.Ship || slot >= MAX_PLAYERS || c.present[slot] === 0 || c.playerIds[slot] !== owner) return;
    if (this.#dCount === PENDING) this.#decide(now, true);
    const d = this.#dCount++;
    this.#dVictim[d] = owner;
    this.#dType[d] = t;
    this.#dHealth[d] = this.#health[i];
    this.#dX[d] = x;
    this.#dY[d] = y;
    this.#dVx[d] = this.#vx[i];
    this.#dVy[d] = this.#vy[i];
    this.#dAt[d] = now;
  }

  /** Stats were applied (client.scores holds the new scores): score rises are kills; decide the deaths seen. */
  stats(now: number): void {
    const scores = this.#c.scores;
    for (let s = 0; s < MAX_PLAYERS; s++) {
      const n = scores[s];
      const old = this.#score[s];
      this.#score[s] = n;
      if (!this.#scored || n <= old) continue;
      const credit = this.#credit[s] + n - old;
      this.#credit[s] = credit > 255 ? 255 : credit;
      this.#creditAt[s] = now;
    }
    this.#scored = true;
    for (let s = 0; s < MAX_PLAYERS; s++) if (this.#credit[s] > 0 && now - this.#creditAt[s] > CREDIT_MS) this.#credit[s] = 0;
  }

  /**
   * Decide every death seen, with what is known now: the Client calls it at the end of each
   * datagram's reliable messages, so the projectiles removed in the same server tick (whose
   * Removes may follow the ship's in the datagram) are in.
   */
  settle(now: number): void {
    while (this.#dCount > 0) this.#decide(now, true);
  }

  /** Forget everything (a new connection). */
  reset(): void {
    this.#at.fill(NONE);
    this.#ship.fill(NONE);
    this.#rAt.fill(NONE);
    this.#dCount = 0;
    this.#credit.fill(0);
    this.#scored = false;
  }

  /**
   * Sets #miss: the closest approach over [t − LOOKBACK_MS, t] of a track at (x, y) moving
   * (vx, vy) at time t0 to the victim's (the oldest death, at its time t), less `reach`.
   */
  #approach(x: number, y: number, vx: number, vy: number, t0: number, reach: number): void {
    const d = 0;
    const t = this.#dAt[d];
    const dt = (t - t0) / 1000;
    const rx = x + vx * dt - this.#dX[d];
    const ry = y + vy * dt - this.#dY[d];
    const ux = vx - this.#dVx[d];
    const uy = vy - this.#dVy[d];
    const uu = ux * ux + uy * uy;
    let s = uu > 0 ? -(rx * ux + ry * uy) / uu : 0;
    const back = -LOOKBACK_MS / 1000;
    if (s > 0) s = 0;
    else if (s < back) s = back;
    const px = rx + ux * s;
    const py = ry + uy * s;
    this.#miss = Math.sqrt(px * px + py * py) - reach;
  }

  /**
   * Decide the oldest death and report it; false when it waits for an Update that tells a
   * ram from a shot (unless `force`).
   */
  #decide(now: number, force: boolean): boolean {
    const c = this.#c;
    const victim = this.#dVictim[0];
    const vslot = victim & 0xffff;
    const t = this.#dAt[0];
    const r = TEMPLATE_RADIUS[this.#dType[0]];
    // The best of each: the sun or a planet; a projectile removed with the ship; another ship.
    let env = Infinity;
    let envCause: number = KillCause.Unknown;
    let shot = Infinity;
    let shotOwner = 0;
    let shotType = 0;
    let ship = Infinity;
    let shipOwner = 0;
    let shipDied = false;
    for (let i = 0; i < c.entityCapacity; i++) {
      if (c.alive[i] === 0) continue;
      const tt = c.type[i];
      const k = kindOf(tt);
      if (k === Kind.Sun) this.#approach(0, 0, 0, 0, t, TEMPLATE_RADIUS[tt] + r);
      else if (this.#at[i] < 0 || (k !== Kind.Planet && k !== Kind.Ship)) continue;
      else this.#approach(this.#x[i], this.#y[i], this.#vx[i], this.#vy[i], this.#at[i], TEMPLATE_RADIUS[tt] + r);
      const miss = this.#miss;
      if (k === Kind.Ship) {
        const owner = c.owner[i];
        if (owner === victim || miss + this.#playerCost(owner, vslot) >= ship) continue;
        ship = miss + this.#playerCost(owner, vslot);
        shipOwner = owner;
        shipDied = false;
      } else if (miss < env) {
        env = miss;
        envCause = k === Kind.Sun ? KillCause.Sun : KillCause.Planet;
      }
    }
    for (let k = 0; k < REMOVED; k++) {
      const at = this.#rAt[k];
      const tt = this.#rType[k];
      if (at < 0 || at < t - SAME_TICK_MS || at > t + SAME_TICK_MS || tt >= TEMPLATE_COUNT) continue;
      const owner = this.#rOwner[k];
      const isShip = kindOf(tt) === Kind.Ship;
      if (isShip && owner === victim) continue;
      // One's own projectile is armed only after SHOT_ARM_STEPS: it is rarely what killed.
      const cost = owner === victim ? SHOT_HIT : this.#playerCost(owner, vslot);
      if (cost === Infinity) continue;
      this.#approach(this.#rX[k], this.#rY[k], this.#rVx[k], this.#rVy[k], at, TEMPLATE_RADIUS[tt] + r);
      const miss = this.#miss + cost;
      if (isShip && miss < ship) {
        ship = miss;
        shipOwner = owner;
        shipDied = true;
      } else if (!isShip && miss < shot) {
        shot = miss;
        shotOwner = owner;
        shotType = tt;
      }
    }
    let cause: number = KillCause.Unknown;
    let killer = -1;
    let weapon = -1;
    // A projectile removed with the ship and on its track dealt the last blow: a ram or the
    // sun in the same step would have left it nothing to hit. The sun kills on contact, first.
    const hurt = shipDied ? 1 : this.#hurt(shipOwner, t);
    if (env <= SUN_CONTACT && envCause === KillCause.Sun) cause = KillCause.Sun;
    else if (env <= PLANET_CONTACT && envCause === KillCause.Planet && hurt <= 0 && (shot > SHOT_HIT || shotOwner === victim)) {
      // Touching a planet, and no other ship known to be hurt, nor anyone's projectile on its track.
      cause = KillCause.Planet;
    } else if ((shot <= SHOT_HIT && shotOwner !== victim) || (shot <= FAR && shot <= ship && shot <= env)) {
      cause = KillCause.Shot;
      killer = shotOwner;
      weapon = shotType;
    } else if (ship <= FAR && ship <= env) {
      // Another ship next to it: a ram if that ship was hurt too (or died with it); else a
      // projectile fired and spent within one step, which no client ever sees.
      killer = shipOwner;
      if (hurt < 0 && !force && now - t < SETTLE_MS) return false;
      if (hurt > 0 || (hurt < 0 && ship <= RAM_CONTACT && this.#ramCould(shipOwner))) cause = KillCause.Ram;
      else {
        cause = KillCause.Shot;
        const ks = shipOwner & 0xffff;
        weapon = ks < MAX_PLAYERS ? SHOT_BASE + (c.weapon[ks] % SHOT_TYPES) : -1;
      }
    } else if (env <= FAR) cause = envCause;
    if (killer !== -1 && !this.#present(killer)) killer = -1;
    if (killer !== -1 && killer !== victim) {
      const ks = killer & 0xffff;
      if (this.#credit[ks] > 0) this.#credit[ks]--;
    }
    // Drop the oldest.
    const n = --this.#dCount;
    for (let d = 0; d < n; d++) {
      this.#dVictim[d] = this.#dVictim[d + 1];
      this.#dType[d] = this.#dType[d + 1];
      this.#dHealth[d] = this.#dHealth[d + 1];
      this.#dX[d] = this.#dX[d + 1];
      this.#dY[d] = this.#dY[d + 1];
      this.#dVx[d] = this.#dVx[d + 1];
      this.#dVy[d] = this.#dVy[d + 1];
      this.#dAt[d] = this.#dAt[d + 1];
    }
    this.reported[cause]++;
    const cb = c.onKill;
    if (cb !== null) cb(victim, killer, cause, weapon);
    return true;
  }

  /**
   * Whether player `id`'s ship lost health about time t (HURT_BEFORE_MS before it or since):
   * 1 yes, 0 no, -1 not known yet (no Update of it since t).
   */
  #hurt(id: number, t: number): number {
    const slot = id & 0xffff;
    if (slot >= MAX_PLAYERS) return 0;
    const j = this.#ship[slot];
    if (j < 0) return 0;
    if (this.#hurtAt[j] >= t - HURT_BEFORE_MS) return 1;
    return this.#at[j] >= t ? 0 : -1;
  }

  /**
   * Whether a ram by player `id`'s ship, closing on the victim as their tracks say, could
   * have dealt what the victim had left at its last Update (RAM_DAMAGE_BASE + the closing
   * speed × RAM_DAMAGE_FACTOR, against its hit points, less a weapon's smallest blow for
   * hits since). A ship touching it at a crawl fired a projectile we never saw.
   */
  #ramCould(id: number): boolean {
    const slot = id & 0xffff;
    const j = slot < MAX_PLAYERS ? this.#ship[slot] : NONE;
    if (j < 0 || this.#at[j] < 0) return true;
    const t = this.#dAt[0];
    const dt = (t - this.#at[j]) / 1000;
    const px = this.#x[j] + this.#vx[j] * dt - this.#dX[0];
    const py = this.#y[j] + this.#vy[j] * dt - this.#dY[0];
    const d = Math.sqrt(px * px + py * py);
    const closing = d > 0 ? -((this.#vx[j] - this.#dVx[0]) * px + (this.#vy[j] - this.#dVy[0]) * py) / d : 0;
    const hp = Math.ceil((this.#dHealth[0] * SHIP_HP[(this.#dType[0] - SHIP_BASE) % SHIP_TYPES]) / 100);
    const blow = closing > RAM_GENTLE ? RAM_DAMAGE_BASE + closing * RAM_DAMAGE_FACTOR : 0;
    return blow + WEAPON_DAMAGE[0] >= hp;
  }

  #present(id: number): boolean {
    const slot = id & 0xffff;
    return slot < MAX_PLAYERS && this.#c.present[slot] !== 0 && this.#c.playerIds[slot] === id;
  }

  /**
   * What a kill by player `id` costs, given the scores: a bonus when its score rose, nothing
   * for a player who has left (scoring nothing), and Infinity for one here whose score did not.
   */
  #playerCost(id: number, victimSlot: number): number {
    if (!this.#present(id)) return 0;
    const slot = id & 0xffff;
    if (slot === victimSlot) return 0;
    return this.#credit[slot] > 0 ? -CREDIT_BONUS : 0;
  }
}

/**
 * A line for a kill feed: "Ana destroyed Bo (pulse)", "Bo fell into the sun", "Bo rammed Cy"
 * (Bo the killer), "Bo crashed into a planet". `killerName` is null when nobody is named;
 * the victim's own name for its own projectile. Allocates (a string): for pages and tools.
 */
export function describeKill(victimName: string, killerName: string | null, cause: number, weaponName: string | null): string {
  const w = weaponName !== null && weaponName !== "" ? ` (${weaponName})` : "";
  switch (cause) {
    case KillCause.Shot:
      if (killerName === null) return `${victimName} was shot down${w}`;
      if (killerName === victimName) return `${victimName} was hit by their own ${weaponName ?? "shot"}`;
      return `${killerName} destroyed ${victimName}${w}`;
    case KillCause.Sun:
      return `${victimName} fell into the sun`;
    case KillCause.Planet:
      return `${victimName} crashed into a planet`;
    case KillCause.Ram:
      return killerName === null || killerName === victimName ? `${victimName} was rammed` : `${killerName} rammed ${victimName}`;
    case KillCause.Edge:
      return `${victimName} was lost at the edge`;
  }
  return killerName !== null && killerName !== victimName ? `${killerName} destroyed ${victimName}` : `${victimName} was destroyed`;
}
