/**
 * A bad recording gives a clear error, never a crash: one case per way a file goes wrong,
 * each written into a small recorded match (harness/trace.ts's scenario, 2 players, the
 * game on), and each asserting the exact message the replay tool prints. A replay that
 * comes out different says at which tick.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { DEFAULT_CASE, recordTrace } from "../../harness/trace";
import { decodeHeader, encodeHeader, Rec, RecordingReader, type RecordingHeader } from "../../modules/recording/format";
import { replay, type ReplayOutcome } from "../../tools/replay";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const FILE = recordTrace({ ...DEFAULT_CASE, players: 2, game: true, seed: 3, warmSteps: 50, steps: 250 }).bytes;

interface Where {
  at: number;
  kind: number;
  ticks: number;
}

/** Every record's offset and kind, and the ticks before it. */
function records(file: Uint8Array): Where[] {
  const r = new RecordingReader(file);
  const out: Where[] = [];
  for (;;) {
    const ticks = r.ticks;
    const kind = r.next();
    out.push({ at: r.at, kind, ticks });
    if (kind === Rec.End) return out;
  }
}

const ALL = records(FILE);
const first = (kind: number, pred: (w: Where) => boolean = () => true): Where => {
  const w = ALL.find((x) => x.kind === kind && pred(x));
  assert.ok(w !== undefined, `a record of kind ${kind}`);
  return w;
};

function edit(change: (b: Uint8Array) => Uint8Array | void): Uint8Array {
  const b = FILE.slice();
  return change(b) ?? b;
}

function withHeader(change: (h: RecordingHeader) => void): Uint8Array {
  const { header, bodyStart } = decodeHeader(FILE);
  change(header);
  const head = encodeHeader(header);
  const out = new Uint8Array(head.length + FILE.length - bodyStart);
  out.set(head);
  out.set(FILE.subarray(bodyStart), head.length);
  return out;
}

async function run(file: Uint8Array): Promise<ReplayOutcome> {
  return replay(file, { say: () => {} });
}

async function fails(file: Uint8Array, message: RegExp): Promise<void> {
  const o = await run(file);
  assert.equal(o.ok, false);
  assert.ok(o.error !== null, "an error, not a divergence");
  assert.match(o.error, message);
}

describe("bad recordings", function () {
  it("the unharmed recording replays to its end", async function () {
    const o = await run(FILE);
    assert.equal(o.error, null);
    assert.equal(o.ok, true);
    assert.equal(o.ticks, 300);
  });

  it("not a recording (bad magic)", async function () {
    await fails(edit((b) => void (b[1] = 0x58)), /^not a lwar-xs recording \(bad magic\)$/);
  });

  it("another version", async function () {
    await fails(edit((b) => void (b[4] = 9)), /^version 9, expected 1: record it again$/);
  });

  it("shorter than the prefix", async function () {
    await fails(FILE.subarray(0, 8), /^too short: 8 bytes, not even a recording's prefix$/);
  });

  it("a header that runs past the end", async function () {
    await fails(FILE.subarray(0, 40), /^truncated: the \d+-byte header runs past the end of the 40-byte file$/);
  });

  it("a header that is not JSON", async function () {
    await fails(edit((b) => void (b[12] = 0x78)), /^the header is not JSON: /);
  });

  it("a header whose config is out of range", async function () {
    await fails(
      withHeader((h) => void (h.config.maxPlayers = 9)),
      /^the header's config: config\.maxPlayers must be an integer in 1\.\.8, got 9$/,
    );
  });

  it("a record cut short", async function () {
    const d = first(Rec.Datagram);
    await fails(FILE.subarray(0, d.at + 12), new RegExp(`^truncated: the datagram record runs past the end of the file \\(byte ${d.at}, after tick ${d.ticks}\\)$`));
  });

  it("cut between records: no End", async function () {
    const e = ALL[ALL.length - 1];
    await fails(FILE.subarray(0, e.at), /^truncated: the file ends after tick 300 without an end record \(byte \d+, after tick 300\)$/);
  });

  it("an unknown record kind", async function () {
    const t = first(Rec.Tick, (w) => w.ticks === 20);
    await fails(edit((b) => void (b[t.at] = 0x42)), new RegExp(`^unknown record kind 66 \\(0x42\\) \\(byte ${t.at}, after tick 20\\)$`));
  });

  it("a datagram from a peer never declared", async function () {
    const d = first(Rec.Datagram, (w) => FILE[w.at + 1] === 1);
    // Kind, a time as an f64 (1 + 8 bytes), then the peer id.
    await fails(edit((b) => void (b[d.at + 10] = 0x7f)), /^a datagram record names peer 127, but only 1 is declared \(byte \d+, after tick 0\)$/);
  });

  it("a time field with an odd value other than 1", async function () {
    const t = first(Rec.Tick, (w) => FILE[w.at + 1] !== 1);
    await fails(edit((b) => void (b[t.at + 1] = 3)), /^a tick record's time field is 3: of the odd values only 1 is used/);
  });

  it("a time that goes backwards", async function () {
    const t = first(Rec.Tick, (w) => FILE[w.at + 1] === 1 && w.ticks > 10);
    const f64 = new Float64Array([-1]);
    await fails(edit((b) => b.set(new Uint8Array(f64.buffer), t.at + 2)), /^a tick record's time, -1, is before the last one's, [\d.]+ \(byte \d+, after tick \d+\)$/);
  });

  it("a recorded hash that the replay does not reach: diverged at that tick", async function () {
    const hashes = ALL.filter((w) => w.kind === Rec.Hash);
    const h = hashes[1];
    const o = await run(edit((b) => void (b[h.at + 1] ^= 0xff)));
    assert.equal(o.error, null);
    assert.equal(o.ok, false);
    assert.equal(o.divergedTick, h.ticks);
    assert.match(o.divergence ?? "", /^the world's hash is 0x[0-9a-f]{8}, the recording's 0x[0-9a-f]{8}$/);
  });

  it("another seed in the header: the world differs from the first second", async function () {
    const o = await run(withHeader((h) => void (h.seed = 4)));
    assert.equal(o.error, null);
    assert.equal(o.divergedTick, ALL.find((w) => w.kind === Rec.Hash)!.ticks);
  });

  describe("npm run replay", function () {
    this.timeout(30000);
    let dir: string;
    before(function () {
      dir = mkdtempSync(join(tmpdir(), "lwar-replay-"));
    });
    after(function () {
      rmSync(dir, { recursive: true, force: true });
    });
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", join(ROOT, "tools/replay.ts"), ...args], { cwd: ROOT, encoding: "utf8", timeout: 20000 });

    it("prints the final hash and exits 0; a bad file exits 1 naming the byte; bad usage exits 2", function () {
      const good = join(dir, "good.lwr");
      const bad = join(dir, "bad.lwr");
      writeFileSync(good, FILE);
      writeFileSync(bad, FILE.subarray(0, ALL[ALL.length - 1].at));
      const ok = cli(good);
      assert.equal(ok.status, 0, ok.stderr);
      assert.match(ok.stdout, /replay: end \(finished\) at 3\.0\d\d s after 300 ticks, 4 recorded hashes matched; state hash 0x[0-9a-f]{8}, as recorded/);
      assert.match(ok.stdout, /join {4}slot 0 'Player 1' mem:client0:40000 id 0x10000/);
      const broken = cli(bad);
      assert.equal(broken.status, 1);
      assert.match(broken.stderr, /^replay: .*bad\.lwr: truncated: the file ends after tick 300 without an end record \(byte \d+, after tick 300\)$/m);
      const usage = cli(good, "--speed", "0");
      assert.equal(usage.status, 2);
      assert.match(usage.stderr, /--speed must be in 0\.01\.\.10000, got 0/);
    });
  });
});
