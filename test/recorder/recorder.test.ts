/**
 * The flight recorder on the Node host: a real 8-player match over loopback UDP, recorded
 * by `--record`'s Recorder, replays to the very hash the server ended with, on Node and on
 * the XS engine (lwxs); and the size limit ends a recording with a clean End record while
 * the match goes on.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { makeConfig } from "../../modules/config";
import { GameCounter } from "../../modules/game/game";
import type { LogRecord } from "../../modules/report";
import { Counter } from "../../modules/protocol/counters";
import { LogEvent } from "../../modules/server/events";
import { EndReason, Rec, RecordingReader } from "../../modules/recording/format";
import { hex, Replayer, stateHash } from "../../modules/recording/replay";
import { Recorder } from "../../hosts/node/recorder";
import { serve, type Served } from "../../hosts/node/serve";
import { traceWords } from "../../harness/trace";
import { bundle } from "../../tools/xs/bundle";
import { LWXS, runXs } from "../../tools/xs/run";
import { connected, sleep, udpPlayer, waitFor, type UdpPlayer } from "../integration/players";

const ENTRY = fileURLToPath(new URL("./xs-entry.ts", import.meta.url));

interface Match {
  served: Served;
  recorder: Recorder;
  players: UdpPlayer[];
  said: LogRecord[];
}

async function recordedMatch(file: string, players: number, maxBytes?: number): Promise<Match> {
  const said: LogRecord[] = [];
  const recorder = new Recorder({ file, maxBytes, say: (r) => said.push(r) });
  const served = await serve({ config: makeConfig(), seed: 4242, address: "127.0.0.1", udpPort: 0, httpPort: null, tap: recorder });
  const list: UdpPlayer[] = [];
  for (let i = 0; i < players; i++) list.push(await udpPlayer(served.udp.port, i % 2 === 0 ? "hunt" : "wander"));
  await waitFor(() => list.every((p) => connected(p.client)), 5000, "every player connected");
  return { served, recorder, players: list, said };
}

async function end(m: Match): Promise<void> {
  for (const p of m.players) p.client.disconnect();
  await sleep(100);
  for (const p of m.players) await p.host.close();
}

describe("flight recorder", function () {
  this.timeout(60000);
  let dir: string;
  before(function () {
    dir = mkdtempSync(join(tmpdir(), "lwar-rec-"));
  });
  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  describe("an 8-player loopback match", function () {
    let file: Uint8Array;
    let finalHash = 0;
    let kills = 0;
    let path: string;

    before(async function () {
      path = join(dir, "match.lwr");
      const m = await recordedMatch(path, 8);
      await sleep(2500);
      // Half the players leave before the end: leaves are in the recording too.
      for (let i = 0; i < 4; i++) m.players[i].client.disconnect();
      await sleep(300);
      kills = m.served.game!.counters[GameCounter.Kills] + m.served.game!.counters[GameCounter.EnvironmentDeaths] + m.served.game!.counters[GameCounter.Suicides];
      const summary = m.recorder.finish();
      finalHash = stateHash(m.served.game);
      assert.equal(summary.hash, finalHash);
      assert.equal(summary.ended, "shutdown");
      await m.served.close();
      await end(m);
      file = readFileSync(path);
      assert.equal(file.length, summary.bytes, "the summary's size is the file's");
    });

    it("holds the config, the seed, every tick and datagram, a hash a second and End", function () {
      const r = new RecordingReader(file);
      assert.equal(r.header.seed, 4242);
      assert.deepEqual(r.header.config, makeConfig());
      assert.equal(r.header.server?.address, "127.0.0.1");
      const counts = [0, 0, 0, 0, 0, 0, 0, 0];
      while (r.next() !== Rec.End) counts[r.kind]++;
      assert.ok(counts[Rec.Tick] > 200, `${counts[Rec.Tick]} ticks`);
      assert.ok(counts[Rec.Datagram] > 500, `${counts[Rec.Datagram]} datagrams`);
      assert.equal(counts[Rec.Peer], 8, "one peer record per player");
      assert.ok(counts[Rec.Hash] >= 2, `${counts[Rec.Hash]} hashes`);
      assert.equal(r.reason, EndReason.Shutdown);
      assert.equal(r.hash, finalHash);
    });

    it("replays on Node to the hash the server ended with, with the joins and leaves", function () {
      const events: number[] = [];
      const r = new Replayer(file, (event) => events.push(event));
      assert.equal(r.run(false), Rec.End);
      assert.equal(r.diverged, false, r.divergence);
      assert.ok(r.hashesChecked >= 3, `${r.hashesChecked} hashes checked`);
      assert.equal(hex(stateHash(r.game)), hex(finalHash));
      assert.equal(events.filter((e) => e === LogEvent.Join).length, 8);
      assert.equal(events.filter((e) => e === LogEvent.Leave).length, 4);
      assert.equal(events.filter((e) => e === LogEvent.Death).length, kills, "every death the server saw");
      assert.equal(r.server.counters[Counter.Joins], 8);
    });

    it("replays on XS (lwxs) to the same hash", async function () {
      if (!existsSync(LWXS)) {
        console.log(`      skipped: the XS host is not built (${LWXS}); \`npm run build:xs\` builds it`);
        this.skip();
      }
      const data = join(dir, "recording.js");
      writeFileSync(data, `var RECORDING = [${Array.from(traceWords(file)).join(",")}];\n`);
      const script = join(dir, "replay.js");
      await bundle(ENTRY, script);
      const out = await runXs([data, script], { slots: 200_000, chunks: 16 << 20, stack: 2048, keys: 256, timeoutMs: 50_000 });
      const m = /replayed (0x[0-9a-f]{8}) diverged (\w+) hashes (\d+)/.exec(out.stdout);
      assert.ok(m, `lwxs printed: ${out.stdout}\n${out.stderr}`);
      assert.equal(m[1], hex(finalHash), "XS computed the world the server ended with");
      assert.equal(m[2], "false", "every recorded hash matched on XS");
      assert.ok(Number(m[3]) >= 3);
    });
  });

  it("stops at the size limit with an End record and a log line, and the match goes on", async function () {
    const path = join(dir, "small.lwr");
    const limit = 6000;
    const m = await recordedMatch(path, 4, limit);
    await waitFor(() => m.said.length > 0, 5000, "the limit's log line");
    const ticksAtLimit = m.served.game!.steps;
    await sleep(300);
    assert.ok(m.served.game!.steps > ticksAtLimit, "the game kept stepping");
    assert.equal(m.served.server.playerCount(), 4, "nobody was dropped");
    assert.match(m.said[0].text, /recording to .*small\.lwr stopped at its 0\.01 MB limit \(\d+ bytes, [\d.]+ s of play\); the match goes on unrecorded/);
    assert.equal(m.said.length, 1, "said once");
    const summary = m.recorder.finish();
    assert.equal(summary.ended, "size limit");
    await m.served.close();
    await end(m);
    const size = statSync(path).size;
    assert.ok(size <= limit && size > limit - 600, `${size} bytes, the limit ${limit}`);
    const r = new Replayer(readFileSync(path));
    r.run(false);
    assert.equal(r.reader.reason, EndReason.SizeLimit);
    assert.equal(r.diverged, false, r.divergence);
    assert.equal(r.server.counters[Counter.Joins], 4);
  });
});
