/**
 * The `instruments:` lines of a Moddable debug build, and the "flat memory" check that
 * `npm run test:sim` applies to them. docs/memory.md explains the columns and the criterion.
 */

/** One `instruments:` line: `t` is seconds since the bots started (negative before). */
export interface Sample {
  t: number;
  values: number[];
}

const KEY_PREFIX = "instruments key: ";
const SAMPLE_PREFIX = "instruments: ";

/** Collects the column names and the samples from the simulator's output, line by line. */
export class Instruments {
  columns: string[] = [];
  readonly samples: Sample[] = [];

  /** Takes one line of output; returns true if it was an instruments line. */
  line(text: string, t: number): boolean {
    if (text.startsWith(KEY_PREFIX)) {
      this.columns = text.slice(KEY_PREFIX.length).split(",").map((s) => s.trim());
      return true;
    }
    if (text.startsWith(SAMPLE_PREFIX)) {
      const values = text.slice(SAMPLE_PREFIX.length).split(",").map(Number);
      if (values.every(Number.isFinite)) this.samples.push({ t, values });
      return true;
    }
    return false;
  }

  /** Index of a column, or -1. */
  column(name: string): number {
    return this.columns.indexOf(name);
  }

  /** The newest value of a column, or undefined. */
  latest(name: string): number | undefined {
    const i = this.column(name);
    const last = this.samples[this.samples.length - 1];
    return i < 0 || last === undefined ? undefined : last.values[i];
  }
}

/**
 * A used figure stays flat when, over the window [from, to]:
 * - the heap it lives in ("Chunk available" / "Slot available") does not grow after the
 *   first third of the window, and
 * - the lowest value in the last third (the floor: live data plus at most the garbage of
 *   the moments since the last collection) is no higher than the lowest value in the
 *   first third plus FLOOR_TOLERANCE of the heap's size at the window's start.
 * The highest values are reported too, but not compared: they are wherever the sawtooth
 * between two collections happened to be sampled, and the heap size bounds them anyway.
 */
export const FLOOR_TOLERANCE = 0.05;

export interface Trend {
  used: string;
  heap: string;
  firstMin: number;
  firstMax: number;
  lastMin: number;
  lastMax: number;
  /** Heap size at the window's start, at the end of its first third, and the largest after that. */
  heapStart: number;
  heapSettled: number;
  heapMax: number;
  tolerance: number;
  ok: boolean;
  /** Why not ok; empty when ok. */
  problems: string[];
}

export interface MemoryReport {
  from: number;
  to: number;
  samples: number;
  firstSamples: number;
  lastSamples: number;
  trends: Trend[];
  gcFirst: number;
  gcLast: number;
  stackPeak: number;
  /** Missing columns or too few samples; empty when the analysis ran. */
  errors: string[];
  ok: boolean;
}

/** Fewest samples per third for a meaningful comparison. */
export const MIN_SAMPLES_PER_THIRD = 3;

export function analyse(inst: Instruments, from: number, to: number): MemoryReport {
  const report: MemoryReport = {
    from, to, samples: 0, firstSamples: 0, lastSamples: 0, trends: [], gcFirst: 0, gcLast: 0, stackPeak: 0, errors: [], ok: false,
  };
  const need = ["Chunk used", "Chunk available", "Slot used", "Slot available", "Garbage collections", "Stack used"];
  if (inst.columns.length === 0) report.errors.push("no `instruments key:` line");
  else for (const name of need) if (inst.column(name) < 0) report.errors.push(`no "${name}" column in the instruments key`);
  if (report.errors.length > 0) return report;
  const window = inst.samples.filter((s) => s.t >= from && s.t <= to);
  const third = (to - from) / 3;
  const first = window.filter((s) => s.t < from + third);
  const rest = window.filter((s) => s.t >= from + third);
  const last = window.filter((s) => s.t > to - third);
  report.samples = window.length;
  report.firstSamples = first.length;
  report.lastSamples = last.length;
  if (first.length < MIN_SAMPLES_PER_THIRD || last.length < MIN_SAMPLES_PER_THIRD) {
    report.errors.push(`too few instruments samples after warm-up (${first.length} in the first third, ${last.length} in the last; need ${MIN_SAMPLES_PER_THIRD}): run longer`);
    return report;
  }
  const col = (name: string) => inst.column(name);
  const gc = col("Garbage collections");
  const stack = col("Stack used");
  for (const s of first) report.gcFirst += s.values[gc];
  for (const s of last) report.gcLast += s.values[gc];
  for (const s of window) report.stackPeak = Math.max(report.stackPeak, s.values[stack]);
  for (const [used, heap] of [["Chunk used", "Chunk available"], ["Slot used", "Slot available"]]) {
    const u = col(used);
    const h = col(heap);
    const min = (ss: Sample[]) => Math.min(...ss.map((s) => s.values[u]));
    const max = (ss: Sample[]) => Math.max(...ss.map((s) => s.values[u]));
    const heapStart = window[0].values[h];
    const heapSettled = first[first.length - 1].values[h];
    const heapMax = Math.max(...rest.map((s) => s.values[h]));
    const t: Trend = {
      used, heap,
      firstMin: min(first), firstMax: max(first), lastMin: min(last), lastMax: max(last),
      heapStart, heapSettled, heapMax,
      tolerance: Math.round(FLOOR_TOLERANCE * heapStart),
      ok: true, problems: [],
    };
    if (heapMax > heapSettled) t.problems.push(`${heap} grew from ${heapSettled} to ${heapMax} after the first third`);
    if (t.lastMin > t.firstMin + t.tolerance)
      t.problems.push(`${used} floor rose from ${t.firstMin} to ${t.lastMin} (more than ${t.tolerance})`);
    t.ok = t.problems.length === 0;
    report.trends.push(t);
  }
  report.ok = report.trends.every((t) => t.ok);
  return report;
}
