/**
 * The native loops (modules/kernels/loops.c, modules/native.ts) do the same on both engines,
 * to the byte: busy recorded matches are replayed through a server on Node, where the C
 * runs as WebAssembly, and on XS with the C that lwxs carries (hosts/moddable/kernels.c);
 * every datagram each server sent is hashed in order, and the world's hash is compared.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_CASE, recordTrace, traceWords, type CaseOptions } from "../../harness/trace";
import { Binding } from "../../modules/native";
import { Counter, COUNTER_NAMES } from "../../modules/protocol/counters";
import { GAME_COUNTER_NAMES } from "../../modules/game/game";
import { bundle } from "../../tools/xs/bundle";
import { LWXS, runXs } from "../../tools/xs/run";
import { receiveStorm, replaySent, type Sent } from "./kernels-entry";
import { STORM_COUNTERS, storm } from "./storm-entry";

const ENTRY = fileURLToPath(new URL("./kernels-entry.ts", import.meta.url));
const STORM = fileURLToPath(new URL("./storm-entry.ts", import.meta.url));

const CASES: ReadonlyArray<[string, CaseOptions]> = [
  // The priority planner with the game: near and far entities, shots born and dying, a
  // budget that carries entities over, ships at rest.
  ["8 players, the game, capacity 192", { ...DEFAULT_CASE, players: 8, game: true, capacity: 192, seed: 3, warmSteps: 300, steps: 1500 }],
  // A small pool: the plan is cut by the packet budget and entries run to 255 a message.
  ["8 players, the game, capacity 64", { ...DEFAULT_CASE, players: 8, game: true, capacity: 64, seed: 4, warmSteps: 300, steps: 900 }],
  // No game: the round-robin plan, with the native Update entry loop alone.
  ["4 players, 192 static entities", { ...DEFAULT_CASE, players: 4, game: false, entities: 192, seed: 5, warmSteps: 300, steps: 900 }],
];

/** Skip, saying why, where the XS host is not built. */
function needLwxs(ctx: Mocha.Context): void {
  if (existsSync(LWXS)) return;
  console.log(`      skipped: the XS host is not built (${LWXS}); \`npm run build:xs\` builds it`);
  ctx.skip();
}

let work = "";
const bundles = new Map<string, string>();

/** Run `entry` (bundled once) in lwxs after the scripts `pre`; what follows `prefix ` on the line it printed. */
async function xsLine(entry: string, pre: string[], args: string[], prefix: string): Promise<string> {
  let script = bundles.get(entry);
  if (script === undefined) {
    script = join(work, `entry${bundles.size}.js`);
    await bundle(entry, script);
    bundles.set(entry, script);
  }
  // These runs compare what the engines compute, not the device's stack (the budget's stack
  // probe does that): a one-script bundle keeps every top-level binding of every module it
  // bundles on one frame, so the bench driver's recorder and replayer with the server, the
  // game and the client stood at 1024 slots to the slot; 2048 leaves room to grow.
  const r = await runXs([...pre, script], { slots: 200_000, chunks: 8 << 20, stack: 2048, keys: 256, args, timeoutMs: 100_000 });
  const line = r.stdout.split("\n").find((l) => l.startsWith(`${prefix} `));
  assert.ok(line !== undefined, `lwxs printed no result (exit ${r.code}): ${r.stderr.slice(-600)}`);
  return line.slice(prefix.length + 1);
}

async function onXs(o: CaseOptions, trace: Uint8Array): Promise<Sent> {
  const traceScript = join(work, "trace.js");
  writeFileSync(traceScript, `var NATIVE_TRACE = [${Array.from(traceWords(trace)).join(",")}];\n`);
  const [count, hash, world] = (await xsLine(ENTRY, [traceScript], [JSON.stringify(o)], "sent")).split(" ");
  return { count: Number(count), hash: Number(hash), world: Number(world) };
}

describe("native loops", function () {
  this.timeout(180000);
  before(function () {
    work = mkdtempSync(join(tmpdir(), "lwar-native-"));
  });
  after(function () {
    if (work !== "") rmSync(work, { recursive: true, force: true });
  });

  for (const [name, o] of CASES) {
    it(`send the same bytes on XS (C) as on Node (WebAssembly): ${name}`, async function () {
      needLwxs(this);
      const trace = recordTrace(o);
      const node = replaySent(o, trace.bytes);
      assert.equal(node.count, trace.traffic.packetsOut, "the Node replay is the recorded run");
      if (o.game) assert.notEqual(node.world, 0, "the game ran");
      assert.deepEqual(await onXs(o, trace.bytes), node, "XS running the C sends what Node running its WebAssembly sends");
    });
  }

  it("fly a projectile storm and measure spawn clearance alike on both engines: ships, planets, the sun, the edge, the cap", async function () {
    needLwxs(this);
    const seed = 7;
    const steps = 600;
    const node = storm(seed, steps);
    for (const [c, least] of STORM_COUNTERS)
      assert.ok(node.counters[c] >= least, `${GAME_COUNTER_NAMES[c]} is ${node.counters[c]}: the storm must reach ${least}`);
    const run = (): Promise<string> => xsLine(STORM, [], ["storm", String(seed), String(steps)], "storm");
    assert.ok(node.short > 100, `${node.short} of 3000 points short of clearance: the arena must be crowded`);
    const expected = `${node.hashes.join(",")} ${node.counters.join(",")} ${node.clearance} ${node.short}`;
    assert.equal(await run(), expected, "XS running the C flies what Node running its WebAssembly flies");
  });

  it("read what clients send most alike on both engines: acks and Inputs, valid and mutated, from players and a stranger", async function () {
    needLwxs(this);
    const seed = 11;
    const count = 20000;
    const { hash: node, counters } = receiveStorm(seed, count);
    // The storm reached every way such a packet can go.
    for (const c of [Counter.StaleUnreliable, Counter.FutureTimestamp, Counter.BadAck, Counter.UnknownPeer, Counter.TooShort, Counter.Truncated, Counter.BadAppId])
      assert.ok(counters[c] > 10, `${COUNTER_NAMES[c]} ${counters[c]}: the storm must reach it`);
    const run = async (): Promise<number> => Number(await xsLine(ENTRY, [], ["receive", String(seed), String(count)], "receive"));
    assert.equal(await run(), node, "XS running the C counts and reads what Node does");
  });

  describe("Binding", function () {
    it("says which of up to four buffers and what offset each array starts at", function () {
      const a = new ArrayBuffer(64);
      const b = new ArrayBuffer(32);
      const layout = { arrays: "p q r", words: "s t" };
      // Given in another order than declared: placed by name.
      const bind = new Binding(layout, { r: new Uint16Array(a, 40, 4), p: new Int32Array(a, 8, 2), q: new Uint8Array(b, 3, 4) });
      assert.deepEqual(Array.from(bind.words), [0, 8, 1, 3, 0, 40, 0, 0]);
      assert.equal(bind.scalars, 6);
      assert.equal(bind.m0.buffer, a);
      assert.equal(bind.m1.buffer, b);
      assert.equal(bind.m2, bind.m0, "unused views repeat the first");
      assert.equal(bind.layout.buffer, bind.words.buffer);
    });

    it("refuses a fifth buffer", function () {
      const layout = { arrays: "a b c d e", words: "" };
      const arrays = { a: new Int32Array(4), b: new Int32Array(4), c: new Int32Array(4), d: new Int32Array(4), e: new Int32Array(4) };
      assert.throws(() => new Binding(layout, arrays), /more than 4 buffers/);
    });

    it("refuses a missing array", function () {
      const layout = { arrays: "a b", words: "" };
      assert.throws(() => new Binding(layout, { a: new Int32Array(4) }), /no array "b"/);
    });

    it("refuses an array it does not declare", function () {
      const layout = { arrays: "a", words: "" };
      assert.throws(() => new Binding(layout, { a: new Int32Array(4), z: new Int32Array(4) }), /"z" is not one of its declared arrays/);
    });

    it("has room for its declared words, runs included, and the tail its owner asks for", function () {
      const layout = { arrays: "a", words: "s run*4 t tail*0" };
      const bind = new Binding(layout, { a: new Int32Array(4) }, 3);
      assert.equal(bind.words.length, 2 + 6 + 3);
    });
  });
});
