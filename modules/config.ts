import { MAX_PLAYERS } from "./protocol/constants";

/**
 * Every capacity and rate of the server, in one place. All pools are sized from
 * this object at start-up; nothing grows afterwards.
 */
export interface Config {
  /** Player slots, 1..8. */
  maxPlayers: number;
  /** Bytes of encoded reliable messages a peer may have unacknowledged. */
  reliableQueueBytes: number;
  /** Entity pool capacity (ships, sun, planets, projectiles). */
  maxEntities: number;
  /** Number of ship and weapon templates; Selection values must be below these. */
  shipTypes: number;
  weaponTypes: number;
  /** A peer silent this long is dropped. */
  timeoutMs: number;
  /** Update period (~15 Hz) and Stats period (~2 Hz). */
  updateIntervalMs: number;
  statsIntervalMs: number;
  /** Unacked reliable messages are resent at least this often when nothing else is sent. */
  resendIntervalMs: number;
  /** Misbehaviour events (spoofed ids, invalid names or selections, bad acks) before a kick. */
  misbehaviourLimit: number;
  /** Cap on Update packets sent to one client in one update tick. */
  maxUpdatePacketsPerTick: number;
  /** Planets orbiting the sun (the game places them from its seed). */
  planets: number;
  /**
   * Bots the server flies itself: up to this many empty slots are filled with them, and a
   * bot gives its slot up when a human finds the server full. 0..maxPlayers.
   */
  bots: number;
  /**
   * How well those bots fly: an index into BOT_SKILLS (0 easy, 1 normal, 2 hard). They
   * react, aim and pick their fights by it (modules/server/pilots.ts, docs/game.md).
   */
  botSkill: number;
}

/** The bots' skill levels, by Config.botSkill; the command line and the board's settings take these names. */
export const BOT_SKILLS: readonly string[] = Object.freeze(["easy", "normal", "hard"]);

export const defaultConfig: Readonly<Config> = Object.freeze({
  maxPlayers: MAX_PLAYERS,
  reliableQueueBytes: 2048,
  maxEntities: 192,
  shipTypes: 3,
  weaponTypes: 3,
  timeoutMs: 15000,
  updateIntervalMs: 66,
  statsIntervalMs: 500,
  resendIntervalMs: 100,
  misbehaviourLimit: 16,
  maxUpdatePacketsPerTick: 3,
  planets: 6,
  bots: 0,
  botSkill: 1,
});

export class ConfigError extends RangeError {
  // A field, not an assignment: on XS, Error.prototype is frozen after preload and
  // assigning an inherited read-only `name` would throw.
  override name = "ConfigError";
}

function checkInt(name: string, value: number, min: number, max: number): void {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`config.${name} must be an integer in ${min}..${max}, got ${value}`);
}

/** Merge `overrides` onto the defaults and check every field. Throws ConfigError. */
export function makeConfig(overrides?: Partial<Config>): Config {
  const c: Config = Object.assign({}, defaultConfig, overrides);
  checkInt("maxPlayers", c.maxPlayers, 1, MAX_PLAYERS);
  checkInt("reliableQueueBytes", c.reliableQueueBytes, 512, 65535);
  checkInt("maxEntities", c.maxEntities, 1, 65535);
  checkInt("shipTypes", c.shipTypes, 1, 255);
  checkInt("weaponTypes", c.weaponTypes, 1, 255);
  checkInt("timeoutMs", c.timeoutMs, 100, 3600000);
  checkInt("updateIntervalMs", c.updateIntervalMs, 1, 10000);
  checkInt("statsIntervalMs", c.statsIntervalMs, 1, 60000);
  checkInt("resendIntervalMs", c.resendIntervalMs, 1, 10000);
  checkInt("misbehaviourLimit", c.misbehaviourLimit, 1, 1000000);
  checkInt("maxUpdatePacketsPerTick", c.maxUpdatePacketsPerTick, 1, 64);
  checkInt("planets", c.planets, 0, 8);
  checkInt("bots", c.bots, 0, c.maxPlayers);
  checkInt("botSkill", c.botSkill, 0, BOT_SKILLS.length - 1);
  return c;
}
