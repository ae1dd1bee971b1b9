/**
 * `npm run fuzz -- --cases N --seed S`: mutated packets, both ways, against the server and
 * the client library, on Node and on XS (lwxs) at once, with the same seed. Each engine
 * must get through without a failure (tools/fuzz/core.ts says what is checked), and both
 * must end in the same state: the same outcome for every case, the same hash.
 *
 * test/tools/fuzz.test.ts runs 10,000 cases on each engine.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Fuzzer, type FuzzReport } from "./fuzz/core";
import { defineCommand } from "../cli";
import { bundle } from "./xs/bundle";
import { runXs, type XsOptions } from "./xs/run";
import { installNodeKernels } from "../hosts/node/kernels";

const XS_ENTRY = fileURLToPath(new URL("./fuzz/xs-entry.ts", import.meta.url));
/** The fuzzer's match and corpus live in the heap: room, not the ESP32's budget. */
const XS_HEAPS: XsOptions = { slots: 400_000, chunks: 48 << 20, keys: 2048, stack: 4096 };

export type Engine = "node" | "xs";

export interface EngineRun {
  engine: Engine;
  report: FuzzReport;
  ms: number;
  perSecond: number;
}

export interface FuzzRun {
  cases: number;
  seed: number;
  runs: EngineRun[];
  /** Both engines ran and ended in the same state. */
  agree: boolean | null;
  ok: boolean;
}

/** Node, in this process: chunks of cases between turns of the event loop, so XS's output is read meanwhile. */
async function onNode(cases: number, seed: number, progress: (done: number) => void): Promise<EngineRun> {
  const f = new Fuzzer(seed);
  const t0 = performance.now();
  for (let done = 0; done < cases; ) {
    const n = Math.min(20000, cases - done);
    f.run(n);
    done += n;
    progress(done);
    await new Promise((r) => setImmediate(r));
  }
  const ms = performance.now() - t0;
  f.finish();
  return { engine: "node", report: f.report(), ms, perSecond: (cases * 1000) / ms };
}

async function onXs(cases: number, seed: number, progress: (done: number) => void): Promise<EngineRun> {
  const dir = mkdtempSync(join(tmpdir(), "lwar-fuzz-"));
  try {
    const script = join(dir, "fuzz.js");
    await bundle(XS_ENTRY, script);
    const every = Math.max(1000, Math.min(50000, Math.floor(cases / 20)));
    const x = await runXs([script], {
      ...XS_HEAPS, args: [String(cases), String(seed), String(every)], timeoutMs: 60_000 + cases,
      onStdout: (line) => {
        const m = /^progress (\d+)/.exec(line);
        if (m) progress(Number(m[1]));
      },
    });
    const last = x.stdout.trim().split("\n").pop() ?? "";
    if (x.code !== 0 || !last.startsWith("{")) throw new Error(`lwxs failed (exit ${x.code}${x.timedOut ? ", timed out" : ""}): ${x.stderr}`);
    const { report, ms } = JSON.parse(last) as { report: FuzzReport; ms: number };
    return { engine: "xs", report, ms, perSecond: (cases * 1000) / ms };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The parts of a report both engines must agree on (all but timings). */
function essence(r: FuzzReport): string {
  return JSON.stringify(r);
}

export async function runFuzz(cases: number, seed: number, engines: Engine[], progress?: (engine: Engine, done: number) => void): Promise<FuzzRun> {
  const tell = (e: Engine) => (done: number): void => progress?.(e, done);
  const runs = await Promise.all(engines.map((e) => (e === "node" ? onNode(cases, seed, tell(e)) : onXs(cases, seed, tell(e)))));
  const agree = runs.length === 2 ? essence(runs[0].report) === essence(runs[1].report) : null;
  const ok = runs.every((r) => r.report.failureCount === 0) && agree !== false;
  return { cases, seed, runs, agree, ok };
}

export function describeFuzz(r: FuzzRun): string {
  const lines: string[] = [];
  for (const run of r.runs) {
    const p = run.report;
    lines.push(`${run.engine}: ${p.cases} cases in ${(run.ms / 1000).toFixed(1)} s, ${Math.round(run.perSecond)} cases/s; ` +
      `${(p.matchMs / 1000).toFixed(0)} s of match, ${p.sessions} sessions, ${p.joins} joins, ${p.kicks} kicks, ${p.timeouts} timeouts, ` +
      `${p.handshakeTimeouts} handshake timeouts; ${p.witnessLines} witness chat lines checked; state hash ${p.hash.toString(16)}`);
    for (const failure of p.failures) lines.push(`  FAILURE at case ${failure.case}: ${failure.what}${failure.bytes ? ` [${failure.bytes}]` : ""}`);
  }
  const first = r.runs[0]?.report;
  if (first) {
    const row = (name: string, o: Record<string, number>, cases: number): string =>
      `${name} (${cases} cases): ` + Object.entries(o).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", ");
    lines.push(row("to the server", first.server.outcomes, first.server.cases));
    lines.push(row("to the client library", first.client.outcomes, first.client.cases));
  }
  const failures = r.runs.reduce((n, x) => n + x.report.failureCount, 0);
  lines.push(`fuzz: ${r.ok ? "PASS" : "FAIL"}: ${r.runs.map((x) => `${x.engine} ${x.report.cases} cases at ${Math.round(x.perSecond)}/s`).join(", ")}; ` +
    `${failures} failures` + (r.agree === null ? "" : r.agree ? "; Node and XS ended in the same state" : "; Node and XS DISAGREE"));
  return lines.join("\n");
}

export const fuzzCommand = defineCommand({
  name: "fuzz",
  script: "npm run fuzz",
  summary: "mutated packets against the server and the client library.",
  options: {
    cases: { type: "int", default: 100000, min: 1, max: 1e9, help: "cases per engine" },
    seed: { type: "int", default: 1, min: 0, max: 0xffffffff, help: "random seed" },
    engine: {
      type: "choice", choices: ["node", "xs", "both"], default: "both",
      help: "where to run; both runs the same cases on each, at once, and their end states must agree",
    },
    json: { type: "string", arg: "FILE", help: "also write the full report as JSON" },
  },
  notes: `Each case mutates a valid packet taken from a live match (bits, bytes, lengths, counts,
types, splices, and acks, seqnos and timestamps the target would take) and hands it to
the server or to a client. Nothing may throw, every packet sent must be valid, every
table must stay consistent. Prints progress, the outcome of the cases by counter, and a
summary line.`,
  failure: "a case failed, or Node and XS disagree",
});

async function main(): Promise<void> {
  installNodeKernels();
  const v = fuzzCommand.parse();
  const { cases, seed, engine } = v;
  const engines: Engine[] = engine === "both" ? ["node", "xs"] : [engine as Engine];
  console.log(`fuzz: ${cases} cases, seed ${seed}, on ${engines.join(" and ")}`);
  const done: Record<string, number> = {};
  const t0 = performance.now();
  let last = 0;
  const r = await runFuzz(cases, seed, engines, (e, n) => {
    done[e] = n;
    const now = performance.now();
    if (now - last < 1000 && n < cases) return;
    last = now;
    const s = (now - t0) / 1000;
    console.log(`  ${s.toFixed(0)} s: ` + engines.map((x) => `${x} ${done[x] ?? 0}/${cases}`).join(", "));
  });
  console.log(describeFuzz(r));
  if (v.json) writeFileSync(v.json, JSON.stringify(r, null, 2) + "\n");
  process.exit(r.ok ? 0 : 1);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
