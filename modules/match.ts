/**
 * Composition: a server, and optionally the game inside it. Both hosts, the tools, the
 * bench and the tests build a match here, so the wiring exists once.
 */
import type { Config } from "./config";
import type { Host } from "./host";
import { Game } from "./game/game";
import { createServer, type Server } from "./server/server";

export interface Match {
  server: Server;
  /** null when the match runs without the game (entities are then whatever the caller adds). */
  game: Game | null;
}

/**
 * Build the game into `server`: the sun and planets go into its entity table, the game
 * becomes the server's simulation and the focus of its update planner. Players already
 * connected are joined.
 */
export function createGame(config: Config, server: Server, seed: number): Game {
  // The host's native loops, if it has them, for the game's as for the server's.
  const game = new Game(config, server.entities, server, seed, server.host.kernels ?? null);
  server.attach(game, game);
  return game;
}

/** A server on `host`, with the game when `seed` is given. */
export function createMatch(config: Config, host: Host, seed: number | null): Match {
  const server = createServer(config, host);
  const game = seed === null ? null : createGame(config, server, seed);
  return { server, game };
}
