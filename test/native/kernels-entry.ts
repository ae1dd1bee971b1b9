/**
 * Replays a recorded match (harness/trace.ts trace) through a fresh server and reports a
 * hash of every datagram it sent, in order, with their count, and the world's hash. Host-free: the test runs it
 * on Node (the loops as WebAssembly) and, bundled, on XS (lwxs, the loops compiled in), where
 * a script loaded before this one defines NATIVE_TRACE and this one prints `sent COUNT HASH`.
 */
import { Replay, type CaseOptions } from "../../harness/trace";
import type { Kernels } from "../../modules/native";
import type { Game } from "../../modules/game/game";
import { makeConfig } from "../../modules/config";
import { createMatch } from "../../modules/match";
import { Random } from "../../modules/random";

export interface Sent {
  count: number;
  hash: number;
  /** The game's state hash at the end (0 without the game). */
  world: number;
}

/** The whole trace, warm-up and window, on the platform's native loops; every byte sent goes into an FNV-1a hash. */
export function replaySent(o: CaseOptions, trace: Uint8Array): Sent {
  const r = new Replay(o, trace);
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

if (typeof xs !== "undefined" && typeof NATIVE_TRACE !== "undefined" && xs.args[0] !== "receive") {
  const o = JSON.parse(xs.args[0]) as CaseOptions;
  const words = new Int32Array(NATIVE_TRACE.length);
  for (let i = 0; i < words.length; i++) words[i] = NATIVE_TRACE[i];
  if (xs.kernels === undefined) throw new Error("this lwxs has no xs.kernels: rebuild it (npm run build:xs)");
  const s = replaySent(o, new Uint8Array(words.buffer));
  print(`sent ${s.count} ${s.hash} ${s.world}`);
}

/**
 * Datagrams of the shapes the receive fast path takes (an ack alone, an ack and an Input),
 * valid and mutated (a byte changed, a length one off), from two players and a stranger,
 * into a server: the hash of its counters and the players' input bits after each.
 */
export function receiveStorm(seed: number, count: number): { hash: number; counters: Uint32Array } {
  const host = new QuietHost();
  const { server } = createMatch(makeConfig({ maxPlayers: 2 }), host, 1);
  // Two players: a Connect each, then their Join acknowledged.
  const connect = [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 101];
  const ports = [5001, 5002, 5003];
  for (let p = 0; p < 2; p++) server.receive(Uint8Array.from(connect), connect.length, "peer", ports[p]);
  // Their Join, Name and Selection (seqnos 0 to 2) go out: acks of those are good.
  server.tick(host.time);
  const rng = new Random(seed);
  const bytes = new Uint8Array(24);
  let hash = 0x811c9dc5;
  for (let k = 0; k < count; k++) {
    host.time += 3;
    const input = rng.below(2) === 0;
    let length = input ? 20 : 14;
    bytes.fill(0);
    bytes.set([0xf2, 0x70, 0x87, 0xc5]);
    // An ack at or just before the newest message the server sent to that port's player (so
    // the players keep acknowledging and are not dropped for stalling), now and then a
    // random one (past what was sent: a bad ack); the timestamp mostly rising.
    const pick = rng.below(3);
    const port = ports[pick];
    const ep = pick < 2 ? server.endpoints[pick] : null;
    const top = ep !== null ? (ep.firstSeq + ep.sentCount - 1) >>> 0 : 2;
    const ack = rng.below(400) === 0 ? rng.nextU32() : (top - rng.below(3)) >>> 0;
    bytes[4] = ack >>> 24;
    bytes[5] = ack >>> 16;
    bytes[6] = ack >>> 8;
    bytes[7] = ack;
    const ts = rng.below(8) === 0 ? rng.nextU32() : k * 3;
    bytes[8] = ts >>> 24;
    bytes[9] = ts >>> 16;
    bytes[10] = ts >>> 8;
    bytes[11] = ts;
    if (input) {
      bytes[13] = 1;
      bytes[14] = 203;
      for (let i = 15; i < 20; i++) bytes[i] = rng.below(3) === 0 ? rng.below(256) : 0;
    }
    const mutate = rng.below(4);
    // Any byte but the ack's (a bad ack is a strike: those come 1 in 400, above).
    if (mutate === 0) {
      const at = rng.below(length - 3);
      bytes[at < 4 ? at : at + 4] = rng.below(256);
    }
    else if (mutate === 1) length += rng.below(2) === 0 ? -1 : 1;
    server.receive(bytes.subarray(0, length), length, "peer", port);
    if (k % 7 === 0) server.tick(host.time);
    const c = server.counters;
    for (let i = 0; i < c.length; i++) hash = Math.imul(hash ^ c[i], 0x01000193);
    hash = Math.imul(hash ^ server.input[0] ^ (server.input[1] << 8), 0x01000193) >>> 0;
  }
  return { hash, counters: server.counters };
}

class QuietHost {
  time = 1000;
  send(_bytes: Uint8Array, _length: number, _address: string, _port: number): void {}
  now(): number {
    return this.time;
  }
  log(_event: number, _slot: number, _value: number): void {}
}

if (typeof xs !== "undefined" && xs.args[0] === "receive") {
  if (xs.kernels === undefined) throw new Error("this lwxs has no xs.kernels: rebuild it (npm run build:xs)");
  print(`receive ${receiveStorm(Number(xs.args[1]), Number(xs.args[2])).hash}`);
}
