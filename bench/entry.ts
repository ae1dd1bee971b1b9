/**
 * One benchmark job for lwxs or Node, bundled by bench/bench.ts into one classic script.
 * A script loaded before it defines `BENCH_TRACE`: the trace's bytes as 32-bit words.
 *
 *   time  <case JSON>           time the server through the trace; prints `result <JSON>`
 *   count <case JSON> <ticks>   the two bracketed walks for callgrind (see countReplay)
 */
import { DEFAULT_CASE, countReplay, timeReplay, type CaseOptions } from "./driver";

declare const xs:
  | { now(): number; args: string[]; collections(): number; run(tick: (() => void) | null, intervalMs?: number): void }
  | undefined;
declare const print: ((...values: unknown[]) => void) | undefined;
declare const BENCH_TRACE: ArrayLike<number> | undefined;

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
  const options: CaseOptions = Object.assign({}, DEFAULT_CASE, args[1] ? (JSON.parse(args[1]) as Partial<CaseOptions>) : {});
  if (typeof BENCH_TRACE === "undefined") throw new Error("no BENCH_TRACE: load the trace script first");
  const words = new Int32Array(BENCH_TRACE.length);
  for (let i = 0; i < words.length; i++) words[i] = BENCH_TRACE[i];
  const trace = new Uint8Array(words.buffer);
  const mode = args[0] ?? "time";
  if (mode === "time") {
    const clock = onXs ? () => xs.now() : () => g.performance!.now();
    const collections = onXs ? xs.collections() : 0;
    const result = timeReplay(options, trace, clock);
    const gcs = onXs ? xs.collections() - collections : 0;
    out("result " + JSON.stringify(Object.assign(result, { collections: gcs })));
  } else if (mode === "count") {
    out("result " + JSON.stringify(countReplay(options, trace, Number(args[2] ?? 100))));
  } else throw new Error("unknown mode " + mode);
}

// Under lwxs, work from the event loop once this script's top level has returned: the
// bundle's top-level function holds every module-level binding in one frame (about 190
// stack slots), and the work on top of it would not fit the ESP32's 512-slot stack.
if (typeof xs !== "undefined") {
  xs.run(() => {
    xs.run(null);
    main();
  }, 1);
} else main();
