/**
 * `npm run bench`: the server's cost per tick on XS and on Node, its traffic per client,
 * and how the cost grows with players and entities; on XS also the emulated floating-point
 * operations per tick, and for the 8-player cases the heaviest step and the cost of a
 * received datagram in instructions, and an estimate of what one ESP32 core would need. Prints
 * tables; with --save, also writes them to bench/results.json. Asserts nothing about speed. docs/performance.md
 * explains the method and how to read the numbers.
 */
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { defineCommand } from "../cli";
import { bundle } from "../tools/xs/bundle";
import { LWXS, runXs, xsArguments, type XsOptions } from "../tools/xs/run";
import { DEFAULT_CASE, recordTrace, traceWords, type CaseOptions, type CountResult, type TimeResult, type Traffic } from "../harness/trace";
import { WASM_PATH } from "../tools/wasm/build";
import { installNodeKernels } from "../hosts/node/kernels";

/**
 * The ESP32 model: XS on one core of a 240 MHz ESP32 (Xtensa LX6) needs
 *   cycles = a × x86-64 instructions + b × emulated floating-point operations
 * to do what lwxs does here. `a` is LX6 cycles per x86-64 instruction of the same
 * interpreter, `aLow`..`aHigh` its plausible range; `b` is the LX6 cycles of one soft-float
 * double operation (libgcc's __adddf3 or __muldf3 with its call), which an x86-64 core does
 * in one instruction. docs/performance.md ("The ESP32 model") gives the reasons.
 */
export interface DeviceModel {
  a: number;
  aLow: number;
  aHigh: number;
  b: number;
  mhz: number;
  tickMs: number;
}

export const ESP32: Readonly<DeviceModel> = Object.freeze({ a: 2, aLow: 1.5, aHigh: 3, b: 80, mhz: 240, tickMs: 10 });

export interface DeviceEstimate {
  /** Cycles at A = `a`. */
  cycles: number;
  /** Milliseconds at A = `a`, `aLow` and `aHigh`. */
  ms: number;
  msLow: number;
  msHigh: number;
  /** The same over one tick (`tickMs`): 1 is all of the core. */
  share: number;
  shareLow: number;
  shareHigh: number;
}

/** What `instructions` x86-64 instructions and `floatOps` emulated float operations cost on the device. */
export function deviceEstimate(instructions: number, floatOps: number, m: Readonly<DeviceModel> = ESP32): DeviceEstimate {
  const cycles = (a: number) => a * instructions + m.b * floatOps;
  const ms = (a: number) => cycles(a) / (m.mhz * 1000);
  return {
    cycles: cycles(m.a),
    ms: ms(m.a),
    msLow: ms(m.aLow),
    msHigh: ms(m.aHigh),
    share: ms(m.a) / m.tickMs,
    shareLow: ms(m.aLow) / m.tickMs,
    shareHigh: ms(m.aHigh) / m.tickMs,
  };
}

const RESULTS = fileURLToPath(new URL("./results.json", import.meta.url));
/** Load per core (1-minute average) above which the µs figures are not to be trusted. */
export const LOAD_PER_CORE_LIMIT = 0.5;


export const benchCommand = defineCommand({
  name: "bench",
  script: "npm run bench",
  summary: "the server's cost per 10 ms tick on XS and Node, and its traffic.",
  options: {
    quick: { type: "flag", help: "one run per engine, windows of 300 steps instead of 600 (under a minute)" },
    runs: { type: "int", min: 1, max: 50, defaultText: "5, or 1 with --quick", help: "runs per case and engine; the median is reported" },
    "no-xs": { type: "flag", help: "skip XS: its timings, float-op counts and instruction counts" },
    "no-node": { type: "flag", help: "skip the Node timings" },
    "no-callgrind": {
      type: "flag",
      help: "skip the instruction counts (they need valgrind): no XS instr, heaviest step, instructions per datagram or ESP32 estimate",
    },
    save: { type: "flag", help: "write the results to bench/results.json, the tracked record (without it nothing is written)" },
    out: { type: "string", arg: "FILE", help: "write the results to FILE instead" },
  },
  notes: `Each case is a recorded busy match replayed into a lone server; see docs/performance.md. Every case gets, on XS, its emulated floating-point operations per tick (float ops). The six cases with all 8 slots filled (the five 8-player ones and 4 players + 4 server bots) also get, under callgrind: x86-64 instructions per tick, the heaviest step in instructions and over the mean step, the instructions of receiving the typical client datagram (an ack + Input), and an ESP32 estimate from cycles = A × instructions + B × float ops, A = ${ESP32.a} (${ESP32.aLow}..${ESP32.aHigh}), B = ${ESP32.b}, on one ${ESP32.mhz} MHz core (an estimate, not a measurement).

Timings suffer from other work on the machine: it warns when the 1-minute load average is above ${LOAD_PER_CORE_LIMIT} per core (at least 1).`,
  failure: "a replay or a tool failed",
});

/**
 * lwxs heaps for the bench: the trace lives in the heap, and speed, not size, is measured.
 * The stack is larger than the device's because the timing harness adds frames under the
 * server's calls (`npm run budget` measures the stack the server itself needs).
 */
const XS_HEAPS: XsOptions = { slots: 400000, chunks: 16 * 1024 * 1024, stack: 1024 };
const PLAYERS = [1, 2, 4, 8];
const STATIC = [0, 64, 192];
/** Capacities of the game cases; the game decides how many entities live. */
const GAME_CAPACITY = [64, 192];

export interface BenchCase {
  id: string;
  label: string;
  options: CaseOptions;
  /** One of the six cases with all 8 slots filled, which get instruction counts. */
  headline: boolean;
}

export interface EngineResult {
  /** Median over the runs of each statistic, µs per 10 ms step. */
  meanUs: number;
  medianUs: number;
  p99Us: number;
  maxUs: number;
  /** Each run's mean. */
  runs: number[];
  /** Steps left out as interruptions, over all runs. */
  outliers: number;
}

export interface CaseResult {
  id: string;
  label: string;
  players: number;
  staticEntities: number;
  game: boolean;
  capacity: number;
  /** Bots the server flies besides the clients. */
  bots: number;
  traffic: Traffic;
  traceBytes: number;
  xs?: EngineResult;
  node?: EngineResult;
  /** XS: the server's emulated floating-point operations per step over the timed window (exact). */
  floatOpsPerTick?: number;
  callgrind?: CallgrindResult;
  /** The ESP32 model applied to the counts (ESP32 in bench/bench.ts). */
  esp32?: { model: DeviceModel; perTick: DeviceEstimate; heaviestStep: DeviceEstimate };
  /** A replay ended with other totals than the recording: the numbers are suspect. */
  mismatch?: string;
}

/** Exact counts under callgrind (x86-64 instructions of lwxs), over the first `ticks` steps of the window. */
export interface CallgrindResult {
  instructionsPerTick: number;
  ticks: number;
  /** Emulated float operations per step over the same steps (a cross-check of floatOpsPerTick). */
  floatOpsPerTick: number | null;
  /** The step that cost the most instructions: its index in the window, instructions and float ops. */
  heaviestStep: { index: number; instructions: number; floatOps: number | null };
  /** heaviestStep.instructions over instructionsPerTick. */
  heaviestRatio: number;
  /** Receiving the typical client datagram (see countReplay in harness/trace.ts). */
  receive: {
    shape: string;
    /** Of the datagrams in the counted steps, the share with that shape, and the most common shape. */
    share: number;
    mostCommon: { shape: string; share: number };
    datagrams: number;
    instructionsPerDatagram: number;
    floatOpsPerDatagram: number | null;
  };
}

export function benchCases(): BenchCase[] {
  const cases: BenchCase[] = [];
  for (const players of PLAYERS) {
    for (const entities of STATIC) {
      cases.push({
        id: `p${players}-static${entities}`,
        label: `${players} players, ${entities} static entities`,
        options: { ...DEFAULT_CASE, players, entities, game: false, capacity: 192 },
        headline: players === 8,
      });
    }
    for (const capacity of GAME_CAPACITY) {
      if (capacity !== 192 && players !== 8) continue;
      cases.push({
        id: `p${players}-game${capacity}`,
        label: `${players} players, game, capacity ${capacity}`,
        options: { ...DEFAULT_CASE, players, entities: 0, game: true, capacity },
        headline: players === 8,
      });
    }
  }
  // Solo play on a board: 4 humans and 4 of the server's own bots fill the 8 slots.
  cases.push({
    id: "p4-bots4-game192",
    label: "4 players + 4 server bots, game, capacity 192",
    options: { ...DEFAULT_CASE, players: 4, entities: 0, game: true, capacity: 192, bots: 4 },
    headline: true,
  });
  return cases;
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const m = v.length >> 1;
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

function summarize(results: TimeResult[]): EngineResult {
  return {
    meanUs: median(results.map((r) => r.meanUs)),
    medianUs: median(results.map((r) => r.medianUs)),
    p99Us: median(results.map((r) => r.p99Us)),
    maxUs: median(results.map((r) => r.maxUs)),
    runs: results.map((r) => r.meanUs),
    outliers: results.reduce((n, r) => n + r.outliers, 0),
  };
}

function parseResult<T>(stdout: string, what: string): T {
  const line = stdout.split("\n").find((l) => l.startsWith("result "));
  if (!line) throw new Error(`${what}: no result line in:\n${stdout}`);
  return JSON.parse(line.slice(7)) as T;
}

function runNode(script: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (out += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (err += t));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`node exited ${code}: ${err}`))));
  });
}

function valgrindVersion(): string | null {
  try {
    return execFileSync("valgrind", ["--version"], { encoding: "utf8" }).trim();
  } catch {
    return null;
  }
}

/** The collected instructions in one callgrind dump file. */
export function dumpTotal(text: string, file: string): number {
  const m = /^(?:totals|summary):\s*(\d+)/m.exec(text);
  if (!m) throw new Error(`callgrind: no totals in ${file}`);
  return Number(m[1]);
}

/**
 * Run countReplay under callgrind with collection on only inside Array.prototype.some and a
 * dump after each call of it: dump 2k+1 and 2k+2 are step k walked dry and for real, the
 * last two the typical datagram received `datagrams` times dry and for real.
 */
async function callgrind(dir: string, id: string, scripts: string[], options: CaseOptions, ticks: number, datagrams: number): Promise<CallgrindResult> {
  const outFile = join(dir, `callgrind.${id}.out`);
  const bracket = "fx_Array_prototype_some";
  const argv = [
    "--tool=callgrind", `--callgrind-out-file=${outFile}`, `--toggle-collect=${bracket}`, `--dump-after=${bracket}`,
    LWXS, ...xsArguments(scripts, { ...XS_HEAPS, args: ["count", JSON.stringify(options), String(ticks), String(datagrams)] }),
  ];
  const stdout = await new Promise<string>((resolve, reject) => {
    const child = spawn("valgrind", argv, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (t: string) => (out += t));
    child.stderr.setEncoding("utf8").on("data", (t: string) => (err += t));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`valgrind exited ${code}: ${err.slice(-2000)}`))));
  });
  const counted = parseResult<CountResult>(stdout, "callgrind");
  const n = counted.ticks;
  const segments = 2 * n + 2;
  const totals: number[] = [];
  for (let i = 1; i <= segments; i++) {
    const file = `${outFile}.${i}`;
    if (!existsSync(file)) throw new Error(`callgrind: ${segments} dumps expected, ${file} is missing`);
    totals.push(dumpTotal(readFileSync(file, "utf8"), file));
    rmSync(file);
  }
  // One more would mean that something else called the bracketing function.
  if (existsSync(`${outFile}.${segments + 1}`)) throw new Error(`callgrind: more than ${segments} dumps: ${bracket} was called elsewhere`);
  let sum = 0;
  let heaviest = 0;
  for (let k = 0; k < n; k++) {
    const step = totals[2 * k + 1] - totals[2 * k];
    sum += step;
    if (step > totals[2 * heaviest + 1] - totals[2 * heaviest]) heaviest = k;
  }
  const heavy = totals[2 * heaviest + 1] - totals[2 * heaviest];
  const ops = counted.stepFloatOps;
  const rx = counted.receive;
  return {
    instructionsPerTick: sum / n,
    ticks: n,
    floatOpsPerTick: ops ? ops.reduce((a, b) => a + b, 0) / n : null,
    heaviestStep: { index: heaviest, instructions: heavy, floatOps: ops ? ops[heaviest] : null },
    heaviestRatio: heavy / (sum / n),
    receive: {
      shape: rx.shape,
      share: rx.share,
      mostCommon: rx.mostCommon,
      datagrams: rx.datagrams,
      instructionsPerDatagram: (totals[2 * n + 1] - totals[2 * n]) / rx.datagrams,
      floatOpsPerDatagram: rx.floatOpsPerDatagram,
    },
  };
}

async function pool<T>(items: T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(workers);
}

// ------------------------------------------------------------------ tables

function pad(s: string | number, width: number): string {
  const t = String(s);
  return t.length >= width ? t : " ".repeat(width - t.length) + t;
}

function us(n: number | undefined): string {
  if (n === undefined) return "-";
  return n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2);
}

function table(header: string[], rows: string[][], firstWidth: number): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)) + (i === 0 ? 0 : 2));
  widths[0] = Math.max(widths[0], firstWidth);
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c + " ".repeat(widths[0] - c.length) : pad(c, widths[i]))).join("");
  return [line(header), ...rows.map(line)];
}

/** A count in a few characters: 412, 41.2k, 4.12M. */
function compact(n: number | null | undefined): string {
  if (n === null || n === undefined) return "-";
  if (n >= 1e6) return (n / 1e6).toFixed(2) + "M";
  if (n >= 1e4) return (n / 1e3).toFixed(1) + "k";
  return n >= 100 ? n.toFixed(0) : n.toFixed(1);
}

function ms(n: number): string {
  return n >= 10 ? n.toFixed(0) : n >= 1 ? n.toFixed(1) : n.toFixed(2);
}

function percent(n: number): string {
  return (n * 100).toFixed(0);
}

/** ESP32 ms per tick at A, then the range: "3.9 (2.9–5.8)". */
export function formatMs(e: DeviceEstimate): string {
  return `${ms(e.ms)} (${ms(e.msLow)}–${ms(e.msHigh)})`;
}

/** Share of one core at A, then the range: "39% (29–58)". */
export function formatShare(e: DeviceEstimate): string {
  return `${percent(e.share)}% (${percent(e.shareLow)}–${percent(e.shareHigh)})`;
}

function caseName(r: CaseResult): string {
  if (r.bots > 0) return `${r.players} + ${r.bots} bots, game, capacity ${r.capacity}`;
  return r.game ? `game, capacity ${r.capacity}` : `static ${r.staticEntities}`;
}

export function formatResults(results: CaseResult[], runs: number): string[] {
  const lines: string[] = [];
  const byId = new Map(results.map((r) => [r.id, r]));
  const headline = results.filter((r) => r.players + r.bots === 8);
  const m = ESP32;
  lines.push(`Server cost per 10 ms tick, 8 players (µs: median of ${runs} run${runs > 1 ? "s" : ""}; instructions: callgrind, x86-64; float ops: XS's count)`);
  lines.push(
    ...table(
      ["case", "entities", "XS µs", "XS p99", "XS instr", "float ops", "heaviest step", "÷ mean", "instr/datagram", `ESP32 ms (A=${m.a}, ${m.aLow}–${m.aHigh})`, "% of core", "Node µs"],
      headline.map((r) => [
        caseName(r),
        r.traffic.liveEntities.toFixed(0),
        us(r.xs?.meanUs),
        us(r.xs?.p99Us),
        compact(r.callgrind?.instructionsPerTick),
        compact(r.floatOpsPerTick),
        compact(r.callgrind?.heaviestStep.instructions),
        r.callgrind ? r.callgrind.heaviestRatio.toFixed(1) : "-",
        compact(r.callgrind?.receive.instructionsPerDatagram),
        r.esp32 ? formatMs(r.esp32.perTick) : "-",
        r.esp32 ? formatShare(r.esp32.perTick) : "-",
        us(r.node?.meanUs),
      ]),
      20,
    ),
  );
  lines.push("  entities: mean live; XS p99: the 99th-percentile step; XS instr, float ops: per tick; heaviest step: its instructions,");
  lines.push("  and ÷ mean: over the mean step's; instr/datagram: receiving the typical client datagram (an ack + Input)");
  lines.push(`  ESP32: cycles = A × XS instr + B × float ops on one ${m.mhz} MHz core, A = ${m.a} (${m.aLow}–${m.aHigh}) cycles per x86-64 instruction,`);
  lines.push(`  B = ${m.b} cycles per emulated double operation: an estimate, not a measurement (docs/performance.md)`);
  if (headline.some((r) => r.esp32 || r.xs)) {
    lines.push("");
    lines.push(`8 players: the heaviest step on the ESP32, and traffic`);
    lines.push(
      ...table(
        ["case", "heaviest step float ops", `heaviest step ESP32 ms (A=${m.a}, ${m.aLow}–${m.aHigh})`, "datagrams in/s", "B/s/client", "pkt/s/client"],
        headline.map((r) => [
          caseName(r),
          compact(r.callgrind?.heaviestStep.floatOps),
          r.esp32 ? formatMs(r.esp32.heaviestStep) : "-",
          r.traffic.packetsInPerSecond.toFixed(0),
          r.traffic.bytesPerSecond.toFixed(0),
          r.traffic.packetsPerSecond.toFixed(1),
        ]),
        20,
      ),
    );
    lines.push("  datagrams in: all clients to the server; B/s: UDP payload, server to one client");
  }
  if (results.some((r) => r.floatOpsPerTick !== undefined)) {
    lines.push("");
    lines.push("Scaling, XS: emulated floating-point operations per 10 ms tick");
    const cols = [...STATIC.map((e) => `p?-static${e}`), "p?-game192"];
    lines.push(
      ...table(
        ["players", ...STATIC.map((e) => `${e} static`), "game (cap 192)"],
        PLAYERS.map((p) => [String(p), ...cols.map((c) => compact(byId.get(c.replace("?", String(p)))?.floatOpsPerTick))]),
        8,
      ),
    );
  }
  for (const engine of ["xs", "node"] as const) {
    if (!results.some((r) => r[engine])) continue;
    lines.push("");
    lines.push(`Scaling, ${engine === "xs" ? "XS" : "Node"}: mean µs per 10 ms tick`);
    const cols = [...STATIC.map((e) => `p?-static${e}`), "p?-game192"];
    lines.push(
      ...table(
        ["players", ...STATIC.map((e) => `${e} static`), "game (cap 192)"],
        PLAYERS.map((p) => [String(p), ...cols.map((c) => us(byId.get(c.replace("?", String(p)))?.[engine]?.meanUs))]),
        8,
      ),
    );
  }
  const bad = results.filter((r) => r.mismatch || r.traffic.kicks > 0 || r.traffic.connected < r.players);
  for (const r of bad) lines.push(`warning: ${r.id}: ${r.mismatch ?? `kicks ${r.traffic.kicks}, connected ${r.traffic.connected}/${r.players}`}`);
  return lines;
}

// ------------------------------------------------------------------ main, step by step

/** A warning when the machine is busy enough to disturb the timings, else null. */
export function loadWarning(load1: number, cores: number): string | null {
  if (load1 <= Math.max(1, cores * LOAD_PER_CORE_LIMIT)) return null;
  return (
    `the 1-minute load average is ${load1.toFixed(1)} on ${cores} core${cores === 1 ? "" : "s"}: other work is running, ` +
    "so the µs timings are unreliable (instruction and float-op counts are not affected)"
  );
}

interface Settings {
  quick: boolean;
  runs: number;
  steps: number;
  /** The whole timed window, so that the heaviest step and the float ops are the timing's. */
  callgrindTicks: number;
  callgrindDatagrams: number;
  /** Where to write the results; null: print only. */
  outPath: string | null;
  valgrind: string | null;
  doXs: boolean;
  doNode: boolean;
  noCallgrind: boolean;
}

function settingsFrom(v: ReturnType<typeof benchCommand.parse>): Settings {
  const steps = v.quick ? 300 : 600;
  const outPath = v.out ?? (v.save ? RESULTS : null);
  return {
    quick: v.quick, runs: v.runs ?? (v.quick ? 1 : 5), steps, callgrindTicks: steps, callgrindDatagrams: v.quick ? 1000 : 2000, outPath,
    valgrind: v["no-callgrind"] ? null : valgrindVersion(), doXs: !v["no-xs"], doNode: !v["no-node"], noCallgrind: v["no-callgrind"],
  };
}

/** Each case's recorded trace, written out as the scripts that replay it. */
interface Recorded {
  entry: string;
  cases: BenchCase[];
  results: CaseResult[];
  /** Per case id: the trace script, the lwxs entry, the Node script. */
  scripts: Map<string, string[]>;
}

async function recordCases(dir: string, s: Settings, started: number): Promise<Recorded> {
  const entry = join(dir, "entry.js");
  await bundle(fileURLToPath(new URL("./entry.ts", import.meta.url)), entry);
  const entryText = readFileSync(entry, "utf8");
  const cases = benchCases();
  const results: CaseResult[] = [];
  const scripts = new Map<string, string[]>();
  for (const c of cases) {
    const options = { ...c.options, steps: s.steps };
    const trace = recordTrace(options);
    const traceScript = join(dir, `trace.${c.id}.js`);
    const traceText = `var BENCH_TRACE = [${Array.from(traceWords(trace.bytes)).join(",")}];\n`;
    writeFileSync(traceScript, traceText);
    const nodeScript = join(dir, `node.${c.id}.js`);
    // Node runs the loops as WebAssembly: the bytes of dist/web/kernels.wasm go in first (entry.ts).
    writeFileSync(nodeScript, `globalThis.LWAR_WASM = require("node:fs").readFileSync(${JSON.stringify(WASM_PATH)});\n` + traceText + entryText);
    scripts.set(c.id, [traceScript, entry, nodeScript]);
    results.push({
      id: c.id, label: c.label, players: options.players, staticEntities: options.entities, game: options.game,
      capacity: options.capacity, bots: options.bots, traffic: trace.traffic, traceBytes: trace.bytes.length,
    });
    c.options = options;
  }
  process.stderr.write(`bench: ${cases.length} cases recorded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return { entry, cases, results, scripts };
}

/** A replay that sent other totals than its recording makes the case's numbers suspect. */
function checkReplay(r: CaseResult, t: TimeResult, engine: string): void {
  if (t.packetsOut !== r.traffic.packetsOut || t.bytesOut !== r.traffic.bytesOut)
    r.mismatch = `${engine} replay sent ${t.packetsOut} packets, ${t.bytesOut} B; the recording ${r.traffic.packetsOut}, ${r.traffic.bytesOut} B`;
}

/** Time every case `runs` times on XS and on Node, one run at a time. */
async function timeCases(rec: Recorded, s: Settings): Promise<void> {
  for (let i = 0; i < rec.cases.length; i++) {
    const c = rec.cases[i];
    const r = rec.results[i];
    const [traceScript, , nodeScript] = rec.scripts.get(c.id)!;
    const args = ["time", JSON.stringify(c.options)];
    if (s.doXs) {
      const xsRuns: TimeResult[] = [];
      for (let k = 0; k < s.runs; k++) {
        const x = await runXs([traceScript, rec.entry], { ...XS_HEAPS, args, timeoutMs: 120_000 });
        if (x.code !== 0) throw new Error(`lwxs failed on ${c.id} (exit ${x.code}): ${x.stderr}`);
        const t = parseResult<TimeResult>(x.stdout, `lwxs ${c.id}`);
        checkReplay(r, t, "XS");
        // The same work every run, so the same count: anything else is a bug worth seeing.
        if (t.floatOpsPerTick !== null && xsRuns.length > 0 && t.floatOpsPerTick !== xsRuns[0].floatOpsPerTick)
          r.mismatch = `XS runs counted ${xsRuns[0].floatOpsPerTick} and ${t.floatOpsPerTick} float ops per tick`;
        xsRuns.push(t);
      }
      r.xs = summarize(xsRuns);
      if (xsRuns[0].floatOpsPerTick !== null) r.floatOpsPerTick = xsRuns[0].floatOpsPerTick;
    }
    if (s.doNode) {
      const nodeRuns: TimeResult[] = [];
      for (let k = 0; k < s.runs; k++) {
        const t = parseResult<TimeResult>(await runNode(nodeScript, args), `node ${c.id}`);
        checkReplay(r, t, "Node");
        nodeRuns.push(t);
      }
      r.node = summarize(nodeRuns);
    }
    process.stderr.write(`bench: ${c.id}: XS ${us(r.xs?.meanUs)} µs, Node ${us(r.node?.meanUs)} µs per tick; ${compact(r.floatOpsPerTick)} float ops per tick\n`);
  }
}

/** Instruction counts under callgrind for the 8-player cases, and the ESP32 estimate from them. */
async function countInstructions(dir: string, rec: Recorded, s: Settings): Promise<void> {
  const counted = rec.cases.filter((c) => c.headline);
  // Two at a time: instruction counts do not suffer from sharing the machine.
  await pool(counted, 2, async (c) => {
    const r = rec.results[rec.cases.indexOf(c)];
    const [traceScript] = rec.scripts.get(c.id)!;
    const g = await callgrind(dir, c.id, [traceScript, rec.entry], c.options, s.callgrindTicks, s.callgrindDatagrams);
    r.callgrind = g;
    // Same window as the timing when callgrindTicks covers it; else the counted steps' own.
    const ops = g.ticks === s.steps && r.floatOpsPerTick !== undefined ? r.floatOpsPerTick : (g.floatOpsPerTick ?? 0);
    if (g.ticks === s.steps && r.floatOpsPerTick !== undefined && g.floatOpsPerTick !== null && g.floatOpsPerTick !== r.floatOpsPerTick)
      r.mismatch = `float ops per tick: ${r.floatOpsPerTick} timed, ${g.floatOpsPerTick} counted under callgrind`;
    r.esp32 = {
      model: { ...ESP32 },
      perTick: deviceEstimate(g.instructionsPerTick, ops),
      heaviestStep: deviceEstimate(g.heaviestStep.instructions, g.heaviestStep.floatOps ?? 0),
    };
    process.stderr.write(
      `bench: ${c.id}: ${compact(g.instructionsPerTick)} instructions per tick, heaviest step ${compact(g.heaviestStep.instructions)}, ` +
        `${compact(g.receive.instructionsPerDatagram)} per datagram (${g.receive.shape})\n`,
    );
  });
}

const METHOD =
  "A busy match (harness/scenario.ts) is recorded on Node; a lone server is then replayed through the " +
  "recording with a send() that does nothing, once without calling the server and once for real; the " +
  "difference is the server's cost (server.tick plus server.receive, the game included). µs: median over runs " +
  "of each run's mean per 10 ms step, steps over 3 × the run's 99th percentile and over 1 ms left out as " +
  "interruptions (counted in each case's outliers). Node replays the trace once untimed first, for its JIT. " +
  "Float ops: XS's count of emulated floating-point operations (xs.floatOps()), real walk less dry walk, over " +
  "the timed window, per step. Instructions: callgrind on lwxs with collection only inside " +
  "Array.prototype.some and a dump after each call; each of the first callgrindTicks steps of the window is " +
  "walked dry and then for real inside it, and the difference of the two dumps is the step's instructions " +
  "(mean: instructionsPerTick; most: heaviestStep). Then the window's most common client datagram (an ack + " +
  "Input) is received callgrindDatagrams times, dry and for real, into the server as the steps left it: " +
  "instructionsPerDatagram. esp32: cycles = A × instructions + B × float ops on one 240 MHz core (an estimate).";

function makeReport(s: Settings, results: CaseResult[], seconds: number, loadBefore: number): object {
  const cpu = cpus();
  return {
    generated: new Date().toISOString(),
    command: `npm run bench -- ${s.quick ? "--quick " : ""}--save`,
    machine: {
      cpu: cpu[0]?.model ?? "unknown", cores: cpu.length, node: process.version, valgrind: s.valgrind ?? null,
      // Other work on the machine shows in the µs figures (not in the instruction counts).
      loadAverage: { before: loadBefore, after: loadavg()[0] },
    },
    method: METHOD,
    settings: { runs: s.runs, warmSteps: DEFAULT_CASE.warmSteps, steps: s.steps, callgrindTicks: s.callgrindTicks, callgrindDatagrams: s.callgrindDatagrams, xsHeaps: XS_HEAPS, esp32: ESP32 },
    seconds: Math.round(seconds),
    cases: results,
  };
}

async function main(): Promise<void> {
  const s = settingsFrom(benchCommand.parse());
  // The cases are recorded here, on Node: with the loops as WebAssembly.
  installNodeKernels();
  const cores = cpus().length;
  const loadBefore = loadavg()[0];
  const before = loadWarning(loadBefore, cores);
  if (before !== null) process.stderr.write(`bench: warning: ${before}\n`);
  const dir = mkdtempSync(join(tmpdir(), "lwar-bench-"));
  const started = performance.now();
  try {
    const rec = await recordCases(dir, s, started);
    await timeCases(rec, s);
    process.stderr.write(`bench: timings done at ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
    if (s.valgrind && s.doXs) await countInstructions(dir, rec, s);
    else if (!s.valgrind && !s.noCallgrind) process.stderr.write("bench: valgrind not found: no instruction counts\n");

    const seconds = (performance.now() - started) / 1000;
    const loadAfter = loadavg()[0];
    if (s.outPath !== null) writeFileSync(s.outPath, JSON.stringify(makeReport(s, rec.results, seconds, loadBefore), null, 2) + "\n");
    for (const line of formatResults(rec.results, s.runs)) console.log(line);
    console.log("");
    const load = `1-minute load average ${loadBefore.toFixed(1)} before, ${loadAfter.toFixed(1)} after`;
    console.log(`results: ${s.outPath ?? "not saved (--save writes bench/results.json)"} (${seconds.toFixed(0)} s; ${load})`);
    const after = before === null ? loadWarning(loadAfter, cores) : null;
    if (before !== null || after !== null) console.log(`warning: ${before ?? after}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e: unknown) => {
    process.stderr.write(`bench: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
