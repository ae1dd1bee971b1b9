/** The lwxs host itself: exact heap readings, fixed heaps, errors, clock, tick and UDP. */
import assert from "node:assert/strict";
import dgram from "node:dgram";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { bundle } from "../../tools/xs/bundle";
import { LWXS, runXs, type XsOptions, type XsResult } from "../../tools/xs/run";

interface Growth {
  slots: number;
  chunks: number;
  collections: number;
}

// Collects, runs `n` iterations of `body`, and prints what the heaps grew by.
const MEASURE = `
function measure(n, body) {
  xs.gc();
  const slots = xs.slotsUsed(), chunks = xs.chunksUsed(), collections = xs.collections();
  body(n);
  const s = xs.slotsUsed() - slots, c = xs.chunksUsed() - chunks, g = xs.collections() - collections;
  print(JSON.stringify({ slots: s, chunks: c, collections: g }));
}
`;

describe("XS host (tools/xs/lwxs)", function () {
  let dir = "";
  let count = 0;

  before(function () {
    dir = mkdtempSync(join(tmpdir(), "lwxs-test-"));
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  function script(source: string): string {
    const path = join(dir, `script${++count}.js`);
    writeFileSync(path, source);
    return path;
  }

  async function run(source: string, options: XsOptions = {}): Promise<XsResult> {
    return runXs([script(source)], options);
  }

  async function growth(body: string): Promise<Growth> {
    const result = await run(`${MEASURE}\n${body}`);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Growth;
  }

  it("is built by npm install", function () {
    assert.ok(existsSync(LWXS), `${LWXS} is missing: the build in postinstall failed; run \`npm run build:xs\``);
  });

  describe("heap readings", function () {
    it("a string per iteration grows the chunk heap, not the slot heap", async function () {
      const g = await growth(`let keep; measure(100, (n) => { for (let i = 0; i < n; i++) keep = "x" + i; });`);
      assert.equal(g.slots, 0);
      assert.ok(g.chunks >= 100 * 16, `chunks grew by ${g.chunks} bytes`);
      assert.equal(g.collections, 0);
    });

    it("an ArrayBuffer per iteration grows the chunk heap by at least its bytes", async function () {
      const g = await growth(`let keep; measure(100, (n) => { for (let i = 0; i < n; i++) keep = new ArrayBuffer(64); });`);
      assert.ok(g.chunks >= 100 * 64, `chunks grew by ${g.chunks} bytes`);
      assert.ok(g.slots > 0);
    });

    it("an object literal per iteration grows the slot heap, not the chunk heap", async function () {
      const g = await growth(`let keep; measure(100, (n) => { for (let i = 0; i < n; i++) keep = { a: i, b: 2 }; });`);
      assert.ok(g.slots >= 100 * 3, `slots grew by ${g.slots}`);
      assert.equal(g.chunks, 0);
    });

    it("arithmetic on preallocated typed arrays allocates nothing and never collects", async function () {
      const g = await growth(`
        const a = new Float64Array(64), b = new Int32Array(64);
        measure(100000, (n) => {
          for (let i = 0; i < n; i++) {
            const j = i & 63;
            a[j] = a[j] * 0.5 + b[j];
            b[j] = (b[j] + i) | 0;
          }
        });`);
      assert.deepEqual(g, { slots: 0, chunks: 0, collections: 0 });
    });

    it("reading the heaps allocates nothing", async function () {
      const g = await growth(`measure(1000, (n) => { for (let i = 0; i < n; i++) { xs.slotsUsed(); xs.chunksUsed(); xs.collections(); xs.now(); } });`);
      assert.deepEqual(g, { slots: 0, chunks: 0, collections: 0 });
    });

    it("counts collections", async function () {
      const g = await growth(`measure(3, (n) => { for (let i = 0; i < n; i++) xs.gc(); });`);
      assert.equal(g.collections, 3);
    });
  });

  describe("creation", function () {
    const LIMITS = `print(JSON.stringify([xs.maxSlots - xs.baseSlots, xs.maxChunks - xs.baseChunks]));`;

    it("gives scripts the ESP32 heaps by default: 4928 slots and 78848 chunk bytes", async function () {
      const result = await run(LIMITS);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), [4928, 78848]);
    });

    it("takes other sizes from the command line", async function () {
      const result = await run(LIMITS, { slots: 1000, chunks: 20000 });
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(JSON.parse(result.stdout), [1000, 20000]);
    });

    it("fails on a full slot heap instead of growing", async function () {
      const result = await run(`const keep = []; for (let i = 0; ; i++) keep.push({ i });`, { slots: 1000 });
      assert.equal(result.code, 3);
      assert.match(result.stderr, /memory full: the slot heap is exhausted/);
      const [, used, max, base, budget] = /slots (\d+) used of (\d+) \(base (\d+), budget (\d+)\)/.exec(result.stderr) ?? [];
      assert.equal(Number(used), Number(max));
      assert.equal(Number(max) - Number(base), 1000);
      assert.equal(Number(budget), 1000);
    });

    it("fails on a full chunk heap instead of growing", async function () {
      const result = await run(`const keep = []; for (;;) keep.push(new ArrayBuffer(1024));`, { chunks: 20000 });
      assert.equal(result.code, 3);
      assert.match(result.stderr, /memory full: the chunk heap is exhausted/);
    });

    it("fails on a stack overflow", async function () {
      const result = await run(`function r(n) { return r(n + 1) + 1; } r(0);`);
      assert.equal(result.code, 3);
      assert.match(result.stderr, /stack overflow: the stack holds 512 slots/);
    });
  });

  describe("errors", function () {
    it("exits 1 on an uncaught error, with its stack", async function () {
      const path = script(`function f() {\n  throw new TypeError("boom");\n}\nf();\n`);
      const result = await runXs([path]);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /uncaught exception: TypeError: boom/);
      assert.ok(result.stderr.includes(`at f (${path}:2)`), result.stderr);
    });

    it("exits 1 on an error thrown in a tick", async function () {
      const result = await run(`xs.run(() => { throw new RangeError("in tick"); }, 5);`);
      assert.equal(result.code, 1);
      assert.match(result.stderr, /uncaught exception: RangeError: in tick/);
    });

    it("exits 1 on an unhandled rejection", async function () {
      const result = await run(`Promise.reject(new Error("nope")); print("after");`);
      assert.equal(result.code, 1);
      assert.equal(result.stdout, "after\n");
      assert.match(result.stderr, /unhandled rejection: Error: nope/);
    });

    it("runs promise jobs, and a rejection handled in time is fine", async function () {
      const result = await run(`
        const p = Promise.reject(new Error("late"));
        p.catch((e) => print("caught", e.message));
        Promise.resolve(1).then((v) => print("then", v));`);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "caught late\nthen 1\n");
    });

    it("exits 1 on a syntax error, with the line", async function () {
      const path = script(`let a = 1;\nlet b = ;\n`);
      const result = await runXs([path]);
      assert.equal(result.code, 1);
      assert.ok(result.stderr.includes(`${path}:2: error:`), result.stderr);
    });
  });

  describe("clock and tick", function () {
    it("xs.now() is monotonic and finer than a millisecond", async function () {
      const result = await run(`
        let previous = xs.now(), backwards = 0, fractional = 0;
        for (let i = 0; i < 10000; i++) {
          const now = xs.now();
          if (now < previous) backwards++;
          if (now !== Math.floor(now)) fractional++;
          previous = now;
        }
        print(backwards, fractional > 0);`);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "0 true\n");
    });

    it("xs.run() ticks at the interval, and xs.stop(code) ends the loop with that status", async function () {
      const result = await run(`
        let ticks = 0;
        const start = xs.now();
        xs.run(() => {
          if (++ticks === 20) {
            print(ticks, xs.now() - start >= 20 * 10 - 1);
            xs.stop(5);
          }
        }, 10);`);
      assert.equal(result.code, 5, result.stderr);
      assert.equal(result.stdout, "20 true\n");
    });

    it("passes the arguments after -- as xs.args", async function () {
      const result = await run(`print(JSON.stringify(xs.args));`, { args: ["7000", "x y"] });
      assert.equal(result.stdout, '["7000","x y"]\n');
    });
  });

  describe("UDP on 127.0.0.1", function () {
    // Echoes every datagram inverted; measures datagrams 10 to 60.
    const ECHO = `
      const rx = new Uint8Array(1500), tx = new Uint8Array(1500);
      let count = 0, slots = 0, chunks = 0, collections = 0;
      const port = xs.udpOpen(0, rx.buffer, (length, address, port) => {
        for (let i = 0; i < length; i++) tx[i] = rx[i] ^ 0xff;
        xs.udpSend(tx, length, address, port);
        if (++count === 10) {
          slots = xs.slotsUsed(); chunks = xs.chunksUsed(); collections = xs.collections();
        }
        else if (count === 60) {
          const s = xs.slotsUsed() - slots, c = xs.chunksUsed() - chunks, g = xs.collections() - collections;
          print(JSON.stringify({ slots: s, chunks: c, collections: g, address }));
          xs.stop();
        }
      });
      print(port);`;

    it("delivers datagrams into the buffer and sends replies, allocating nothing per datagram", async function () {
      const socket = dgram.createSocket("udp4");
      await new Promise<void>((resolve) => socket.bind(0, "127.0.0.1", resolve));
      let sent = 0;
      const replies: Buffer[] = [];
      let xsPort = 0;
      const send = () => {
        sent++;
        socket.send(Buffer.from([sent, 1, 2, 3, 250]), xsPort, "127.0.0.1");
      };
      socket.on("message", (message) => {
        replies.push(message);
        if (sent < 60) send();
      });
      try {
        const result = await runXs([script(ECHO)], {
          timeoutMs: 10000,
          onStdout: (line) => {
            if (xsPort === 0) {
              xsPort = Number(line);
              socket.send(Buffer.alloc(1501), xsPort, "127.0.0.1");
              send();
            }
          },
        });
        assert.equal(result.code, 0, result.stderr);
        const lines = result.stdout.trim().split("\n");
        assert.deepEqual(JSON.parse(lines[1]), { slots: 0, chunks: 0, collections: 0, address: "127.0.0.1" });
        assert.match(result.stderr, /udp 60 in, 60 out, 1 dropped/);
        assert.deepEqual([...replies[0]], [0xfe, 0xfe, 0xfd, 0xfc, 0x05]);
      } finally {
        socket.close();
      }
    });

    it("sends only to loopback addresses", async function () {
      const result = await run(`
        xs.udpOpen(0, new ArrayBuffer(16), () => {});
        try { xs.udpSend(new Uint8Array(4), 4, "10.0.0.1", 9); } catch (e) { print(e.name, e.message); }
        xs.udpClose();`);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "RangeError udpSend: only 127.0.0.0/8 addresses are allowed\n");
    });
  });

  describe("bundle()", function () {
    it("bundles TypeScript into one ES2022 script that XS runs", async function () {
      writeFileSync(join(dir, "counter.ts"), `
        export class Counter {
          #count = 0;
          static readonly step: number = 1;
          add(): number { this.#count += Counter.step; return this.#count; }
        }`);
      writeFileSync(join(dir, "entry.ts"), `
        import { Counter } from "./counter";
        export function count(n: number): number {
          const c = new Counter();
          let last = 0;
          for (let i = 0; i < n; i++) last = c.add();
          return last ?? -1;
        }`);
      const out = join(dir, "lib.js");
      const { bytes } = await bundle(join(dir, "entry.ts"), out, { globalName: "lib" });
      assert.ok(bytes > 0);
      const result = await runXs([out, script(`print(lib.count(3));`)]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal(result.stdout, "3\n");
    });

    it("refuses Node built-ins", async function () {
      writeFileSync(join(dir, "node.ts"), `import { readFileSync } from "node:fs"; export const f = readFileSync;`);
      await assert.rejects(bundle(join(dir, "node.ts"), join(dir, "node.js")), /node:fs/);
    });
  });
});
