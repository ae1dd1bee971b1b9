/**
 * The device bench: replays a recorded busy match (harness/trace.ts, by default the bench's
 * "game, capacity 192" case at 8 players) through a lone server and game on this device,
 * and prints what each 10 ms tick cost, the heaviest steps, the XS heap, and a one-line
 * summary to paste into an issue.
 *
 * The recording comes in the resource replay.dat (`npm run bench:device:trace` writes it).
 * The timing is timeReplay's, as in `npm run bench`: the window is walked dry, then for
 * real, and the difference is the server's cost. Clock: Time.microseconds where the build
 * has it (ESP32), a monotonic microsecond clock of ours on the Linux simulator, else
 * Time.ticks (whole milliseconds: then only the mean means much).
 */
import Resource from "Resource";
import Time from "time";
import Timer from "timer";
import Instrumentation from "instrumentation";
import Debug from "debug";
import config from "mc/config";
import { Replay, timeReceive, timeReplay, type TimeResult } from "../../harness/trace";
import { type BroadcastCost, timeBroadcast } from "../../harness/broadcast";
import { Counter } from "../../modules/protocol/counters";
import { TRACE_RESOURCE, decodeTraceFile, type TraceHeader } from "./tracefile";
import { StepRecorder } from "./steps";
import nativeMicroseconds, { windowClose, windowOpen } from "./clock";
import { commit, game, mark, name, notify, pack, plan, ship, sync, transport } from "../../hosts/moddable/kernels";
import type { Kernels } from "../../modules/native";
import { type BoardReceive, timeBoardReceive, useBoardNames } from "./board-receive";

declare function trace(...items: (string | number | boolean)[]): void;

const STEP_US = 10000;
const HEAVIEST = 8;

function say(line: string): void {
  trace(line, "\n");
}

/** Typical client datagrams replayed for the receive figure (each bracket). */
const RECEIVE_DATAGRAMS = 2000;

interface Clock {
  name: string;
  /** Milliseconds, for timeReplay. */
  now: () => number;
  /** Smallest step seen between two readings, µs. */
  resolutionUs: number;
}

function resolution(now: () => number): number {
  let best = Infinity;
  for (let k = 0; k < 5; k++) {
    const a = now();
    let b = now();
    for (let i = 0; i < 100000 && b === a; i++) b = now();
    if (b > a && (b - a) * 1000 < best) best = (b - a) * 1000;
  }
  return best;
}

function pickClock(): Clock {
  let now: () => number;
  let name: string;
  if (typeof Time.microseconds === "number") {
    now = () => (Time.microseconds as number) / 1000;
    name = "Time.microseconds";
  } else if (typeof nativeMicroseconds() === "number") {
    now = () => (nativeMicroseconds() as number) / 1000;
    name = "clock_gettime (monotonic)";
  } else {
    now = () => Time.ticks;
    name = "Time.ticks";
  }
  return { name, now, resolutionUs: resolution(now) };
}

interface Heap {
  chunk: number | undefined;
  slot: number | undefined;
  systemFree: number | undefined;
}

function instrument(name: "XS Chunk Heap Used" | "XS Slot Heap Used" | "System Free Memory"): number | undefined {
  const i = Instrumentation.map(name);
  return i === undefined ? undefined : Instrumentation.get(i);
}

function heap(): Heap {
  return {
    chunk: instrument("XS Chunk Heap Used"),
    slot: instrument("XS Slot Heap Used"),
    systemFree: instrument("System Free Memory"),
  };
}

function kib(n: number | undefined): string {
  return n === undefined ? "?" : `${(n / 1024).toFixed(1)} KiB`;
}

function us(n: number): string {
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function pad(s: string | number, width: number): string {
  const t = String(s);
  return t.length >= width ? t : " ".repeat(width - t.length) + t;
}

function median(values: number[]): number {
  const v = values.slice().sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/** Timed runs: config "runs" (mcconfig `runs=5`), 1 by default. */
function runCount(): number {
  const n = Number(config.runs ?? 1);
  return Number.isInteger(n) && n >= 1 && n <= 99 ? n : 1;
}

function platformName(): string {
  const p = config.benchPlatform;
  return typeof p === "string" && p !== "" ? p : "unknown platform";
}

interface Activity {
  inPkts: Uint16Array;
  outPkts: Uint16Array;
  updates: Uint16Array;
  stats: Uint16Array;
  /** Reliable messages received (Chat, Name, Selection, Connect, Disconnect) and sent (Add, Remove, the session's) for the first time. */
  relIn: Uint16Array;
  relOut: Uint16Array;
  entities: Uint16Array;
  /** The heap after a collection just before this replay's server was made, and with it (and its game) live at the end of the window. */
  before: Heap;
  live: Heap;
  /** The typical client datagram's receive cost, timed after the window (driver.timeReceive). */
  receive: { usPerDatagram: number; shape: string; distinct: number };
  /** The same datagrams (and bare acks) through the board's own path: net.c's ring, the host's drain, server.received; null off ESP32. */
  board: BoardReceive | null;
  /** A chat, a rename and a selection from each player, sent on to every player, against a bare ack from each (harness/broadcast.ts). */
  broadcast: BroadcastCost;
}

/** What each window step did (datagrams received, packets and Updates sent), from an untimed replay. */
function stepActivity(o: TraceHeader["options"], bytes: Uint8Array, n: number, clock: Clock): Activity {
  const inPkts = new Uint16Array(n);
  const outPkts = new Uint16Array(n);
  const updates = new Uint16Array(n);
  const stats = new Uint16Array(n);
  const relIn = new Uint16Array(n);
  const relOut = new Uint16Array(n);
  const entities = new Uint16Array(n);
  Debug.gc();
  const before = heap();
  const r = new Replay(o, bytes);
  useBoardNames(r);
  r.warm();
  const c = r.server.counters;
  let p = r.windowStart;
  // The cycle model counts this walk (esp32.ts --cycles): the server's steps and the walk of
  // the trace that feeds them, all XS code of the same kind.
  windowOpen();
  for (let i = 0; i < n; i++) {
    const in0 = c[Counter.PacketsIn];
    const out0 = c[Counter.PacketsOut];
    const up0 = c[Counter.UpdatesSent];
    const st0 = c[Counter.StatsSent];
    const ri0 = c[Counter.ReliableReceived];
    const ro0 = c[Counter.ReliableSent];
    p = r.walk(p, 1, true, null, null);
    relIn[i] = c[Counter.ReliableReceived] - ri0;
    relOut[i] = c[Counter.ReliableSent] - ro0;
    inPkts[i] = c[Counter.PacketsIn] - in0;
    outPkts[i] = c[Counter.PacketsOut] - out0;
    updates[i] = c[Counter.UpdatesSent] - up0;
    stats[i] = c[Counter.StatsSent] - st0;
    entities[i] = r.server.entities.count;
  }
  windowClose();
  Debug.gc(); // r, its server and game are still live here
  const live = heap();
  // Then the typical client datagram into the server as the window left it.
  const receive = timeReceive(r, n, clock.now, RECEIVE_DATAGRAMS);
  const board = timeBoardReceive(r, n, clock.now, RECEIVE_DATAGRAMS);
  const broadcast = timeBroadcast(r, clock.now);
  return { inPkts, outPkts, updates, stats, relIn, relOut, entities, before, live, receive, board, broadcast };
}

function report(header: TraceHeader, clock: Clock, result: TimeResult, runs: number, perStep: Float32Array | null, act: Activity, base: Heap): void {
  const n = result.ticks;
  say(
    `server cost per 10 ms step, µs${runs > 1 ? ` (median of ${runs} runs)` : ""}: mean ${us(result.meanUs)}, median ${us(result.medianUs)}, p99 ${us(result.p99Us)}, ` +
      `worst ${us(result.maxUs)} (${n} steps${runs > 1 ? " a run" : ""}; ${result.outliers} outliers left out of the mean${runs > 1 ? "s" : ""}; each step less its own dry walk, ${us(result.dryUs)} µs on average)`,
  );
  const ok = result.packetsOut === header.packetsOut && result.bytesOut === header.bytesOut;
  say(
    ok
      ? `replay: ${result.packetsOut} packets, ${result.bytesOut} bytes sent, as in the recording`
      : result.packetsOut < 0
        ? `WARNING: the runs sent different totals: the figures are suspect`
        : `WARNING: the replay sent ${result.packetsOut} packets, ${result.bytesOut} bytes; the recording ${header.packetsOut}, ${header.bytesOut}: the figures are suspect`,
  );

  if (perStep === null) {
    say("per-step costs: unavailable (the clock readings did not line up with timeReplay's walks)");
  } else {
    const costs = perStep;
    const order: number[] = [];
    for (let i = 0; i < n; i++) order.push(i);
    order.sort((a, b) => costs[b] - costs[a]);
    say(`heaviest steps${runs > 1 ? " (of the run with the median mean)" : ""}:`);
    say(
      `   step      µs   in  out  updates  stats  rel in  rel out  entities   (in: datagrams received; out: packets sent; updates, stats: messages sent; ` +
        `rel in: reliable messages received, a chat, rename or selection among them; rel out: reliable messages sent for the first time, Adds, Removes and the session's)`,
    );
    for (let k = 0; k < HEAVIEST && k < n; k++) {
      const i = order[k];
      say(`  ${pad(i, 5)} ${pad(us(costs[i] * 1000), 7)} ${pad(act.inPkts[i], 4)} ${pad(act.outPkts[i], 4)} ${pad(act.updates[i], 8)} ${pad(act.stats[i], 6)} ${pad(act.relIn[i], 7)} ${pad(act.relOut[i], 8)} ${pad(act.entities[i], 9)}`);
    }
    // The steps that received a reliable message (a chat, rename or selection, which the
    // session sends on to every player): their cost, for comparing builds step by step.
    const session: string[] = [];
    for (let i = 0; i < n; i++) if (act.relIn[i] > 0) session.push(`${i}:${us(costs[i] * 1000)}`);
    if (session.length > 0) say(`steps that received a reliable message (step:µs): ${session.join(" ")}`);
    let updateSteps = 0;
    let updateTotal = 0;
    let otherTotal = 0;
    for (let i = 0; i < n; i++) {
      if (act.updates[i] > 0) {
        updateSteps++;
        updateTotal += costs[i];
      } else otherTotal += costs[i];
    }
    if (updateSteps > 0 && updateSteps < n) {
      say(
        `Update steps: ${updateSteps} of ${n}, mean ${us((updateTotal / updateSteps) * 1000)} µs; ` +
          `the other steps: mean ${us((otherTotal / (n - updateSteps)) * 1000)} µs`,
      );
    }
  }

  const { before, live } = act;
  const grew = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? undefined : b - a);
  const serverChunks = grew(before.chunk, live.chunk);
  const serverSlots = grew(before.slot, live.slot);
  say(
    `heap in use after a collection (an XS slot is 16 bytes on ESP32, 32 on a 64-bit simulator): ` +
      `the app alone ${kib(base.chunk)} of chunks and ${kib(base.slot)} of slots; ` +
      `a server and game at the end of the window take ${kib(serverChunks)} of chunks and ${kib(serverSlots)} of slots more ` +
      `(${kib(live.chunk)} and ${kib(live.slot)} in all, with the bench's own arrays)` +
      (live.systemFree !== undefined && live.systemFree > 0 ? `; system free memory ${kib(live.systemFree)}` : ""),
  );
  const share = (result.meanUs / STEP_US) * 100;
  const heapText =
    serverChunks !== undefined && serverSlots !== undefined ? `, server and game heap ${kib(serverChunks)} chunks + ${kib(serverSlots)} slots` : "";
  say(
    `lwar-xs device bench: ${platformName()} ${header.label} native: median ${us(result.medianUs)} µs, p99 ${us(result.p99Us)} µs, ` +
      `worst ${us(result.maxUs)} µs per 10 ms tick (mean ${us(result.meanUs)} µs, ${share.toFixed(share >= 10 ? 0 : 1)}% of a core)` +
      `${heapText}; clock ${clock.name}`,
  );
}

function run(): void {
  if (!Resource.exists(TRACE_RESOURCE)) {
    say(`lwar-xs device bench: no ${TRACE_RESOURCE} in this build: run \`npm run bench:device:trace\`, then build again`);
    return;
  }
  const file = new Uint8Array(new Resource(TRACE_RESOURCE));
  const { header, trace: bytes } = decodeTraceFile(file);
  const o = header.options;
  const clock = pickClock();
  say(
    `lwar-xs device bench on ${platformName()}: ${header.label} (${o.players} players, ` +
      `${o.game ? `game, capacity ${o.capacity}` : `${o.entities} static entities`}, seed ${o.seed}); ` +
      `${o.warmSteps} warm-up steps, then a window of ${o.steps} steps of 10 ms; ${bytes.length} bytes of trace`,
  );
  say(`clock: ${clock.name}, resolution ${clock.resolutionUs === Infinity ? "?" : us(clock.resolutionUs)} µs`);
  if (clock.resolutionUs >= 1000) say("note: a millisecond clock: the median and p99 are rounded to whole ms; the mean is sound");
  say(`replaying (one step here is one 10 ms tick of the server and the game)...`);
  Debug.gc();
  const base = heap();
  const runs = runCount();
  const started = clock.now();
  const results: TimeResult[] = [];
  const costs: (Float32Array | null)[] = []; // per run, ms; single precision is plenty and halves the heap
  for (let k = 0; k < runs; k++) {
    const recorder = new StepRecorder(clock.now, o.steps);
    const r = timeReplay(o, bytes, recorder.now, false);
    results.push(r);
    const steps = recorder.steps(r);
    costs.push(steps === null ? null : Float32Array.from(steps));
    if (runs > 1) say(`run ${k + 1} of ${runs}: mean ${us(r.meanUs)} µs, median ${us(r.medianUs)}, p99 ${us(r.p99Us)}, worst ${us(r.maxUs)}`);
  }
  say(`timed in ${((clock.now() - started) / 1000).toFixed(1)} s; now an untimed replay to see what each step did...`);
  // Several runs (the simulator shares its machine): the median of each figure, and the
  // steps of the run whose mean is the median.
  const byMean = results.map((_, i) => i).sort((a, b) => results[a].meanUs - results[b].meanUs);
  const pick = byMean[(runs - 1) >> 1];
  const result: TimeResult = {
    ...results[pick],
    meanUs: median(results.map((r) => r.meanUs)),
    medianUs: median(results.map((r) => r.medianUs)),
    p99Us: median(results.map((r) => r.p99Us)),
    maxUs: median(results.map((r) => r.maxUs)),
    outliers: results.reduce((n, r) => n + r.outliers, 0),
  };
  for (const r of results) {
    if (r.packetsOut !== results[0].packetsOut || r.bytesOut !== results[0].bytesOut) result.packetsOut = -1; // runs disagree
  }
  const perStep = costs[pick];
  const act = stepActivity(o, bytes, result.ticks, clock);
  report(header, clock, result, runs, perStep, act, base);
  const rx = act.receive;
  say(`lwar-xs device bench: receive ${us(rx.usPerDatagram)} µs per datagram (${rx.shape}; ${RECEIVE_DATAGRAMS} replayed from ${rx.distinct} clients, dry walk subtracted)`);
  const b = act.board;
  say(
    b === null
      ? "lwar-xs device bench: the board's path: not timed here (udpNext reads a socket on this platform, not net.c's ring)"
      : `lwar-xs device bench: the board's path: ack + Input ${b.ackInputUs.toFixed(3)} µs, ack ${b.ackUs.toFixed(3)} µs per datagram ` +
          `(${b.perDrain} and ${b.ackPerDrain} waiting at each drain, one from each client; net.c's ring, udpNext, the host's address table, server.received; ` +
          `a drain that finds nothing ${b.emptyDrainUs.toFixed(3)} µs; server.received alone ${b.receivedUs.toFixed(3)} µs per ack + Input; dry walk subtracted)`,
  );
  const bc = act.broadcast;
  say(
    `lwar-xs device bench: broadcast ${bc.perRecipientUs.toFixed(3)} µs per recipient (a chat from each of ${bc.chats} players, ` +
      `each to ${bc.recipients}: ${bc.chatUs.toFixed(3)} µs a chat against ${bc.ackUs.toFixed(3)} µs a bare ack, at its receipt; dry walk subtracted); ` +
      `rename ${bc.renamePerRecipientUs.toFixed(3)} µs, selection ${bc.selectPerRecipientUs.toFixed(3)} µs per recipient ` +
      `(${bc.renameUs.toFixed(3)} µs a rename, ${bc.selectUs.toFixed(3)} µs a selection)`,
  );
  say("lwar-xs device bench: done");
}

export default function main(): void {
  // The server and game run the app's native loops, as the lwar-xs app does (they have no
  // other implementation: modules/native.ts).
  const kernels: Kernels = { plan, commit, notify, pack, ship, game, sync, mark, transport, name };
  (globalThis as { lwarKernels?: Kernels | null }).lwarKernels = kernels;
  // From the event loop, so the replay starts on a short stack.
  Timer.set(() => {
    try {
      run();
    } catch (e) {
      say(`lwar-xs device bench: failed: ${(e as Error).message}`);
    }
  }, 10);
}
