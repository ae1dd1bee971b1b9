/**
 * End to end on the real engine: the server with the game runs inside lwxs behind a real
 * loopback UDP socket (test/xs/udp-server.ts: xs.udpOpen/xs.udpSend as its Host, xs.run
 * for ticks), in the ESP32 heap budget, and 8 client-library bots on Node
 * (tools/botlib.ts) play against it for a few seconds.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../../tools/xs/bundle";
import { APP_SLOTS, runXs, type XsResult } from "../../tools/xs/run";
import { runBots, type BotSummary } from "../../tools/botlib";
import { defaultConfig } from "../../modules/config";

const DRIVER = fileURLToPath(new URL("./udp-server.ts", import.meta.url));

interface ServerReport {
  reason: string;
  seconds: number;
  peakPlayers: number;
  players: number;
  counters: Record<string, number>;
  events: { joins: number; leaves: number; chats: number; kicks: number; timeouts: number };
  game: { steps: number; shotsFired: number; spawns: number };
  sendFailures: number;
  heap: { windows: number; windowMs: number; slots: number; chunks: number; collections: number };
  budget: { slots: number; chunks: number };
  used: { slots: number; chunks: number };
}

describe("end to end: the XS-hosted server on loopback UDP with 8 bots", function () {
  this.timeout(60_000);
  let dir = "";
  let script = "";

  before(async function () {
    dir = mkdtempSync(join(tmpdir(), "lwar-xs-udp-"));
    script = join(dir, "udp-server.js");
    await bundle(DRIVER, script);
  });
  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("8 bots connect, see 8 players, get every chat once, Update and Stats on time, and leave cleanly", async function () {
    let listening: (port: number) => void = () => {};
    const port = new Promise<number>((resolve) => (listening = resolve));
    const stop = new AbortController();
    // The default ESP32 heaps. The stack gets room for the bundle's one IIFE frame, which
    // holds every module's top-level bindings (a device keeps those in module environments).
    const server = runXs([script], {
      slots: APP_SLOTS,
      stack: 1024,
      args: ["0", "7", "8", "30000"],
      timeoutMs: 40_000,
      signal: stop.signal,
      onStdout: (line) => {
        const m = /^listening (\d+)$/.exec(line);
        if (m) listening(Number(m[1]));
      },
    });
    const exited = server.then((r: XsResult): never => {
      throw new Error(`lwxs exited before listening: ${r.code} ${r.stderr}`);
    });
    let bots: BotSummary;
    try {
      const udpPort = await Promise.race([port, exited]);
      bots = await runBots({ host: "127.0.0.1", port: udpPort, count: 8, durationS: 4, behaviour: "wander", chatEveryS: 1, seed: 5 });
    } catch (error) {
      stop.abort();
      await server;
      throw error;
    }
    exited.catch(() => {});
    const xs = await server;
    assert.equal(xs.code, 0, `lwxs: ${xs.stderr}`);
    const report = JSON.parse(xs.stdout.trim().split("\n").pop() ?? "") as ServerReport;
    console.log(`      bots: ${bots.connected} connected, ${bots.chatsSent} chats, Update ${bots.updatesPerSecond.toFixed(1)}/s, ` +
      `Stats ${bots.statsPerSecond.toFixed(2)}/s, ${bots.disconnectedCleanly} left cleanly`);
    console.log(`      server on XS: ${report.counters.packetsIn} packets in, ${report.counters.packetsOut} out, ` +
      `heap window ${Math.round(report.heap.windowMs)} ms: slots +${report.heap.slots}, chunks +${report.heap.chunks} B, ${report.heap.collections} collections`);
    console.log(`      ${xs.stderr.trim()}`);

    // The bots' view.
    assert.equal(bots.connected, 8);
    assert.equal(bots.playersSeen, 8);
    assert.ok(bots.chatsSent >= 16, `chats sent ${bots.chatsSent}`);
    assert.equal(bots.chatsReceivedMin, bots.chatsSent, "every bot received every chat exactly once");
    // Update: every 66 ms update tick sends each player at least one, and at most
    // maxUpdatePacketsPerTick when the game's entities need more than one packet.
    const perTick = defaultConfig.maxUpdatePacketsPerTick;
    assert.ok(bots.updatesPerSecond >= 13 && bots.updatesPerSecond <= 15.5 * perTick, `Update ${bots.updatesPerSecond}/s`);
    assert.ok(bots.statsPerSecond >= 1.5 && bots.statsPerSecond <= 2.5, `Stats ${bots.statsPerSecond}/s`);
    assert.equal(bots.disconnectedCleanly, 8);
    assert.equal(bots.kicked + bots.rejected + bots.timedOut, 0);

    // The server's view.
    assert.equal(report.reason, "all left");
    assert.equal(report.peakPlayers, 8);
    assert.equal(report.players, 0);
    assert.deepEqual(report.events, { joins: 8, leaves: 8, chats: bots.chatsSent, kicks: 0, timeouts: 0 });
    assert.equal(report.sendFailures, 0);
    assert.ok(report.game.steps > 90 && report.game.shotsFired > 0, `game: ${JSON.stringify(report.game)}`);
    // Packets a bot sent after its Disconnect come from a player that just left (afterLeave),
    // and resends can cross acks in flight: those are all that is set aside.
    const drops = Object.entries(report.counters).filter(([name]) =>
      ["tooShort", "tooLong", "badAppId", "unknownType", "wrongChannel", "wrongDirection", "truncated", "unterminatedChat",
        "unterminatedName", "trailingBytes", "badAck", "outOfOrderReliable", "staleUnreliable", "spoofedId", "badName",
        "badSelection", "badChat", "queueOverflows", "misbehaviour", "sendErrors"].includes(name));
    assert.deepEqual(drops, []);
    assert.equal(report.counters.unknownPeer ?? 0, 0, "no stranger's packets");
    assert.ok((report.counters.afterLeave ?? 0) <= 8 * 4, `afterLeave ${report.counters.afterLeave}`);

    // Memory: the ESP32 budget held, and with all 8 playing nothing was allocated.
    assert.deepEqual(report.budget, { slots: APP_SLOTS, chunks: 78848 });
    assert.equal(report.heap.windows, 1);
    assert.ok(report.heap.windowMs >= 2000, `heap window ${report.heap.windowMs} ms`);
    assert.deepEqual([report.heap.slots, report.heap.chunks, report.heap.collections], [0, 0, 0], "no allocation while 8 played");
  });
});
