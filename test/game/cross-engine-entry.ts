/**
 * Replays a recorded match (harness/trace.ts trace) through a fresh server and game and
 * reports the game's hash every `every` server ticks and at the end. Host-free: the cross-
 * engine test runs it on Node and, bundled into one script, on XS (lwxs), where a script
 * loaded before this one defines CROSS_TRACE (the trace's bytes as 32-bit words) and this
 * one prints `hashes H1,H2,...,Hend`.
 */
import { Replay, type CaseOptions } from "../../harness/trace";
import type { Server } from "../../modules/server/server";
import type { Game } from "../../modules/game/game";
import type { Kernels } from "../../modules/native";

/** Hashes of `game` after every `every`-th tick of `server`, and a function for the last one. */
export function hashEvery(server: Server, game: Game, every: number): { hashes: number[]; end(): number[] } {
  const hashes: number[] = [];
  let ticks = 0;
  const tick = server.tick;
  server.tick = function (now: number): void {
    tick.call(this, now);
    if (++ticks % every === 0) hashes.push(game.hash());
  };
  return {
    hashes,
    end(): number[] {
      return hashes.concat([game.hash()]);
    },
  };
}

/** The whole trace, warm-up and window, through a fresh server and game. */
export function replayHashes(o: CaseOptions, trace: Uint8Array, every: number): number[] {
  const r = new Replay(o, trace);
  const game = r.server.simulation as Game;
  const h = hashEvery(r.server, game, every);
  r.warm();
  r.walk(r.windowStart, 0x7fffffff, true, null, null);
  return h.end();
}

declare const xs: { args: string[]; kernels?: Kernels } | undefined;
declare const print: (s: string) => void;
declare const CROSS_TRACE: ArrayLike<number> | undefined;

if (typeof xs !== "undefined" && typeof CROSS_TRACE !== "undefined") {
  const o = JSON.parse(xs.args[0]) as CaseOptions;
  const words = new Int32Array(CROSS_TRACE.length);
  for (let i = 0; i < words.length; i++) words[i] = CROSS_TRACE[i];
  // "native": the server and game run the C loops lwxs carries, as on the device.
  if (xs.args[2] === "native") {
    if (xs.kernels === undefined) throw new Error("this lwxs has no xs.kernels: rebuild it (npm run build:xs)");
    (globalThis as { lwarKernels?: Kernels | null }).lwarKernels = xs.kernels;
  }
  print("hashes " + replayHashes(o, new Uint8Array(words.buffer), Number(xs.args[1])).join(","));
}
