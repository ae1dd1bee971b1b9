/**
 * Runs a mocha test file unchanged on the XS engine: bundles it with the mini-mocha
 * runner standing in for mocha's globals and the assert shim for `node:assert/strict`,
 * runs the bundle in lwxs, and parses the `ok` / `not ok` / `skip` lines it prints.
 */
import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../../tools/xs/bundle";
import { runXs, type XsOptions, type XsResult } from "../../tools/xs/run";

const HERE = fileURLToPath(new URL(".", import.meta.url));
export const MINI_MOCHA = join(HERE, "mini-mocha.ts");
export const ASSERT_SHIM = join(HERE, "assert-shim.ts");

/**
 * Heaps for the correctness suites. They are about behaviour, not memory: the test
 * harness (the lossy link's 2 MB packet pool, arrays of received messages, recorders)
 * is far bigger than the ESP32 budget, so it gets room. Runtime keys: the tests build
 * objects keyed by counter names at run time.
 */
export const SUITE_HEAPS: XsOptions = { slots: 400_000, chunks: 48 << 20, keys: 2048, stack: 4096 };

export interface CaseResult {
  status: "ok" | "not ok" | "skip";
  /** The rest of the line: the full title; for a failure or a skip, then ": " and why. */
  text: string;
}

export interface SpecRun {
  spec: string;
  cases: CaseResult[];
  /** The runner's last line: `# N tests, P passed, F failed, S skipped in T ms`, or "" if it never got there. */
  summary: string;
  /** Wall time of the lwxs process, ms. */
  ms: number;
  bundleBytes: number;
  xs: XsResult;
}

const LINE = /^(ok|not ok|skip) \d+ (.*)$/;

export function parseRun(stdout: string): { cases: CaseResult[]; summary: string } {
  const cases: CaseResult[] = [];
  let summary = "";
  for (const line of stdout.split("\n")) {
    const m = LINE.exec(line);
    if (m) cases.push({ status: m[1] as CaseResult["status"], text: m[2] });
    else if (line.startsWith("# ")) summary = line;
  }
  return { cases, summary };
}

/** Bundles `spec` (a mocha test file) for XS into `dir` and runs it there. */
export async function runSpecOnXs(spec: string, dir: string, options: XsOptions = {}): Promise<SpecRun> {
  const name = basename(spec).replace(/\.ts$/, "");
  const entry = join(dir, `${name}.entry.ts`);
  const out = join(dir, `${name}.js`);
  // The spec registers its suites when imported; then the runner runs them.
  writeFileSync(entry, [
    `import ${JSON.stringify(spec)};`,
    `import { run } from ${JSON.stringify(MINI_MOCHA)};`,
    `declare const print: (line: string) => void;`,
    `declare const xs: { now(): number; stop(code?: number): void };`,
    `run({ print, now: () => xs.now() }).then((r) => xs.stop(r.failed > 0 ? 1 : 0), (e) => { print("# runner failed: " + String(e)); xs.stop(2); });`,
    ``,
  ].join("\n"));
  const { bytes } = await bundle(entry, out, {
    alias: { "node:assert/strict": ASSERT_SHIM, "node:assert": ASSERT_SHIM },
    inject: [MINI_MOCHA],
  });
  const t0 = performance.now();
  const xs = await runXs([out], { ...SUITE_HEAPS, timeoutMs: 150_000, ...options });
  const ms = performance.now() - t0;
  const { cases, summary } = parseRun(xs.stdout);
  return { spec, cases, summary, ms, bundleBytes: bytes, xs };
}
