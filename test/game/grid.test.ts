import assert from "node:assert/strict";
import { Random } from "../../modules/random";
import { Grid } from "../../modules/game/grid";

describe("game broad-phase grid", function () {
  it("finds every pair within reach that a brute-force search finds, in any cell layout", function () {
    const r = new Random(4);
    const n = 180;
    const xs = new Float64Array(n);
    const ys = new Float64Array(n);
    const g = new Grid(n, 3000, 256);
    for (let round = 0; round < 20; round++) {
      g.begin();
      for (let i = 0; i < n; i++) {
        // Some points outside the square too: they land in the border cells.
        xs[i] = (r.next() - 0.5) * 6400;
        ys[i] = (r.next() - 0.5) * 6400;
        g.insert(i, xs[i], ys[i]);
      }
      g.build();
      assert.equal(g.count, n);
      assert.equal(g.start[g.side * g.side], n);
      const reach = 20 + r.next() * 200;
      for (let i = 0; i < n; i++) {
        const found = new Set<number>();
        g.range(xs[i], ys[i], reach);
        for (let cy = g.y0; cy <= g.y1; cy++)
          for (let cx = g.x0; cx <= g.x1; cx++) {
            const c = cy * g.side + cx;
            for (let k = g.start[c]; k < g.start[c + 1]; k++) found.add(g.items[k]);
          }
        for (let j = 0; j < n; j++)
          if (Math.abs(xs[j] - xs[i]) <= reach && Math.abs(ys[j] - ys[i]) <= reach) assert.ok(found.has(j), `round ${round}: ${i}–${j}`);
      }
    }
  });
});
