import assert from "node:assert/strict";
import { Random } from "../../modules/random";
import { buildSineTable, cos, cosQ, sin, SINE_TABLE_LENGTH, sinQ, wrapAngle, TWO_PI } from "../../modules/game/trig";
import { makeWorld, leave, playerIdOf } from "./world";

/** 10,000 steps of 8 players on scripted inputs, with selections, a leave and a rejoin. */
function run(seed: number, steps = 10000): { hash: number; hashes: number[]; kills: number } {
  const w = makeWorld({}, seed);
  const g = w.game;
  const script = new Random(12345);
  const hashes: number[] = [];
  for (let s = 0; s < 8; s++) g.playerJoined(s, playerIdOf(s));
  for (let t = 0; t < steps; t++) {
    if (t % 10 === 0) for (let s = 0; s < 8; s++) w.players.input[s] = script.below(32);
    if (t % 700 === 0) for (let s = 0; s < 8; s++) {
      w.players.ship[s] = script.below(3);
      w.players.weapon[s] = script.below(3);
    }
    if (t === 4000) leave(w, 3);
    if (t === 4500) g.playerJoined(3, playerIdOf(3, 2));
    g.step();
    if (t % 1000 === 999) hashes.push(g.hash());
  }
  let kills = 0;
  for (let s = 0; s < 8; s++) kills += g.kills[s];
  return { hash: g.hash(), hashes, kills };
}

describe("game determinism", function () {
  it("two runs with the same seed and inputs agree bit for bit after 10,000 steps; another seed differs", function () {
    const a = run(2024);
    const b = run(2024);
    const c = run(2025);
    assert.equal(a.hash, b.hash);
    assert.deepEqual(a.hashes, b.hashes);
    assert.notEqual(a.hash, c.hash);
    assert.equal(new Set(a.hashes).size, a.hashes.length, "the world changes");
    assert.ok(a.kills > 0, "the scripted match had kills");
  });

  it("the hash sees a one-bit change anywhere in an entity", function () {
    const w = makeWorld({}, 5);
    w.game.playerJoined(0, playerIdOf(0));
    for (let t = 0; t < 40; t++) w.game.step();
    const h = w.game.hash();
    const i = w.game.focusIndex[0];
    for (const field of [w.entities.x, w.entities.y, w.entities.vx, w.entities.vy, w.entities.rot, w.game.expires]) {
      field[i] ^= 1;
      assert.notEqual(w.game.hash(), h);
      field[i] ^= 1;
      assert.equal(w.game.hash(), h);
    }
    w.game.hp[0] ^= 1;
    assert.notEqual(w.game.hash(), h);
    w.game.hp[0] ^= 1;
    assert.equal(w.game.hash(), h);
  });

  it("the Q14 sine table is exact where it must be and within one unit of Math.sin at every heading", function () {
    const table = buildSineTable(new Int16Array(SINE_TABLE_LENGTH));
    assert.equal(table[0], 0);
    assert.equal(table[128], 11585);
    assert.equal(table[256], 16384);
    // On the table's own headings (ships turn in steps of 4), rounding only: half a unit;
    // between them, linear interpolation rounded down adds less than one.
    let onGrid = 0;
    let between = 0;
    for (let a = 0; a < 4096; a++) {
      const t = (a * TWO_PI) / 4096;
      const err = Math.max(Math.abs(sinQ(table, a) - 16384 * Math.sin(t)), Math.abs(cosQ(table, a) - 16384 * Math.cos(t)));
      if (a % 4 === 0) onGrid = Math.max(onGrid, err);
      else between = Math.max(between, err);
    }
    assert.ok(onGrid <= 0.5, `worst error on the grid ${onGrid} units`);
    assert.ok(between < 1.5, `worst error between ${between} units`);
    for (const a of [0, 1024, 2048, 3072]) assert.equal(Math.abs(sinQ(table, a)) + Math.abs(cosQ(table, a)), 16384, `heading ${a}`);
    assert.equal(sinQ(table, -1024), -16384, "headings wrap");
  });

  it("sin and cos from ./trig match Math.sin and Math.cos to 1e-12", function () {
    const r = new Random(9);
    let worst = 0;
    for (let k = 0; k < 20000; k++) {
      const a = (r.next() - 0.5) * 2000;
      worst = Math.max(worst, Math.abs(sin(a) - Math.sin(a)), Math.abs(cos(a) - Math.cos(a)));
    }
    for (const a of [0, Math.PI / 2, Math.PI, -Math.PI, 3 * Math.PI / 2, TWO_PI]) {
      worst = Math.max(worst, Math.abs(sin(a) - Math.sin(a)), Math.abs(cos(a) - Math.cos(a)));
    }
    assert.ok(worst < 1e-12, `worst error ${worst}`);
    for (const a of [-1e-20, -TWO_PI, 0, TWO_PI, 7, -7, 1e6]) {
      const wa = wrapAngle(a);
      assert.ok(wa >= 0 && wa < TWO_PI, `wrapAngle(${a}) = ${wa}`);
    }
  });
});
