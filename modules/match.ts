/**
 * Composition: a server, and optionally the game inside it. Both hosts, the tools, the
 * bench and the tests build a match here, so the wiring exists once.
 */
import type { Config } from "./config";
import type { Host } from "./host";
import { type NativeOptions, platformNative } from "./native";
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
 * connected are joined. `native`: the platform's native loops for the game (modules/native.ts);
 * absent, the server's, whose memory the game's arrays must share.
 */
export function createGame(config: Config, server: Server, seed: number, native: NativeOptions | null = server.native): Game {
  const game = new Game(config, server.entities, server, seed, native);
  server.attach(game, game);
  return game;
}

/**
 * A server on `host`, with the game when `seed` is given. `native`: the platform's native
 * loops (modules/native.ts), for the server's and the game's; absent, the platform's
 * (`platformNative`: WebAssembly on Node, when its host installed it).
 */
export function createMatch(config: Config, host: Host, seed: number | null, native: NativeOptions | null = platformNative(config)): Match {
  const server = createServer(config, host, native);
  const game = seed === null ? null : createGame(config, server, seed, native);
  return { server, game };
}
