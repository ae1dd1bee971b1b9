/**
 * The same match gives the same world on V8 and on XS: a busy 8-player match with the game
 * is recorded on Node (harness/trace.ts), then replayed through a fresh server and game on
 * Node (the loops as WebAssembly) and on the XS engine (lwxs, the loops compiled in), and the
 * game's hash is compared every 100 server ticks and at the end, against each other and
 * against the recorded run.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_CASE, makeScenario, recordTrace, traceWords, type CaseOptions, type Trace } from "../../harness/trace";
import { GameCounter, type Game } from "../../modules/game/game";
import { Counter } from "../../modules/protocol/counters";
import { bundle } from "../../tools/xs/bundle";
import { LWXS, runXs } from "../../tools/xs/run";
import { hashEvery, replayHashes } from "./cross-engine-entry";

const ENTRY = fileURLToPath(new URL("./cross-engine-entry.ts", import.meta.url));
const EVERY = 100;
/**
 * 300 ticks of warm-up and 6000 more (a minute): thousands of shots, hits, deaths and
 * respawns. The seed is one whose match is busy by the counts below (they vary by seed).
 */
const CASE: CaseOptions = Object.freeze({ ...DEFAULT_CASE, players: 8, game: true, capacity: 192, seed: 6, warmSteps: 300, steps: 6000 });

describe("game across engines", function () {
  this.timeout(120000);
  let trace: Trace;
  let recorded: number[] = [];
  let game: Game;

  before(function () {
    trace = recordTrace(CASE);
    // The recording is deterministic: the same scenario again is the recorded run, step for
    // step (its traffic totals match the recording's below), with the hashes taken.
    const s = makeScenario(CASE);
    game = s.server.simulation as Game;
    const h = hashEvery(s.server, game, EVERY);
    for (let i = 0; i < CASE.warmSteps + CASE.steps; i++) s.step();
    recorded = h.end();
    assert.equal(s.server.counters[Counter.PacketsOut], trace.traffic.packetsOut, "the rerun is the recorded run");
    assert.equal(s.server.counters[Counter.BytesOut], trace.traffic.bytesOut, "the rerun is the recorded run");
  });

  it("records a busy match whose world changes at every checkpoint", function () {
    const g = game.counters;
    assert.ok(recorded.length >= 63, `${recorded.length} hashes`);
    const checkpoints = recorded.slice(0, -1);
    assert.equal(new Set(checkpoints).size, checkpoints.length, "the world changes between checkpoints");
    assert.ok(g[GameCounter.ShotsFired] > 1500, `${g[GameCounter.ShotsFired]} shots`);
    // New ships are guarded for 2 s (or until they fire), so fewer blows land than shots hit.
    assert.ok(g[GameCounter.ShotHits] > 15, `${g[GameCounter.ShotHits]} hits`);
    assert.ok(g[GameCounter.Spawns] > 12, `${g[GameCounter.Spawns]} spawns`);
    assert.ok(g[GameCounter.Kills] > 0 && g[GameCounter.EnvironmentDeaths] > 0, "kills and deaths by the sun or a planet");
  });

  it("replays to the recorded hashes on Node", function () {
    assert.deepEqual(replayHashes(CASE, trace.bytes, EVERY), recorded);
  });

  for (const [mode, what] of [["native", "on XS with the native loops compiled in, as on the device"]] as const) {
    it(`replays to the recorded hashes ${what}`, async function () {
      if (!existsSync(LWXS)) {
        console.log(`      skipped: the XS host is not built (${LWXS}); \`npm run build:xs\` builds it`);
        this.skip();
      }
      const dir = mkdtempSync(join(tmpdir(), "lwar-cross-"));
      try {
        const traceScript = join(dir, "trace.js");
        writeFileSync(traceScript, `var CROSS_TRACE = [${Array.from(traceWords(trace.bytes)).join(",")}];\n`);
        const script = join(dir, "replay.js");
        await bundle(ENTRY, script);
        const r = await runXs([traceScript, script], {
          slots: 200_000,
          chunks: 16 << 20,
          stack: 2048,
          keys: 256,
          args: [JSON.stringify(CASE), String(EVERY), mode],
          timeoutMs: 100_000,
        });
        const m = /hashes ([\d,]+)/.exec(r.stdout);
        assert.ok(m, `lwxs printed: ${r.stdout}\n${r.stderr}`);
        assert.deepEqual(m[1].split(",").map(Number), recorded, "XS computed the recorded world at every checkpoint");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
