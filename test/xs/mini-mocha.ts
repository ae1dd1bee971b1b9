/**
 * Just enough of mocha's BDD interface to run our test files unchanged on XS:
 * describe / it (with .skip and .only), before / after / beforeEach / afterEach,
 * `this.timeout()` / `this.skip()`, promises and `done` callbacks. Suites run as
 * mocha runs them: a suite's own tests first, then its child suites, in the order
 * written; hooks nest the same way.
 *
 * `tools/xs/bundle` injects this file's exports for the free globals of a test file;
 * the bundle's entry then calls `run()`, which prints one line per case:
 *
 *   ok 12 codec: golden packets a client's Input packet
 *   not ok 13 server life cycle ...: AssertionError: Expected values to be ...
 *   skip 14 ...: reason
 *   # 67 tests, 66 passed, 1 failed, 0 skipped in 1234 ms
 *
 * Titles are the suite titles and the test title joined by spaces, as mocha's full title.
 */

type Done = (error?: unknown) => void;
type Body = (this: Context, done: Done) => unknown;

class Pending {
  constructor(readonly reason: string) {}
}

/** What `this` is inside describe, it and hooks. */
export class Context {
  #timeout = 2000;
  timeout(ms?: number | string): number | this {
    if (ms === undefined) return this.#timeout;
    this.#timeout = Number(ms);
    return this;
  }
  slow(_ms?: number): this {
    return this;
  }
  retries(_n?: number): this {
    return this;
  }
  skip(reason = "skipped"): never {
    throw new Pending(reason);
  }
}

interface Test {
  title: string;
  fn: Body | null;
  only: boolean;
  skip: boolean;
}

class Suite {
  readonly suites: Suite[] = [];
  readonly tests: Test[] = [];
  readonly before: Body[] = [];
  readonly after: Body[] = [];
  readonly beforeEach: Body[] = [];
  readonly afterEach: Body[] = [];
  readonly context = new Context();
  only = false;
  skip = false;
  constructor(readonly title: string, readonly parent: Suite | null) {}
  fullTitle(): string {
    const outer = this.parent === null ? "" : this.parent.fullTitle();
    return outer === "" ? this.title : this.title === "" ? outer : `${outer} ${this.title}`;
  }
}

const root = new Suite("", null);
let current = root;
let anyOnly = false;

function addSuite(title: string, fn: ((this: Context) => void) | undefined, only: boolean, skip: boolean): void {
  const s = new Suite(title, current);
  s.only = only;
  s.skip = skip || current.skip;
  if (only) anyOnly = true;
  current.suites.push(s);
  const previous = current;
  current = s;
  try {
    if (fn) fn.call(s.context);
  } finally {
    current = previous;
  }
}

function addTest(title: string, fn: Body | undefined, only: boolean, skip: boolean): void {
  if (only) anyOnly = true;
  current.tests.push({ title, fn: fn ?? null, only, skip });
}

export const describe = Object.assign(
  (title: string, fn?: (this: Context) => void): void => addSuite(title, fn, false, false),
  {
    only: (title: string, fn?: (this: Context) => void): void => addSuite(title, fn, true, false),
    skip: (title: string, fn?: (this: Context) => void): void => addSuite(title, fn, false, true),
  },
);
export const context = describe;
export const xdescribe = describe.skip;

export const it = Object.assign(
  (title: string, fn?: Body): void => addTest(title, fn, false, false),
  {
    only: (title: string, fn?: Body): void => addTest(title, fn, true, false),
    skip: (title: string, fn?: Body): void => addTest(title, fn, false, true),
  },
);
export const specify = it;
export const xit = it.skip;

function hook(list: (s: Suite) => Body[]) {
  return (titleOrFn: string | Body, fn?: Body): void => {
    list(current).push(typeof titleOrFn === "function" ? titleOrFn : (fn as Body));
  };
}
export const before = hook((s) => s.before);
export const after = hook((s) => s.after);
export const beforeEach = hook((s) => s.beforeEach);
export const afterEach = hook((s) => s.afterEach);

/** Calls a test or hook body and settles when it has finished: a returned promise, or `done`. */
function call(fn: Body, ctx: Context): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (fn.length > 0) {
      fn.call(ctx, (error?: unknown) => (error ? reject(error) : resolve()));
      return;
    }
    const result = fn.call(ctx, () => {});
    if (result !== null && typeof result === "object" && typeof (result as Promise<unknown>).then === "function")
      (result as Promise<unknown>).then(() => resolve(), reject);
    else resolve();
  });
}

export interface Failure {
  title: string;
  message: string;
}

export interface Results {
  tests: number;
  passed: number;
  failed: number;
  skipped: number;
  failures: Failure[];
}

export interface RunOptions {
  /** Where lines go (lwxs: `print`). */
  print: (line: string) => void;
  /** A clock in ms, for the times of slow cases and the total. */
  now?: () => number;
  /** Cases at least this slow get their time appended, as mocha does. */
  slowMs?: number;
}

/** One line: newlines become " / ", so a case is always one line of output. */
function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, " / ");
}

export function describeError(error: unknown): string {
  if (error instanceof Error) {
    let text = `${error.name}: ${error.message}`;
    if (error.name !== "AssertionError" && typeof error.stack === "string") {
      const frame = error.stack.split("\n").find((line) => /^\s*at /.test(line));
      if (frame !== undefined) text += ` (${frame.trim()})`;
    }
    return oneLine(text);
  }
  return oneLine(String(error));
}

function selected(s: Suite): boolean {
  for (let p: Suite | null = s; p !== null; p = p.parent) if (p.only) return true;
  return false;
}

function hasSelected(s: Suite): boolean {
  if (s.only || s.tests.some((t) => t.only)) return true;
  return s.suites.some(hasSelected);
}

/** Runs every registered case and prints the results; resolves with the totals. */
export async function run(options: RunOptions): Promise<Results> {
  const print = options.print;
  const now = options.now ?? (() => 0);
  const slowMs = options.slowMs ?? 1000;
  const results: Results = { tests: 0, passed: 0, failed: 0, skipped: 0, failures: [] };
  const start = now();

  function report(kind: "ok" | "not ok" | "skip", title: string, detail: string, ms: number): void {
    results.tests++;
    const time = kind === "ok" && ms >= slowMs ? ` (${Math.round(ms)} ms)` : "";
    if (kind === "ok") results.passed++;
    else if (kind === "skip") results.skipped++;
    else {
      results.failed++;
      results.failures.push({ title, message: detail });
    }
    print(`${kind} ${results.tests} ${oneLine(title)}${detail === "" ? "" : ": " + detail}${time}`);
  }

  function chain(s: Suite, pick: (s: Suite) => Body[], outerFirst: boolean): Array<[Body, Context]> {
    const list: Array<[Body, Context]> = [];
    for (let p: Suite | null = s; p !== null; p = p.parent) {
      const own = pick(p).map((fn): [Body, Context] => [fn, p.context]);
      if (outerFirst) list.unshift(...own);
      else list.push(...own);
    }
    return list;
  }

  function skipAll(s: Suite, reason: string): void {
    for (const t of s.tests) report("skip", `${s.fullTitle()} ${t.title}`.trim(), reason, 0);
    for (const child of s.suites) skipAll(child, reason);
  }

  async function runSuite(s: Suite, inOnly: boolean): Promise<void> {
    if (anyOnly && !inOnly && !hasSelected(s)) return;
    const within = inOnly || selected(s);
    if (s.skip) {
      skipAll(s, "describe.skip");
      return;
    }
    for (const fn of s.before) {
      try {
        await call(fn, s.context);
      } catch (error) {
        if (error instanceof Pending) skipAll(s, error.reason);
        else report("not ok", `${s.fullTitle()} "before all" hook`, describeError(error), 0);
        return;
      }
    }
    for (const t of s.tests) {
      if (anyOnly && !within && !t.only) continue;
      const title = `${s.fullTitle()} ${t.title}`.trim();
      if (t.skip || t.fn === null) {
        report("skip", title, t.fn === null ? "pending" : "it.skip", 0);
        continue;
      }
      const ctx = new Context();
      const t0 = now();
      let failure: unknown = null;
      let pending: Pending | null = null;
      try {
        for (const [fn, c] of chain(s, (x) => x.beforeEach, true)) await call(fn, c);
        await call(t.fn, ctx);
      } catch (error) {
        if (error instanceof Pending) pending = error;
        else failure = error;
      }
      for (const [fn, c] of chain(s, (x) => x.afterEach, false)) {
        try {
          await call(fn, c);
        } catch (error) {
          if (failure === null && !(error instanceof Pending)) failure = error;
        }
      }
      const ms = now() - t0;
      if (pending !== null) report("skip", title, pending.reason, ms);
      else if (failure !== null) report("not ok", title, describeError(failure), ms);
      else report("ok", title, "", ms);
    }
    for (const child of s.suites) await runSuite(child, within);
    for (const fn of s.after) {
      try {
        await call(fn, s.context);
      } catch (error) {
        if (!(error instanceof Pending)) report("not ok", `${s.fullTitle()} "after all" hook`, describeError(error), 0);
      }
    }
  }

  await runSuite(root, false);
  const ms = Math.round(now() - start);
  print(`# ${results.tests} tests, ${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped in ${ms} ms`);
  return results;
}
