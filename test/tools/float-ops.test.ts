/**
 * What `npm run bench` adds for the ESP32: lwxs's count of emulated floating-point operations
 * (`xs.floatOps()`), the device model, and the pieces that read the callgrind dumps and pick
 * the typical datagram.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LWXS, runXs } from "../../tools/xs/run";
import { ESP32, deviceEstimate, dumpTotal, formatMs, formatShare } from "../../bench/bench";
import { datagramShape, isAckInput } from "../../harness/trace";

describe("xs.floatOps() (tools/xs/lwxs)", function () {
  let dir = "";
  let count = 0;

  before(function () {
    if (!existsSync(LWXS)) {
      console.log(`      skipped: the XS host is not built (${LWXS} is missing; npm run build:xs)`);
      this.skip();
    }
    dir = mkdtempSync(join(tmpdir(), "lwxs-float-"));
  });
  after(function () {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Runs `body` (a function of `n`) `n` times over and prints what the counter rose by. */
  async function rise(body: string, n: number): Promise<number> {
    const path = join(dir, `script${++count}.js`);
    writeFileSync(path, `
      const body = ${body};
      const before = xs.floatOps();
      body(${n});
      const after = xs.floatOps();
      print(after - before);
    `);
    const result = await runXs([path]);
    assert.equal(result.code, 0, result.stderr);
    return Number(result.stdout.trim());
  }

  it("is a host function of the xs global that returns an integer", async function () {
    const path = join(dir, "kind.js");
    writeFileSync(path, `print(typeof xs.floatOps, Number.isInteger(xs.floatOps()), Object.keys(xs).includes("floatOps"));`);
    const result = await runXs([path]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout.trim(), "function true false");
  });

  it("rises by exactly N for N additions of non-integers", async function () {
    const add = "(n) => { let s = 0.5; for (let i = 0; i < n; i++) s = s + 0.25; return s; }";
    assert.equal(await rise(add, 0), 0);
    assert.equal(await rise(add, 1), 1);
    assert.equal(await rise(add, 1000), 1000);
  });

  it("rises by exactly N for N multiplications of non-integers", async function () {
    assert.equal(await rise("(n) => { let s = 1.5; for (let i = 0; i < n; i++) s = s * 1.0001; return s; }", 500), 500);
  });

  it("does not rise for integer additions, multiplications and comparisons", async function () {
    assert.equal(await rise("(n) => { let s = 1; for (let i = 0; i < n; i++) s = s + 3; return s; }", 1000), 0);
    assert.equal(await rise("(n) => { let s = 0; for (let i = 0; i < n; i++) s = (s * 5 + 1) & 1023; return s; }", 1000), 0);
  });

  it("counts a comparison of doubles, but not Math functions", async function () {
    assert.equal(await rise("(n) => { let k = 0; const d = 0.25; for (let i = 0; i < n; i++) if (d < 0.5) k++; return k; }", 300), 300);
    assert.equal(await rise("(n) => { let s = 0; for (let i = 0; i < n; i++) s = Math.sqrt(2.5); return s; }", 300), 0);
  });
});

describe("ESP32 model (bench/bench.ts)", function () {
  it("is A = 2 (1.5 to 3) cycles per instruction on one 240 MHz core, 10 ms ticks", function () {
    assert.equal(ESP32.a, 2);
    assert.equal(ESP32.aLow, 1.5);
    assert.equal(ESP32.aHigh, 3);
    assert.equal(ESP32.mhz, 240);
    assert.equal(ESP32.tickMs, 10);
    assert.ok(ESP32.b > 0);
  });

  it("computes cycles = A × instructions + B × float ops, in ms and as a share of the tick", function () {
    const e = deviceEstimate(1_000_000, 10_000, { a: 2, aLow: 1.5, aHigh: 3, b: 80, mhz: 240, tickMs: 10 });
    assert.equal(e.cycles, 2_800_000);
    // 2.8 M cycles at 240 MHz
    assert.ok(Math.abs(e.ms - 2_800_000 / 240_000) < 1e-9);
    assert.ok(Math.abs(e.msLow - 2_300_000 / 240_000) < 1e-9);
    assert.ok(Math.abs(e.msHigh - 3_800_000 / 240_000) < 1e-9);
    assert.ok(Math.abs(e.share - e.ms / 10) < 1e-12);
    assert.ok(Math.abs(e.shareLow - e.msLow / 10) < 1e-12);
    assert.ok(Math.abs(e.shareHigh - e.msHigh / 10) < 1e-12);
    assert.equal(formatMs(e), "12 (9.6–16)");
    assert.equal(formatShare(e), "117% (96–158)");
  });

  it("charges float ops at B whatever A is, and nothing without work", function () {
    const onlyFloats = deviceEstimate(0, 3000, { a: 2, aLow: 1.5, aHigh: 3, b: 80, mhz: 240, tickMs: 10 });
    assert.equal(onlyFloats.cycles, 240_000);
    assert.equal(onlyFloats.ms, 1);
    assert.equal(onlyFloats.msLow, 1);
    assert.equal(onlyFloats.msHigh, 1);
    assert.equal(formatShare(onlyFloats), "10% (10–10)");
    const idle = deviceEstimate(0, 0);
    assert.equal(idle.cycles, 0);
    assert.equal(idle.share, 0);
  });
});

describe("bench helpers: callgrind dumps and the typical datagram", function () {
  it("reads the collected instructions of a callgrind dump", function () {
    const dump = "# callgrind format\nversion: 1\ncreator: callgrind-3.19.0\npart: 3\nevents: Ir\nfn=(1) main\n5 10\ntotals: 1465225\n";
    assert.equal(dumpTotal(dump, "x.3"), 1465225);
    assert.equal(dumpTotal("events: Ir\nsummary: 42\n", "x.4"), 42);
    assert.throws(() => dumpTotal("events: Ir\n", "x.5"), /no totals in x\.5/);
  });

  it("recognises an ack + Input and names other shapes", function () {
    const packet = (rel: number, unrel: number, body: number[]) => new Uint8Array([0xf2, 0x70, 0x87, 0xc5, 0, 0, 0, 1, 0, 0, 0, 9, rel, unrel, ...body]);
    const ackInput = packet(0, 1, [203, 1, 0, 0, 0, 0]);
    assert.equal(isAckInput(ackInput), true);
    assert.equal(datagramShape(ackInput), "ack + Input: 0 reliable, 1 unreliable, 20 B");
    const ackOnly = packet(0, 0, []);
    assert.equal(isAckInput(ackOnly), false);
    assert.equal(datagramShape(ackOnly), "ack only: 0 reliable, 0 unreliable, 14 B");
    const chat = packet(1, 1, [0, 0, 0, 4, 105, 104, 105, 0, 203, 1, 0, 0, 0, 0]);
    assert.equal(isAckInput(chat), false);
    assert.equal(datagramShape(chat), "first message type 105: 1 reliable, 1 unreliable, 28 B");
  });
});
