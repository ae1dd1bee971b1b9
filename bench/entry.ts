/**
 * One benchmark job, for lwxs or Node. Bundled by bench/bench.ts into one classic script.
 *
 *   case   <options JSON>   play the case, time the server, print `result <JSON>`
 *   replay <options JSON>   drive a lone server through the trace in `BENCH_TRACE`
 *   dry    <options JSON>   the same, skipping the server calls after the trace's mark
 *
 * Under lwxs the trace comes from a script loaded before this one that defines
 * `BENCH_TRACE` as an array of 32-bit words (the trace's bytes, little-endian).
 */
import { DEFAULT_CASE, replayTrace, runCase, type CaseOptions } from "./driver";

declare const xs: { now(): number; args: string[]; gc(): void; collections(): number } | undefined;
declare const print: ((...values: unknown[]) => void) | undefined;
declare const BENCH_TRACE: ArrayLike<number> | undefined;

function main(): void {
  const onXs = typeof xs !== "undefined";
  const g = globalThis as unknown as { process?: { argv: string[] }; performance?: { now(): number }; console: { log(s: string): void } };
  const args = onXs ? xs.args : (g.process?.argv.slice(2) ?? []);
  const out = onXs && typeof print !== "undefined" ? print : (s: string) => g.console.log(s);
  const mode = args[0] ?? "case";
  const options: CaseOptions = Object.assign({}, DEFAULT_CASE, args[1] ? (JSON.parse(args[1]) as Partial<CaseOptions>) : {});
  if (mode === "case") {
    const clock = onXs ? () => xs.now() : () => g.performance!.now();
    const collections = onXs ? xs.collections() : 0;
    const result = runCase(options, clock);
    const gcs = onXs ? xs.collections() - collections : 0;
    out("result " + JSON.stringify(Object.assign(result, { collections: gcs })));
    return;
  }
  if (mode === "replay" || mode === "dry") {
    if (typeof BENCH_TRACE === "undefined") throw new Error("no BENCH_TRACE loaded");
    const words = new Int32Array(BENCH_TRACE.length);
    for (let i = 0; i < words.length; i++) words[i] = BENCH_TRACE[i];
    const trace = new Uint8Array(words.buffer);
    out("result " + JSON.stringify(replayTrace(options, trace, mode === "replay")));
    return;
  }
  throw new Error("unknown mode " + mode);
}

main();
