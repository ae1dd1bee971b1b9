/**
 * Zero allocation, proved on the XS engine: 10,000 server ticks of a busy 8-player match
 * (the game on; steering, shooting, chat, renames, selections, deaths and respawns; the
 * 8 client-library clients ticking in the same loop) grow neither the slot heap nor the
 * chunk heap by one unit, and no garbage collection runs. The driver is
 * test/xs/zero-alloc.ts; its harness is built, and its counters copied, before the
 * heaps are read, so the measured loop holds only the match.
 *
 * The proof is sensitive. It was checked by hand once for each of these, added as the
 * first line after `if (this.#closed) return;` in `Server.tick` (modules/server/server.ts,
 * in a scratch copy of the tree, then undone), by running this file against it:
 *   - an array literal, `const pair = [now, this.#now]; this.#now = pair[0];`
 *     -> slots +20000, chunks +800000 B (2 slots and 80 bytes a tick), 0 collections;
 *   - a closure, `const later = () => now; this.#now = later();`
 *     -> slots +52943, chunks +0 B, 1 collection (the closures filled the slot heap once);
 *   - a string concatenation, `const line = "tick " + now; if (line === "") return;`
 *     -> slots +0, chunks +560000 B (56 bytes a tick), 0 collections.
 * Each time the first case below failed, and the probe run it then makes put the growth
 * in the server's tick. The controls at the end keep checking the same on every run,
 * with the allocation in a wrapper around the server's tick.
 *
 * The same proof found the client library's `chat(text)` and `rename(name)` allocating on
 * XS (+5322 slots here): any property read on a primitive string, `.length` and
 * `charCodeAt` included, boxes the string in a new String object there.
 *
 * Heaps: the in-memory link keeps a 2 MB packet pool and the 8 clients their own tables,
 * far beyond an ESP32's 78 KB, so the heaps are large (test/xs/udp.test.ts runs the
 * server alone in the ESP32 budget). With room to spare, a few allocations a tick stay
 * counted instead of being collected away; a collection, should one run, fails the test
 * as well. The stack is larger too: the bundle is one IIFE
 * whose frame holds every module's top-level bindings, which a device keeps in its
 * module environments instead.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../../tools/xs/bundle";
import { runXs, type XsResult } from "../../tools/xs/run";

const DRIVER = fileURLToPath(new URL("./zero-alloc.ts", import.meta.url));
const HEAPS = { slots: 64_000, chunks: 8 << 20, stack: 2048 };
const SEED = 1;
const WARM_UP = 1500;
const TICKS = 10_000;

interface ProbeRow {
  core: string;
  receiveSlots: number;
  receiveChunks: number;
  tickSlots: number;
  tickChunks: number;
}

interface Proof {
  steps: number;
  slots: [number, number];
  chunks: [number, number];
  collections: number;
  measuredMs: number;
  msPerTick: number;
  connected: number;
  players: number;
  warmUp: Record<string, number | boolean>;
  window: Record<string, number>;
  probes: ProbeRow[];
  elsewhere: { slots: number; chunks: number } | null;
}

describe("zero allocation on XS: 10,000 server ticks of a busy 8-player match", function () {
  this.timeout(300_000);
  let dir = "";
  let script = "";

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), "lwar-xs-alloc-"));
    script = join(dir, "zero-alloc.js");
    await bundle(DRIVER, script);
  });
  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  async function measure(warm: number, ticks: number, mode = ""): Promise<{ proof: Proof; xs: XsResult }> {
    const xs = await runXs([script], { ...HEAPS, args: [String(SEED), String(warm), String(ticks), mode], timeoutMs: 240_000 });
    assert.equal(xs.code, 0, `lwxs exit ${xs.code}${xs.timedOut ? " (timed out)" : ""}: ${xs.stderr}`);
    const json = xs.stdout.trim().split("\n").pop() ?? "";
    return { proof: JSON.parse(json) as Proof, xs };
  }

  /** Where the heap grew, from a shorter run with every core wrapped in a probe. */
  async function locate(): Promise<string> {
    const { proof } = await measure(WARM_UP, 2000, "probe");
    const rows = proof.probes.filter((p) => p.receiveSlots || p.receiveChunks || p.tickSlots || p.tickChunks);
    const lines = rows.map((p) => `  ${p.core}: receive +${p.receiveSlots} slots +${p.receiveChunks} B, tick +${p.tickSlots} slots +${p.tickChunks} B`);
    const e = proof.elsewhere;
    if (e !== null && (e.slots || e.chunks)) lines.push(`  elsewhere (scenario actions, the link, the loop): +${e.slots} slots +${e.chunks} B`);
    return `where, over 2000 ticks:\n${lines.join("\n") || "  (nowhere in a shorter run)"}`;
  }

  it("grows neither heap and never collects, with chat, renames, selections, inputs, kills and respawns in the window", async function () {
    const { proof, xs } = await measure(WARM_UP, TICKS);
    const slots = proof.slots[1] - proof.slots[0];
    const chunks = proof.chunks[1] - proof.chunks[0];
    console.log(`      ${TICKS} ticks in ${proof.measuredMs} ms (${proof.msPerTick.toFixed(2)} ms a tick): ` +
      `slots ${proof.slots[0]} -> ${proof.slots[1]}, chunks ${proof.chunks[0]} -> ${proof.chunks[1]} B, ${proof.collections} collections`);
    console.log(`      window: ${JSON.stringify(proof.window)}`);
    console.log(`      warm-up: ${JSON.stringify(proof.warmUp)}`);
    if (slots !== 0 || chunks !== 0 || proof.collections !== 0) {
      assert.fail(`the match allocated: slots +${slots}, chunks +${chunks} B, ${proof.collections} collections in ${TICKS} ticks\n${await locate()}\n${xs.stderr}`);
    }
    assert.equal(proof.steps, TICKS);
    // The window was the busy match it claims to be.
    assert.equal(proof.warmUp.ready, true, "all 8 connected during the warm-up");
    assert.equal(proof.connected, 8, "all 8 still connected");
    assert.equal(proof.players, 8);
    const w = proof.window;
    assert.ok(w.chats >= 50 && w.playersChatted === 8, `chats ${w.chats}, from ${w.playersChatted} players`);
    assert.equal(w.chatsApplied, w.chats * 8, "every chat reached all 8 clients");
    assert.ok(w.renames >= 25 && w.playersRenamed === 8, `renames ${w.renames}, by ${w.playersRenamed} players`);
    assert.ok(w.selectionsApplied >= 8 * 25 && w.playersSelected === 8, `selections applied ${w.selectionsApplied}, for ${w.playersSelected} players`);
    assert.ok(w.inputChanges >= 1000, `input changes ${w.inputChanges}`);
    assert.ok(w.shotsFired >= 500, `shots ${w.shotsFired}`);
    assert.ok(w.kills + w.suicides + w.environmentDeaths >= 2 && w.playersDied >= 2, `deaths: ${w.kills} kills, ${w.suicides} suicides, ${w.environmentDeaths} to the environment, ${w.playersDied} players died`);
    assert.ok(w.kills >= 1, `kills ${w.kills}`);
    assert.ok(w.spawns >= 2, `respawns ${w.spawns}`);
    assert.ok(w.addsApplied > 0 && w.removesApplied > 0, "entities came and went");
    assert.ok(w.updatesApplied >= 8 * 1400 && w.statsApplied >= 8 * 190, `Updates ${w.updatesApplied}, Stats ${w.statsApplied}`);
    assert.equal(w.joins + w.leaves + w.kicks + w.timeouts + w.queueOverflows + w.misbehaviour, 0, "nobody came, left or misbehaved");
  });

  describe("controls: the same measurement sees one allocation per server tick", function () {
    const CONTROL_TICKS = 500;
    for (const [kind, what] of [
      ["array", "an array literal"],
      ["closure", "a closure"],
      ["concat", "a string concatenation"],
    ] as const) {
      it(`${what}`, async function () {
        const { proof } = await measure(300, CONTROL_TICKS, kind);
        const slots = proof.slots[1] - proof.slots[0];
        const chunks = proof.chunks[1] - proof.chunks[0];
        console.log(`      ${what} in every tick: slots +${slots}, chunks +${chunks} B, ${proof.collections} collections over ${CONTROL_TICKS} ticks`);
        if (kind === "concat") assert.ok(chunks >= CONTROL_TICKS * 8, `a new string each tick: chunks +${chunks} B`);
        else assert.ok(slots >= CONTROL_TICKS, `a new ${kind} each tick: slots +${slots}`);
      });
    }
  });
});
