/**
 * The lwar server alone in lwxs, on a real UDP socket, for the memory budget
 * (tools/budget.ts bundles it and drives bots at it from Node).
 *
 * It prints, as `heap <label> <slots> <chunk bytes>` lines, the heap net of the base
 * (the engine, the globals and the loaded code: flash on the device):
 *   code   what the modules' top level left (classes, frozen tables), collected
 *   host   after this script's host object and receive buffer were made
 *   start  after createServer and createGame, collected
 *   peak   the most in use during the match, read after every receive and tick
 *          (garbage not yet collected included)
 *   end    after the match, collected
 * and the lines `port N` (once listening), `players N` (most seen at once),
 * `garbage <slots> <chunk bytes>` (what one device-style receive allocates; see below),
 * `gcms T` (one full collection, ms), `datagrams N`, `collections N` (during the match)
 * and `seconds S` (of the match).
 * The measurements run from the loop, once the script's own top level has returned,
 * so that nothing only its frame referenced is counted.
 *
 * Arguments (after `--`): mode, seed, players to wait for, deadline in seconds, and
 * optionally config overrides as JSON (`npm run budget -- --set ...`).
 *   quiet   datagrams go straight into the server's buffer: the server's own heap
 *   device  each datagram first becomes what ECMA-419 `read()` returns on the device
 *           (a fresh ArrayBuffer with `address` and `port`) and the Uint8Array that
 *           hosts/moddable/host.ts wraps around it: the per-datagram garbage of the device
 */
import { makeConfig, type Config } from "../../modules/config";
import type { Host } from "../../modules/host";
import { createServer, type Server } from "../../modules/server/server";
import { createGame } from "../../modules/match";
import type { Lwxs, LwxsPrint } from "../xs/lwxs";

declare const xs: Lwxs;
declare const print: LwxsPrint;

class LwxsHost implements Host {
  readonly #t0: number;
  events = 0;
  constructor() {
    this.#t0 = xs.now();
  }
  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    xs.udpSend(bytes, length, address, port);
  }
  now(): number {
    return xs.now() - this.#t0;
  }
  log(_event: number, _slot: number, _value: number): void {
    this.events++;
  }
}

interface DevicePacket extends ArrayBuffer {
  address?: string;
  port?: number;
}

/** What the device's receive path allocates for one datagram (see the header). */
function devicePacket(rx: Uint8Array, length: number, address: string, port: number): Uint8Array {
  const packet: DevicePacket = new ArrayBuffer(length);
  packet.address = address.substring(0);
  packet.port = port;
  const bytes = new Uint8Array(packet);
  for (let i = 0; i < length; i++) bytes[i] = rx[i];
  return bytes;
}

const mode = xs.args[0] ?? "quiet";
const seed = Number(xs.args[1] ?? 1);
const wanted = Number(xs.args[2] ?? 8);
const deadlineS = Number(xs.args[3] ?? 60);
const overrides = JSON.parse(xs.args[4] ?? "{}") as Partial<Config>;
const device = mode === "device";

let server: Server | null = null;
let host: LwxsHost | null = null;
let rx: Uint8Array = new Uint8Array(0);
let most = 0;
let started = -1;
let finished = false;
let datagrams = 0;
let peakSlots = 0;
let peakChunks = 0;
let collections0 = 0;
let begin = 0;

function sample(): void {
  const slots = xs.slotsUsed();
  const chunks = xs.chunksUsed();
  if (slots > peakSlots) peakSlots = slots;
  if (chunks > peakChunks) peakChunks = chunks;
}

function receive(length: number, address: string, port: number): void {
  if (server === null) return;
  datagrams++;
  if (device) server.receive(devicePacket(rx, length, address, port), length, address, port);
  else server.receive(rx, length, address, port);
  sample();
}

function setUp(): void {
  xs.gc();
  print("heap code", xs.slotsUsed() - xs.baseSlots, xs.chunksUsed() - xs.baseChunks);
  host = new LwxsHost();
  rx = new Uint8Array(1500);
  xs.gc();
  print("heap host", xs.slotsUsed() - xs.baseSlots, xs.chunksUsed() - xs.baseChunks);
  const config = makeConfig(overrides);
  // The native loops, as the device runs them (their bindings are part of the budget).
  const native = { kernels: xs.kernels ?? null };
  server = createServer(config, host, native);
  createGame(config, server, seed, native);
  xs.gc();
  print("heap start", xs.slotsUsed() - xs.baseSlots, xs.chunksUsed() - xs.baseChunks);
  // One device-style receive, measured on its own.
  const s0 = xs.slotsUsed();
  const c0 = xs.chunksUsed();
  devicePacket(rx, 40, "127.0.0.1", 40000);
  const s1 = xs.slotsUsed();
  const c1 = xs.chunksUsed();
  print("garbage", s1 - s0, c1 - c0);
  // What one full collection of this heap costs here.
  const g0 = xs.now();
  xs.gc();
  print("gcms", (xs.now() - g0).toFixed(3));
  peakSlots = xs.slotsUsed();
  peakChunks = xs.chunksUsed();
  collections0 = xs.collections();
  begin = xs.now();
  print("port", xs.udpOpen(0, rx, receive));
}

function finish(code: number): void {
  if (finished) return;
  finished = true;
  const seconds = (xs.now() - (started >= 0 ? started : begin)) / 1000;
  const collections = xs.collections() - collections0;
  xs.udpClose();
  xs.run(null);
  print("heap peak", peakSlots - xs.baseSlots, peakChunks - xs.baseChunks);
  xs.gc();
  print("heap end", xs.slotsUsed() - xs.baseSlots, xs.chunksUsed() - xs.baseChunks);
  print("players", most);
  print("datagrams", datagrams);
  print("collections", collections);
  print("seconds", seconds.toFixed(2));
  xs.stop(code);
}

function tick(): void {
  if (server === null || host === null) return setUp();
  server.tick(host.now());
  sample();
  const n = server.playerCount();
  if (n > most) most = n;
  if (started < 0 && n > 0) started = xs.now();
  // Everybody came and everybody left: the match is over.
  if (most >= wanted && n === 0) finish(0);
  else if (xs.now() - begin > deadlineS * 1000) finish(most >= wanted ? 0 : 1);
}

xs.run(tick, 10);
