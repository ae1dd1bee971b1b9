// Runs scripts in the lwxs host (tools/xs/build/lwxs) and collects the result.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const LWXS = fileURLToPath(new URL("./build/lwxs", import.meta.url));

/**
 * Slots for a script that runs the whole server and game, on top of lwxs's ESP32 default
 * (4928). lwxs runs a one-script bundle, so the modules' top level (their classes and
 * functions: about 3,840 slots, which `npm run budget` lists apart) is built at run time
 * here and counts in the heap, while the device preloads it into flash. The server's
 * session broadcasts and flood buckets added about 90 slots of functions to that top level
 * and pushed the start-up peak over 4928; splitting the server into rooms (admission,
 * session, schedule and their shared state, modules/server/) added about 150 more, and the
 * native boundary's implementation classes (one JavaScript and one native object per loop,
 * modules/server/entries.ts and entity-sync.ts) and its declaration about 270 more. The
 * server's bots (pilot.ts, pilots.ts) added more, and the game's split into files by concern
 * (modules/game/) about 640: its functions, the closure references of each module-level
 * function in the one-script bundle, and its own JavaScript and native step objects. The
 * transport's receive step (modules/transport/receive.ts: its class, and the methods its
 * owners gained) took the start-up peak about 30 slots over that: 64 more. The device itself is measured on the emulated ESP32 (`npm run test:esp32`), whose heaps have
 * the margin (docs/memory.md).
 */
export const APP_SLOTS = 4928 + 1024 + 640 + 64;

export interface XsOptions {
  /** Slot heap for scripts, in slots (lwxs default: 4928, as on ESP32). */
  slots?: number;
  /** Chunk heap for scripts, in bytes (lwxs default: 78848, as on ESP32). */
  chunks?: number;
  /** Stack, in slots (lwxs default: 512). */
  stack?: number;
  /** Keys that scripts may create at run time (lwxs default: 32). */
  keys?: number;
  /** Strings passed after `--`, seen by scripts as `xs.args`. */
  args?: string[];
  /** Print the creation and base usage to stderr. */
  verbose?: boolean;
  /** Kill the host after this long (default 30 s); the result has `timedOut`. */
  timeoutMs?: number;
  /** Ends the host when aborted: SIGTERM (exit status 143 after the summary line), then SIGKILL. */
  signal?: AbortSignal;
  /** Called with each line the scripts print, as it arrives. */
  onStdout?: (line: string) => void;
  cwd?: string;
}

export interface XsResult {
  /** Exit status; null when killed by a signal. */
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}

/** Throws when the host is missing, which means the build in `npm install` failed. */
export function assertBuilt(): string {
  if (!existsSync(LWXS)) {
    throw new Error(`the XS host is not built: ${LWXS} is missing. ` +
      "`npm install` builds it (postinstall); run `npm run build:xs` to see why it fails.");
  }
  return LWXS;
}

export function xsArguments(scripts: readonly string[], options: XsOptions = {}): string[] {
  const argv: string[] = [];
  if (options.slots !== undefined) argv.push("--slots", String(options.slots));
  if (options.chunks !== undefined) argv.push("--chunks", String(options.chunks));
  if (options.stack !== undefined) argv.push("--stack", String(options.stack));
  if (options.keys !== undefined) argv.push("--keys", String(options.keys));
  if (options.verbose) argv.push("--verbose");
  argv.push(...scripts);
  if (options.args?.length) argv.push("--", ...options.args);
  return argv;
}

export function runXs(scripts: readonly string[], options: XsOptions = {}): Promise<XsResult> {
  const binary = assertBuilt();
  return new Promise((resolve, reject) => {
    const child = spawn(binary, xsArguments(scripts, options), {
      cwd: options.cwd,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let pending = "";
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs ?? 30_000);
    // lwxs ends its loop on SIGTERM and prints its summary; a script that never
    // returns to the loop gets SIGKILL a little later.
    let killTimer: NodeJS.Timeout | undefined;
    const onAbort = () => {
      child.kill("SIGTERM");
      killTimer = setTimeout(() => child.kill("SIGKILL"), 2000);
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (text: string) => {
      stdout += text;
      if (!options.onStdout) return;
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        options.onStdout(line);
      }
    });
    child.stderr.on("data", (text: string) => {
      stderr += text;
    });
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (options.onStdout && pending) options.onStdout(pending);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
