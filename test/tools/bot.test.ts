/** `npm run bot` (tools/bot.ts): its summary, its exit status, and Ctrl-C. */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import dgram from "node:dgram";
import { fileURLToPath } from "node:url";
import type { BotSummary } from "../../tools/botlib";
import { describeBots } from "../../tools/bot";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));

const CLEAN: BotSummary = {
  bots: 2, connected: 2, playersSeen: 2, reliableSent: 10, reliableResent: 0, reliableReceived: 20, chatsSent: 0, chatsReceivedMin: 0,
  updatesPerSecond: 15, statsPerSecond: 2, neverConnected: 0, lost: 0, reconnected: 0, disconnectedCleanly: 2, kicked: 0, rejected: 0, timedOut: 0, seconds: 3,
};

/** A UDP port where nobody answers: bound by a socket that reads and never replies. */
async function silentPort(): Promise<{ port: number; close: () => void }> {
  const s = dgram.createSocket("udp4");
  await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
  return { port: s.address().port, close: () => s.close() };
}

describe("bot command", function () {
  this.timeout(30_000);

  it("a clean run passes; a kick, a reject, a timeout or a silent bot fails", function () {
    assert.equal(describeBots(CLEAN, "h", 1).ok, true);
    assert.match(describeBots(CLEAN, "h", 1).line, /disconnects: 2 clean, 0 kicked/);
    for (const bad of [{ kicked: 1, disconnectedCleanly: 1 }, { rejected: 1, connected: 1 }, { timedOut: 1 }, { neverConnected: 1, connected: 1 }]) {
      assert.equal(describeBots({ ...CLEAN, ...bad }, "h", 1).ok, false, JSON.stringify(bad));
    }
    assert.match(describeBots({ ...CLEAN, neverConnected: 1, connected: 1 }, "h", 1).line, /, 1 never answered \(/);
  });

  it("no server: 'no answer from H:P after N s', not 'clean', and exit status 1", async function () {
    const silent = await silentPort();
    try {
      const r = spawnSync(TSX, ["tools/bot.ts", "--port", String(silent.port), "--count", "2", "--duration", "1", "--chat-every", "0"], {
        cwd: ROOT, encoding: "utf8", timeout: 20_000,
      });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stdout, /^bot: connecting to 127\.0\.0\.1:\d+…$/m);
      assert.match(r.stdout, new RegExp(`^summary: no answer from 127\\.0\\.0\\.1:${silent.port} after \\d+\\.\\d s \\(2 bot\\(s\\)\\)$`, "m"));
      assert.doesNotMatch(r.stdout, /clean/);
    } finally {
      silent.close();
    }
  });

  it("Ctrl-C disconnects the bots and still prints the summary", async function () {
    const silent = await silentPort();
    try {
      const child = spawn(TSX, ["tools/bot.ts", "--port", String(silent.port), "--duration", "60"], { cwd: ROOT });
      let out = "";
      child.stdout.setEncoding("utf8");
      const started = new Promise<void>((resolve) =>
        child.stdout.on("data", (d: string) => {
          out += d;
          if (out.includes("connecting to")) resolve();
        }),
      );
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      await started;
      await new Promise((r) => setTimeout(r, 500));
      const t0 = performance.now();
      child.kill("SIGINT");
      assert.equal(await exited, 1);
      assert.ok(performance.now() - t0 < 8000, "stopped well before --duration");
      assert.match(out, /bot: SIGINT: disconnecting every bot/);
      assert.match(out, /^summary: no answer from /m);
    } finally {
      silent.close();
    }
  });

  it("--help lists the flags, ranges and exit codes; --version prints package.json's", function () {
    const help = spawnSync(TSX, ["tools/bot.ts", "--help"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(help.status, 0);
    assert.match(help.stdout, /--count N +number of bots \(1\.\.64; default 4\)/);
    assert.match(help.stdout, /\nExit codes:\n  0  ok\n  1  a bot was kicked, rejected, timed out or never connected\n  2  bad usage/);
    const v = spawnSync(TSX, ["tools/bot.ts", "--version"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(v.status, 0);
    assert.match(v.stdout, /^\d+\.\d+\.\d+\n$/);
  });
});
