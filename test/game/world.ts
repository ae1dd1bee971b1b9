/**
 * A game on its own entity table, without a server: for stepping the world directly.
 * Tests speak in world units (wu), wu/s and radians; the table holds the fixed-point units
 * of modules/units.ts, and these helpers convert.
 */
import { makeConfig, type Config } from "../../modules/config";
import { MAX_PLAYERS } from "../../modules/protocol/constants";
import { EntityTable } from "../../modules/game/entities";
import { Game, type GamePlayers } from "../../modules/game/game";
import type { Kernels, NativeOptions } from "../../modules/native";
import { nativeU8, testNative } from "../helpers/native";
import { fromRadians, fromWu, fromWuPerSecond, toRadians, toWu, toWuPerSecond } from "../../modules/units";

export interface World {
  config: Config;
  entities: EntityTable;
  players: GamePlayers & { input: Uint8Array; ship: Uint8Array; weapon: Uint8Array; selected: Uint8Array; scores: Uint16Array };
  game: Game;
  /** The native loops the game runs, and their memory. */
  native: NativeOptions;
}

/** `kernels`: the native loops to run (absent: the platform's, test/helpers/native.ts). */
export function makeWorld(overrides?: Partial<Config>, seed = 1, kernels: Kernels | null = null): World {
  const config = makeConfig(overrides);
  const native = kernels !== null ? { kernels } : testNative(overrides);
  const entities = new EntityTable(config.maxEntities, native.memory ?? null);
  const n = config.maxPlayers;
  // In the loops' memory, and in one buffer, as the server's: the game's step reads the input and the selection.
  const read = nativeU8(native, 2 * n);
  const players = {
    input: read.subarray(0, n), ship: new Uint8Array(n), weapon: new Uint8Array(n), selected: read.subarray(n),
    scores: new Uint16Array(MAX_PLAYERS),
  };
  const game = new Game(config, entities, players, seed, native);
  return { config, entities, players, game, native };
}

/** The id the server would give the first player in `slot`. */
export function playerIdOf(slot: number, generation = 1): number {
  return ((generation << 16) | slot) >>> 0;
}

/**
 * Join `slot` and step until its ship is in; returns the ship's index. The new ship's
 * guard (spawn.ts) is dropped unless `guarded`: most tests are about other rules.
 */
export function joinAndSpawn(w: World, slot: number, guarded = false): number {
  w.game.playerJoined(slot, playerIdOf(slot));
  for (let k = 0; k < 100 && w.game.focusIndex[slot] < 0; k++) w.game.step();
  if (w.game.focusIndex[slot] < 0) throw new Error(`slot ${slot} did not spawn`);
  if (!guarded) w.game.guardUntil[slot] = 0;
  return w.game.focusIndex[slot];
}

/** What the server does when a player leaves. */
export function leave(w: World, slot: number): void {
  const id = w.game.playerId[slot];
  w.game.playerLeft(slot, id);
  w.entities.removeOwnedBy(id);
}

/**
 * Put entity `i` at (x, y) wu moving (vx, vy) wu/s, heading `rot` radians if given, as if
 * it had been there since the last step.
 */
export function place(w: World, i: number, x: number, y: number, vx = 0, vy = 0, rot?: number): void {
  const e = w.entities;
  e.x[i] = fromWu(x);
  e.y[i] = fromWu(y);
  e.vx[i] = fromWuPerSecond(vx);
  e.vy[i] = fromWuPerSecond(vy);
  if (rot !== undefined) e.rot[i] = fromRadians(rot);
  w.game.moved(i);
}

export function steps(w: World, n: number): void {
  for (let k = 0; k < n; k++) w.game.step();
}

/** Indices of live entities of a template. */
export function ofType(w: World, type: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < w.entities.capacity; i++) if (w.entities.alive[i] !== 0 && w.entities.type[i] === type) out.push(i);
  return out;
}

/** Position (wu), velocity (wu/s) and heading (radians) of entity `i`. */
export function xOf(w: World, i: number): number {
  return toWu(w.entities.x[i]);
}
export function yOf(w: World, i: number): number {
  return toWu(w.entities.y[i]);
}
export function vxOf(w: World, i: number): number {
  return toWuPerSecond(w.entities.vx[i]);
}
export function vyOf(w: World, i: number): number {
  return toWuPerSecond(w.entities.vy[i]);
}
export function rotOf(w: World, i: number): number {
  return toRadians(w.entities.rot[i]);
}

/** Speed of entity `i`, wu/s. */
export function speed(w: World, i: number): number {
  return Math.hypot(vxOf(w, i), vyOf(w, i));
}

/** Distance of entity `i` from the sun, wu. */
export function radiusOf(w: World, i: number): number {
  return Math.hypot(xOf(w, i), yOf(w, i));
}
