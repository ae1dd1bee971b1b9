/** A game on its own entity table, without a server: for stepping the world directly. */
import { makeConfig, type Config } from "../../modules/config";
import { MAX_PLAYERS } from "../../modules/protocol/constants";
import { EntityTable } from "../../modules/game/entities";
import { Game, type GamePlayers } from "../../modules/game/game";

export interface World {
  config: Config;
  entities: EntityTable;
  players: GamePlayers & { input: Uint8Array; ship: Uint8Array; weapon: Uint8Array; scores: Uint16Array };
  game: Game;
}

export function makeWorld(overrides?: Partial<Config>, seed = 1): World {
  const config = makeConfig(overrides);
  const entities = new EntityTable(config.maxEntities);
  const n = config.maxPlayers;
  const players = { input: new Uint8Array(n), ship: new Uint8Array(n), weapon: new Uint8Array(n), scores: new Uint16Array(MAX_PLAYERS) };
  const game = new Game(config, entities, players, seed);
  return { config, entities, players, game };
}

/** The id the server would give the first player in `slot`. */
export function playerIdOf(slot: number, generation = 1): number {
  return ((generation << 16) | slot) >>> 0;
}

/** Join `slot` and step until its ship is in; returns the ship's index. */
export function joinAndSpawn(w: World, slot: number): number {
  w.game.playerJoined(slot, playerIdOf(slot));
  for (let k = 0; k < 100 && w.game.focusIndex[slot] < 0; k++) w.game.step();
  if (w.game.focusIndex[slot] < 0) throw new Error(`slot ${slot} did not spawn`);
  return w.game.focusIndex[slot];
}

/** What the server does when a player leaves. */
export function leave(w: World, slot: number): void {
  const id = w.game.playerId[slot];
  w.game.playerLeft(slot, id);
  w.entities.removeOwnedBy(id);
}

/** Put entity `i` somewhere, as if it had been there since the last step. */
export function place(w: World, i: number, x: number, y: number, vx = 0, vy = 0, rot?: number): void {
  const e = w.entities;
  e.x[i] = x;
  e.y[i] = y;
  e.vx[i] = vx;
  e.vy[i] = vy;
  if (rot !== undefined) e.rot[i] = rot;
  w.game.prevX[i] = e.x[i];
  w.game.prevY[i] = e.y[i];
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

export function speed(w: World, i: number): number {
  return Math.hypot(w.entities.vx[i], w.entities.vy[i]);
}
