/**
 * `npm run budget`: the memory budget of the server under the default config.
 *
 * 1. Pools: every preallocated typed array, as `server.pools()` lists them (the game's and
 *    the update planner's included), in bytes. Computed here on Node; a typed array's
 *    bytes are the same on every engine.
 * 2. XS heap: the server alone in lwxs (tools/xs), on a UDP socket, while 8 bots play a
 *    busy match against it (tools/budget/xs-server.ts). Slots and chunk bytes are read
 *    net of the base: the engine, the globals and the loaded code, which the device keeps
 *    in flash.
 * 3. Fit check: the same match again, with each datagram allocated the way the device's
 *    receive path allocates it, in heaps sized from manifest.json's `creation` block.
 *
 * The last line is `total: N KiB`: the net peak (slots × 16 + chunk bytes). docs/memory.md
 * explains the conversion from the 64-bit host to the ESP32.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBuild } from "./board/manifest";
import { fileURLToPath, pathToFileURL } from "node:url";
import { defineCommand } from "../cli";
import { defaultConfig, makeConfig, type Config } from "../modules/config";
import type { Host } from "../modules/host";
import { createServer } from "../modules/server/server";
import { createGame } from "../modules/match";
import { installNodeKernels } from "../hosts/node/kernels";

/** Bytes of one XS slot on the ESP32 (32-bit pointers); 32 on the 64-bit development host. */
export const ESP32_SLOT_BYTES = 16;
/**
 * What the device's host and main.ts add to the server's heap (the ModdableHost with its
 * cache of 32 send views, the Timer, the socket object, main's settings and closures, the
 * network module). Not measurable here. First estimated from the simulator (384 slots,
 * 2048 chunk bytes); measured on the emulated ESP32 (`npm run test:esp32`, the real 32-bit
 * engine, docs/memory.md) the live chunk heap came out up to 1.4 KB above that model and
 * the slots just under it, so the chunk allowance is 3584 bytes.
 */
export const DEVICE_HOST_SLOTS = 384;
export const DEVICE_HOST_CHUNKS = 3584;
/**
 * The game page and its WebSocket carriage on the device (hosts/moddable/web.ts on the SDK's
 * HTTP server, and dns.ts in access-point mode), measured in the simulator as the live heap
 * after a forced collection (docs/memory.md, "The page and the WebSocket carriage"): what
 * the HTTP port adds when nobody is connected, and what each open WebSocket adds (its
 * socket, Peer and FrameReader). Chunk bytes are the simulator's 64-bit ones, an upper
 * bound for the ESP32; slot counts carry over.
 */
export const DEVICE_WEB = { slots: 111, chunks: 1784 };
export const DEVICE_WEB_PEER = { slots: 50, chunks: 680 };
/** The goal: the whole server at 8 players and default capacity in 64 KiB of XS heap. */
const GOAL_BYTES = 64 * 1024;
/** The stretch goal: the plain `-p esp32` creation. */
const STRETCH = { chunks: 32768, slots: 2048 };

export interface PoolRow {
  name: string;
  bytes: number;
}

export interface PoolTable {
  config: Config;
  /** The fields given on the command line (empty: the default config). */
  overrides: Partial<Config>;
  rows: PoolRow[];
  /** The sum of the rows. */
  total: number;
}

const quietHost: Host = {
  send() {},
  now() {
    return 0;
  },
  log() {},
};

/** Every pool of a server with the game attached, under `config` (default: the default config). */
export function poolTable(overrides: Partial<Config> = {}): PoolTable {
  const config = makeConfig(overrides);
  const server = createServer(config, quietHost);
  createGame(config, server, 1);
  const rows = server.pools().map(([name, bytes]) => ({ name, bytes }));
  let total = 0;
  for (const r of rows) total += r.bytes;
  return { config, overrides, rows, total };
}

function pad(s: string | number, width: number): string {
  const t = String(s);
  return t.length >= width ? t : " ".repeat(width - t.length) + t;
}

function padEnd(s: string, width: number): string {
  return s.length >= width ? s : s + " ".repeat(width - s.length);
}

function describeConfig(overrides: Partial<Config>): string {
  const set = Object.entries(overrides).map(([k, v]) => `${k}=${v}`);
  return set.length === 0 ? "default config" : `config ${set.join(" ")}`;
}

/** The pool table as lines; the last one is `pools total  N B`. */
export function formatPoolTable(t: PoolTable): string[] {
  const c = t.config;
  const width = Math.max(...t.rows.map((r) => r.name.length), 24) + 2;
  const lines = [
    `Pools under the ${describeConfig(t.overrides)}: ${c.maxPlayers} players, ${c.maxEntities} entities, ` +
      `reliable queues of ${c.reliableQueueBytes} B`,
    `  ${padEnd("pool", width)}${pad("bytes", 8)}`,
  ];
  for (const r of t.rows) lines.push(`  ${padEnd(r.name, width)}${pad(r.bytes, 8)}`);
  lines.push(`  ${padEnd("pools total", width)}${pad(t.total, 8)}`);
  return lines;
}

// ------------------------------------------------------------------ XS heap

export interface HeapUse {
  slots: number;
  chunks: number;
}

export interface XsRun {
  code: number | null;
  heap: Record<string, HeapUse>;
  garbage: HeapUse;
  players: number;
  datagrams: number;
  collections: number;
  seconds: number;
  /** One full collection, ms, on this machine. */
  gcMs: number;
  stderr: string;
}

export interface Creation {
  /** Where it comes from, for the report. */
  label: string;
  chunks: number;
  slots: number;
  stack: number;
}

/**
 * Stack slots added to the device's for the lwxs runs: lwxs loads one bundle, whose one
 * frame holds every module's top-level binding while it loads (about 680 slots with the
 * game split into files); a device preloads the modules and needs no such frame.
 */
const LWXS_LOAD_STACK = 128;

/** chunk.initial, heap.initial and stack of the app's creation block (manifest.json and the manifests it includes). */
export function manifestCreation(path = fileURLToPath(new URL("../manifest.json", import.meta.url))): Creation {
  // The app's own block decides; the SDK's manifests are not read.
  const c = readBuild(path, "esp32", "/nonexistent-moddable").creation as { chunk: { initial: number }; heap: { initial: number }; stack: number };
  return { label: "manifest creation", chunks: c.chunk.initial, slots: c.heap.initial, stack: c.stack };
}

async function runServer(
  script: string, mode: string, seconds: number, budget: { slots: number; chunks: number; stack: number }, pools: PoolTable,
): Promise<XsRun> {
  const players = pools.config.maxPlayers;
  const { runXs } = await import("./xs/run");
  const { runBots } = await import("./botlib");
  let gotPort: (port: number) => void = () => {};
  const portReady = new Promise<number>((resolve) => (gotPort = resolve));
  const heap: Record<string, HeapUse> = {};
  const values: Record<string, number> = {};
  let garbage: HeapUse = { slots: 0, chunks: 0 };
  const xs = runXs([script], {
    slots: budget.slots,
    chunks: budget.chunks,
    stack: budget.stack,
    args: [mode, "1", String(players), String(seconds + 30), JSON.stringify(pools.overrides)],
    timeoutMs: (seconds + 45) * 1000,
    onStdout(line) {
      const words = line.trim().split(/\s+/);
      if (words[0] === "port") gotPort(Number(words[1]));
      else if (words[0] === "heap") heap[words[1]] = { slots: Number(words[2]), chunks: Number(words[3]) };
      else if (words[0] === "garbage") garbage = { slots: Number(words[1]), chunks: Number(words[2]) };
      else if (words.length === 2) values[words[0]] = Number(words[1]);
    },
  });
  const port = await Promise.race([portReady, xs.then(() => 0)]);
  if (port > 0) {
    await runBots({ host: "127.0.0.1", port, count: players, durationS: seconds, behaviour: "hunt", chatEveryS: 3, seed: 7 });
  }
  const r = await xs;
  return {
    code: r.code,
    heap,
    garbage,
    players: values.players ?? 0,
    datagrams: values.datagrams ?? 0,
    collections: values.collections ?? 0,
    seconds: values.seconds ?? 0,
    gcMs: values.gcms ?? 0,
    stderr: r.stderr.trim(),
  };
}

export interface StackReport {
  /** Stack slots that loading the bench bundle takes (lwxs only: a device loads preloaded modules). */
  load: number;
  /** Stack slots the server and game need, called straight from the event loop through a recorded match. */
  server: number;
}

/** Smallest stack in [lo, hi] for which `fits` holds; `fits` must hold at `hi`. */
async function smallest(lo: number, hi: number, fits: (stack: number) => Promise<boolean>): Promise<number> {
  if (!(await fits(hi))) return -1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (await fits(mid)) hi = mid;
    else lo = mid;
  }
  return hi;
}

/**
 * The XS stack the server needs: a busy 8-player match with the game is recorded on Node,
 * then a lone server is replayed through it in lwxs (bench/entry.ts, mode "deep") with
 * smaller and smaller stacks until it overflows.
 */
export async function measureStack(config: Config = defaultConfig): Promise<StackReport> {
  const { bundle } = await import("./xs/bundle");
  const { runXs } = await import("./xs/run");
  const { DEFAULT_CASE, recordTrace, traceWords } = await import("../harness/trace");
  const dir = mkdtempSync(join(tmpdir(), "lwar-stack-"));
  try {
    const entry = join(dir, "entry.js");
    await bundle(fileURLToPath(new URL("../bench/entry.ts", import.meta.url)), entry);
    const options = { ...DEFAULT_CASE, players: config.maxPlayers, game: true, capacity: config.maxEntities };
    const trace = recordTrace(options);
    const traceScript = join(dir, "trace.js");
    writeFileSync(traceScript, `var BENCH_TRACE = [${Array.from(traceWords(trace.bytes)).join(",")}];\n`);
    const fits = (mode: string) => async (stack: number) => {
      const r = await runXs([traceScript, entry], { slots: 400000, chunks: 16 * 1024 * 1024, stack, args: [mode, JSON.stringify(options)], timeoutMs: 60_000 });
      return r.code === 0 && r.stdout.includes("result ");
    };
    const load = await smallest(16, 2048, fits("load"));
    const server = await smallest(16, 2048, fits("deep"));
    return { load, server };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface HeapReport {
  quiet: XsRun;
  stack: StackReport | null;
  fit: XsRun | null;
  fitBudget: { slots: number; chunks: number } | null;
  creation: Creation;
  pools: PoolTable;
  /** Open WebSockets budgeted for (browser players); null: the device serves no page. */
  webPeers: number | null;
}

/** Bundle the XS server and play the match(es). */
export async function measureHeap(
  seconds: number,
  fit: boolean,
  pools: PoolTable,
  creation: Creation = manifestCreation(),
  webPeers: number | null = pools.config.maxPlayers,
): Promise<HeapReport> {
  const { bundle } = await import("./xs/bundle");
  const dir = mkdtempSync(join(tmpdir(), "lwar-budget-"));
  try {
    const script = join(dir, "xs-server.js");
    await bundle(fileURLToPath(new URL("./budget/xs-server.ts", import.meta.url)), script);
    // Generous heaps: this run measures, it must not be what limits.
    const quiet = await runServer(script, "quiet", seconds, { slots: 16384, chunks: 262144, stack: creation.stack + LWXS_LOAD_STACK }, pools);
    let fitRun: XsRun | null = null;
    let fitBudget: { slots: number; chunks: number } | null = null;
    if (fit && quiet.code === 0) {
      fitBudget = lwxsBudgetFor(creation, quiet, pools, webPeers);
      fitRun = await runServer(script, "device", seconds, { ...fitBudget, stack: creation.stack + LWXS_LOAD_STACK }, pools);
    }
    const stack = await measureStack(pools.config);
    return { quiet, stack, fit: fitRun, fitBudget, creation, pools, webPeers };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ESP32 estimate of the server's chunk bytes: pool data exact, the rest (headers, array items) halved. */
export function esp32Chunks(chunks64: number, poolBytes: number): number {
  return poolBytes + Math.max(0, chunks64 - poolBytes) / 2;
}

function serverShare(q: XsRun): HeapUse {
  return { slots: q.heap.start.slots - q.heap.host.slots, chunks: q.heap.start.chunks - q.heap.host.chunks };
}

/**
 * lwxs heaps equivalent to the device's creation: lwxs counts the modules' top level
 * (flash on the device) and 64-bit chunk sizes, and lacks the device's host and main.ts.
 */
function lwxsBudgetFor(c: Creation, q: XsRun, pools: PoolTable, webPeers: number | null): { slots: number; chunks: number } {
  const server = serverShare(q);
  const inflation = server.chunks - esp32Chunks(server.chunks, pools.total);
  const device = deviceAllowance(webPeers);
  return {
    slots: c.slots - device.slots + q.heap.host.slots,
    chunks: Math.round(c.chunks - device.chunks + q.heap.host.chunks + inflation),
  };
}

/** What the device adds to the server: the host and main.ts, and with `webPeers` not null the page and that many open WebSockets. */
export function deviceAllowance(webPeers: number | null): HeapUse {
  const web = webPeers === null ? { slots: 0, chunks: 0 } : { slots: DEVICE_WEB.slots + webPeers * DEVICE_WEB_PEER.slots, chunks: DEVICE_WEB.chunks + webPeers * DEVICE_WEB_PEER.chunks };
  return { slots: DEVICE_HOST_SLOTS + web.slots, chunks: DEVICE_HOST_CHUNKS + web.chunks };
}

function bytes(u: HeapUse): number {
  return u.slots * ESP32_SLOT_BYTES + u.chunks;
}

function kib(n: number): string {
  return (n / 1024).toFixed(1);
}

export function formatHeap(r: HeapReport): string[] {
  const q = r.quiet;
  const lines: string[] = [];
  const row = (label: string, u: HeapUse) => lines.push(`  ${padEnd(label, 44)}${pad(u.slots, 7)}${pad(u.chunks, 10)}${pad(bytes(u), 10)}`);
  lines.push("");
  lines.push(`XS heap above an empty machine, lwxs, ${q.players} bots for ${q.seconds.toFixed(1)} s (${q.datagrams} datagrams in)`);
  lines.push(`  ${padEnd("", 44)}${pad("slots", 7)}${pad("chunks", 10)}${pad("bytes", 10)}`);
  const code = q.heap.code;
  const host = { slots: q.heap.host.slots - code.slots, chunks: q.heap.host.chunks - code.chunks };
  const server = serverShare(q);
  row("modules' top level (flash once preloaded)", code);
  row("lwxs host: receive buffer, host object", host);
  row("server + game (createServer, createGame)", server);
  row("after start-up", q.heap.start);
  row("peak during the match", q.heap.peak);
  row("after the match, collected", q.heap.end);
  lines.push(`  bytes = slots × ${ESP32_SLOT_BYTES} (ESP32 slot) + chunk bytes as measured on this 64-bit host (an upper bound:`);
  const est = esp32Chunks(server.chunks, r.pools.total);
  lines.push(`  chunk headers and array items are half as big on the ESP32; server + game ≈ ${Math.round(est)} chunk bytes there)`);
  const g = q.garbage;
  lines.push(`  device receive garbage per datagram: ${g.slots} slots, ${g.chunks} chunk bytes (read()'s ArrayBuffer, address, Uint8Array)`);
  lines.push("");
  const dev = {
    slots: server.slots + DEVICE_HOST_SLOTS,
    chunks: Math.round(est) + DEVICE_HOST_CHUNKS,
  };
  lines.push(`On the ESP32 (estimate): server + game ${server.slots} slots, ${Math.round(est)} chunk bytes; with the host and main.ts`);
  lines.push(`  (about ${DEVICE_HOST_SLOTS} slots, ${DEVICE_HOST_CHUNKS} B) ${dev.slots} slots = ${dev.slots * ESP32_SLOT_BYTES} B and ${dev.chunks} chunk bytes: ${kib(bytes(dev))} KiB live in RAM`);
  // The worst case the creation must hold: every budgeted player in a browser.
  const allowance = deviceAllowance(r.webPeers);
  const worst = { slots: server.slots + allowance.slots, chunks: Math.round(est) + allowance.chunks };
  if (r.webPeers !== null) {
    lines.push(`  with the game page (HTTP server, WebSocket carriage, captive DNS: ${DEVICE_WEB.slots} slots, ${DEVICE_WEB.chunks} B) and ` +
      `${r.webPeers} browser players (${DEVICE_WEB_PEER.slots} slots, ${DEVICE_WEB_PEER.chunks} B each, measured in the simulator):`);
    lines.push(`  ${worst.slots} slots = ${worst.slots * ESP32_SLOT_BYTES} B and ${worst.chunks} chunk bytes: ${kib(bytes(worst))} KiB live in RAM`);
  }
  const c = r.creation;
  lines.push(`  ${c.label}: ${c.chunks} chunk bytes and ${c.slots} slots (${c.slots * ESP32_SLOT_BYTES} B): ` +
    `${kib(c.chunks + c.slots * ESP32_SLOT_BYTES)} KiB, plus a stack of ${c.stack} slots (${c.stack * ESP32_SLOT_BYTES} B);`);
  lines.push(`  headroom for garbage ${c.slots - worst.slots} slots and ${c.chunks - worst.chunks} chunk bytes` +
    (r.webPeers !== null ? ` with ${r.webPeers} browser players` : ""));
  if (r.fit && r.fitBudget) {
    const f = r.fit;
    const ok = f.code === 0 && f.players >= r.pools.config.maxPlayers;
    const rate = f.seconds > 0 ? f.collections / f.seconds : 0;
    lines.push(`  fit check, device-style receive in lwxs heaps of ${r.fitBudget.slots} slots and ${r.fitBudget.chunks} chunk bytes`);
    lines.push(`  (the creation less the host${r.webPeers !== null ? " and page" : ""} allowance, plus what lwxs counts and the device keeps in flash or halves):`);
    lines.push(`    ${ok ? "fits" : "DOES NOT FIT (exit " + f.code + ")"}: ${f.players} players, ${f.datagrams} datagrams in ${f.seconds.toFixed(1)} s, ` +
      `${f.collections} collections (${rate.toFixed(1)}/s, ${f.gcMs.toFixed(2)} ms each here)`);
    if (!ok && f.stderr) lines.push("    " + f.stderr.split("\n").join("\n    "));
  }
  if (r.stack) {
    const st = r.stack;
    lines.push(`  stack: the server and game need ${st.server} slots through a recorded 8-player match, called straight from the loop` +
      `${st.server <= st.load ? ` (at most: loading the one-script bundle takes ${st.load} here)` : ""}; the creation has ${c.stack}`);
  }
  lines.push("");
  const live = bytes(dev);
  if (Object.keys(r.pools.overrides).length > 0) lines.push(`(Under the ${describeConfig(r.pools.overrides)}; the goals are set for the default config.)`);
  lines.push(`Goal, the server in ${GOAL_BYTES / 1024} KiB of XS heap: ${live <= GOAL_BYTES ? "met" : "not met"}, ` +
    `${kib(live)} KiB live on the ESP32 before any garbage`);
  const stretch = dev.chunks <= STRETCH.chunks && dev.slots <= STRETCH.slots;
  lines.push(`Stretch, plain -p esp32 creation (${STRETCH.chunks} chunk bytes, ${STRETCH.slots} slots): ${stretch ? "met" : "not met"}, ` +
    `${dev.chunks} chunk bytes and ${dev.slots} slots live`);
  lines.push(`The total below is the peak net of an empty machine; its ${kib(bytes(code))} KiB of modules' top level move to flash once preloaded.`);
  lines.push(`total: ${kib(bytes(q.heap.peak))} KiB`);
  return lines;
}

// ------------------------------------------------------------------ CLI

export const budgetCommand = defineCommand({
  name: "budget",
  script: "npm run budget",
  summary: "the pools and the XS heap of the server under the default config.",
  options: {
    seconds: { type: "number", default: 8, min: 2, max: 600, arg: "S", help: "length of each measured match with the bots" },
    set: { type: "strings", arg: "FIELD=N", help: "change one config field, e.g. --set maxEntities=128" },
    creation: {
      type: "string", arg: "C", defaultText: "manifest.json's",
      help: 'fit-check against another creation: "esp32" (the plain -p esp32 heaps: 32768 chunk bytes, 2048 slots) or CHUNKS,SLOTS; the stack stays the manifest\'s',
    },
    web: {
      type: "string", arg: "N", defaultText: "maxPlayers",
      help: 'budget for N players in browsers, each on an open WebSocket; "none": the device serves no page (httpPort=0)',
    },
    "no-xs": { type: "flag", help: "print the pool table only" },
    "no-fit": { type: "flag", help: "skip the fit check" },
  },
  notes: `The XS part needs the lwxs host (built by npm install) and runs one or two real-time matches.
The last line is \`total: N KiB\`: the peak XS heap above an empty machine (slots × 16 + chunk bytes).`,
  failure: "the XS run failed, or the server does not fit the creation",
});

/** `--set FIELD=N` options as config overrides; makeConfig checks the values. */
export function parseSets(sets: string[]): Partial<Config> {
  const out: Record<string, number> = {};
  for (const set of sets) {
    const m = /^([A-Za-z]+)=(-?\d+)$/.exec(set);
    if (!m) throw new Error(`--set wants FIELD=INTEGER, got '${set}'`);
    if (!(m[1] in defaultConfig)) throw new Error(`--set: no config field '${m[1]}' (fields: ${Object.keys(defaultConfig).join(", ")})`);
    out[m[1]] = Number(m[2]);
  }
  makeConfig(out as Partial<Config>);
  return out as Partial<Config>;
}

/** `--creation`: the manifest's (default), the plain esp32 one, or CHUNKS,SLOTS with the manifest's stack. */
export function parseCreation(value: string | undefined): Creation {
  const manifest = manifestCreation();
  if (value === undefined) return manifest;
  if (value === "esp32") return { label: "plain -p esp32 creation", chunks: 32768, slots: 2048, stack: manifest.stack };
  const m = /^(\d+),(\d+)$/.exec(value);
  if (!m) throw new Error(`--creation wants "esp32" or CHUNKS,SLOTS, got '${value}'`);
  return { label: "creation", chunks: Number(m[1]), slots: Number(m[2]), stack: manifest.stack };
}

/** `--web`: browser players budgeted for (default maxPlayers), or "none" for a device without the page. */
export function parseWeb(value: string | undefined, maxPlayers: number): number | null {
  if (value === undefined) return maxPlayers;
  if (value === "none") return null;
  if (!/^\d+$/.test(value) || Number(value) > maxPlayers) throw new Error(`--web wants 0..${maxPlayers} or "none", got '${value}'`);
  return Number(value);
}

async function main(): Promise<void> {
  installNodeKernels();
  const values = budgetCommand.parse();
  const seconds = values.seconds;
  let overrides: Partial<Config>;
  let creation: Creation;
  let pools: PoolTable;
  let webPeers: number | null;
  try {
    overrides = parseSets(values.set);
    creation = parseCreation(values.creation);
    pools = poolTable(overrides);
    webPeers = parseWeb(values.web, pools.config.maxPlayers);
  } catch (e) {
    return budgetCommand.usage((e as Error).message);
  }
  for (const line of formatPoolTable(pools)) console.log(line);
  if (values["no-xs"]) return;
  const report = await measureHeap(seconds, !values["no-fit"], pools, creation, webPeers);
  if (report.quiet.code !== 0 || !report.quiet.heap.peak) {
    budgetCommand.fail(`the XS run failed (exit ${report.quiet.code})\n${report.quiet.stderr}`);
  }
  for (const line of formatHeap(report)) console.log(line);
  if (report.fit && report.fit.code !== 0) process.exitCode = 1;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e: unknown) => {
    process.stderr.write(`budget: ${(e as Error).stack ?? String(e)}\n`);
    process.exit(1);
  });
}
