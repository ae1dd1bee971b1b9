/**
 * Replays a recorded match (bench/driver.ts trace) through a fresh server and reports a
 * hash of every datagram it sent, in order, with their count, and the world's hash. Host-free: the test runs it
 * on Node and, bundled, on XS (lwxs) with the native loops and without, where a script
 * loaded before this one defines NATIVE_TRACE and this one prints `sent COUNT HASH`.
 */
import { Replay, type CaseOptions } from "../../bench/driver";
import type { Kernels } from "../../modules/native";
import type { Game } from "../../modules/game/game";

export interface Sent {
  count: number;
  hash: number;
  /** The game's state hash at the end (0 without the game). */
  world: number;
}

/** The whole trace, warm-up and window; every byte sent goes into an FNV-1a hash. */
export function replaySent(o: CaseOptions, trace: Uint8Array, kernels: Kernels | null): Sent {
  (globalThis as { lwarKernels?: Kernels | null }).lwarKernels = kernels;
  const r = new Replay(o, trace);
  (globalThis as { lwarKernels?: Kernels | null }).lwarKernels = null;
  const sent: Sent = { count: 0, hash: 0x811c9dc5, world: 0 };
  const host = (r.server as unknown as { host: { send(bytes: Uint8Array, length: number): void } }).host;
  host.send = function (bytes: Uint8Array, length: number): void {
    let h = sent.hash;
    for (let i = 0; i < length; i++) h = Math.imul(h ^ bytes[i], 0x01000193);
    // The length too, so that a packet boundary moved is a different hash.
    sent.hash = Math.imul(h ^ length, 0x01000193) >>> 0;
    sent.count++;
  };
  r.warm();
  r.walk(r.windowStart, 0x7fffffff, true, null, null);
  const game = r.server.simulation as Game | null;
  sent.world = game !== null ? game.hash() : 0;
  return sent;
}

declare const xs: { args: string[]; kernels?: Kernels } | undefined;
declare const print: (s: string) => void;
declare const NATIVE_TRACE: ArrayLike<number> | undefined;

if (typeof xs !== "undefined" && typeof NATIVE_TRACE !== "undefined") {
  const o = JSON.parse(xs.args[0]) as CaseOptions;
  const words = new Int32Array(NATIVE_TRACE.length);
  for (let i = 0; i < words.length; i++) words[i] = NATIVE_TRACE[i];
  const kernels = xs.args[1] === "native" ? (xs.kernels ?? null) : null;
  if (xs.args[1] === "native" && kernels === null) throw new Error("this lwxs has no xs.kernels: rebuild it (npm run build:xs)");
  const s = replaySent(o, new Uint8Array(words.buffer), kernels);
  print(`sent ${s.count} ${s.hash} ${s.world}`);
}
