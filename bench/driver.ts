/**
 * The benchmark core, host-free so that the same code runs on XS (lwxs) and on Node.
 *
 * `runCase` plays the busy match of test/helpers/scenario.ts and times only the server:
 * the server's place on the in-memory network is taken by a `TimedCore` that reads the
 * clock around each `server.receive` and `server.tick`. Clients, the network and the
 * driver itself run outside the timed sections.
 *
 * `recordTrace` and `replayTrace` serve the instruction counts: a trace holds every call
 * the server received in a match (tick times, datagrams with their arrival times), so a
 * lone server can be driven through exactly the same work with no clients in the process.
 */
import { makeConfig, type Config } from "../modules/config";
import type { Core, Host } from "../modules/host";
import { createServer, type Server } from "../modules/server/server";
import { createGame } from "../modules/game/game";
import { C } from "../modules/protocol/counters";
import { NO_PLAYER } from "../modules/protocol/constants";
import { Scenario } from "../test/helpers/scenario";

export interface CaseOptions {
  /** Connected clients, 1..8. */
  players: number;
  /** Entities added to the pool before the match, when the game is off. They do not move. */
  entities: number;
  /** Attach the game: sun, planets, ships and projectiles (then `entities` must be 0). */
  game: boolean;
  /** Entity capacity (config.maxEntities). */
  capacity: number;
  seed: number;
  /** 10 ms steps before timing starts (connection, sync, the game filling up). */
  warmSteps: number;
  /** 10 ms steps timed. */
  steps: number;
}

export interface CaseResult {
  /** Mean server time per 10 ms step, µs, less the clock's own cost. */
  meanUs: number;
  /** Median, 99th percentile and worst step, µs (same correction). */
  medianUs: number;
  p99Us: number;
  maxUs: number;
  /** The clock's cost per timed section, µs (already subtracted above). */
  clockUs: number;
  /** Timed sections per step (one tick plus the datagrams received). */
  sectionsPerStep: number;
  /** Mean live entities over the timed steps. */
  liveEntities: number;
  /** Per client, over the timed steps: UDP payload bytes and datagrams per second, server to client. */
  bytesPerSecond: number;
  packetsPerSecond: number;
  /** The busiest client's bytes per second. */
  maxBytesPerSecond: number;
  /** Datagrams per second the server received (all clients). */
  packetsInPerSecond: number;
  /** Entities in Update messages per client per second. */
  updateEntitiesPerSecond: number;
  /** Counters that should stay 0; non-zero means the match was not healthy. */
  kicks: number;
  connected: number;
}

export const DEFAULT_CASE: CaseOptions = Object.freeze({
  players: 8,
  entities: 0,
  game: false,
  capacity: 192,
  seed: 1,
  warmSteps: 400,
  steps: 1000,
});

export function configFor(o: CaseOptions): Partial<Config> {
  return { maxEntities: o.capacity };
}

/** The server's seat on the network: times each call into the real server. */
class TimedCore implements Core {
  readonly server: Server;
  readonly clock: () => number;
  /** Time spent in the server since the last `take()`, ms, and the calls. */
  spent = 0;
  sections = 0;
  on = false;
  constructor(server: Server, clock: () => number) {
    this.server = server;
    this.clock = clock;
  }
  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    if (!this.on) return this.server.receive(bytes, length, address, port);
    const t0 = this.clock();
    this.server.receive(bytes, length, address, port);
    this.spent += this.clock() - t0;
    this.sections++;
  }
  tick(now: number): void {
    if (!this.on) return this.server.tick(now);
    const t0 = this.clock();
    this.server.tick(now);
    this.spent += this.clock() - t0;
    this.sections++;
  }
}

/** Counts what the server sends to each client port. */
class SendCounter {
  readonly bytes: Float64Array;
  readonly packets: Float64Array;
  constructor(players: number) {
    this.bytes = new Float64Array(players);
    this.packets = new Float64Array(players);
  }
  count(length: number, port: number): void {
    const i = port - 40000;
    if (i >= 0 && i < this.bytes.length) {
      this.bytes[i] += length;
      this.packets[i]++;
    }
  }
}

/** The clock's cost per timed section, ms: the same two reads and one subtraction. */
function clockCost(clock: () => number): number {
  const n = 20000;
  let spent = 0;
  for (let i = 0; i < n; i++) {
    const t0 = clock();
    spent += clock() - t0;
  }
  return spent / n;
}

export function makeScenario(o: CaseOptions): Scenario {
  if (o.game && o.entities !== 0) throw new RangeError("static entities need the game off");
  return new Scenario({ players: o.players, entities: o.entities, game: o.game, seed: o.seed, social: true, config: configFor(o) });
}

function sortNumbers(a: Float64Array, n: number): void {
  // insertion sort would be O(n²) on 1000+ values; a simple heap-free shell sort is enough
  for (let gap = n >> 1; gap > 0; gap >>= 1) {
    for (let i = gap; i < n; i++) {
      const v = a[i];
      let j = i;
      while (j >= gap && a[j - gap] > v) {
        a[j] = a[j - gap];
        j -= gap;
      }
      a[j] = v;
    }
  }
}

/** Play one case and time the server. `clock` returns milliseconds. */
export function runCase(o: CaseOptions, clock: () => number): CaseResult {
  const s = makeScenario(o);
  const core = new TimedCore(s.server, clock);
  s.serverHost.core = core;
  const sends = new SendCounter(o.players);
  const host = s.serverHost;
  const send = host.send;
  host.send = function (bytes: Uint8Array, length: number, address: string, port: number): void {
    sends.count(length, port);
    send.call(host, bytes, length, address, port);
  };
  const perStep = new Float64Array(o.steps);
  for (let i = 0; i < o.warmSteps; i++) s.step();
  const clockMs = clockCost(clock);

  const counters = s.server.counters;
  const packetsIn0 = counters[C.PacketsIn];
  const entities0 = counters[C.UpdateEntitiesSent];
  for (let i = 0; i < o.players; i++) {
    sends.bytes[i] = 0;
    sends.packets[i] = 0;
  }
  let live = 0;
  let sections = 0;
  core.on = true;
  for (let i = 0; i < o.steps; i++) {
    core.spent = 0;
    core.sections = 0;
    s.step();
    perStep[i] = core.spent - core.sections * clockMs;
    sections += core.sections;
    live += s.server.entities.count;
  }
  core.on = false;

  let total = 0;
  for (let i = 0; i < o.steps; i++) total += perStep[i];
  sortNumbers(perStep, o.steps);
  const seconds = (o.steps * 10) / 1000;
  let bytes = 0;
  let packets = 0;
  let maxBytes = 0;
  for (let i = 0; i < o.players; i++) {
    bytes += sends.bytes[i];
    packets += sends.packets[i];
    if (sends.bytes[i] > maxBytes) maxBytes = sends.bytes[i];
  }
  let connected = 0;
  for (let i = 0; i < o.players; i++) if (s.server.active[i] !== 0) connected++;
  return {
    meanUs: (total / o.steps) * 1000,
    medianUs: perStep[o.steps >> 1] * 1000,
    p99Us: perStep[Math.min(o.steps - 1, Math.floor(o.steps * 0.99))] * 1000,
    maxUs: perStep[o.steps - 1] * 1000,
    clockUs: clockMs * 1000,
    sectionsPerStep: sections / o.steps,
    liveEntities: live / o.steps,
    bytesPerSecond: bytes / o.players / seconds,
    packetsPerSecond: packets / o.players / seconds,
    maxBytesPerSecond: maxBytes / seconds,
    packetsInPerSecond: (counters[C.PacketsIn] - packetsIn0) / seconds,
    updateEntitiesPerSecond: (counters[C.UpdateEntitiesSent] - entities0) / o.players / seconds,
    kicks: counters[C.Kicks] + counters[C.Timeouts],
    connected,
  };
}

// ------------------------------------------------------------------ traces

/*
 * Trace format, little-endian bytes:
 *   1, time f64                                   tick(time)
 *   2, time f64, client u8, length u16, bytes     receive(bytes, length, client address, client port) at time
 *   3                                             the timed part starts here
 *   0                                             end (padding may follow)
 */
const TICK = 1;
const RECEIVE = 2;
const MARK = 3;

class TraceWriter {
  bytes: Uint8Array;
  length = 0;
  readonly #f64 = new Float64Array(1);
  readonly #b64 = new Uint8Array(this.#f64.buffer);
  constructor() {
    this.bytes = new Uint8Array(1 << 16);
  }
  #room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const grown = new Uint8Array(this.bytes.length * 2 + n);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
  }
  byte(v: number): void {
    this.#room(1);
    this.bytes[this.length++] = v;
  }
  time(t: number): void {
    this.#room(8);
    this.#f64[0] = t;
    for (let i = 0; i < 8; i++) this.bytes[this.length++] = this.#b64[i];
  }
  data(b: Uint8Array, n: number): void {
    this.#room(n + 2);
    this.bytes[this.length++] = n & 0xff;
    this.bytes[this.length++] = n >> 8;
    for (let i = 0; i < n; i++) this.bytes[this.length++] = b[i];
  }
}

class RecordingCore implements Core {
  readonly server: Server;
  readonly out: TraceWriter;
  readonly now: () => number;
  constructor(server: Server, out: TraceWriter, now: () => number) {
    this.server = server;
    this.out = out;
    this.now = now;
  }
  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.out.byte(RECEIVE);
    this.out.time(this.now());
    this.out.byte(port - 40000);
    this.out.data(bytes, length);
    this.server.receive(bytes, length, address, port);
  }
  tick(now: number): void {
    this.out.byte(TICK);
    this.out.time(now);
    this.server.tick(now);
  }
}

export interface Trace {
  bytes: Uint8Array;
  /** Server counters (packetsOut, bytesOut, packetsIn) at the end, to check a replay against. */
  packetsOut: number;
  bytesOut: number;
  packetsIn: number;
}

/** Play the case (untimed) and record every call the server gets. */
export function recordTrace(o: CaseOptions): Trace {
  const s = makeScenario(o);
  const out = new TraceWriter();
  const net = s.net;
  s.serverHost.core = new RecordingCore(s.server, out, () => net.now);
  for (let i = 0; i < o.warmSteps; i++) s.step();
  out.byte(MARK);
  for (let i = 0; i < o.steps; i++) s.step();
  const c = s.server.counters;
  return { bytes: out.bytes.slice(0, out.length), packetsOut: c[C.PacketsOut], bytesOut: c[C.BytesOut], packetsIn: c[C.PacketsIn] };
}

class ReplayHost implements Host {
  time = 0;
  sent = 0;
  send(_bytes: Uint8Array, _length: number, _address: string, _port: number): void {
    this.sent++;
  }
  now(): number {
    return this.time;
  }
  log(_event: number, _slot: number, _value: number): void {}
}

const ADDRESSES = Object.freeze(["mem:client0", "mem:client1", "mem:client2", "mem:client3", "mem:client4", "mem:client5", "mem:client6", "mem:client7"]);

export interface ReplayResult {
  ticks: number;
  receives: number;
  packetsOut: number;
  bytesOut: number;
  packetsIn: number;
}

/**
 * Drive a lone server (and game) through a trace recorded for the same case. With `timed`
 * false the calls after the mark are skipped, so that two runs differ only by the
 * server's work in the timed part.
 */
export function replayTrace(o: CaseOptions, trace: Uint8Array, timed: boolean): ReplayResult {
  const host = new ReplayHost();
  const server = createServer(makeConfig(configFor(o)), host);
  if (o.game) createGame(server.config, server, o.seed);
  for (let i = 0; i < o.entities; i++) server.entities.add(0, NO_PLAYER, (i % 20) * 100 - 1000, ((i / 20) | 0) * 100 - 500);
  const f64 = new Float64Array(1);
  const b64 = new Uint8Array(f64.buffer);
  const rx = new Uint8Array(2048);
  let p = 0;
  let live = true;
  let ticks = 0;
  let receives = 0;
  while (p < trace.length) {
    const kind = trace[p++];
    if (kind === 0) break;
    if (kind === MARK) {
      live = timed;
      continue;
    }
    for (let i = 0; i < 8; i++) b64[i] = trace[p++];
    host.time = f64[0];
    if (kind === TICK) {
      if (live) server.tick(host.time);
      ticks++;
      continue;
    }
    const client = trace[p++];
    const n = trace[p] | (trace[p + 1] << 8);
    p += 2;
    for (let i = 0; i < n; i++) rx[i] = trace[p + i];
    p += n;
    if (live) server.receive(rx, n, ADDRESSES[client], 40000 + client);
    receives++;
  }
  const c = server.counters;
  return { ticks, receives, packetsOut: c[C.PacketsOut], bytesOut: c[C.BytesOut], packetsIn: c[C.PacketsIn] };
}

/** Ticks after the mark, i.e. the steps a replay times. */
export function ticksAfterMark(trace: Uint8Array): number {
  let p = 0;
  let after = false;
  let ticks = 0;
  while (p < trace.length) {
    const kind = trace[p++];
    if (kind === 0) break;
    if (kind === MARK) {
      after = true;
      continue;
    }
    p += 8;
    if (kind === TICK) {
      if (after) ticks++;
      continue;
    }
    p++;
    const n = trace[p] | (trace[p + 1] << 8);
    p += 2 + n;
  }
  return ticks;
}
