/**
 * `npm run test:sim`: the Moddable app on the Linux simulator, played by two bots, then
 * by two browsers and a bot.
 *
 * Writes the page's resources (`npm run build:page`), builds the app with
 * `mcconfig -d -m -p lin -t build httpPort=N heapProbeSeconds=5` into a temporary folder, starts `mcsim` under
 * `xvfb-run` in a process group of its own, runs two client-library bots against it over
 * UDP, then checks that
 *   - both bots stayed connected and left cleanly (no kick, timeout or reject),
 *   - each bot applied every reliable message exactly once, in seqno order, and received
 *     every chat line of both bots exactly once and in order (the server logged each once),
 *   - "Chunk used" and "Slot used" from the simulator's `instruments:` lines stay flat
 *     after warm-up (criterion in tools/sim/instruments.ts and docs/memory.md).
 * Then the web checks (tools/sim/browser.ts) on the app's HTTP port: the page from flash,
 * the WebSocket carriage with `ws`, and, where Chromium is installed, two Chromium pages
 * and a UDP bot playing one match; the heap sizes hold, and the live heap (the app's `heap:`
 * lines, a full collection every PROBE_S seconds: heapProbeSeconds) is back where it was
 * once the connections are gone.
 * Skips (exit 0, a line starting "skip:") where the SDK, mcsim or xvfb-run is missing; skips
 * the Chromium part alone where Chromium is.
 * mcsim and the build are stopped by process id, on failure and on Ctrl-C too.
 */
import { spawn, type ChildProcess } from "node:child_process";
import dgram from "node:dgram";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { DEFAULT_PORT } from "../modules/protocol/constants";
import { BEHAVIOURS } from "../harness/behaviours";
import { checkDelivery, type Events, playBots } from "./sim/delivery";
import { analyse, FLOOR_TOLERANCE, Instruments, type MemoryReport } from "./sim/instruments";
import { checkCarriage, checkPage, CHROMIUM, playInChromium } from "./sim/browser";
import { DEFAULT_FOLDER, writePageResources } from "./page-resources";
import { defineCommand } from "../cli";

export const simCommand = defineCommand({
  name: "sim-test",
  script: "npm run test:sim",
  summary:
    "build the Moddable app, run it in mcsim, play two bots against it, check delivery and memory; then check the page and the WebSocket carriage on its HTTP port, and play two Chromium pages and a bot against it.",
  options: {
    duration: { type: "number", default: 60, min: 10, max: 86400, arg: "S", help: "seconds the bots play" },
    warmup: { type: "number", default: 10, min: 0, max: 3600, arg: "S", help: "seconds left out of the memory check, at most a third of --duration" },
    behaviour: { type: "choice", choices: BEHAVIOURS, default: "idle", help: "bot behaviour" },
    "chat-every": { type: "number", default: 2, min: 0.2, max: 60, arg: "S", help: "mean seconds between chat lines per bot" },
    app: { type: "string", arg: "FILE", help: "run this mc.so instead of building one" },
    "http-port": { type: "int", min: 1, max: 65535, help: "with --app: the app's HTTP port (no web checks without it)" },
    "browser-duration": { type: "number", default: 30, min: 15, max: 3600, arg: "S", help: "seconds the Chromium pages play" },
    "no-web": { type: "flag", help: "leave out the web checks" },
    keep: { type: "flag", help: "keep the temporary folder (build, mcsim.log) even when the test passes" },
  },
  notes: `Needs MODDABLE, mcconfig and mcsim (on PATH or in $MODDABLE/build/bin/lin/release), xvfb-run and stdbuf; without them it prints "skip: ..." and exits 0. UDP port ${DEFAULT_PORT} must be free; the HTTP port is a free one. The Chromium part needs ${CHROMIUM} (or LWAR_CHROMIUM); without it, that part alone is skipped.`,
  failure: "a check failed",
});

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const PORT = DEFAULT_PORT;
const BOTS = 2;
/** Bots must be Connected at every progress check from this many seconds on. */

const BANNER_TIMEOUT_MS = 30_000;
/** Seconds between the app's `heap:` lines (a full collection, then the live heaps). */
const PROBE_S = 5;
/** Live heap growth allowed from before the web checks to after them, in bytes (the server keeps each slot's last address string). */
const LEAK_TOLERANCE = { chunk: 512, slot: 1024 };

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** An executable called `name` in PATH or in one of `extra`, or null. */
function findProgram(name: string, extra: string[] = []): string | null {
  for (const dir of [...(process.env.PATH ?? "").split(path.delimiter), ...extra]) {
    if (dir === "") continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}

function findFile(dir: string, name: string): string | null {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return null;
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isFile() && e.name === name) return p;
    if (e.isDirectory()) {
      const found = findFile(p, name);
      if (found !== null) return found;
    }
  }
  return null;
}

/** Whether nothing holds UDP `port` on this machine (bound on all interfaces, as mcsim does). */
function udpPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = dgram.createSocket({ type: "udp4", reuseAddr: false });
    s.once("error", () => {
      s.close();
      resolve(false);
    });
    s.bind(port, "0.0.0.0", () => s.close(() => resolve(true)));
  });
}

/** A TCP port free on this machine now. */
function freeTcpPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "0.0.0.0", () => {
      const a = s.address();
      const port = typeof a === "object" && a !== null ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Processes in process group `pgid`, from /proc. */
function groupMembers(pgid: number): { pid: number; comm: string }[] {
  const out: { pid: number; comm: string }[] = [];
  let names: string[];
  try {
    names = fs.readdirSync("/proc");
  } catch {
    return out;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const fields = stat.slice(close + 2).split(" "); // state ppid pgrp ...
    if (Number(fields[2]) === pgid) out.push({ pid: Number(name), comm });
  }
  return out;
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is gone
  }
}

/** A child started in a process group of its own (detached), stopped through that group. */
class Group {
  readonly child: ChildProcess;
  readonly pid: number;
  exited = false;
  exitCode: number | null = null;
  readonly done: Promise<void>;

  constructor(child: ChildProcess) {
    this.child = child;
    if (child.pid === undefined) throw new Error("spawn failed");
    this.pid = child.pid;
    this.done = new Promise((resolve) => {
      child.once("exit", (code, signal) => {
        this.exited = true;
        this.exitCode = code ?? (signal !== null ? 128 : null);
        resolve();
      });
    });
  }

  async waitExit(ms: number): Promise<boolean> {
    if (this.exited) return true;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
    await Promise.race([this.done, timeout]);
    clearTimeout(timer);
    return this.exited;
  }

  /**
   * Stop it: first SIGTERM to the members named `first` (so a wrapper such as xvfb-run can
   * tidy up after its command ends), then the whole group, then SIGKILL; and SIGKILL any
   * member left behind once the leader is gone.
   */
  async stop(first: string | null): Promise<void> {
    if (!this.exited && first !== null) {
      for (const m of groupMembers(this.pid)) {
        if (m.comm !== first) continue;
        try {
          process.kill(m.pid, "SIGTERM");
        } catch {
          // already gone
        }
      }
      await this.waitExit(5000);
    }
    if (!this.exited) {
      signalGroup(this.pid, "SIGTERM");
      if (!(await this.waitExit(3000))) {
        signalGroup(this.pid, "SIGKILL");
        await this.waitExit(2000);
      }
    }
    if (groupMembers(this.pid).length > 0) {
      await new Promise((r) => setTimeout(r, 500));
      if (groupMembers(this.pid).length > 0) signalGroup(this.pid, "SIGKILL");
    }
  }

  /** Last resort on process exit: no waiting possible. */
  killNow(): void {
    if (!this.exited || groupMembers(this.pid).length > 0) signalGroup(this.pid, "SIGKILL");
  }
}

// ------------------------------------------------------------------ run state and cleanup

let build: Group | null = null;
let sim: Group | null = null;
let workDir: string | null = null;
let keepWorkDir = false;
/** The app's `heap:` lines: live heap in bytes after a full collection, at t seconds. */
const probes: { t: number; chunk: number; slot: number }[] = [];
/** Status lines the app printed so far (the web checks wait for a new one). */
let statusCount: () => number = () => 0;

async function cleanup(): Promise<void> {
  const b = build;
  const s = sim;
  build = null;
  sim = null;
  if (b !== null) await b.stop(null);
  if (s !== null) {
    if (!s.exited) say(`sim-test: stopping mcsim (xvfb-run process group ${s.pid})`);
    await s.stop("mcsim");
  }
}

function removeWorkDir(): void {
  if (workDir !== null && !keepWorkDir) fs.rmSync(workDir, { recursive: true, force: true });
}

let stopping = false;
function onSignal(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  say(`\nsim-test: ${signal}, stopping`);
  void cleanup().finally(() => {
    removeWorkDir();
    process.exit(130);
  });
}
function installHandlers(): void {
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);
  process.on("exit", () => {
    build?.killNow();
    sim?.killNow();
  });
}

async function finish(failures: string[]): Promise<never> {
  // After Ctrl-C the signal handler stops everything and exits; report nothing here.
  if (stopping) return new Promise<never>(() => {});
  await cleanup();
  if (stopping) return new Promise<never>(() => {});
  if (failures.length === 0) {
    removeWorkDir();
    if (keepWorkDir && workDir !== null) say(`sim-test: kept ${workDir}`);
    say("sim-test: PASS");
    process.exit(0);
  }
  for (const f of failures) say(`FAIL: ${f}`);
  if (workDir !== null) say(`sim-test: build log and mcsim.log kept in ${workDir}`);
  say(`sim-test: FAIL (${failures.length} check${failures.length === 1 ? "" : "s"})`);
  process.exit(1);
}

interface Programs {
  mcsim: string;
  xvfbRun: string;
  stdbuf: string;
  /** Null when --app gives the app. */
  mcconfig: string | null;
  localBin: string;
  env: NodeJS.ProcessEnv;
}

/** The programs, or why the test is skipped here (a missing tool is a skip, not a failure: CI has none of them). */
function findPrograms(needBuild: boolean): Programs | string {
  if (process.platform !== "linux") return `the Moddable simulator test runs on Linux only (this is ${process.platform})`;
  const moddable = process.env.MODDABLE;
  if (moddable === undefined || moddable === "") return "MODDABLE is not set (the Moddable SDK is not installed here)";
  if (!fs.existsSync(moddable)) return `MODDABLE=${moddable} does not exist`;
  const sdkBin = path.join(moddable, "build", "bin", "lin", "release");
  const mcsim = findProgram("mcsim", [sdkBin]);
  if (mcsim === null) return `mcsim not found on PATH or in ${sdkBin} (build the SDK's Linux tools)`;
  const xvfbRun = findProgram("xvfb-run");
  if (xvfbRun === null) return "xvfb-run not found on PATH (install the xvfb package)";
  const stdbuf = findProgram("stdbuf");
  if (stdbuf === null) return "stdbuf not found on PATH (coreutils)";
  let mcconfig: string | null = null;
  if (needBuild) {
    mcconfig = findProgram("mcconfig", [sdkBin]);
    if (mcconfig === null) return `mcconfig not found on PATH or in ${sdkBin} (build the SDK's Linux tools)`;
  }
  // mcconfig runs tsc, xsc and the like from PATH.
  const localBin = path.join(ROOT, "node_modules", ".bin");
  const env = { ...process.env, PATH: [localBin, process.env.PATH ?? "", path.dirname(mcsim)].join(path.delimiter) };
  return { mcsim, xvfbRun, stdbuf, mcconfig, localBin, env };
}

/** Build the app into the work folder: its mc.so and the HTTP port it serves on, or a failure. */
async function buildApp(p: Programs, dir: string): Promise<{ app: string; httpPort: number } | string> {
  if (findProgram("tsc", [p.localBin]) === null) return "tsc not found (mcconfig needs it): run npm install";
  const page = await writePageResources();
  say(`sim-test: page resources: ${page.resources.map((r) => `${r.name} ${r.gzipBytes} B`).join(", ")} in ${DEFAULT_FOLDER}`);
  const httpPort = await freeTcpPort();
  const out = path.join(dir, "build");
  fs.mkdirSync(out);
  const logPath = path.join(dir, "build.log");
  const args = ["-d", "-m", "-p", "lin", "-t", "build", "-o", out, `httpPort=${httpPort}`, `heapProbeSeconds=${PROBE_S}`];
  say(`sim-test: building: mcconfig ${args.join(" ")}`);
  const log = fs.openSync(logPath, "w");
  const started = performance.now();
  build = new Group(spawn(p.mcconfig as string, args, { cwd: ROOT, env: p.env, detached: true, stdio: ["ignore", log, log] }));
  await build.done;
  fs.closeSync(log);
  const code = build.exitCode;
  build = null;
  if (code !== 0) {
    const tail = fs.readFileSync(logPath, "utf8").trimEnd().split("\n").slice(-25);
    for (const l of tail) say(`build | ${l}`);
    return `mcconfig exited with ${code}`;
  }
  const app = findFile(path.join(out, "bin"), "mc.so");
  if (app === null) return `mcconfig succeeded but left no mc.so under ${out}/bin`;
  say(`sim-test: built in ${((performance.now() - started) / 1000).toFixed(0)} s: ${app}`);
  return { app, httpPort };
}

/** The running simulator and what its output said so far. */
interface Simulator {
  group: Group;
  inst: Instruments;
  log: fs.WriteStream;
  serverChats: { name: string; text: string }[];
  events: Events;
  /** The same, for WebSocket peers (`ws:<address>#n` in the line). */
  wsEvents: Events;
  lastStatus: string;
  /** When the bots started; instruments lines before that get t = -1. */
  t0: number | null;
  botsRunning: boolean;
}

/** Start mcsim under xvfb-run and wait for the server's banner; the simulator, or a failure. */
async function startSimulator(p: Programs, app: string, dir: string): Promise<Simulator | string> {
  const child = spawn(p.xvfbRun, ["-a", p.stdbuf, "-oL", p.mcsim, app], { cwd: dir, env: p.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  sim = new Group(child);
  const s: Simulator = {
    group: sim, inst: new Instruments(), log: fs.createWriteStream(path.join(dir, "mcsim.log")), serverChats: [],
    events: { join: 0, leave: 0, kick: 0, timeout: 0, reject: 0 }, wsEvents: { join: 0, leave: 0, kick: 0, timeout: 0, reject: 0 },
    lastStatus: "", t0: null, botsRunning: false,
  };
  let statusLines = 0;
  statusCount = () => statusLines;
  let bannerSeen: () => void = () => {};
  const banner = new Promise<void>((resolve) => (bannerSeen = resolve));
  say(`sim-test: started mcsim under xvfb-run, process group ${s.group.pid}`);
  child.stderr?.on("data", (d: Buffer) => s.log.write(d));
  readline.createInterface({ input: child.stdout! }).on("line", (line) => {
    const t = s.t0 === null ? -1 : (performance.now() - s.t0) / 1000;
    s.log.write(`${line}\n`);
    if (s.inst.line(line, t)) return;
    const probe = /^heap: live chunk (\d+) slot (\d+)/.exec(line);
    if (probe !== null) {
      probes.push({ t, chunk: Number(probe[1]), slot: Number(probe[2]) });
      return;
    }
    // modules/report.ts: chat    'NAME': TEXT
    const chat = /^chat\s+'(.*?)': (bot \d+ says hi #\d+)$/.exec(line);
    if (chat !== null) {
      s.serverChats.push({ name: chat[1], text: chat[2] });
      return;
    }
    const ev = /^(join|leave|kick|timeout|reject)\b/.exec(line);
    if (ev !== null) {
      s.events[ev[1] as keyof Events]++;
      if (/ ws:\S+#\d+ /.test(line)) s.wsEvents[ev[1] as keyof Events]++;
    }
    if (line.startsWith("status ")) {
      s.lastStatus = line;
      statusLines++;
    }
    if (line.startsWith("lwar-xs listening")) bannerSeen();
    // Status lines every 10 s would interleave with the progress lines: log only.
    if (!line.startsWith("status ") || !s.botsRunning) say(`sim | ${line}`);
  });

  const bannerTimeout = new Promise<string>((resolve) => setTimeout(() => resolve("timeout"), BANNER_TIMEOUT_MS).unref());
  const started = await Promise.race([banner.then(() => "ok"), s.group.done.then(() => "exit"), bannerTimeout]);
  if (started === "ok") {
    await new Promise((r) => setTimeout(r, 500)); // the rest of the banner
    return s;
  }
  return started === "exit" ? `mcsim exited (code ${s.group.exitCode}) before the server started` : `no server banner within ${BANNER_TIMEOUT_MS / 1000} s`;
}

/** The heaps stayed flat after warm-up. */
function checkMemory(inst: Instruments, warmupS: number, durationS: number): string[] {
  const failures: string[] = [];
  if (inst.samples.length === 0)
    failures.push("mcsim printed no instruments lines: is xsbug running? (a debug build sends them to xsbug on localhost:5002 when it can)");
  const report = analyse(inst, warmupS, durationS);
  printMemory(report);
  failures.push(...report.errors);
  for (const t of report.trends) failures.push(...t.problems);
  return failures;
}

type Options = ReturnType<typeof simCommand.parse>;

async function main(): Promise<void> {
  const v: Options = simCommand.parse();
  installHandlers();
  const durationS = v.duration;
  const warmupS = Math.min(v.warmup, durationS / 3);
  const web = !v["no-web"] && (v.app === undefined || v["http-port"] !== undefined);
  keepWorkDir = v.keep;

  const programs = findPrograms(v.app === undefined);
  if (typeof programs === "string") return skip(programs);
  const app0 = v.app !== undefined ? path.resolve(v.app) : null;
  if (app0 !== null && !fs.existsSync(app0)) simCommand.usage(`--app ${app0}: no such file`);
  if (!(await udpPortFree(PORT))) {
    say(`FAIL: UDP port ${PORT} is in use on this machine (another mcsim or lwar server?); stop it and retry`);
    process.exit(1);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lwar-sim-"));
  workDir = dir;

  let app = app0;
  let httpPort = v["http-port"] ?? 0;
  if (app === null) {
    const built = await buildApp(programs, dir);
    if (typeof built === "string") return finish([built]);
    ({ app, httpPort } = built);
  }
  const s = await startSimulator(programs, app, dir);
  if (typeof s === "string") return finish([s]);
  s.t0 = performance.now();
  s.botsRunning = true;
  const inst = s.inst;
  const played = await playBots({
    host: "127.0.0.1", port: PORT, count: BOTS, behaviour: v.behaviour, chatEveryS: v["chat-every"], durationS, say: (l) => say(`sim-test: ${l}`),
    progress: () => `Chunk used ${inst.latest("Chunk used") ?? "?"} Slot used ${inst.latest("Slot used") ?? "?"} GC ${inst.latest("Garbage collections") ?? "?"}/s`,
    died: s.group.done,
  });
  s.botsRunning = false;
  if (played === null) return finish([`mcsim exited (code ${s.group.exitCode}) while the bots were playing`]);
  // Let the server's leave lines and one more instruments line arrive.
  await new Promise((r) => setTimeout(r, 1500));
  const udpEvents = { ...s.events };
  const udpChats = s.serverChats.slice();
  const t0 = s.t0 ?? performance.now();
  const webFailures = web
    ? await webChecks({ httpPort, now: () => (performance.now() - t0) / 1000, inst: s.inst, wsEvents: s.wsEvents, status: () => s.lastStatus, browserS: v["browser-duration"] })
    : [];
  if (!web) say(`\nweb: not checked (${v["no-web"] ? "--no-web" : "--app without --http-port"})`);
  await cleanup();
  s.log.end();

  const failures = [...checkDelivery(played, BOTS, udpEvents, udpChats, say), ...checkMemory(s.inst, warmupS, durationS), ...webFailures];
  say("");
  return finish(failures);
}

function printMemory(m: MemoryReport, title = "memory"): void {
  say("");
  say(
    `${title}: instruments from t=${m.from.toFixed(0)} s to t=${m.to.toFixed(0)} s: ${m.samples} samples, ` +
      `${m.firstSamples} in the first third, ${m.lastSamples} in the last (bytes, 64-bit host: a slot is 32 bytes)`,
  );
  for (const t of m.trends) {
    say(
      `  ${t.used.padEnd(10)} first third min ${t.firstMin} max ${t.firstMax}; last third min ${t.lastMin} max ${t.lastMax}; ` +
        `floor ${t.lastMin - t.firstMin >= 0 ? "+" : ""}${t.lastMin - t.firstMin} (allowed +${t.tolerance}); ` +
        `${t.heap} ${t.heapStart} -> ${t.heapSettled} -> max ${t.heapMax}  ${t.ok ? "flat" : "NOT FLAT"}`,
    );
  }
  if (m.errors.length === 0) {
    say(`  Garbage collections: ${m.gcFirst} in the first third, ${m.gcLast} in the last; Stack used peak ${m.stackPeak}`);
    say(`  criterion: heap sizes constant after the first third, floor (lowest value) within ${FLOOR_TOLERANCE * 100}% of the heap size`);
  }
}


/** The app's next `heap:` line (within two probe periods), or null. */
async function nextProbe(now: () => number): Promise<{ t: number; chunk: number; slot: number } | null> {
  const after = now();
  const until = performance.now() + 2 * PROBE_S * 1000 + 1000;
  while (performance.now() < until) {
    const p = probes.find((q) => q.t > after);
    if (p !== undefined) return p;
    await new Promise((r) => setTimeout(r, 200));
  }
  return null;
}

/**
 * The page, the carriage and (with Chromium) two pages and a bot, on the running app's HTTP
 * port. Prints as it goes; returns the failures.
 */
async function webChecks(o: {
  httpPort: number;
  now: () => number;
  inst: Instruments;
  wsEvents: Events;
  status: () => string;
  browserS: number;
}): Promise<string[]> {
  const failures: string[] = [];
  const base = `http://127.0.0.1:${o.httpPort}`;
  say("");
  say(`web: the page and the WebSocket carriage on http port ${o.httpPort}`);
  const idleBefore = await nextProbe(o.now);
  /** The live heap once the connections are gone, against before the web checks. */
  const leakCheck = async (): Promise<{ t: number; chunk: number; slot: number } | null> => {
    await nextProbe(o.now);
    const idleAfter = await nextProbe(o.now);
    if (idleBefore === null || idleAfter === null) failures.push(`no heap: lines from the app (heapProbeSeconds=${PROBE_S})`);
    else if (idleAfter.chunk > idleBefore.chunk + LEAK_TOLERANCE.chunk || idleAfter.slot > idleBefore.slot + LEAK_TOLERANCE.slot)
      failures.push(`the live heap grew over the web checks: chunk ${idleBefore.chunk} -> ${idleAfter.chunk}, slot ${idleBefore.slot} -> ${idleAfter.slot} (allowed +${LEAK_TOLERANCE.chunk}, +${LEAK_TOLERANCE.slot})`);
    return idleAfter;
  };
  try {
    failures.push(...(await checkPage(base, DEFAULT_FOLDER, say)));
    const before = { ...o.wsEvents };
    const statusBefore = statusCount();
    failures.push(...(await checkCarriage(`ws://127.0.0.1:${o.httpPort}/ws`, say)));
    await new Promise((r) => setTimeout(r, 500));
    if (o.wsEvents.join - before.join !== 1 || o.wsEvents.leave - before.leave !== 1)
      failures.push(`the server logged ${o.wsEvents.join - before.join} joins and ${o.wsEvents.leave - before.leave} leaves of WebSocket peers for the one player, expected 1 each`);
    // The drops show in the next status line (every 10 s).
    const waitUntil = performance.now() + 12000;
    while (statusCount() === statusBefore && performance.now() < waitUntil) await new Promise((r) => setTimeout(r, 200));
    const line = o.status();
    const counted = ["ws.textDropped=1", "ws.fragmentedDropped=1", "tooLong=1"].filter((c) => line.split(" ").includes(c));
    say(`  the board counted: ${counted.join(" ") || "nothing"} (status line: ${line.replace(/^.*drops /, "drops ")})`);
    if (counted.length !== 3) failures.push(`the status line after the carriage check should count ws.textDropped=1 ws.fragmentedDropped=1 tooLong=1: ${line}`);

    if (!fs.existsSync(CHROMIUM)) {
      say(`  two browsers and a bot: skipped, no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set LWAR_CHROMIUM)`);
      const idleAfter = await leakCheck();
      say(`  live heap after a full collection (bytes, 64-bit): chunk ${idleBefore?.chunk ?? "?"} slot ${idleBefore?.slot ?? "?"} before, chunk ${idleAfter?.chunk ?? "?"} slot ${idleAfter?.slot ?? "?"} after`);
      return failures;
    }
    say(`web: two Chromium pages and a UDP bot for ${o.browserS} s`);
    // Outside the work folder, which goes when the test passes.
    const shots = fs.mkdtempSync(path.join(os.tmpdir(), "lwar-sim-shots-"));
    const wsBefore = { ...o.wsEvents };
    const played = await playInChromium({ pageUrl: `${base}/`, udpPort: PORT, durationS: o.browserS, now: o.now, say, shots });
    failures.push(...played.failures);
    // The pages closed: a Disconnect each. Let the leave lines and an instruments line arrive.
    await new Promise((r) => setTimeout(r, 2000));
    const joins = o.wsEvents.join - wsBefore.join;
    const leaves = o.wsEvents.leave - wsBefore.leave;
    say(`  server log: ${joins} WebSocket peers joined, ${leaves} left (pages closed: Disconnect); last status: ${o.status()}`);
    if (joins !== 2 || leaves !== 2) failures.push(`the server logged ${joins} joins and ${leaves} leaves of WebSocket peers for the two pages, expected 2 each`);
    const warm = Math.min(5, o.browserS / 4);
    const playing = probes.filter((p) => p.t >= played.from + warm && p.t <= played.to);
    const failed = failures.length;
    const idleAfter = await leakCheck();
    const leaked = failures.length > failed;
    const m = analyse(o.inst, played.from + warm, played.to);
    printMemory(m, "memory with two browser players and a UDP bot");
    // With a collection every few seconds, the 1 Hz samples rarely land on the floor: the heap
    // sizes must hold, and the leak check uses the app's own live readings instead.
    failures.push(...m.errors.map((e) => `browser phase: ${e}`));
    for (const t of m.trends) failures.push(...t.problems.filter((p) => !p.includes("floor")).map((p) => `browser phase: ${p}`));
    const range = (xs: number[]) => (xs.length === 0 ? "?" : Math.min(...xs) === Math.max(...xs) ? `${xs[0]}` : `${Math.min(...xs)}..${Math.max(...xs)}`);
    say(`  live heap after a full collection (bytes, 64-bit): chunk ${idleBefore?.chunk ?? "?"} slot ${idleBefore?.slot ?? "?"} idle before; ` +
      `chunk ${range(playing.map((p) => p.chunk))} slot ${range(playing.map((p) => p.slot))} while the two pages and the bot play; ` +
      `chunk ${idleAfter?.chunk ?? "?"} slot ${idleAfter?.slot ?? "?"} idle after`);
    if (!leaked) say(`  no leak: idle after is within +${LEAK_TOLERANCE.chunk} chunk and +${LEAK_TOLERANCE.slot} slot bytes of idle before`);
  } catch (err) {
    failures.push(`web checks: ${(err as Error).message}`);
  }
  return failures;
}

function skip(reason: string): void {
  say(`skip: ${reason}`);
  process.exit(0);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch(async (err: unknown) => {
    say(`sim-test: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    await finish(["unexpected error"]);
  });
}
