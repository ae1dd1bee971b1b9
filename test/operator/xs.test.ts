/** The report on the XS engine (lwxs, ESP32-sized heaps), as the board runs it: the same text as on V8, byte for byte. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";
import { render } from "./xs-entry";

const LWXS = fileURLToPath(new URL("../../tools/xs/build/lwxs", import.meta.url));
const ENTRY = fileURLToPath(new URL("./xs-entry.ts", import.meta.url));

describe("operator report on XS", function () {
  this.timeout(60000);
  let dir = "";
  let script = "";

  before(function () {
    assert.ok(existsSync(LWXS), `${LWXS} is missing: the build in postinstall failed; run \`npm run build:xs\``);
    dir = mkdtempSync(join(tmpdir(), "lwar-report-xs-"));
    script = join(dir, "report.js");
    buildSync({ entryPoints: [ENTRY], outfile: script, bundle: true, format: "iife", target: "es2022", platform: "neutral", logLevel: "silent" });
  });

  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("makes the event lines, status line, scoreboard, /status and /metrics that V8 makes", function () {
    // Heaps larger than the board's: here the code of the whole server, game and report
    // lives in them, which a board keeps in flash; and the bundle is one function whose
    // frame holds every module's top-level bindings, which a board keeps in its module
    // environments. The keys stay at lwxs's default, the board's 32 made at run time: a
    // report that named properties after counters would run out of them.
    const run = execFileSync(LWXS, ["--slots", "64000", "--chunks", String(4 << 20), "--stack", "2048", script], {
      encoding: "utf8", stdio: ["ignore", "pipe", "pipe"],
    });
    const m = /^heaps (\d+) (\d+) (\d+) \d+ \d+ \d+\n/.exec(run);
    assert.ok(m, run);
    assert.equal(m[2], m[1], "slots after the second render");
    assert.equal(m[3], m[1], "slots after the third render");
    const out = run.slice(m[0].length);
    const expected = render();
    assert.match(expected, /^kill    '' → '' \(pulse\)\n\{"victim":"","victimSlot":2,"cause":"sun","suicide":false\}\nstatus  players 0\/4/);
    assert.match(expected, /\| tick mean \d+ µs, p99 \d+ µs, [\d.]+% of 10 ms \|/);
    assert.match(expected, /lwar_kicks_total\{reason="misbehaviour"\} 1\n/);
    assert.equal(out.trimEnd(), expected.trimEnd());
  });
});
