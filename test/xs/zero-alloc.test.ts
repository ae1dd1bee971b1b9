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
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
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

  async function prove(mode: string): Promise<void> {
    const { proof, xs } = await measure(WARM_UP, TICKS, mode);
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
  }

  it("grows neither heap and never collects, with chat, renames, selections, inputs, kills and respawns in the window (the loops in C, as on the device)", async function () {
    await prove("");
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

/**
 * The Moddable host (hosts/moddable/host.ts) on XS: the same zero-allocation proof for the
 * device's whole UDP path, tick and clock. The driver is test/xs/moddable-host.ts; what the
 * host imports from the SDK (`timer`, `time`) and from the board (`./net`, the bindings of
 * hosts/moddable/net.c) are stand-ins (test/xs/moddable-stubs/), mapped by the bundle's
 * alias. The net stand-in copies as net.c does and allocates nothing, so whatever grows is
 * the host's. Proven, each window after a full collection:
 *   - sends of every length 0..512 from a view at an offset allocate nothing, and each
 *     arrives whole at its address and port;
 *   - the Timer tick and now() allocate nothing across the 32-bit wrap of Time.ticks, and
 *     on a host that times its ticks with Time.microseconds; now() is monotonic over
 *     scripted ESP32 and simulator clocks with steps back;
 *   - receiving allocates nothing at all per datagram, after a warm-up in which the host
 *     makes one address string per sender, into a DirectCore (udpNext writes into the
 *     core's rxBuffer) and into a plain Core (the host's own buffer, core.receive); every
 *     datagram reaches the core with its length, bytes, address and port, and none is
 *     left in the ring after a tick;
 *   - a refused send is counted in sendErrors, and sends after it allocate nothing.
 * Two controls in the same run show the meter seeing the allocations the host avoids: a
 * core making a view of each datagram, and more senders than the host's 16 address strings.
 *
 * Checked by hand against hosts/moddable/host.ts (in a scratch copy of the tree, each
 * change then undone), by running this block against it:
 *   - a new Uint8Array(length) per datagram, the datagram copied into it and handed on
 *     -> both receive cases fail (slots +10500, chunks +413872 B over 1500 datagrams);
 *        send and tick pass;
 *   - a new view of the receive buffer for each udpNext call -> both receive cases and
 *     both tick cases fail (+4 slots a call: +120000 over 30000 ticks);
 *   - the address string made anew per datagram (ipText(ip) instead of the kept one)
 *     -> both receive cases fail (chunks +476000 B over 1500 datagrams, slots +0);
 *   - bytes.subarray(0, length) per send -> every send, tick, receive and refused-send
 *     case fails (+4 slots a send: +80000 over 20000 sends);
 *   - sendErrors reading the counters into a new Uint32Array -> the refused-send case
 *     fails (+55 slots, +200 B over its 5 windows).
 */
const HOST_DRIVER = fileURLToPath(new URL("./moddable-host.ts", import.meta.url));
const MODDABLE_HOST = fileURLToPath(new URL("../../hosts/moddable/host.ts", import.meta.url));
const STUBS = fileURLToPath(new URL("./moddable-stubs/", import.meta.url));
const HOST_HEAPS = { slots: 64_000, chunks: 8 << 20, stack: 2048 };

interface Growth {
  windows: number;
  slots: number;
  chunks: number;
  collections: number;
}

/** Growth per window too: the most and the least of any one window. */
interface WindowGrowth extends Growth {
  worstSlots: number;
  worstChunks: number;
  leastSlots: number;
  leastChunks: number;
}

interface ClockRun {
  steps: number[];
  ticks: number[];
  now: number[];
}

interface TickCostSeen {
  count: number;
  sumUs: number;
  clock: string;
}

interface ReceiveRun extends WindowGrowth {
  datagrams: number;
  warmDatagrams: number;
  warmSlots: number;
  warmChunks: number;
  badReceives: number;
  badSends: number;
  badTicks: number;
  receives: number;
}

interface HostProof {
  bound: { port: number; slots: number; opens: number };
  send: WindowGrowth & { warmSends: number; sends: number; badSends: number; lengthsCovered: number };
  tick: WindowGrowth & {
    ticks: number; badTicks: number; badSends: number; wrapped: boolean; firstTicks: number; lastTicks: number;
    firstNow: number; lastNow: number; timers: number; timerInterval: number; nexts: number; tickCost: TickCostSeen;
  };
  receive: {
    plain: ReceiveRun;
    direct: ReceiveRun & { directs: number; plainReceivesAfter: number };
    taken: number;
    undrained: number;
    counters: number[];
  };
  controls: { views: Growth & { datagrams: number }; many: Growth & { datagrams: number; badReceives: number } };
  error: WindowGrowth & { sendErrors: number; sendErrorsSeen: number; wireSendErrors: number; badSends: number };
  micro: WindowGrowth & { ticks: number; badTicks: number; badSends: number; tickCost: TickCostSeen & { usStep: number } };
  clock: Record<"esp32Wrap" | "esp32Zero" | "lin", ClockRun>;
}

describe("zero allocation on XS: the Moddable host's send, tick, clock and receive", function () {
  this.timeout(120_000);
  let dir = "";
  let script = "";
  let proof: HostProof;

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), "lwar-xs-host-"));
    script = join(dir, "moddable-host.js");
    // The entry hands the real host to the driver (which does not import it, so that the
    // Node typecheck never sees the SDK module names the host imports).
    const entry = join(dir, "moddable-host.entry.ts");
    writeFileSync(entry, [
      `import { ModdableHost } from ${JSON.stringify(MODDABLE_HOST)};`,
      `import { runHostProof } from ${JSON.stringify(HOST_DRIVER)};`,
      `runHostProof(ModdableHost);`,
      ``,
    ].join("\n"));
    await bundle(entry, script, {
      alias: {
        // The host's own import of the board's bindings (hosts/moddable/net.js, whose
        // `@ "xs_..."` natives esbuild cannot read); nothing else in the bundle imports "./net".
        "./net": join(STUBS, "net.ts"),
        timer: join(STUBS, "timer.ts"),
        time: join(STUBS, "time.ts"),
      },
    });
    const xs = await runXs([script], { ...HOST_HEAPS, timeoutMs: 60_000 });
    assert.equal(xs.code, 0, `lwxs exit ${xs.code}${xs.timedOut ? " (timed out)" : ""}: ${xs.stderr}`);
    proof = JSON.parse(xs.stdout.trim().split("\n").pop() ?? "") as HostProof;
  });
  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  /** Nothing grew in any window: the totals, and the most and least of one window, are 0. */
  function noGrowth(g: WindowGrowth, what: string): void {
    assert.ok(g.windows > 0, `${what}: no windows measured`);
    assert.deepEqual(
      { slots: g.slots, chunks: g.chunks, collections: g.collections, worstSlots: g.worstSlots, worstChunks: g.worstChunks, leastSlots: g.leastSlots, leastChunks: g.leastChunks },
      { slots: 0, chunks: 0, collections: 0, worstSlots: 0, worstChunks: 0, leastSlots: 0, leastChunks: 0 },
      `${what} allocated over ${g.windows} windows`);
  }

  it("opens the port with net.c's ring of 16 datagram slots", function () {
    assert.deepEqual(proof.bound, { port: 32422, slots: 16, opens: 1 });
  });

  it("sends of every length from 0 to 512 allocate nothing, each one arriving whole", function () {
    const s = proof.send;
    console.log(`      ${s.sends} sends in ${s.windows} windows: slots +${s.slots}, chunks +${s.chunks} B, ${s.collections} collections`);
    noGrowth(s, "host.send");
    assert.equal(s.sends, 20_000);
    assert.equal(s.lengthsCovered, 513, "every length 0..512 was sent");
    assert.equal(s.badSends, 0, "every send reached udpSend with its length, peer and bytes");
  });

  it("the Timer tick and now() allocate nothing, counting 10 ms a tick across the 32-bit wrap of Time.ticks", function () {
    const t = proof.tick;
    console.log(`      ${t.ticks} ticks, Time.ticks ${t.firstTicks} -> ${t.lastTicks}: slots +${t.slots}, chunks +${t.chunks} B, ${t.collections} collections`);
    noGrowth(t, "the tick");
    assert.equal(t.timers, 1);
    assert.equal(t.timerInterval, 10);
    assert.equal(t.ticks, 30_000);
    assert.ok(t.wrapped && t.firstTicks > 0 && t.lastTicks < 0, "Time.ticks wrapped from 0x7FFFFFFF to -0x80000000");
    assert.equal(t.badTicks, 0, "every tick was 10 ms after the one before");
    assert.equal(t.lastNow - t.firstNow, 10 * (t.ticks - 1));
    assert.equal(t.badSends, 0, "the core's send in every tick arrived whole");
    assert.equal(t.nexts, t.ticks, "each tick asked net.c for datagrams once (none waited)");
    assert.deepEqual(t.tickCost, { count: t.ticks, sumUs: 0, clock: "Time.ticks" }, "each tick timed, with Time.ticks");
  });

  it("the same with ticks timed by Time.microseconds, as on the device", function () {
    const m = proof.micro;
    console.log(`      ${m.ticks} ticks: slots +${m.slots}, chunks +${m.chunks} B, ${m.collections} collections`);
    noGrowth(m, "the tick with Time.microseconds");
    assert.equal(m.ticks, 10_000);
    assert.equal(m.badTicks, 0);
    assert.equal(m.badSends, 0);
    assert.deepEqual(m.tickCost, { count: m.ticks, sumUs: m.ticks * m.tickCost.usStep, clock: "Time.microseconds", usStep: m.tickCost.usStep });
  });

  for (const kind of ["direct", "plain"] as const) {
    const what = kind === "direct" ? "a DirectCore (into its rxBuffer, then received)" : "a plain Core (the host's buffer, then receive)";
    it(`receive allocates nothing per datagram into ${what}, each arriving with its length, bytes, address and port`, function () {
      const r = proof.receive[kind];
      console.log(`      ${r.datagrams} datagrams from 3 senders in ${r.windows} windows: slots +${r.slots}, chunks +${r.chunks} B, ` +
        `${r.collections} collections; warm-up (${r.warmDatagrams} datagrams): slots +${r.warmSlots}, chunks +${r.warmChunks} B`);
      noGrowth(r, `receive into ${kind === "direct" ? "a DirectCore" : "a plain Core"}`);
      assert.equal(r.warmDatagrams, 3);
      assert.equal(r.datagrams, 150 * r.windows, "every datagram queued was delivered");
      assert.ok(r.windows >= 10);
      assert.equal(r.badReceives, 0, "every datagram reached the core with its length, bytes, address and port");
      assert.equal(r.badSends, 0);
      assert.equal(r.badTicks, 0);
      if (kind === "direct") {
        const d = proof.receive.direct;
        assert.equal(d.directs, d.datagrams + d.warmDatagrams, "each through received");
        assert.equal(d.receives, 0, "a DirectCore is never handed the host's buffer");
        assert.equal(d.plainReceivesAfter, 0, "the detached core got nothing more");
      } else {
        const p = proof.receive.plain;
        assert.equal(p.receives, p.datagrams + p.warmDatagrams, "each through core.receive");
        // The warm-up made the address strings: the meter sees them.
        assert.ok(p.warmChunks > 0, `the warm-up's address strings: chunks +${p.warmChunks} B`);
      }
    });
  }

  it("every datagram was taken from the ring in the tick it arrived", function () {
    const r = proof.receive;
    assert.equal(r.undrained, 0);
    const [received, ringFull, tooLong] = r.counters;
    assert.deepEqual([ringFull, tooLong], [0, 0], "net.c's ring dropped nothing");
    assert.equal(r.taken, r.plain.datagrams + r.plain.warmDatagrams + r.direct.datagrams + r.direct.warmDatagrams);
    assert.ok(received >= r.taken);
  });

  it("after a send udpSend refuses, sendErrors counts it and sends allocate nothing", function () {
    const e = proof.error;
    console.log(`      ${e.windows} windows of a refused send and 1000 sends: slots +${e.slots}, chunks +${e.chunks} B, ${e.collections} collections`);
    assert.equal(e.sendErrorsSeen, 5, "the last refused send was counted at once");
    assert.equal(e.sendErrors, 5);
    assert.equal(e.wireSendErrors, 5);
    assert.equal(e.badSends, 5, "only the refused sends did not reach the wire");
    noGrowth(e, "a refused send, then host.send");
  });

  it("controls: the same meter sees a view made per datagram, and an address string made per datagram", function () {
    const { views, many } = proof.controls;
    console.log(`      a view of each datagram: slots +${views.slots}, chunks +${views.chunks} B over ${views.datagrams} datagrams; ` +
      `20 senders: slots +${many.slots}, chunks +${many.chunks} B over ${many.datagrams} datagrams`);
    assert.equal(views.collections + many.collections, 0);
    assert.ok(views.datagrams >= 200 && views.slots >= views.datagrams, `a view per datagram: slots +${views.slots}`);
    assert.equal(many.badReceives, 0, "20 senders, each datagram with its own address");
    assert.ok(many.datagrams === 200 && many.chunks >= 8 * many.datagrams, `a string per datagram: chunks +${many.chunks} B`);
  });

  it("now() is monotonic on ESP32 ticks across 0x7FFFFFFF -> -0x80000000 and -1 -> 0, and on simulator ticks; steps back are ignored", function () {
    const runs = proof.clock;
    const wrapAt = (run: ClockRun, from: number, to: number): boolean => run.ticks.some((t, i) => i > 0 && run.ticks[i - 1] === from && t === to);
    assert.ok(wrapAt(runs.esp32Wrap, 0x7fffffff, -0x80000000), `ticks ${runs.esp32Wrap.ticks.join(" ")}`);
    assert.ok(wrapAt(runs.esp32Zero, -1, 0), `ticks ${runs.esp32Zero.ticks.join(" ")}`);
    for (const [name, run] of Object.entries(runs)) {
      const esp32 = name !== "lin";
      assert.ok(run.steps.some((s) => s < 0), `${name} steps back somewhere`);
      assert.equal(run.now[0], 0, `${name} starts at 0`);
      for (let i = 1; i < run.now.length; i++) {
        const step = run.steps[i - 1];
        const ticks = esp32 ? (run.ticks[i - 1] + step) | 0 : run.ticks[i - 1] + step;
        assert.equal(run.ticks[i], ticks, `${name} ticks[${i}]`);
        assert.equal(run.now[i] - run.now[i - 1], Math.max(step, 0), `${name}: now() after a step of ${step} ms (ticks ${run.ticks[i - 1]} -> ${run.ticks[i]})`);
      }
    }
  });
});
