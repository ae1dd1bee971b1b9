/**
 * `npm run soak -- --minutes M`: the Node server and the XS server (lwxs over UDP), each
 * behind its own impairing relay (tools/relay.ts) on loopback, with 8 bots each, for M
 * minutes. Reports, per server: exactly-once delivery of every reliable message as the bots
 * saw it, the Update rate, kicks and timeouts (must be 0), and memory (the Node process's
 * RSS; the XS heaps, which must stay flat). Exit status 0 when every check passed.
 *
 * The test suite runs `runSoak` for 30 s (test/tools/soak.test.ts).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Msg } from "../modules/protocol/constants";
import { getU32 } from "../modules/protocol/bytes";
import { BEHAVIOURS } from "../harness/behaviours";
import { runBots, type Bot, type BotSummary } from "./botlib";
import { defineCommand } from "../cli";
import { describeFlows, HOSTILE, Relay, type Flow, type Impairment } from "./relay";
import { bundle } from "./xs/bundle";
import { APP_SLOTS, runXs, type XsResult } from "./xs/run";
import { installNodeKernels } from "../hosts/node/kernels";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const XS_DRIVER = fileURLToPath(new URL("./soak/xs-server.ts", import.meta.url));

export type ServerKind = "node" | "xs";

export interface SoakOptions {
  minutes: number;
  seed: number;
  servers: ServerKind[];
  bots: number;
  impairment: Impairment;
  behaviour: string;
  chatEveryS: number;
  /** Seconds between memory samples (and progress lines). */
  sampleS: number;
  /** A line of progress, about every `sampleS`. */
  onProgress?: (line: string) => void;
}

export const DEFAULT_SOAK: Readonly<Omit<SoakOptions, "minutes">> = Object.freeze({
  seed: 1, servers: ["node", "xs"] as ServerKind[], bots: 8, impairment: HOSTILE, behaviour: "hunt", chatEveryS: 0.5, sampleS: 10,
});

/**
 * What the bots saw, checked message by message (each bot's listener sees every reliable
 * message it processes, once, in order):
 * - seqnos run 0, 1, 2, … at every bot, with no gap and no repeat;
 * - every chat line is unique (bots number theirs), so a line seen twice is a duplicate;
 *   every bot saw the lines in the server's one order, from its admission on (its list is
 *   a suffix of the longest), and each line sent was seen by every bot;
 * - each player's Join reached each bot once;
 * - Add and Remove pair up: no Add for an index the bot holds alive, no Remove of an id
 *   it does not hold.
 */
export interface Delivery {
  reliable: number;
  seqErrors: number;
  chatsSent: number;
  chatsSeen: number;
  duplicateChats: number;
  /** Lines sent that some bot present at the time never saw. */
  missingChats: number;
  /** Bots whose lines are not a suffix of the longest list. */
  orderErrors: number;
  joinErrors: number;
  addErrors: number;
  removeErrors: number;
  /** Update entries that named an entity the bot did not hold (reordering can do this). */
  unknownEntities: number;
}

export interface Memory {
  kind: "rss" | "xs";
  /** Samples while every bot played: RSS in KiB, or XS slots and chunk bytes above the base. */
  slots: number[];
  chunks: number[];
  rssKiB: number[];
  /** XS: every sample equal. Node: the last within 25 % of the first. */
  flat: boolean;
}

export interface ServerSoak {
  server: ServerKind;
  seconds: number;
  bots: BotSummary;
  updatesMin: number;
  delivery: Delivery;
  up: Flow;
  down: Flow;
  relay: string;
  kicks: number;
  timeouts: number;
  memory: Memory;
  /** The server's own last words: the XS report, or the Node server's totals line. */
  serverReport: string;
  problems: string[];
}

export interface SoakReport {
  options: SoakOptions;
  results: ServerSoak[];
  ok: boolean;
}

class DeliveryCheck {
  readonly #next = new Map<Bot, number>();
  readonly #chats = new Map<Bot, string[]>();
  readonly #joins = new Map<Bot, Map<number, number>>();
  readonly #live = new Map<Bot, Map<number, number>>();
  reliable = 0;
  seqErrors = 0;
  addErrors = 0;
  removeErrors = 0;

  reliableSeen(bot: Bot, type: number, seq: number, b: Uint8Array, o: number): void {
    this.reliable++;
    const want = this.#next.get(bot) ?? 0;
    if (seq !== want) this.seqErrors++;
    this.#next.set(bot, (seq + 1) >>> 0);
    if (type === Msg.Chat) {
      let text = "";
      for (let i = o + 4; b[i] !== 0; i++) text += String.fromCharCode(b[i]);
      list(this.#chats, bot).push(`${getU32(b, o)}:${text}`);
    } else if (type === Msg.Join) {
      const joins = map(this.#joins, bot);
      const id = getU32(b, o);
      joins.set(id, (joins.get(id) ?? 0) + 1);
    } else if (type === Msg.Add) {
      const live = map(this.#live, bot);
      const id = getU32(b, o);
      if (live.has(id & 0xffff)) this.addErrors++;
      live.set(id & 0xffff, id);
    } else if (type === Msg.Remove) {
      const live = map(this.#live, bot);
      const id = getU32(b, o);
      if (live.get(id & 0xffff) !== id) this.removeErrors++;
      live.delete(id & 0xffff);
    }
  }

  result(bots: Bot[]): Delivery {
    const lists = bots.map((b) => this.#chats.get(b) ?? []);
    const longest = lists.reduce((a, b) => (b.length > a.length ? b : a), [] as string[]);
    let duplicateChats = 0;
    let orderErrors = 0;
    for (const l of lists) {
      if (new Set(l).size !== l.length) duplicateChats += l.length - new Set(l).size;
      const tail = longest.slice(longest.length - l.length);
      if (tail.some((line, k) => line !== l[k])) orderErrors++;
    }
    // A line is missing when a bot that was in when it was sent (its list covers an earlier
    // line, or it sent the line itself) never saw it.
    const sent = bots.reduce((n, b) => n + b.chats, 0);
    const seenAnywhere = new Set(lists.flat());
    let missing = sent - seenAnywhere.size;
    for (const l of lists) {
      if (l.length === 0) continue;
      const from = longest.length - l.length;
      const have = new Set(l);
      for (let k = from; k < longest.length; k++) if (!have.has(longest[k])) missing++;
    }
    let joinErrors = 0;
    const ids = bots.filter((b) => b.client.selfId >= 0).map((b) => b.client.selfId);
    for (const b of bots) {
      const joins = this.#joins.get(b) ?? new Map<number, number>();
      for (const id of ids) if ((joins.get(id) ?? 0) !== 1) joinErrors++;
    }
    return {
      reliable: this.reliable, seqErrors: this.seqErrors, chatsSent: sent, chatsSeen: seenAnywhere.size, duplicateChats,
      missingChats: Math.max(0, missing), orderErrors, joinErrors, addErrors: this.addErrors, removeErrors: this.removeErrors,
      unknownEntities: bots.reduce((n, b) => n + b.client.unknownEntities, 0),
    };
  }
}

function list<K, V>(m: Map<K, V[]>, k: K): V[] {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = []));
  return v;
}

function map<K, A, B>(m: Map<K, Map<A, B>>, k: K): Map<A, B> {
  let v = m.get(k);
  if (v === undefined) m.set(k, (v = new Map()));
  return v;
}

/** A server under test: where it listens, its memory now, and how to stop it. */
interface Running {
  port: number;
  kicks: () => number;
  timeouts: () => number;
  sample: () => void;
  memory: Memory;
  /** Stop it (if still running) and resolve with its last report. */
  stop: () => Promise<string>;
}

function rssKiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) : -1;
  } catch {
    return -1;
  }
}

/** `npm start`'s server (hosts/node/main.ts) in a process of its own, read from its log. */
async function startNode(seed: number): Promise<Running> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", "hosts/node/main.ts", "--port", "0", "--http-port", "0",
    "--host", "127.0.0.1", "--status-s", "0", "--seed", String(seed)], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let kicks = 0;
  let timeouts = 0;
  let last = "";
  let pending = "";
  const port = new Promise<number>((resolve, reject) => {
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (d: string) => {
      pending += d;
      let nl: number;
      while ((nl = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, nl);
        pending = pending.slice(nl + 1);
        out += line + "\n";
        const m = /listening on udp [\d.]+:(\d+)/.exec(line);
        if (m) resolve(Number(m[1]));
        // Log lines: "HH:MM:SS kick    slot …", "HH:MM:SS timeout slot …".
        if (/^[\d:]+ kick /.test(line)) kicks++;
        if (/^[\d:]+ timeout /.test(line)) timeouts++;
        if (/shut down/.test(line)) last = line.replace(/^\S+ /, "");
      }
    });
    child.once("exit", (code) => reject(new Error(`the Node server exited (${code}) before listening:\n${out}`)));
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (d: string) => (stderr += d));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const memory: Memory = { kind: "rss", slots: [], chunks: [], rssKiB: [], flat: true };
  return {
    port: await port,
    kicks: () => kicks,
    timeouts: () => timeouts,
    sample: () => {
      const kib = rssKiB(child.pid!);
      if (kib > 0) memory.rssKiB.push(kib);
    },
    memory,
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      const r = memory.rssKiB;
      memory.flat = r.length < 2 || r[r.length - 1] <= r[0] * 1.25;
      return last || `exit ${child.exitCode}: ${stderr.trim()}`;
    },
  };
}

/** tools/soak/xs-server.ts in lwxs with the ESP32 heaps. */
async function startXs(seed: number, bots: number, limitMs: number, sampleMs: number, dir: string): Promise<Running> {
  const script = join(dir, "xs-server.js");
  await bundle(XS_DRIVER, script);
  const memory: Memory = { kind: "xs", slots: [], chunks: [], rssKiB: [], flat: true };
  let listening: (port: number) => void = () => {};
  const port = new Promise<number>((resolve) => (listening = resolve));
  const stop = new AbortController();
  const result = runXs([script], {
    slots: APP_SLOTS, stack: 1024, args: ["0", String(seed), String(bots), String(limitMs), String(sampleMs)], timeoutMs: limitMs + 30_000, signal: stop.signal,
    onStdout: (line) => {
      let m = /^listening (\d+)$/.exec(line);
      if (m) listening(Number(m[1]));
      m = /^heap \d+ (\d+) (\d+) \d+$/.exec(line);
      if (m) {
        memory.slots.push(Number(m[1]));
        memory.chunks.push(Number(m[2]));
      }
    },
  });
  const early = result.then((r: XsResult): never => {
    throw new Error(`lwxs exited before listening: ${r.code} ${r.stderr}`);
  });
  early.catch(() => {});
  const p = await Promise.race([port, early]);
  let report: { events?: { kicks: number; timeouts: number } } = {};
  const read = (r: XsResult): string => {
    const last = r.stdout.trim().split("\n").pop() ?? "";
    try {
      report = JSON.parse(last);
    } catch {
      return `lwxs exit ${r.code}: ${r.stderr.trim()}`;
    }
    return last;
  };
  return {
    port: p,
    kicks: () => report.events?.kicks ?? 0,
    timeouts: () => report.events?.timeouts ?? 0,
    sample: () => {},
    memory,
    stop: async () => {
      // The driver ends by itself once every bot has left; give it a moment, then stop it.
      const timer = setTimeout(() => stop.abort(), 5000);
      const r = await result;
      clearTimeout(timer);
      const s = memory.slots;
      const c = memory.chunks;
      memory.flat = s.every((v) => v === s[0]) && c.every((v) => v === c[0]);
      return read(r);
    },
  };
}

async function soakOne(kind: ServerKind, o: SoakOptions, seed: number, dir: string): Promise<ServerSoak> {
  const durationS = o.minutes * 60;
  const server = kind === "node" ? await startNode(seed) : await startXs(seed, o.bots, durationS * 1000 + 60_000, o.sampleS * 1000, dir);
  const relay = new Relay({ serverHost: "127.0.0.1", serverPort: server.port, seed, ...o.impairment });
  const check = new DeliveryCheck();
  let bots: BotSummary;
  const seen = new Set<Bot>();
  let updatesMin = Infinity;
  let report = "";
  try {
    const relayPort = await relay.listen(0);
    let nextSample = o.sampleS;
    bots = await runBots({
      host: "127.0.0.1", port: relayPort, count: o.bots, durationS, behaviour: o.behaviour, chatEveryS: o.chatEveryS, seed,
      onReliable: (bot, type, seq, b, off) => {
        seen.add(bot);
        check.reliableSeen(bot, type, seq, b, off);
      },
      onProgress: (list, t) => {
        for (const b of list) seen.add(b);
        if (t < nextSample) return;
        nextSample += o.sampleS;
        server.sample();
        const connected = list.filter((b) => b.client.selfId >= 0 && b.client.isOpen()).length;
        const ups = list.reduce((n, b) => n + b.updateTicks, 0) / list.length / t;
        const mem = server.memory;
        const m = kind === "node"
          ? `rss ${mem.rssKiB[mem.rssKiB.length - 1] ?? "?"} KiB`
          : `heap ${mem.slots[mem.slots.length - 1] ?? "?"} slots ${mem.chunks[mem.chunks.length - 1] ?? "?"} B`;
        o.onProgress?.(`${kind}: ${t.toFixed(0)} s, ${connected}/${list.length} bots in, Update ${ups.toFixed(1)}/s, ${m}, ` +
          `relay lost ${relay.up.lost + relay.down.lost} of ${relay.up.received + relay.down.received}`);
      },
    });
    for (const b of seen) updatesMin = Math.min(updatesMin, b.updateTicks / bots.seconds);
  } finally {
    report = await server.stop();
    await relay.close();
  }
  const delivery = check.result([...seen]);
  const problems: string[] = [];
  const want = (ok: boolean, what: string): void => {
    if (!ok) problems.push(what);
  };
  want(bots.connected === o.bots, `${bots.connected} of ${o.bots} bots connected`);
  want(bots.kicked === 0 && server.kicks() === 0, `kicks: ${bots.kicked} bots saw one, the server logged ${server.kicks()}`);
  want(bots.timedOut === 0 && server.timeouts() === 0, `timeouts: ${bots.timedOut} bots, ${server.timeouts()} at the server`);
  want(delivery.seqErrors === 0, `${delivery.seqErrors} reliable messages out of sequence`);
  want(delivery.duplicateChats === 0 && delivery.missingChats === 0 && delivery.orderErrors === 0,
    `chats: ${delivery.duplicateChats} duplicated, ${delivery.missingChats} missing, ${delivery.orderErrors} bots out of order`);
  want(delivery.joinErrors === 0, `${delivery.joinErrors} Joins not seen exactly once`);
  want(delivery.addErrors + delivery.removeErrors === 0, `${delivery.addErrors} Adds over a live entity, ${delivery.removeErrors} Removes of an unknown one`);
  want(server.memory.flat, kind === "xs" ? `XS heap not flat: slots ${server.memory.slots.join(" ")}, chunks ${server.memory.chunks.join(" ")}` : `RSS grew: ${server.memory.rssKiB.join(" ")} KiB`);
  if (kind === "xs") want(server.memory.slots.length >= 2, `only ${server.memory.slots.length} heap samples`);
  return {
    server: kind, seconds: bots.seconds, bots, updatesMin: Number.isFinite(updatesMin) ? updatesMin : 0, delivery,
    up: relay.up, down: relay.down, relay: describeFlows(relay), kicks: server.kicks(), timeouts: server.timeouts(),
    memory: server.memory, serverReport: report, problems,
  };
}

/** Run every server's soak at once, each with its own relay and bots. */
export async function runSoak(options: Partial<SoakOptions> & { minutes: number }): Promise<SoakReport> {
  const o: SoakOptions = { ...DEFAULT_SOAK, ...options };
  const dir = mkdtempSync(join(tmpdir(), "lwar-soak-"));
  try {
    const results = await Promise.all(o.servers.map((kind, k) => soakOne(kind, o, (o.seed + k * 1000003) >>> 0, dir)));
    return { options: o, results, ok: results.every((r) => r.problems.length === 0) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The report as text: a block per server, then one summary line. */
export function describeSoak(r: SoakReport): string {
  const lines: string[] = [];
  const im = r.options.impairment;
  lines.push(`soak: ${r.options.minutes} min, ${r.options.bots} bots per server (${r.options.behaviour}), seed ${r.options.seed}; ` +
    `loss ${pc(im.loss)}, duplication ${pc(im.duplicate)}, reordering ${pc(im.reorder)}, delay ${im.delayMs} ± ${im.jitterMs} ms`);
  for (const s of r.results) {
    const d = s.delivery;
    const b = s.bots;
    lines.push(`${s.server}:`);
    lines.push(`  bots         ${b.connected}/${b.bots} connected; ${b.disconnectedCleanly} left cleanly, ${b.kicked} kicked, ${b.timedOut} timed out, ${b.rejected} rejected`);
    lines.push(`  reliable     ${d.reliable} messages processed by the bots, ${d.seqErrors} out of sequence; ` +
      `chats ${d.chatsSent} sent, ${d.duplicateChats} duplicated, ${d.missingChats} missing, ${d.orderErrors} out of order; ` +
      `Joins ${d.joinErrors} wrong; Add/Remove ${d.addErrors + d.removeErrors} unpaired`);
    lines.push(`  rates        Update ${b.updatesPerSecond.toFixed(1)}/s per bot (lowest ${s.updatesMin.toFixed(1)}), Stats ${b.statsPerSecond.toFixed(2)}/s; ` +
      `the bots sent ${b.reliableSent} reliable messages and ${b.reliableResent} resends`);
    lines.push(`  server       ${s.kicks} kicks, ${s.timeouts} timeouts`);
    const m = s.memory;
    const r = m.rssKiB;
    lines.push(m.kind === "rss"
      ? `  memory       RSS, ${r.length} samples: first ${r[0] ?? "?"} KiB, ${range(r)} KiB, last ${r[r.length - 1] ?? "?"} KiB (${m.flat ? "flat" : "grew"})`
      : `  memory       XS heap above the base, ${m.slots.length} samples: slots ${range(m.slots)}, chunks ${range(m.chunks)} B (${m.flat ? "flat" : "NOT FLAT"})`);
    lines.push(`  relay        ${s.relay}`);
    lines.push(`  last words   ${s.serverReport.length > 400 ? s.serverReport.slice(0, 400) + "…" : s.serverReport}`);
    for (const p of s.problems) lines.push(`  PROBLEM      ${p}`);
  }
  lines.push(`soak: ${r.ok ? "PASS" : "FAIL"}: ` + r.results.map((s) =>
    `${s.server} ${s.bots.connected}/${s.bots.bots} bots, ${s.delivery.reliable} reliable exactly once${s.delivery.seqErrors + s.delivery.duplicateChats + s.delivery.missingChats ? " (NOT)" : ""}, ` +
    `Update ${s.bots.updatesPerSecond.toFixed(1)}/s, ${s.kicks + s.bots.kicked} kicks, ` +
    (s.memory.kind === "rss" ? `RSS ${s.memory.rssKiB[0] ?? "?"}→${s.memory.rssKiB[s.memory.rssKiB.length - 1] ?? "?"} KiB` : `XS heap ${s.memory.flat ? "flat" : "NOT flat"}`)).join("; "));
  return lines.join("\n");
}

function pc(p: number): string {
  return `${Math.round(p * 100)} %`;
}

function range(v: number[]): string {
  if (v.length === 0) return "none";
  const lo = Math.min(...v);
  const hi = Math.max(...v);
  return lo === hi ? `${lo}` : `${lo}..${hi}`;
}

// ------------------------------------------------------------------ command line

export const soakCommand = defineCommand({
  name: "soak",
  script: "npm run soak",
  summary: "the Node and the XS server behind an impairing relay, with bots.",
  options: {
    minutes: { type: "number", default: 1, min: 0.05, max: 24 * 60, arg: "M", help: "minutes to play" },
    servers: { type: "choice", choices: ["node", "xs", "node,xs"], default: "node,xs", arg: "LIST", help: "servers to soak; both run at once" },
    bots: { type: "int", default: DEFAULT_SOAK.bots, min: 1, max: 8, help: "bots per server" },
    behaviour: { type: "choice", choices: BEHAVIOURS, default: DEFAULT_SOAK.behaviour, help: "how the bots steer and shoot" },
    "chat-every": { type: "number", default: DEFAULT_SOAK.chatEveryS, min: 0.3, max: 3600, arg: "S", help: "mean seconds between chat lines per bot" },
    loss: { type: "number", default: HOSTILE.loss, min: 0, max: 0.9, arg: "P", help: "relay loss, each way" },
    duplicate: { type: "number", default: HOSTILE.duplicate, min: 0, max: 1, arg: "P", help: "relay duplication" },
    reorder: { type: "number", default: HOSTILE.reorder, min: 0, max: 1, arg: "P", help: "relay reordering" },
    delay: { type: "number", default: HOSTILE.delayMs, min: 0, max: 1000, arg: "MS", help: "one-way delay" },
    jitter: { type: "number", default: HOSTILE.jitterMs, min: 0, max: 1000, arg: "MS", help: "jitter around the delay, at most the delay" },
    "sample-s": { type: "number", default: DEFAULT_SOAK.sampleS, min: 1, max: 3600, arg: "S", help: "seconds between memory samples and progress lines" },
    seed: { type: "int", default: 1, min: 0, max: 0xffffffff, help: "random seed" },
    json: { type: "string", arg: "FILE", help: "also write the full report as JSON" },
  },
  failure: "a check failed for a server",
});

async function main(): Promise<void> {
  // Clients run the transport's C as WebAssembly (hosts/node/kernels.ts).
  installNodeKernels();
  const v = soakCommand.parse();
  if (v.jitter > v.delay) soakCommand.usage(`--jitter must be at most --delay (${v.delay}), got ${v.jitter}`);
  const options: SoakOptions = {
    minutes: v.minutes,
    seed: v.seed,
    servers: v.servers.split(",") as ServerKind[],
    bots: v.bots,
    behaviour: v.behaviour,
    chatEveryS: v["chat-every"],
    sampleS: v["sample-s"],
    impairment: {
      loss: v.loss, duplicate: v.duplicate, reorder: v.reorder, delayMs: v.delay, jitterMs: v.jitter, reorderMs: HOSTILE.reorderMs,
    },
    onProgress: (line) => console.log(`${new Date().toISOString().slice(11, 19)} ${line}`),
  };
  console.log(`soak: ${options.servers.join(" and ")} for ${options.minutes} min with ${options.bots} bots each behind the relay`);
  const report = await runSoak(options);
  console.log(describeSoak(report));
  if (v.json) writeFileSync(v.json, JSON.stringify(report, (k, x) => (k === "onProgress" ? undefined : x), 2) + "\n");
  process.exit(report.ok ? 0 : 1);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
