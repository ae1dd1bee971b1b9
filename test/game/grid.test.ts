import assert from "node:assert/strict";
import { Random } from "../../modules/random";
import { ReachGrid } from "../../modules/game/grid";
import { fromWu } from "../../modules/units";

describe("game broad-phase grid", function () {
  it("tells every point which ships reach it, in any layout, points outside the square included", function () {
    const r = new Random(4);
    // 256 wu cells over ±3072 wu, in position units.
    const g = new ReachGrid(fromWu(3072), 18);
    assert.equal(g.side, 24);
    const sx = new Float64Array(8);
    const sy = new Float64Array(8);
    const reach = new Float64Array(8);
    for (let round = 0; round < 50; round++) {
      g.clear();
      for (let s = 0; s < 8; s++) {
        sx[s] = fromWu((r.next() - 0.5) * 6600);
        sy[s] = fromWu((r.next() - 0.5) * 6600);
        reach[s] = fromWu(20 + r.next() * 300);
        g.mark(1 << (16 + s), sx[s], sy[s], reach[s]);
      }
      let marked = 0;
      for (let c = 0; c < g.mask.length; c++) if (g.mask[c] !== 0) marked++;
      assert.ok(marked < g.mask.length / 2, "marks stay local");
      for (let k = 0; k < 2000; k++) {
        const x = fromWu((r.next() - 0.5) * 6600);
        const y = fromWu((r.next() - 0.5) * 6600);
        const m = g.mask[g.cell(x, y)];
        for (let s = 0; s < 8; s++)
          if (Math.abs(x - sx[s]) <= reach[s] && Math.abs(y - sy[s]) <= reach[s]) assert.ok(m & (1 << (16 + s)), `round ${round}: ship ${s} at (${x}, ${y})`);
      }
    }
  });

  it("keeps fixed zones and slow marks in its base layer, under the marks of each step", function () {
    const g = new ReachGrid(fromWu(3072), 18);
    g.setFixed(1, (x0, y0) => x0 < 0 && y0 < 0);
    g.markBase(4, true, fromWu(1000), fromWu(1000), fromWu(100));
    g.clear();
    g.mark(1 << 16, fromWu(-500), fromWu(2000), fromWu(50));
    assert.equal(g.mask[g.cell(fromWu(-10), fromWu(-10))], 1);
    assert.equal(g.mask[g.cell(fromWu(10), fromWu(-10))], 0);
    assert.equal(g.mask[g.cell(fromWu(1000), fromWu(1000))], 4);
    assert.equal(g.mask[g.cell(fromWu(-500), fromWu(2000))], 1 << 16);
    // The next step: the step's marks are gone, the base stays; a slow mark moves.
    g.markBase(4, false, fromWu(1000), fromWu(1000), fromWu(100));
    g.markBase(4, true, fromWu(2000), fromWu(1000), fromWu(100));
    g.clear();
    assert.equal(g.mask[g.cell(fromWu(-500), fromWu(2000))], 0);
    assert.equal(g.mask[g.cell(fromWu(1000), fromWu(1000))], 0);
    assert.equal(g.mask[g.cell(fromWu(2000), fromWu(1000))], 4);
    assert.equal(g.mask[g.cell(fromWu(-3000), fromWu(-3000))], 1);
  });
});
