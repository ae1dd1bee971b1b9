/** The game on the XS engine (lwxs, ESP32-sized heaps): no allocation per step, and the same world as on V8. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { GameCounter } from "../../modules/game/game";
import { advance, start } from "./xs-entry";

const LWXS = fileURLToPath(new URL("../../tools/xs/build/lwxs", import.meta.url));
const ENTRY = fileURLToPath(new URL("./xs-entry.ts", import.meta.url));

describe("game on XS", function () {
  this.timeout(60000);
  let dir = "";
  let script = "";

  before(function () {
    assert.ok(existsSync(LWXS), `${LWXS} is missing: the build in postinstall failed; run \`npm run build:xs\``);
    dir = mkdtempSync(join(tmpdir(), "lwar-game-xs-"));
    script = join(dir, "game.js");
    buildSync({ entryPoints: [ENTRY], outfile: script, bundle: true, format: "iife", target: "es2022", platform: "neutral", logLevel: "silent" });
  });

  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("steps a busy match and plans its updates without allocating, to the same state hash as V8", function () {
    const seed = 77;
    const out = execFileSync(LWXS, [script, "--", String(seed), "300", "1200"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    const m = /hash (\d+) slots (\d+) (\d+) chunks (\d+) (\d+) collections (\d+)/.exec(out);
    assert.ok(m, `lwxs printed: ${out}`);
    const [, hash, slots0, slots1, chunks0, chunks1, collections] = m.map(Number);
    assert.equal(slots1, slots0, "no slots allocated");
    assert.equal(chunks1, chunks0, "no chunks allocated");
    assert.equal(collections, 0, "no garbage collection");
    const r = start(seed);
    advance(r, 1500);
    assert.ok(r.w.game.counters[GameCounter.ShotsFired] > 500, "shots were fired");
    assert.ok(r.w.game.counters[GameCounter.Spawns] > 8, "ships died and respawned");
    assert.equal(hash, r.w.game.hash(), "XS and V8 computed the same world");
  });
});
