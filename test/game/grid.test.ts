import assert from "node:assert/strict";
import { Random } from "../../modules/random";
import { ReachGrid } from "../../modules/game/grid";

describe("game broad-phase grid", function () {
  it("tells every point which ships reach it, in any layout, points outside the square included", function () {
    const r = new Random(4);
    const g = new ReachGrid(3000, 256);
    assert.equal(g.side, 24);
    const sx = new Float64Array(8);
    const sy = new Float64Array(8);
    const reach = new Float64Array(8);
    for (let round = 0; round < 50; round++) {
      g.clear();
      for (let s = 0; s < 8; s++) {
        sx[s] = (r.next() - 0.5) * 6400;
        sy[s] = (r.next() - 0.5) * 6400;
        reach[s] = 20 + r.next() * 300;
        g.mark(1 << s, sx[s], sy[s], reach[s]);
      }
      let marked = 0;
      for (let c = 0; c < g.mask.length; c++) if (g.mask[c] !== 0) marked++;
      assert.ok(marked < g.mask.length / 2, "marks stay local");
      for (let k = 0; k < 2000; k++) {
        const x = (r.next() - 0.5) * 6400;
        const y = (r.next() - 0.5) * 6400;
        const m = g.mask[g.cell(x, y)];
        for (let s = 0; s < 8; s++)
          if (Math.abs(x - sx[s]) <= reach[s] && Math.abs(y - sy[s]) <= reach[s]) assert.ok(m & (1 << s), `round ${round}: ship ${s} at (${x}, ${y})`);
      }
    }
  });
});
