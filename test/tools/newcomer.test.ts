/** tools/newcomer.ts: a newcomer who holds fire and turns at random, against the server's bots of each skill. */
import assert from "node:assert/strict";
import { BOT_SKILLS } from "../../modules/config";
import { firstLife, median } from "../../tools/newcomer";

function medianLife(skill: string, seeds: number): number {
  const lives: number[] = [];
  for (let seed = 1; seed <= seeds; seed++) lives.push(firstLife({ seed, bots: 3, skill: BOT_SKILLS.indexOf(skill), seconds: 60 }).ms);
  return median(lives);
}

describe("npm run newcomer", function () {
  it("median: the middle value, or the mean of the middle two", function () {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([4, 1, 3, 2]), 2.5);
    assert.equal(median([]), 0);
  });

  it("against 3 normal bots the newcomer's median first life over 10 seeds is at least 15 s, and easy bots spare it longer", function () {
    const normal = medianLife("normal", 10);
    assert.ok(normal >= 15000, `normal: ${normal} ms`);
    const easy = medianLife("easy", 10);
    assert.ok(easy > normal, `easy ${easy} ms, normal ${normal} ms`);
  });
});
