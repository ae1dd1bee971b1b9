/**
 * The benchmark core. Host-free, so that the same code runs on XS (lwxs) and on Node.
 *
 * Method: record, then replay.
 * 1. `recordTrace` plays the busy match of harness/scenario.ts (clients, in-memory
 *    network, server) and records every call the server gets: each tick with its time,
 *    each datagram with its arrival time and sender. It also reports what the server sent
 *    to each client. This runs on Node, untimed.
 * 2. `Replay` drives a lone server (and game) through the trace with a host whose `send`
 *    does nothing, so only the server's own work is measured: no clients, no network copy.
 *    The replayed server ends with the same counters as the recorded one (same packets,
 *    same bytes), which the bench checks.
 * The timed part (the "window", after the mark) is walked twice: once without calling the
 * server ("dry": decoding the trace, copying each datagram into the receive buffer, reading
 * the clock) and once for real. The difference is the server's cost: time, and on XS the
 * emulated floating-point operations the engine counts (`xs.floatOps()`).
 */
import type { Config } from "../modules/config";
import type { Core } from "../modules/host";
import type { Server } from "../modules/server/server";
import type { Game } from "../modules/game/game";
import { Counter } from "../modules/protocol/counters";
import { Msg } from "../modules/protocol/constants";
import { HEADER_REL, HEADER_SIZE, HEADER_UNREL } from "../modules/transport/frame";
import {
  EndReason, HASH_EVERY_MS, Rec, RecordingReader, RecordWriter, encodeHeader, type RecordingHeader,
} from "../modules/recording/format";
import { Replayer, stateHash } from "../modules/recording/replay";
import { NO_PLAYER } from "../modules/game/entities";
import { Scenario } from "./scenario";
import { POS_SHIFT } from "../modules/units";

export interface CaseOptions {
  /** Connected clients, 1..8. */
  players: number;
  /** Entities added to the pool before the match, with the game off. They do not move. */
  entities: number;
  /** Attach the game: sun, planets, ships and projectiles (then `entities` must be 0). */
  game: boolean;
  /** Entity capacity (config.maxEntities). */
  capacity: number;
  /** Bots the server flies itself in the slots the clients leave (config.bots). */
  bots: number;
  seed: number;
  /** 10 ms steps before the window (connection, sync, the game filling up). */
  warmSteps: number;
  /** 10 ms steps in the window. */
  steps: number;
}

export const DEFAULT_CASE: Readonly<CaseOptions> = Object.freeze({
  players: 8,
  entities: 0,
  game: false,
  capacity: 192,
  bots: 0,
  seed: 1,
  warmSteps: 300,
  steps: 600,
});

export function configFor(o: CaseOptions): Partial<Config> {
  return { maxEntities: o.capacity, bots: o.bots };
}

// ------------------------------------------------------------------ recording

/*
 * A trace is a recording (modules/recording/format.ts, docs/recorder.md): the scenario's
 * config and seed in the header, then each tick and datagram the server got, a Hash record
 * every second, a Mark where the window starts, and End.
 */
const CLIENT_PORT = 40000;

class RecordingCore implements Core {
  readonly server: Server;
  readonly out: RecordWriter;
  readonly scenario: Scenario;
  #nextHash = HASH_EVERY_MS;
  constructor(scenario: Scenario, out: RecordWriter) {
    this.scenario = scenario;
    this.server = scenario.server;
    this.out = out;
  }
  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.out.datagram(this.scenario.net.now, bytes, length, address, port);
    this.server.receive(bytes, length, address, port);
  }
  tick(now: number): void {
    this.out.tick(now);
    this.server.tick(now);
    if (now >= this.#nextHash) {
      this.#nextHash += HASH_EVERY_MS;
      this.out.hash(stateHash(this.server.simulation as Game | null));
    }
  }
}

/** What the server sent and received in the window of the recorded match. */
export interface Traffic {
  /** Per client: UDP payload bytes and datagrams per second, server to client (mean over clients). */
  bytesPerSecond: number;
  packetsPerSecond: number;
  /** The busiest client's bytes per second. */
  maxBytesPerSecond: number;
  /** Datagrams per second the server received, all clients together. */
  packetsInPerSecond: number;
  /** Entities carried in Update messages, per client per second. */
  updateEntitiesPerSecond: number;
  /** Mean live entities. */
  liveEntities: number;
  /** Clients connected at the end, and kicks plus timeouts (0 in a healthy match). */
  connected: number;
  kicks: number;
  /** The server's totals at the end of the recording, for checking a replay. */
  packetsOut: number;
  bytesOut: number;
}

export interface Trace {
  bytes: Uint8Array;
  traffic: Traffic;
}

export function makeScenario(o: CaseOptions): Scenario {
  if (o.game && o.entities !== 0) throw new RangeError("static entities need the game off");
  return new Scenario({ players: o.players, entities: o.entities, game: o.game, seed: o.seed, social: true, config: configFor(o) });
}

/** Play the case on the in-memory network and record every call the server gets. */
export function recordTrace(o: CaseOptions): Trace {
  const s = makeScenario(o);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const header: RecordingHeader = { config: s.config, seed: o.game ? o.seed : null, start: 0, hashEveryMs: HASH_EVERY_MS, source: "bench", extra: { case: o } };
  const out = new RecordWriter({
    header: encodeHeader(header),
    start: 0,
    sink(bytes: Uint8Array, length: number): void {
      chunks.push(bytes.slice(0, length));
      size += length;
    },
  });
  s.serverHost.core = new RecordingCore(s, out);
  const sentBytes = new Float64Array(o.players);
  const sentPackets = new Float64Array(o.players);
  let counting = false;
  const host = s.serverHost;
  const send = host.send;
  host.send = function (bytes: Uint8Array, length: number, address: string, port: number): void {
    const i = port - CLIENT_PORT;
    if (counting && i >= 0 && i < o.players) {
      sentBytes[i] += length;
      sentPackets[i]++;
    }
    send.call(host, bytes, length, address, port);
  };
  for (let i = 0; i < o.warmSteps; i++) s.step();
  out.mark();
  const c = s.server.counters;
  const packetsIn0 = c[Counter.PacketsIn];
  const entities0 = c[Counter.UpdateEntitiesSent];
  let live = 0;
  counting = true;
  for (let i = 0; i < o.steps; i++) {
    s.step();
    live += s.server.entities.count;
  }
  counting = false;
  out.end(EndReason.Finished, s.net.now, stateHash(s.server.simulation as Game | null), c[Counter.PacketsOut], c[Counter.BytesOut]);
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  const seconds = o.steps / 100;
  let sent = 0;
  let packets = 0;
  let maxBytes = 0;
  for (let i = 0; i < o.players; i++) {
    sent += sentBytes[i];
    packets += sentPackets[i];
    if (sentBytes[i] > maxBytes) maxBytes = sentBytes[i];
  }
  // The clients still in the match (the server's own bots hold the other slots).
  const connected = s.server.playerCount() - s.server.botCount();
  return {
    bytes,
    traffic: {
      bytesPerSecond: sent / o.players / seconds,
      packetsPerSecond: packets / o.players / seconds,
      maxBytesPerSecond: maxBytes / seconds,
      packetsInPerSecond: (c[Counter.PacketsIn] - packetsIn0) / seconds,
      updateEntitiesPerSecond: (c[Counter.UpdateEntitiesSent] - entities0) / o.players / seconds,
      liveEntities: live / o.steps,
      connected,
      kicks: c[Counter.Kicks] + c[Counter.Timeouts],
      packetsOut: c[Counter.PacketsOut],
      bytesOut: c[Counter.BytesOut],
    },
  };
}

// ------------------------------------------------------------------ replaying

/**
 * A lone server (and game) driven by a trace, through the shared Replayer. Walks stop
 * before the Mark and before End; a walk starts where the last one ended, where the last
 * one started, at the window's start, or at 0 (the first record).
 */
export class Replay {
  readonly options: CaseOptions;
  readonly trace: Uint8Array;
  readonly replayer: Replayer;
  readonly server: Server;
  /** Offset of the first record after the mark. */
  readonly windowStart: number;
  /** Ticks in the window. */
  readonly windowTicks: number;
  readonly #windowTime: number;
  readonly #windowTicksBefore: number;
  #lastStart = -1;
  #lastTime = 0;
  #lastTicks = 0;

  constructor(o: CaseOptions, trace: Uint8Array) {
    this.options = o;
    this.trace = trace;
    const rp = new Replayer(trace);
    // The timed walks must not pay for hashing the world.
    rp.verify = false;
    this.replayer = rp;
    this.server = rp.server;
    // The same entities, in the same order, as Scenario adds them.
    for (let i = 0; i < o.entities; i++) this.server.entities.add(0, NO_PLAYER, ((i % 20) * 100 - 1000) << POS_SHIFT, (((i / 20) | 0) * 100 - 500) << POS_SHIFT);
    // Read the whole trace once without the server: find the mark, count the window's
    // ticks, and make the receive views for every datagram length up front.
    const r = rp.reader;
    let kind = 0;
    while ((kind = rp.step(false)) !== Rec.Mark && kind !== Rec.End);
    if (kind !== Rec.Mark) throw new RangeError("the trace has no mark");
    this.windowStart = r.pos;
    this.#windowTime = r.time;
    this.#windowTicksBefore = r.ticks;
    while (rp.step(false) !== Rec.End);
    this.windowTicks = r.ticks - this.#windowTicksBefore;
    r.seek(r.bodyStart, r.header.start, 0);
  }

  /**
   * Replay records from `p` up to `ticks` ticks (or the mark, or the end); with `live` false,
   * decode them without calling the server. When `stepEnds` is given, the clock is read
   * after every tick into it. Returns the offset reached.
   */
  walk(p: number, ticks: number, live: boolean, clock: (() => number) | null, stepEnds: Float64Array | null): number {
    const rp = this.replayer;
    const r = rp.reader;
    if (p === 0) p = r.bodyStart;
    if (p !== r.pos) {
      if (p === r.bodyStart) r.seek(p, r.header.start, 0);
      else if (p === this.windowStart) r.seek(p, this.#windowTime, this.#windowTicksBefore);
      else if (p === this.#lastStart) r.seek(p, this.#lastTime, this.#lastTicks);
      else throw new RangeError(`walk from ${p}: start where the last walk started or ended, at the window, or at 0`);
    }
    this.#lastStart = p;
    this.#lastTime = r.time;
    this.#lastTicks = r.ticks;
    const f = r.file;
    let done = 0;
    while (done < ticks) {
      const kind = f[r.pos];
      if (kind === Rec.Mark || kind === Rec.End) break;
      rp.step(live);
      if (kind === Rec.Tick) {
        if (stepEnds !== null && clock !== null) stepEnds[done] = clock();
        done++;
      }
    }
    return r.pos;
  }

  /** Replay everything before the mark. */
  warm(): void {
    this.walk(0, 0x7fffffff, true, null, null);
  }

  /**
   * The datagrams from `p` (the window's start, or 0) over `ticks` ticks: offset of each
   * Datagram record, in order.
   */
  datagrams(p: number, ticks: number): number[] {
    const r = new RecordingReader(this.trace);
    if (p === 0) p = r.bodyStart;
    while (r.pos < p) r.next();
    if (r.pos !== p) throw new RangeError(`no record starts at ${p}`);
    const found: number[] = [];
    const t0 = r.ticks;
    while (r.ticks - t0 < ticks) {
      const kind = r.file[r.pos];
      if (kind === Rec.End || kind === Rec.Mark) break;
      if (r.next() === Rec.Datagram) found.push(r.at);
    }
    return found;
  }

  /**
   * The typical client datagrams, without a list of them all (a device's heap has no room
   * for one): per client, its last datagram with unreliable messages in the `ticks` ticks
   * from `p`, kept when it is an ack + Input (see typicalDatagrams).
   */
  lastAckInputs(p: number, ticks: number): number[] {
    const r = new RecordingReader(this.trace);
    if (p === 0) p = r.bodyStart;
    while (r.pos < p) r.next();
    if (r.pos !== p) throw new RangeError(`no record starts at ${p}`);
    const last = new Int32Array(8).fill(-1);
    const t0 = r.ticks;
    while (r.ticks - t0 < ticks) {
      const kind = r.file[r.pos];
      if (kind === Rec.End || kind === Rec.Mark) break;
      if (r.next() !== Rec.Datagram) continue;
      const at = r.at;
      const d = this.datagramAt(at);
      if (d.client >= 0 && d.client < 8 && d.bytes[HEADER_UNREL] !== 0) last[d.client] = at;
    }
    const out: number[] = [];
    for (const at of last) if (at >= 0 && isAckInput(this.datagramAt(at).bytes)) out.push(at);
    return out;
  }

  /** The sender (its peer id, 0..7 for the clients) and bytes of the Datagram record at `p`. */
  datagramAt(p: number): { client: number; bytes: Uint8Array } {
    const r = this.replayer.reader;
    r.datagramAt(p);
    return { client: r.peer, bytes: this.trace.subarray(r.dataAt, r.dataAt + r.dataLength) };
  }

  /**
   * Receive the datagrams at `offsets` (Datagram records) `count` times in turn, at the current
   * time; with `live` false, only copy them into the receive buffer.
   */
  receiveAgain(offsets: readonly number[], count: number, live: boolean): void {
    const rp = this.replayer;
    const r = rp.reader;
    const t = this.trace;
    const server = this.server;
    const k = offsets.length;
    for (let i = 0; i < count; i++) {
      r.datagramAt(offsets[i % k]);
      const n = r.dataLength;
      const q = r.dataAt;
      const rx = rp.datagram(n);
      for (let j = 0; j < n; j++) rx[j] = t[q + j];
      if (live) server.receive(rx, n, r.address[r.peer], r.port[r.peer]);
    }
  }
}

// A client packet's header and its fields: modules/transport/frame.ts.
const HEADER_BYTES = HEADER_SIZE;
const INPUT_TYPE = Msg.Input;

/** An ack + Input: no reliable message, one unreliable, an Input. */
export function isAckInput(b: Uint8Array): boolean {
  return b.length > HEADER_BYTES && b[HEADER_REL] === 0 && b[HEADER_UNREL] === 1 && b[HEADER_BYTES] === INPUT_TYPE;
}

/**
 * What kind of datagram a client sent, for picking the typical one: its reliable and
 * unreliable message counts, the type of its first message and its length.
 */
export function datagramShape(b: Uint8Array): string {
  if (b.length < HEADER_BYTES) return `short, ${b.length} B`;
  const rel = b[HEADER_REL];
  const unrel = b[HEADER_UNREL];
  const first = b.length > HEADER_BYTES + (rel > 0 ? 4 : 0) ? b[HEADER_BYTES + (rel > 0 ? 4 : 0)] : -1;
  const what = rel === 0 && unrel === 1 && first === INPUT_TYPE ? "ack + Input" : rel + unrel === 0 ? "ack only" : `first message type ${first}`;
  return `${what}: ${rel} reliable, ${unrel} unreliable, ${b.length} B`;
}

/** A step costing more than this many times the 99th percentile (and over the floor, ms) is an outlier. */
const OUTLIER_FACTOR = 3;
const OUTLIER_FLOOR_MS = 1;

export interface TimeResult {
  /** Server time per 10 ms step, µs: mean over the window less outliers, median, 99th percentile, worst. */
  meanUs: number;
  /** Steps left out of the mean: over 3 × the 99th percentile and over 1 ms. */
  outliers: number;
  medianUs: number;
  p99Us: number;
  maxUs: number;
  /** The dry walk's mean per step, µs. */
  dryUs: number;
  /**
   * The dry walk's own cost of each step, ms, in window order: each step's real cost less
   * its own dry cost is the server's (above), so a step whose trace holds more to walk is
   * counted exactly, not with the mean taken off.
   */
  dryStepMs: Float64Array;
  ticks: number;
  /**
   * Emulated floating-point operations of the server per step over the window (real walk
   * less dry walk, exact), or null where the engine does not count them (Node).
   */
  floatOpsPerTick: number | null;
  /** The replayed server's totals, to compare with the recording. */
  packetsOut: number;
  bytesOut: number;
}

function sortPrefix(a: Float64Array, n: number): void {
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

function stepCosts(start: number, ends: Float64Array, n: number, out: Float64Array): void {
  let prev = start;
  for (let i = 0; i < n; i++) {
    out[i] = ends[i] - prev;
    prev = ends[i];
  }
}

/**
 * Warm the server, then time the window: a dry walk, then the real one. `clock` is in ms.
 * With `rehearse`, a throwaway server is first replayed through the whole trace, so that
 * a JIT has compiled the server's code before the timed one starts. With `floatOps` (XS's
 * counter of emulated floating-point operations), the counter is read around the last dry
 * walk and around the real one: their difference is the server's own.
 */
export function timeReplay(o: CaseOptions, trace: Uint8Array, clock: () => number, rehearse = false, floatOps: (() => number) | null = null): TimeResult {
  if (rehearse) {
    const t = new Replay(o, trace);
    t.warm();
    t.walk(t.windowStart, t.windowTicks, true, null, null);
  }
  const r = new Replay(o, trace);
  r.warm();
  const n = r.windowTicks;
  const ends = new Float64Array(n);
  const dry = new Float64Array(n);
  const real = new Float64Array(n);
  const dryBest = new Float64Array(n);
  // The dry walk four times; the least of the last three counts (the first warms its code,
  // and a pause of the engine in one of them must not be taken off the server's time).
  // Each step's own dry cost in that walk is taken off that step.
  let dryMean = Infinity;
  let dryOps = 0;
  for (let k = 0; k < 4; k++) {
    const f0 = floatOps !== null ? floatOps() : 0;
    const t0 = clock();
    r.walk(r.windowStart, n, false, clock, ends);
    if (floatOps !== null) dryOps = floatOps() - f0;
    stepCosts(t0, ends, n, dry);
    let dryTotal = 0;
    for (let i = 0; i < n; i++) dryTotal += dry[i];
    if (k > 0 && dryTotal / n < dryMean) {
      dryMean = dryTotal / n;
      dryBest.set(dry);
    }
  }
  const f0 = floatOps !== null ? floatOps() : 0;
  const t0 = clock();
  r.walk(r.windowStart, n, true, clock, ends);
  const realOps = floatOps !== null ? floatOps() - f0 : 0;
  stepCosts(t0, ends, n, real);
  for (let i = 0; i < n; i++) real[i] -= dryBest[i];
  sortPrefix(real, n);
  // Steps far above the 99th percentile are the machine's doing (the process was preempted,
  // or the engine paused): left out of the mean, and counted.
  const p99 = real[Math.min(n - 1, Math.floor(n * 0.99))];
  let total = 0;
  let kept = 0;
  for (let i = 0; i < n; i++) {
    if (real[i] > OUTLIER_FACTOR * p99 && real[i] > OUTLIER_FLOOR_MS) continue;
    total += real[i];
    kept++;
  }
  const c = r.server.counters;
  return {
    meanUs: (total / kept) * 1000,
    outliers: n - kept,
    medianUs: real[n >> 1] * 1000,
    p99Us: p99 * 1000,
    maxUs: real[n - 1] * 1000,
    dryUs: dryMean * 1000,
    dryStepMs: dryBest,
    ticks: n,
    floatOpsPerTick: floatOps !== null ? (realOps - dryOps) / n : null,
    packetsOut: c[Counter.PacketsOut],
    bytesOut: c[Counter.BytesOut],
  };
}

export interface CountResult {
  /** Steps counted: the first ones of the window. */
  ticks: number;
  /** Per counted step: the server's emulated floating-point operations (real less dry), or null without a counter. */
  stepFloatOps: number[] | null;
  /** The typical client datagram, replayed into the warm server after the counted steps. */
  receive: {
    /** Its shape (`datagramShape`), and the share of the counted steps' datagrams that are an ack + Input. */
    shape: string;
    share: number;
    /** The most common shape in the counted steps, and its share. */
    mostCommon: { shape: string; share: number };
    /** Datagrams replayed (each bracket), and how many distinct ones (one per client) were cycled through. */
    datagrams: number;
    distinct: number;
    /** The server's emulated floating-point operations per datagram, or null without a counter. */
    floatOpsPerDatagram: number | null;
  };
}

/**
 * The typical client datagram: an ack + Input. Per client, its last one in the `n` steps
 * from the window's start, if nothing after it carried unreliable messages: replayed, its
 * timestamp is then still the newest, so its Input is applied, and its ack acknowledges
 * nothing new. Also the shapes of all the datagrams in those steps.
 */
function typicalDatagrams(r: Replay, n: number): { seen: number[]; typical: number; common: string; most: number; last: number[]; shape: string } {
  const seen = r.datagrams(r.windowStart, n);
  const shapes = new Map<string, number>();
  let typical = 0;
  for (const p of seen) {
    const b = r.datagramAt(p).bytes;
    const shape = datagramShape(b);
    shapes.set(shape, (shapes.get(shape) ?? 0) + 1);
    if (isAckInput(b)) typical++;
  }
  let common = "";
  let most = 0;
  for (const [shape, count] of shapes) {
    if (count > most) {
      common = shape;
      most = count;
    }
  }
  const last: number[] = [];
  let shape = "";
  for (let client = 0; client < 8; client++) {
    for (let i = seen.length - 1; i >= 0; i--) {
      const d = r.datagramAt(seen[i]);
      if (d.client !== client || d.bytes[HEADER_UNREL] === 0) continue;
      if (isAckInput(d.bytes)) {
        last.push(seen[i]);
        shape = datagramShape(d.bytes);
      }
      break;
    }
  }
  if (last.length === 0) throw new Error("no client's last datagram with unreliable messages is an ack + Input");

  return { seen, typical, common, most, last, shape };
}

/**
 * On a device: with `r` warmed and its window of `n` steps walked, the typical client
 * datagram received `datagrams` times dry and then for real, timed with `clock` (ms); µs
 * per datagram is the difference over `datagrams`. The same brackets as countReplay's
 * second part; the least of three pairs counts (the first warms the code).
 */
export function timeReceive(r: Replay, n: number, clock: () => number, datagrams: number): { usPerDatagram: number; shape: string; distinct: number } {
  const last = r.lastAckInputs(r.windowStart, n);
  if (last.length === 0) throw new Error("no client's last datagram with unreliable messages is an ack + Input");
  const shape = datagramShape(r.datagramAt(last[0]).bytes);
  const c = r.server.counters;
  const before = c[Counter.PacketsIn];
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const t0 = clock();
    r.receiveAgain(last, datagrams, false);
    const t1 = clock();
    r.receiveAgain(last, datagrams, true);
    const t2 = clock();
    const d = (t2 - t1 - (t1 - t0)) * 1000;
    if (d < best) best = d;
  }
  if (c[Counter.PacketsIn] - before !== 3 * datagrams) throw new Error("the replayed datagrams were not all received");
  return { usPerDatagram: best / datagrams, shape, distinct: last.length };
}

/**
 * For instruction counts under callgrind, with collection and a dump tied to
 * `Array.prototype.some` (`--toggle-collect` and `--dump-after`): every call of it is one
 * segment, counted exactly and on its own. Nothing else calls it. After warming the server:
 *
 * 1. each of the first `ticks` steps of the window, walked dry and then for real from the
 *    same place: two segments per step, whose difference is the step's server instructions;
 * 2. the typical client datagram (an ack + Input: the header, whose ack field acknowledges
 *    the server's reliable messages, and one Input), `datagrams` times dry, then
 *    `datagrams` times for real into the server as the steps left it: two segments whose
 *    difference, divided by `datagrams`, is the instructions of receiving one.
 *
 * A step is the datagrams received since the previous tick, then the tick, as in the timing.
 * Dry and real segments go through the same closure, so they differ only in the server's
 * calls. `floatOps`, where given, is read between segments (outside them).
 */
export function countReplay(o: CaseOptions, trace: Uint8Array, ticks: number, datagrams: number, floatOps: (() => number) | null = null): CountResult {
  const r = new Replay(o, trace);
  r.warm();
  const n = ticks < r.windowTicks ? ticks : r.windowTicks;
  const { seen, typical, common, most, last, shape } = typicalDatagrams(r, n);
  const one = [0];
  let live = false;
  let at = r.windowStart;
  let reached = 0;
  const step = (): boolean => {
    reached = r.walk(at, 1, live, null, null);
    return false;
  };
  const stepFloatOps: number[] | null = floatOps !== null ? [] : null;
  for (let i = 0; i < n; i++) {
    live = false;
    const f0 = floatOps !== null ? floatOps() : 0;
    one.some(step);
    const f1 = floatOps !== null ? floatOps() : 0;
    live = true;
    one.some(step);
    const f2 = floatOps !== null ? floatOps() : 0;
    if (stepFloatOps !== null) stepFloatOps.push(f2 - f1 - (f1 - f0));
    at = reached;
  }

  const c = r.server.counters;
  const before = [c[Counter.PacketsIn], c[Counter.StaleUnreliable], c[Counter.BadAck], c[Counter.UnknownPeer], c[Counter.Kicks]];
  const receive = (): boolean => {
    r.receiveAgain(last, datagrams, live);
    return false;
  };
  live = false;
  const g0 = floatOps !== null ? floatOps() : 0;
  one.some(receive);
  const g1 = floatOps !== null ? floatOps() : 0;
  live = true;
  one.some(receive);
  const g2 = floatOps !== null ? floatOps() : 0;
  const after = [c[Counter.PacketsIn], c[Counter.StaleUnreliable], c[Counter.BadAck], c[Counter.UnknownPeer], c[Counter.Kicks]];
  if (after[0] - before[0] !== datagrams || after[1] !== before[1] || after[2] !== before[2] || after[3] !== before[3] || after[4] !== before[4])
    throw new Error(`the replayed datagrams did not all take the normal path: packets in, stale, bad ack, unknown peer, kicks ${before.join(",")} -> ${after.join(",")}`);
  return {
    ticks: n,
    stepFloatOps,
    receive: {
      shape,
      share: typical / seen.length,
      mostCommon: { shape: common, share: most / seen.length },
      datagrams,
      distinct: last.length,
      floatOpsPerDatagram: floatOps !== null ? (g2 - g1 - (g1 - g0)) / datagrams : null,
    },
  };
}

/** Bytes of a trace as 32-bit words (little-endian, zero-padded), for a script literal. */
export function traceWords(bytes: Uint8Array): Int32Array {
  const words = new Int32Array(Math.ceil(bytes.length / 4) + 1);
  new Uint8Array(words.buffer).set(bytes);
  return words;
}
