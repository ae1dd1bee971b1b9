/**
 * The fuzzer on XS: bundled by tools/fuzz.ts (and test/tools/fuzz.test.ts) and run in lwxs.
 * Arguments (after `--`): cases, seed, cases between progress lines. Prints
 * `progress DONE` lines, then the report as one JSON line.
 */
import { Fuzzer } from "./core";

declare const xs: { args: string[]; now(): number };
declare const print: (...values: unknown[]) => void;

const cases = Number(xs.args[0] ?? 10000);
const seed = Number(xs.args[1] ?? 1);
const every = Number(xs.args[2] ?? 10000);
const start = xs.now();
const fuzzer = new Fuzzer(seed);
fuzzer.run(cases, (done) => print("progress", done, Math.round(xs.now() - start)), every);
const ms = xs.now() - start;
fuzzer.finish();
print(JSON.stringify({ report: fuzzer.report(), ms }));
