/**
 * Golden matches: two recorded matches whose outcome is pinned, numbers taken when the loops
 * still had a JavaScript twin (the JavaScript and the C agreed on them to the byte). The
 * traffic was taken again when a game step's tick stopped sending (its Adds, Removes and due
 * packets ride in the next tick's Update packets: 25,541 datagrams and 4,700,614 bytes
 * became 21,517 and 4,616,772 at 8 players; 4,757 and 613,925 became 3,934 and 594,172 at 4),
 * and again when never-sent messages began to wait for an Update turn on the next tick
 * (19,397 and 4,517,720 at 8 players; 3,530 and 580,381 at 4); the worlds' hashes did not
 * move. A change
 * to the C that changes what the game does or what the server sends moves one of these; if
 * the change is meant, take the new numbers and say why in the commit. The engines are
 * compared with each other in kernels.test.ts and test/game/cross-engine.test.ts.
 */
import assert from "node:assert/strict";
import { DEFAULT_CASE, recordTrace, type CaseOptions } from "../../harness/trace";
import { replayHashes } from "../game/cross-engine-entry";

interface Golden {
  case: CaseOptions;
  packetsOut: number;
  bytesOut: number;
  /** The world's hash every 100 ticks, folded (h = h × 31 + hash), and the last one. */
  folded: number;
  last: number;
  checkpoints: number;
}

const GOLDEN: readonly Golden[] = [
  {
    case: { ...DEFAULT_CASE, players: 8, game: true, capacity: 192, seed: 6, warmSteps: 300, steps: 6000 },
    packetsOut: 19397, bytesOut: 4517720, folded: 79325273, last: 3246232785, checkpoints: 64,
  },
  {
    case: { ...DEFAULT_CASE, players: 4, game: true, capacity: 64, seed: 9, warmSteps: 300, steps: 3000 },
    packetsOut: 3530, bytesOut: 580381, folded: 3368462895, last: 1091769476, checkpoints: 34,
  },
];

describe("golden matches", function () {
  this.timeout(120000);
  for (const g of GOLDEN) {
    it(`${g.case.players} players, capacity ${g.case.capacity}, seed ${g.case.seed}: the same traffic and world as ever`, function () {
      const trace = recordTrace(g.case);
      assert.equal(trace.traffic.packetsOut, g.packetsOut, "datagrams sent");
      assert.equal(trace.traffic.bytesOut, g.bytesOut, "bytes sent");
      const hashes = replayHashes(g.case, trace.bytes, 100);
      assert.equal(hashes.length, g.checkpoints);
      assert.equal(hashes[hashes.length - 1], g.last, "the world's hash at the end");
      assert.equal(hashes.reduce((a, b) => (Math.imul(a, 31) + b) >>> 0, 0), g.folded, "the world's hash at every checkpoint");
    });
  }
});
