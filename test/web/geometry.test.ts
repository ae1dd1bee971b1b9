/**
 * The page's screen geometry and colours, without a browser (web/layout.ts, web/colors.ts):
 * how far the camera sees, where an edge arrow goes, and player colours that stay clear of
 * the sun, the planets, the arena edge and each other.
 */
import assert from "node:assert/strict";
import { MAX_PLAYERS } from "../../modules/protocol/constants";
import { EDGE_COLOR, PLANET_COLORS, RESERVED_COLORS, SLOT_COLORS, SUN_COLOR, SUN_CORE } from "../../web/colors";
import { ARROW_CLEARANCE, ARROW_INSET, clearArrow, edgeArrow, MAX_VIEW_WU, MIN_VIEW_WU, viewSpan, type Arrow } from "../../web/layout";

// ---------------------------------------------------------------- colour difference

/** sRGB "#rrggbb" to CIELAB (D65). */
function lab(hex: string): [number, number, number] {
  assert.match(hex, /^#[0-9a-f]{6}$/i);
  const n = parseInt(hex.slice(1), 16);
  const lin = [(n >> 16) & 255, (n >> 8) & 255, n & 255].map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  const x = (0.4124 * lin[0] + 0.3576 * lin[1] + 0.1805 * lin[2]) / 0.95047;
  const y = 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2];
  const z = (0.0193 * lin[0] + 0.1192 * lin[1] + 0.9505 * lin[2]) / 1.08883;
  const f = (t: number): number => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** CIEDE2000 colour difference (Sharma, Wu and Dalal, 2005). About 2 is just noticeable side by side. */
function ciede2000(p: readonly number[], q: readonly number[]): number {
  const [l1, a1, b1] = p;
  const [l2, a2, b2] = q;
  const deg = Math.PI / 180;
  const cm = (Math.hypot(a1, b1) + Math.hypot(a2, b2)) / 2;
  const g = 0.5 * (1 - Math.sqrt(cm ** 7 / (cm ** 7 + 25 ** 7)));
  const ap1 = a1 * (1 + g);
  const ap2 = a2 * (1 + g);
  const c1 = Math.hypot(ap1, b1);
  const c2 = Math.hypot(ap2, b2);
  const hue = (a: number, b: number): number => (a === 0 && b === 0 ? 0 : (Math.atan2(b, a) / deg + 360) % 360);
  const h1 = hue(ap1, b1);
  const h2 = hue(ap2, b2);
  let dh = 0;
  if (c1 * c2 !== 0) {
    dh = h2 - h1;
    if (dh > 180) dh -= 360;
    else if (dh < -180) dh += 360;
  }
  const dL = l2 - l1;
  const dC = c2 - c1;
  const dH = 2 * Math.sqrt(c1 * c2) * Math.sin((dh * deg) / 2);
  const lm = (l1 + l2) / 2;
  const cpm = (c1 + c2) / 2;
  let hm = h1 + h2;
  if (c1 * c2 !== 0) {
    if (Math.abs(h1 - h2) > 180) hm += hm < 360 ? 360 : -360;
    hm /= 2;
  }
  const t = 1 - 0.17 * Math.cos((hm - 30) * deg) + 0.24 * Math.cos(2 * hm * deg) + 0.32 * Math.cos((3 * hm + 6) * deg) - 0.2 * Math.cos((4 * hm - 63) * deg);
  const rc = 2 * Math.sqrt(cpm ** 7 / (cpm ** 7 + 25 ** 7));
  const rt = -Math.sin(2 * 30 * Math.exp(-(((hm - 275) / 25) ** 2)) * deg) * rc;
  const sl = 1 + (0.015 * (lm - 50) ** 2) / Math.sqrt(20 + (lm - 50) ** 2);
  const sc = 1 + 0.045 * cpm;
  const sh = 1 + 0.015 * cpm * t;
  return Math.sqrt((dL / sl) ** 2 + (dC / sc) ** 2 + (dH / sh) ** 2 + rt * (dC / sc) * (dH / sh));
}

/** Player colours differ at least this much (CIEDE2000) from each other and from the arena's colours. */
const MIN_DIFFERENCE = 15;

describe("web page: colours", () => {
  it("the colour difference matches published CIEDE2000 test pairs", () => {
    // Sharma, Wu and Dalal's test data, pairs 1, 7 and 17.
    assert.equal(ciede2000([50, 2.6772, -79.7751], [50, 0, -82.7485]).toFixed(4), "2.0425");
    assert.equal(ciede2000([50, 0, 0], [50, -1, 2]).toFixed(4), "2.3669");
    assert.equal(ciede2000([50, 2.5, 0], [73, 25, -18]).toFixed(4), "27.1492");
    assert.equal(ciede2000(lab("#ffffff"), lab("#ffffff")), 0);
    assert.ok(Math.abs(lab("#ffffff")[0] - 100) < 0.01);
  });

  it("one colour per player slot, all different", () => {
    assert.equal(SLOT_COLORS.length, MAX_PLAYERS);
    assert.equal(new Set(SLOT_COLORS.map((c) => c.toLowerCase())).size, MAX_PLAYERS);
  });

  it("the reserved colours are the sun's, the planets' and the arena edge's", () => {
    assert.deepEqual(RESERVED_COLORS.slice().sort(), [SUN_COLOR, SUN_CORE, EDGE_COLOR, ...PLANET_COLORS.filter((c) => c !== "")].sort());
  });

  it(`each player colour is at least ${MIN_DIFFERENCE} (CIEDE2000) from the sun, planets and arena edge`, () => {
    const near: string[] = [];
    for (const c of SLOT_COLORS) {
      for (const r of RESERVED_COLORS) {
        const d = ciede2000(lab(c), lab(r));
        if (d < MIN_DIFFERENCE) near.push(`${c} vs ${r}: ${d.toFixed(1)}`);
      }
    }
    assert.deepEqual(near, []);
  });

  it(`the player colours are at least ${MIN_DIFFERENCE} (CIEDE2000) from each other`, () => {
    const near: string[] = [];
    for (let i = 0; i < SLOT_COLORS.length; i++) {
      for (let j = i + 1; j < SLOT_COLORS.length; j++) {
        const d = ciede2000(lab(SLOT_COLORS[i]), lab(SLOT_COLORS[j]));
        if (d < MIN_DIFFERENCE) near.push(`${SLOT_COLORS[i]} vs ${SLOT_COLORS[j]}: ${d.toFixed(1)}`);
      }
    }
    assert.deepEqual(near, []);
  });

  it("the player colours are light enough to read on the dark background (L* at least 60)", () => {
    for (const c of SLOT_COLORS) assert.ok(lab(c)[0] >= 60, `${c}: L* ${lab(c)[0].toFixed(0)}`);
  });
});

describe("web page: view and edge arrows", () => {
  it("the view spans 1600 wu or more across any short side, and at most MAX_VIEW_WU", () => {
    for (let short = 200; short <= 2400; short += 10) {
      const span = viewSpan(short);
      assert.ok(span >= 1600 && span >= MIN_VIEW_WU && span <= MAX_VIEW_WU, `${short} px: ${span} wu`);
    }
    assert.equal(viewSpan(390), MIN_VIEW_WU, "a phone's 390 px");
    assert.equal(viewSpan(800), 1920, "a 1280 x 800 desktop keeps its view");
  });

  const W = 390;
  const H = 844;
  const a: Arrow = { x: -1, y: -1, angle: -1 };

  it("no arrow for a point on screen, nor one just past the edge within the margin", () => {
    assert.equal(edgeArrow(0, 0, W, H, 12, a), false);
    assert.equal(edgeArrow(W / 2, -H / 2, W, H, 12, a), false);
    assert.equal(edgeArrow(W / 2 + 11, 0, W, H, 12, a), false);
    assert.equal(edgeArrow(0, -H / 2 - 11, W, H, 12, a), false);
    assert.deepEqual(a, { x: -1, y: -1, angle: -1 }, "untouched");
  });

  it("a point straight right, left, above or below: the arrow sits at that edge's middle, pointing out", () => {
    assert.ok(edgeArrow(W / 2 + 13, 0, W, H, 12, a));
    assert.deepEqual(a, { x: W - ARROW_INSET, y: H / 2, angle: 0 });
    assert.ok(edgeArrow(-5000, 0, W, H, 12, a));
    assert.deepEqual(a, { x: ARROW_INSET, y: H / 2, angle: Math.PI });
    assert.ok(edgeArrow(0, -H, W, H, 12, a));
    assert.deepEqual(a, { x: W / 2, y: ARROW_INSET, angle: -Math.PI / 2 });
    assert.ok(edgeArrow(0, 900, W, H, 12, a));
    assert.deepEqual(a, { x: W / 2, y: H - ARROW_INSET, angle: Math.PI / 2 });
  });

  it("a point off a corner: the arrow is on the line from the centre, on the inset rectangle, pointing at it", () => {
    for (const [dx, dy] of [[1000, 1000], [-300, 2000], [600, -430], [-2000, -2001]]) {
      assert.ok(edgeArrow(dx, dy, W, H, 12, a));
      const ux = a.x - W / 2;
      const uy = a.y - H / 2;
      assert.ok(Math.abs(ux * dy - uy * dx) < 1e-6 * Math.hypot(dx, dy) * Math.hypot(ux, uy), "on the line to the point");
      assert.ok(ux * dx > 0 || dx === 0, "the same way as the point");
      assert.ok(Math.abs(a.angle - Math.atan2(dy, dx)) < 1e-12);
      const onSide = Math.abs(Math.abs(ux) - (W / 2 - ARROW_INSET)) < 1e-9 || Math.abs(Math.abs(uy) - (H / 2 - ARROW_INSET)) < 1e-9;
      assert.ok(onSide, `on the inset rectangle: ${a.x}, ${a.y}`);
      assert.ok(a.x >= ARROW_INSET - 1e-9 && a.x <= W - ARROW_INSET + 1e-9 && a.y >= ARROW_INSET - 1e-9 && a.y <= H - ARROW_INSET + 1e-9, "inside it");
    }
  });

  it("arrows keep clear of the minimap and the HUD line, along the edge or in from it, the shorter way", function () {
    const W = 1280;
    const H = 800;
    const minimap = { left: 8, top: 8, right: 140, bottom: 140 };
    const hud = { left: 440, top: 772, right: 840, bottom: 790 };
    const keep = [minimap, hud];
    for (let k = 0; k < 720; k++) {
      const t = (k / 720) * 2 * Math.PI;
      const a: Arrow = { x: 0, y: 0, angle: 0 };
      assert.ok(edgeArrow(Math.cos(t) * 5000, Math.sin(t) * 5000, W, H, 12, a));
      const angle = a.angle;
      clearArrow(a, keep, W, H);
      assert.equal(a.angle, angle, "it points the same way");
      for (const r of keep) {
        const inside = a.x > r.left - ARROW_CLEARANCE && a.x < r.right + ARROW_CLEARANCE && a.y > r.top - ARROW_CLEARANCE && a.y < r.bottom + ARROW_CLEARANCE;
        assert.ok(!inside, `${t.toFixed(3)} rad: arrow at ${a.x.toFixed(0)}, ${a.y.toFixed(0)} inside ${JSON.stringify(r)}`);
      }
      assert.ok(a.x >= ARROW_INSET - 0.01 && a.x <= W - ARROW_INSET + 0.01 && a.y >= ARROW_INSET - 0.01 && a.y <= H - ARROW_INSET + 0.01, "on screen");
    }
  });
});
