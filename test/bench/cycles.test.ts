/**
 * The device bench's cycle model (bench/device/cycles.ts): the kit's plugin lines as a
 * 2-way run printed them, read into a window, and the model's arithmetic on it.
 */
import assert from "node:assert/strict";
import { CacheSimReader, cycleModel, LOAD_USE_CYCLES, MISS_CYCLES, TAKEN_CYCLES } from "../../bench/device/cycles";

/** A periodic dump (cumulative, mid-window), then the window's own, as the plugin prints them on stderr. */
const LINES = `CACHESIM start at 400e0e54
CACHESIM periodic: insns 200000000 irom 194185757 iram 5814242 ways 2 size 32768
CACHESIM class alu         46006450  23.00%  taken       312304
CACHESIM class load        80388643  40.19%  taken            1
CACHESIM loaduse 34392353 (17.20% of insns)
CACHESIM ifetch lines 36359608 imiss 625152 (3.126 per 1000 insns)  dflash loads 12072461 dmiss 338562 (1.693 per 1000 insns)
CACHESIM loads region 3f: 72316352
CACHESIM window: insns 544005844 irom 528302027 iram 15703817 ways 2 size 32768
CACHESIM class alu        124940894  22.97%  taken       847477
CACHESIM class load       218796753  40.22%  taken            1
CACHESIM class store       91279758  16.78%  taken            2
CACHESIM class branch      60306802  11.09%  taken     34725017
CACHESIM class j           22314395   4.10%  taken     22314395
CACHESIM class jx           9600881   1.76%  taken      9600881
CACHESIM class call         2601487   0.48%  taken      2601487
CACHESIM class callx        2717193   0.50%  taken      2717193
CACHESIM class ret          5314426   0.98%  taken      5314426
CACHESIM class entry        5274013   0.97%  taken          319
CACHESIM class mul           336668   0.06%  taken            0
CACHESIM class div                1   0.00%  taken            0
CACHESIM class fp                 0   0.00%  taken            0
CACHESIM class sr            390091   0.07%  taken            0
CACHESIM class win            87207   0.02%  taken         4254
CACHESIM class nop            45275   0.01%  taken            0
CACHESIM loaduse 93658600 (17.22% of insns)
CACHESIM ifetch lines 98911852 imiss 1705783 (3.136 per 1000 insns)  dflash loads 32920107 dmiss 923746 (1.698 per 1000 insns)
CACHESIM loads region 3f: 196777333`.split("\n");

describe("device bench: the cycle model", () => {
  it("reads the window's counts, not a periodic dump's, and completes at the miss line", () => {
    const r = new CacheSimReader();
    const done = LINES.map((l) => r.line(l));
    assert.equal(done.filter((d) => d).length, 1, "one window completed");
    assert.equal(done.indexOf(true), LINES.findIndex((l) => l.startsWith("CACHESIM ifetch") && l.includes("imiss 1705783")));
    const w = r.last;
    assert.ok(w !== null);
    assert.equal(w.instructions, 544005844);
    assert.equal(w.ways, 2);
    assert.equal(w.irom + w.iram, w.instructions);
    assert.equal(w.classes.size, 16);
    assert.deepEqual(w.classes.get("branch"), { count: 60306802, taken: 34725017 });
    assert.equal(w.loadUse, 93658600);
    assert.equal(w.instructionMisses, 1705783);
    assert.equal(w.dataMisses, 923746);
  });

  it("prices taken transfers, load-use stalls and misses as the kit's model does", () => {
    const r = new CacheSimReader();
    for (const l of LINES) r.line(l);
    const c = cycleModel(r.last!);
    const taken = 847477 + 1 + 2 + 34725017 + 22314395 + 9600881 + 2601487 + 2717193 + 5314426 + 319 + 4254;
    const misses = 1705783 + 923746;
    const n = 544005844;
    assert.equal(c.taken, taken);
    assert.equal(c.misses, misses);
    const base = n + TAKEN_CYCLES * taken + LOAD_USE_CYCLES * 93658600;
    assert.ok(Math.abs(c.cpiNoMiss - base / n) < 1e-12);
    assert.ok(Math.abs(c.cpi - (base + MISS_CYCLES.mid * misses) / n) < 1e-12);
    assert.ok(c.cpiLow < c.cpi && c.cpi < c.cpiHigh);
    // The figures the bench printed for this run.
    assert.equal(c.cpiNoMiss.toFixed(2), "1.69");
    assert.equal(c.cpi.toFixed(2), "2.73");
    assert.equal(c.loadsPct.toFixed(1), "40.2");
  });

  it("refuses a window that counted nothing", () => {
    const r = new CacheSimReader();
    r.line("CACHESIM window: insns 0 irom 0 iram 0 ways 4 size 32768");
    r.line("CACHESIM ifetch lines 0 imiss 0 (0.000 per 1000 insns)  dflash loads 0 dmiss 0 (0.000 per 1000 insns)");
    assert.throws(() => cycleModel(r.last!), /no instruction/);
  });
});
