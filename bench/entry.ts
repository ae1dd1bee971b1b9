/**
 * One benchmark job for lwxs or Node, bundled by bench/bench.ts into one classic script.
 * A script loaded before it defines `BENCH_TRACE`: the trace's bytes as 32-bit words.
 *
 *   time  <case JSON>           time the server through the trace; prints `result <JSON>`
 *   count <case JSON> <ticks> <datagrams>
 *                               the bracketed steps and datagrams for callgrind (see countReplay)
 *   deep  <case JSON>           replay the whole trace with as few frames under the server's
 *                               calls as the device has (for probing the stack it needs)
 *   load                        nothing: what loading this script takes
 */
import { DEFAULT_CASE, Replay, countReplay, timeReplay, type CaseOptions } from "../harness/trace";
import { Counter } from "../modules/protocol/counters";
import type { Kernels, MemoryFactory, NativeFactory } from "../modules/native";
import { compileKernels, wasmMemory, wasmNative } from "../modules/native-wasm";

declare const xs:
  | { now(): number; floatOps(): number; args: string[]; run(tick: (() => void) | null, intervalMs?: number): void; kernels?: Kernels }
  | undefined;
declare const print: ((...values: unknown[]) => void) | undefined;
declare const BENCH_TRACE: ArrayLike<number> | undefined;
declare const LWAR_WASM: Uint8Array | undefined;

interface NodeGlobals {
  process?: { argv: string[] };
  performance?: { now(): number };
  console: { log(s: string): void };
}

function main(): void {
  const g = globalThis as unknown as NodeGlobals;
  const onXs = typeof xs !== "undefined";
  const args = onXs ? xs.args : (g.process?.argv.slice(2) ?? []);
  const out = onXs && typeof print !== "undefined" ? (s: string) => print(s) : (s: string) => g.console.log(s);
  if (args[0] === "load") return out("result {}");
  const options: CaseOptions = Object.assign({}, DEFAULT_CASE, args[1] ? (JSON.parse(args[1]) as Partial<CaseOptions>) : {});
  if (typeof BENCH_TRACE === "undefined") throw new Error("no BENCH_TRACE: load the trace script first");
  // On XS the server runs the native loops lwxs carries, as on the device; on Node the same
  // C as WebAssembly, whose bytes bench.ts puts in LWAR_WASM.
  if (!onXs) {
    if (typeof LWAR_WASM === "undefined") throw new Error("no LWAR_WASM: the bytes of dist/web/kernels.wasm go first");
    const compiled = compileKernels(LWAR_WASM);
    (globalThis as { lwarNative?: NativeFactory }).lwarNative = (config) => wasmNative(compiled, config);
    (globalThis as { lwarMemory?: MemoryFactory }).lwarMemory = (bytes) => wasmMemory(compiled, bytes);
  }
  const words = new Int32Array(BENCH_TRACE.length);
  for (let i = 0; i < words.length; i++) words[i] = BENCH_TRACE[i];
  const trace = new Uint8Array(words.buffer);
  const mode = args[0] ?? "time";
  if (mode === "time") {
    const clock = onXs ? () => xs.now() : () => g.performance!.now();
    // Node: one untimed replay first, for the JIT (XS has none). XS counts its emulated
    // floating-point operations; Node has no such counter.
    const result = timeReplay(options, trace, clock, !onXs, onXs ? () => xs.floatOps() : null);
    out("result " + JSON.stringify(result));
  } else if (mode === "count") {
    const floatOps = onXs ? () => xs.floatOps() : null;
    out("result " + JSON.stringify(countReplay(options, trace, Number(args[2] ?? 100), Number(args[3] ?? 1000), floatOps)));
  } else if (mode === "deep") {
    const r = new Replay(options, trace);
    const run = () => {
      r.walk(0, 0x7fffffff, true, null, null);
      r.walk(r.windowStart, 0x7fffffff, true, null, null);
      out("result " + JSON.stringify({ packetsOut: r.server.counters[Counter.PacketsOut] }));
    };
    // Straight from the event loop, as a device's timer or socket callback calls the core.
    if (onXs) deepRun = run;
    else run();
  } else throw new Error("unknown mode " + mode);
}

// Under lwxs, work from the event loop once this script's top level has returned: loading
// the bundle, whose one top-level function holds every module-level binding, takes about
// 440 stack slots, and the work on top of that would not fit the ESP32's 512-slot stack.
let deepRun: (() => void) | null = null;

if (typeof xs !== "undefined") {
  xs.run(() => {
    if (deepRun !== null) {
      xs.run(null);
      deepRun();
      return;
    }
    main();
    if (deepRun === null) xs.run(null);
  }, 1);
} else main();
