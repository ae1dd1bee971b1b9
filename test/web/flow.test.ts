/** web/flow.ts: the feed, the phone menu, the scoreboard and the death box placed from measured sizes. */
import assert from "node:assert/strict";
import { type Box, DEATH_CLEAR, FEED_NARROW, flow, type FlowInput, GAP } from "../../web/flow";

function rect(left: number, top: number, width: number, height: number): Box {
  return { left, top, right: left + width, bottom: top + height };
}

function clear(a: Box, b: Box): boolean {
  return a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
}

/** A screen `w` × `h` with a scoreboard `sw` × `sh` at the top right, the minimap and buttons at the top left. */
function input(w: number, h: number, sw: number, sh: number, touch = false): FlowInput {
  const phone = w <= 600 || h <= 500;
  return {
    width: w, height: h, touch,
    scores: rect(w - 8 - sw, 8, sw, sh),
    minimap: rect(8, 8, phone ? 92 : 132, phone ? 92 : 132),
    menuButton: phone ? rect(8, 108, 44, 36) : rect(148, 8, 34, 30),
    mute: phone ? rect(60, 108, 44, 36) : rect(190, 8, 34, 30),
    bottom: [rect(8, h - 200, Math.min(440, w - 16), 170)],
    feedHeight: 90, deathWidth: 300, deathHeight: 70,
  };
}

describe("page layout flow", function () {
  for (const w of [320, 360, 390, 480, 601, 700, 800, 900, 1024, 1280, 1920]) {
    for (const sh of [60, 190]) {
      it(`${w} px wide, a scoreboard ${sh} px tall: the feed fits, clear of the scoreboard and the corners`, function () {
        const i = input(w, 800, 330, sh);
        const f = flow(i);
        const feed = rect(f.feedLeft, f.feedTop, f.feedWidth, i.feedHeight);
        const scores = rect(w - 8 - 330, f.scoresTop, 330, sh);
        assert.ok(f.feedWidth >= Math.min(FEED_NARROW, w - 2 * GAP), `feed ${f.feedWidth} px wide`);
        assert.ok(feed.left >= 0 && feed.right <= w, "on screen");
        for (const b of [scores, i.minimap!, i.menuButton!, i.mute!]) assert.ok(clear(feed, b), `feed ${JSON.stringify(feed)} clear of ${JSON.stringify(b)}`);
        assert.ok(clear(scores, i.minimap!) && clear(scores, i.mute!), "the scoreboard clear of the left column");
      });
    }
  }

  it("a taller scoreboard pushes the upright phone's feed and menu down", function () {
    const short = flow(input(390, 844, 250, 100, true));
    const tall = flow(input(390, 844, 250, 190, true));
    assert.ok(tall.feedTop >= 8 + 190 + GAP);
    assert.ok(tall.menuTop >= 8 + 190 + GAP);
    assert.ok(short.feedTop >= 144 + GAP, "under the buttons");
  });

  it("the death box keeps the screen's centre clear (our ship, and the killer near it)", function () {
    for (const [w, h] of [[1280, 800], [1024, 768], [390, 844], [844, 390], [900, 600]]) {
      const i = input(w, h, 300, 150, w < 900);
      const f = flow(i);
      const top = f.deathTop;
      const bottom = top + i.deathHeight;
      const clearOfCentre = bottom <= h / 2 - DEATH_CLEAR + 0.5 || top >= h / 2 + DEATH_CLEAR - 0.5;
      // Where the top panels, the feed and the chat leave no room (a short window), it gets as close as it can.
      if (h >= 768 || w === 844) assert.ok(clearOfCentre, `${w} x ${h}: death box ${top}..${bottom}`);
      assert.ok(top >= 0 && bottom <= h, "on screen");
    }
  });

  it("a scoreboard too wide for the top row goes under the left column", function () {
    const f = flow(input(320, 700, 236, 160));
    assert.equal(f.scoresTop, 144 + GAP);
    assert.ok(f.feedTop >= f.scoresTop + 160 + GAP);
  });
});
