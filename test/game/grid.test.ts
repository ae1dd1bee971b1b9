import assert from "node:assert/strict";
import { PLANET_MARK, PLANET_NEAR } from "../../modules/game/bodies";
import { EDGE_ZONE, GRID_SHIFT, PLANET_BIT, REACH, SHIP_BIT, SUN_ZONE } from "../../modules/game/world";
import { Random } from "../../modules/random";
import { fromWu } from "../../modules/units";
import { joinAndSpawn, leave, makeWorld, place } from "./world";

// The grid is marked by the game's step (modules/kernels/game.c): these look at it after steps.
describe("game broad-phase grid", function () {
  it("tells every point which ships reach it after a step, in any layout, points outside the square included", function () {
    const w = makeWorld({ planets: 0 });
    const { game, entities: e } = w;
    for (let s = 0; s < 8; s++) joinAndSpawn(w, s);
    const g = game.grid;
    const r = new Random(4);
    for (let round = 0; round < 50; round++) {
      // Anywhere between the sun and the arena's edge, at rest (ships that touch bounce and are marked again).
      for (let s = 0; s < 8; s++) {
        const a = r.next() * 2 * Math.PI;
        const d = 400 + r.next() * 2500;
        place(w, game.focusIndex[s], d * Math.cos(a), d * Math.sin(a));
      }
      game.step();
      let marked = 0;
      for (let c = 0; c < g.mask.length; c++) if (g.mask[c] >>> SHIP_BIT !== 0) marked++;
      assert.ok(marked < g.mask.length / 2, "marks stay local");
      for (let k = 0; k < 2000; k++) {
        const x = fromWu((r.next() - 0.5) * 6600);
        const y = fromWu((r.next() - 0.5) * 6600);
        const m = g.mask[g.cell(x, y)];
        for (let s = 0; s < 8; s++) {
          const i = game.focusIndex[s];
          assert.ok(i >= 0, `round ${round}: ship ${s} lives`);
          if (Math.abs(x - e.x[i]) <= REACH && Math.abs(y - e.y[i]) <= REACH) assert.ok(m & (1 << (SHIP_BIT + s)), `round ${round}: ship ${s} at (${x}, ${y})`);
        }
      }
    }
  });

  it("keeps fixed zones and the planets' marks in its base layer, under the marks of each step", function () {
    const w = makeWorld({ planets: 4 }, 3);
    const { game, entities: e } = w;
    joinAndSpawn(w, 0);
    const g = game.grid;
    const r = new Random(5);
    // A planet's mark covers at most this many cells a side: it is renewed, never left behind.
    const span = ((2 * PLANET_MARK) >> GRID_SHIFT) + 2;
    for (let k = 0; k < 300; k++) {
      game.step();
      for (let c = 0; c < g.mask.length; c++) assert.equal(g.mask[c] & 0xffff, g.base[c], `step ${k}: cell ${c} is its base and the ships'`);
      assert.ok(g.mask[g.cell(0, 0)] & SUN_ZONE, "the sun's zone");
      assert.ok(g.mask[g.cell(fromWu(3050), fromWu(3050))] & EDGE_ZONE, "the edge's zone");
      assert.equal(g.mask[g.cell(fromWu(1000), fromWu(400))] & (SUN_ZONE | EDGE_ZONE), 0, "neither");
      for (let b = 1; b < game.bodies; b++) {
        const bit = 1 << (PLANET_BIT + b - 1);
        const p = game.bodyIndex[b];
        for (let j = 0; j < 20; j++) {
          const x = e.x[p] + Math.round((r.next() * 2 - 1) * PLANET_NEAR);
          const y = e.y[p] + Math.round((r.next() * 2 - 1) * PLANET_NEAR);
          assert.ok(g.mask[g.cell(x, y)] & bit, `step ${k}: planet ${b} reaches (${x}, ${y})`);
        }
        let cells = 0;
        for (let c = 0; c < g.base.length; c++) if (g.base[c] & bit) cells++;
        assert.ok(cells <= span * span, `step ${k}: planet ${b} marks ${cells} cells`);
      }
    }
    // The ship's marks are the step's: gone at the step after its player left.
    assert.ok(g.mask[g.cell(e.x[game.focusIndex[0]], e.y[game.focusIndex[0]])] & (1 << SHIP_BIT));
    leave(w, 0);
    game.step();
    for (let c = 0; c < g.mask.length; c++) assert.equal(g.mask[c] >>> SHIP_BIT, 0);
  });
});
