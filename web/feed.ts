/**
 * The kill feed and what the death screen says, from the client's kill reports
 * (victim, killer, cause, weapon: player ids, killer -1 for none, a KillCause, the
 * projectile's template id or -1), as the client library infers them.
 */
import { describeKill, KillCause, type Client, type KillListener } from "../modules/client/client";
import { SHOT_BASE, SHOT_TYPES, WEAPON_NAME } from "../modules/game/templates";
import { MAX_PLAYERS } from "../modules/protocol/constants";
import type { World } from "./world";

export { describeKill, KillCause };

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
      return "You fell into the sun";
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
  /** Kills and deaths seen, by player id (the wire has neither: inferred from the kill reports). */
  readonly #kills = new Map<number, number>();
  readonly #deaths = new Map<number, number>();

  killsOf(id: number): number {
    return this.#kills.get(id >>> 0) ?? 0;
  }

  deathsOf(id: number): number {
    return this.#deaths.get(id >>> 0) ?? 0;
  }

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
    this.#deaths.set(victim >>> 0, this.deathsOf(victim) + 1);
    if (killer !== -1 && killer !== victim) this.#kills.set(killer >>> 0, this.killsOf(killer) + 1);
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

/** Send `client`'s kill reports (modules/client/kills.ts works them out) to `handler`. */
export function listenKills(client: Client, handler: KillListener): void {
  client.onKill = handler;
}
