/**
 * `npm run bench:device`: the device bench in the Moddable simulator (Linux).
 *
 * Writes the trace and the module list (bench/device/generate.ts), builds bench/device with
 * `mcconfig -d -m -p lin -t build` into a temporary folder, runs the app in `mcsim` under
 * `xvfb-run` in a process group of its own, prints what the app prints, and stops mcsim by
 * that group once the app says it is done. Needs MODDABLE and the SDK's Linux tools; says
 * so and exits 1 without them. On an ESP32, build bench/device with mcconfig yourself
 * (docs/performance.md, "Device bench").
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath, pathToFileURL } from "node:url";
import { defineCommand } from "../../cli";
import { DEFAULT_CASE } from "../../harness/trace";
import { MODULES_FRAGMENT, deviceTrace, modulesFragment } from "./generate";
import { TRACE_RESOURCE, caseLabel, defaultDeviceCase } from "./tracefile";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.join(HERE, "..", "..");
const SUMMARY = "lwar-xs device bench: ";
const DONE = "lwar-xs device bench: done";

/** The game's smallest pool at 8 players: the sun, 6 planets, 8 ships and a projectile. */
const MIN_CAPACITY = 16;

export const deviceBenchCommand = defineCommand({
  name: "bench:device",
  script: "npm run bench:device",
  summary:
    "the device bench in the Moddable simulator: replay the bench's busy 8-player match (game, capacity 192) through the server and game on XS, and print µs per 10 ms tick and heap.",
  options: {
    players: { type: "int", default: 8, min: 1, max: 8, help: "clients" },
    capacity: { type: "int", default: 192, min: MIN_CAPACITY, max: 4096, help: "entity capacity; the game needs the sun, 6 planets, a ship per player and a projectile" },
    static: { type: "int", min: 0, max: 4095, help: "N static entities with the game off, instead of the game; below --capacity" },
    seed: { type: "int", default: DEFAULT_CASE.seed, min: 0, max: 0xffffffff, help: "match seed" },
    runs: { type: "int", default: 5, min: 1, max: 99, help: "timed runs; the median of each figure is reported (the simulator shares this machine with everything else)" },
    timeout: { type: "int", default: 300, min: 10, max: 3600, arg: "S", help: "give up after S seconds in the simulator" },
    keep: { type: "flag", help: "keep the temporary build folder" },
  },
  notes: "Needs MODDABLE (the Moddable SDK with its Linux tools built), xvfb-run and stdbuf, and tsc from npm install.",
  failure: "the bench did not run, or the replay did not match the recording",
});

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function fail(message: string, code = 1): never {
  process.stderr.write(`bench:device: ${message}\n`);
  process.exit(code);
}

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

/** Processes of process group `pgid` whose command is `comm`, from /proc. */
function groupMembers(pgid: number, comm: string): number[] {
  const out: number[] = [];
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const close = stat.lastIndexOf(")");
    const fields = stat.slice(close + 2).split(" "); // state ppid pgrp ...
    if (stat.slice(stat.indexOf("(") + 1, close) === comm && Number(fields[2]) === pgid) out.push(Number(name));
  }
  return out;
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    // gone
  }
}

/** A child in a process group of its own, stopped through that group. */
let group: ChildProcess | null = null;
function stopGroup(signal: NodeJS.Signals): void {
  if (group?.pid === undefined || group.exitCode !== null || group.signalCode !== null) return;
  try {
    process.kill(-group.pid, signal);
  } catch {
    // gone
  }
}
function installHandlers(): void {
  process.on("exit", () => stopGroup("SIGKILL"));
  for (const s of ["SIGINT", "SIGTERM"] as const) {
    process.on(s, () => {
      stopGroup("SIGTERM");
      process.exit(130);
    });
  }
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function main(): Promise<void> {
  const v = deviceBenchCommand.parse();
  installHandlers();
  const o = defaultDeviceCase(DEFAULT_CASE);
  o.players = v.players;
  o.capacity = v.capacity;
  o.seed = v.seed;
  if (v.static !== undefined) {
    if (v.static >= o.capacity) deviceBenchCommand.usage(`--static must be below --capacity (${o.capacity}), got ${v.static}`);
    o.game = false;
    o.entities = v.static;
  }
  const timeoutS = v.timeout;
  const runs = v.runs;

  const moddable = process.env.MODDABLE;
  if (moddable === undefined || moddable === "")
    fail("MODDABLE is not set: install the Moddable SDK and build its Linux tools (see docs/performance.md, \"Device bench\"), then export MODDABLE=/path/to/moddable");
  if (!fs.existsSync(moddable)) fail(`MODDABLE=${moddable} does not exist`);
  if (process.platform !== "linux") fail(`the simulator run is for Linux (this is ${process.platform}); build bench/device with mcconfig for your platform`);
  const sdkBin = path.join(moddable, "build", "bin", "lin", "release");
  const localBin = path.join(ROOT, "node_modules", ".bin");
  const mcconfig = findProgram("mcconfig", [sdkBin]);
  const mcsim = findProgram("mcsim", [sdkBin]);
  if (mcconfig === null || mcsim === null) fail(`mcconfig or mcsim not found on PATH or in ${sdkBin}: build the SDK's Linux tools`);
  const xvfbRun = findProgram("xvfb-run");
  if (xvfbRun === null) fail("xvfb-run not found (install the xvfb package)");
  const stdbuf = findProgram("stdbuf");
  if (stdbuf === null) fail("stdbuf not found (coreutils)");
  if (findProgram("tsc", [localBin]) === null) fail("tsc not found (mcconfig needs it): run npm install");
  const env = { ...process.env, PATH: [localBin, process.env.PATH ?? "", sdkBin].join(path.delimiter) };

  // ---- the trace and the module list
  const file = deviceTrace(o);
  fs.writeFileSync(path.join(HERE, TRACE_RESOURCE), file);
  const fragment = modulesFragment();
  fs.writeFileSync(path.join(HERE, MODULES_FRAGMENT), JSON.stringify(fragment, null, "\t") + "\n");
  say(`bench:device: ${caseLabel(o)}: wrote bench/device/${TRACE_RESOURCE} (${file.length} bytes) and bench/device/${MODULES_FRAGMENT}`);

  // ---- build
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "lwar-device-bench-"));
  const cleanup = () => {
    if (!v.keep) fs.rmSync(work, { recursive: true, force: true });
  };
  const out = path.join(work, "build");
  fs.mkdirSync(out);
  const logPath = path.join(work, "build.log");
  const args = ["-d", "-m", "-p", "lin", "-t", "build", "-o", out, `runs=${runs}`];
  say(`bench:device: building: (cd bench/device && mcconfig ${args.join(" ")})`);
  const log = fs.openSync(logPath, "w");
  group = spawn(mcconfig, args, { cwd: HERE, env, detached: true, stdio: ["ignore", log, log] });
  const code = await new Promise<number | null>((resolve) => group!.once("exit", (c) => resolve(c)));
  fs.closeSync(log);
  group = null;
  if (code !== 0) {
    for (const l of fs.readFileSync(logPath, "utf8").trimEnd().split("\n").slice(-25)) say(`build | ${l}`);
    say(`bench:device: build log kept in ${logPath}`);
    fail(`mcconfig exited with ${code}`);
  }
  const app = findFile(path.join(out, "bin"), "mc.so");
  if (app === null) fail(`mcconfig left no mc.so under ${out}/bin`);

  // ---- run
  say(`bench:device: running ${path.relative(work, app)} in mcsim (xvfb-run); this takes a few seconds here, a minute or so on an ESP32`);
  const child = spawn(xvfbRun, ["-a", stdbuf, "-oL", mcsim, app], { cwd: work, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  group = child;
  const simLog = fs.createWriteStream(path.join(work, "mcsim.log"));
  child.stderr?.on("data", (d: Buffer) => simLog.write(d));
  const seen: { summary: string | null; failed: string | null; warning: boolean } = { summary: null, failed: null, warning: false };
  const done = new Promise<void>((resolve) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      simLog.write(`${line}\n`);
      if (line.startsWith("instruments")) return;
      say(`sim | ${line}`);
      if (line.startsWith("WARNING")) seen.warning = true;
      if (line.startsWith(SUMMARY) && line.includes(" µs per 10 ms tick")) seen.summary = line;
      if (line.startsWith(`${SUMMARY}failed`) || line.startsWith(`${SUMMARY}no `) || line.startsWith("XS abort")) {
        seen.failed = line;
        resolve();
      }
      if (line === DONE) resolve();
    });
    child.once("exit", () => resolve());
  });
  const timer = new Promise<"timeout">((resolve) => setTimeout(() => resolve("timeout"), timeoutS * 1000).unref());
  const outcome = await Promise.race([done, timer]);

  // Stop mcsim first (so xvfb-run tidies up its X server), then the whole group.
  if (child.pid !== undefined) for (const pid of groupMembers(child.pid, "mcsim")) signal(pid, "SIGTERM");
  if (!(await waitExit(child, 5000))) {
    stopGroup("SIGTERM");
    if (!(await waitExit(child, 3000))) stopGroup("SIGKILL");
  }
  group = null;
  simLog.end();

  const keptNote = `simulator output kept in ${path.join(work, "mcsim.log")}`;
  if (outcome === "timeout") {
    fail(`no result within ${timeoutS} s; ${keptNote}`);
  }
  if (seen.failed !== null || seen.summary === null) {
    fail(`${seen.failed ?? "the app printed no summary"}; ${keptNote}`);
  }
  cleanup();
  say("");
  say("summary (paste into an issue):");
  say(seen.summary);
  if (seen.warning) fail("the replay did not end with the recording's totals: see the WARNING above");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    stopGroup("SIGKILL");
    fail(err instanceof Error ? (err.stack ?? err.message) : String(err));
  });
}
