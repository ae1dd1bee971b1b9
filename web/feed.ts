/**
 * The kill feed and what the death screen says, from the client's kill reports
 * (victim, killer, cause, weapon: player ids, killer -1 for none, a KillCause, the
 * projectile's template id or -1). `listenKills` is the one place that knows where the
 * reports come from.
 */
import type { Client } from "../modules/client/client";
import {
  ARENA_RADIUS, Kind, kindOf, SHOT_BASE, SHOT_TYPES, TEMPLATE_RADIUS, WEAPON_NAME,
} from "../modules/game/templates";
import { MAX_PLAYERS } from "../modules/protocol/constants";
import type { World } from "./world";

export const KillCause = Object.freeze({ Unknown: 0, Shot: 1, Sun: 2, Planet: 3, Ram: 4, Edge: 5 } as const);

/** "Ana destroyed Bo (pulse)", "Bo flew into the sun", ... */
export function describeKill(victim: string, killer: string | null, cause: number, weapon: string | null): string {
  if (killer !== null && killer !== victim) {
    if (cause === KillCause.Ram) return `${killer} rammed ${victim}`;
    return weapon !== null ? `${killer} destroyed ${victim} (${weapon})` : `${killer} destroyed ${victim}`;
  }
  switch (cause) {
    case KillCause.Sun:
      return `${victim} flew into the sun`;
    case KillCause.Planet:
      return `${victim} crashed into a planet`;
    case KillCause.Edge:
      return `${victim} was lost at the edge`;
    case KillCause.Shot:
      return `${victim} was destroyed by their own shot`;
  }
  return `${victim} was destroyed`;
}

export type KillHandler = (victim: number, killer: number, cause: number, weapon: number) => void;

/** A line of the feed. */
export interface FeedLine {
  text: string;
  at: number;
  /** Our own kill, or our own death. */
  mine: boolean;
}

export const FEED_LINES = 5;
export const FEED_MS = 6000;

/** The weapon's name for a projectile template id, null for none. */
export function weaponName(template: number): string | null {
  const w = template - SHOT_BASE;
  return template >= 0 && w >= 0 && w < SHOT_TYPES ? WEAPON_NAME[w] : null;
}

/** What the death screen says of our last death, without the countdown. */
export function deathText(world: World, killer: number, cause: number, weapon: number): string {
  const c = world.client;
  const w = weaponName(weapon);
  const ks = killer & 0xffff;
  if (killer !== -1 && killer !== c.selfId && ks < MAX_PLAYERS) {
    const name = world.nameOf(ks);
    if (cause === KillCause.Ram) return `Rammed by ${name}`;
    return w !== null ? `Destroyed by ${name} (${w})` : `Destroyed by ${name}`;
  }
  switch (cause) {
    case KillCause.Sun:
      return "You flew into the sun";
    case KillCause.Planet:
      return "You crashed into a planet";
    case KillCause.Edge:
      return "Lost at the edge";
    case KillCause.Shot:
      return "Destroyed by your own shot";
  }
  return "Destroyed";
}

export class KillFeed {
  readonly lines: FeedLine[] = [];
  /** Bumped with each line; the page redraws the feed when it changes. */
  version = 0;
  /** What the death screen says of our last death, "" until one is reported. */
  death = "";
  kills = 0;

  /** A kill report for `world`'s match. */
  report(world: World, victim: number, killer: number, cause: number, weapon: number, now: number): void {
    const c = world.client;
    const vs = victim & 0xffff;
    if (vs >= MAX_PLAYERS) return;
    const self = c.selfId;
    const ownKill = killer !== -1 && killer === self && victim !== self;
    const ownDeath = victim === self;
    const ks = killer & 0xffff;
    const killerName = killer === -1 || ks >= MAX_PLAYERS ? null : ownKill ? "You" : world.nameOf(ks);
    const text = describeKill(world.nameOf(vs), killerName, cause, weaponName(weapon));
    this.lines.push({ text, at: now, mine: ownKill || ownDeath });
    if (this.lines.length > FEED_LINES) this.lines.shift();
    this.version++;
    this.kills++;
    if (ownDeath) this.death = deathText(world, killer, cause, weapon);
  }

  /** Drop lines older than FEED_MS; true when some went. */
  expire(now: number): boolean {
    let n = 0;
    for (const l of this.lines) if (now - l.at < FEED_MS) this.lines[n++] = l;
    if (n === this.lines.length) return false;
    this.lines.length = n;
    this.version++;
    return true;
  }
}

/**
 * Send `world`'s kill reports to `handler`. Rev 1 says nothing of who killed whom, so the
 * reports are worked out from what it does say; until the client library does it, this
 * does, in `KillGuess`.
 */
export function listenKills(client: Client, world: World, handler: KillHandler): KillGuess {
  return new KillGuess(client, world, handler);
}

/** How long after a ship vanished a killer's score may still rise (Stats every 500 ms). */
const SCORE_WAIT_MS = 1200;

/**
 * Kills worked out from Rev 1: a ship that vanished while its player stays died. The
 * player whose score rises within SCORE_WAIT_MS killed it, with its weapon's projectile;
 * without one, where it died says how: in the sun, on a planet, at the edge.
 */
export class KillGuess {
  readonly #client: Client;
  readonly #world: World;
  readonly #handler: KillHandler;
  readonly #ship = new Int32Array(MAX_PLAYERS).fill(-1);
  readonly #shipId = new Uint32Array(MAX_PLAYERS);
  readonly #scores = new Uint16Array(MAX_PLAYERS);
  /** Deaths waiting for a score to rise: victim id, when, where. */
  readonly #pending: { victim: number; slot: number; at: number; x: number; y: number; scores: Uint16Array }[] = [];

  constructor(client: Client, world: World, handler: KillHandler) {
    this.#client = client;
    this.#world = world;
    this.#handler = handler;
  }

  /** Look for deaths and settle waiting ones; the page calls it every frame. */
  tick(now: number): void {
    const c = this.#client;
    const w = this.#world;
    for (let s = 0; s < MAX_PLAYERS; s++) {
      const i = this.#ship[s];
      if (i >= 0 && (c.alive[i] === 0 || c.entityId[i] !== this.#shipId[s])) {
        this.#ship[s] = -1;
        if (c.present[s] !== 0) {
          const p = w.lastPose(i);
          this.#pending.push({ victim: c.playerIds[s], slot: s, at: now, x: p.x, y: p.y, scores: this.#scores.slice() });
        }
      }
    }
    for (const i of w.live) {
      if (kindOf(c.type[i]) !== Kind.Ship || w.placed[i] === 0) continue;
      const s = c.owner[i] & 0xffff;
      if (s < MAX_PLAYERS && this.#ship[s] !== i) {
        this.#ship[s] = i;
        this.#shipId[s] = c.entityId[i];
      }
    }
    while (this.#pending.length > 0) {
      const d = this.#pending[0];
      let killer = -1;
      for (let s = 0; s < MAX_PLAYERS; s++) if (s !== d.slot && c.present[s] !== 0 && c.scores[s] > d.scores[s]) killer = s;
      if (killer < 0 && now - d.at < SCORE_WAIT_MS) break;
      this.#pending.shift();
      if (killer >= 0) {
        for (let s = 0; s < MAX_PLAYERS; s++) if (d.scores[s] < c.scores[s]) d.scores[s]++;
        this.#handler(d.victim, c.playerIds[killer], KillCause.Shot, SHOT_BASE + (c.weapon[killer] % SHOT_TYPES));
      } else this.#handler(d.victim, -1, placeCause(c, w, d.x, d.y), -1);
    }
    for (let s = 0; s < MAX_PLAYERS; s++) this.#scores[s] = c.scores[s];
  }
}

/** How a ship that died at x, y with nobody to blame died. */
function placeCause(c: Client, w: World, x: number, y: number): number {
  if (Math.hypot(x, y) >= ARENA_RADIUS - 60) return KillCause.Edge;
  for (const i of w.live) {
    const kind = kindOf(c.type[i]);
    if ((kind !== Kind.Sun && kind !== Kind.Planet) || w.placed[i] === 0) continue;
    const p = w.lastPose(i);
    if (Math.hypot(p.x - x, p.y - y) <= TEMPLATE_RADIUS[c.type[i]] + 80) return kind === Kind.Sun ? KillCause.Sun : KillCause.Planet;
  }
  return KillCause.Unknown;
}
