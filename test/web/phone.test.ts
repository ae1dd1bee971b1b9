/**
 * The page on a phone (390 × 844 and 844 × 390, touch emulated) and a desktop, in headless
 * Chromium against a server started here with six UDP players (long names, long chat
 * lines): the controls and panels do not overlap and stay on screen, the view is wide
 * enough, arrows point at ships outside it, FIRE looks pressed while held and auto-fire
 * fires on its own. Screenshots go to a temporary folder; `npm run screenshots` makes the
 * ones in docs/.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { makeConfig } from "../../modules/config";
import { Kind } from "../../modules/game/templates";
import { serve, type Served } from "../../hosts/node/serve";
import { buildWeb } from "../../web/build";
import { FEED_LINES } from "../../web/feed";
import { clearArrow, edgeArrow, MIN_VIEW_WU, type Arrow, type ShipArrow, type View } from "../../web/layout";
import {
  chatter, CHROMIUM, closeCrowd, crash, crowd, DESKTOP, launchChromium, layoutRects, outside, overlaps, PHONE_LANDSCAPE, PHONE_PORTRAIT,
  player, settled, sleep, snap, until, type Bot, type Player, type Screen,
} from "../../tools/screens";

/** The view must show at least this much across the screen's short side (issue: phones saw 930 wu). */
const WANTED_WU = 1600;

interface Frame {
  view: View;
  selfSlot: number;
  ships: { slot: number; x: number; y: number }[];
}

function frame(page: Page): Promise<Frame> {
  return page.evaluate("({ view: window.lwar.drawn.view, selfSlot: window.lwar.client.selfSlot, ships: window.lwar.drawn.ships })") as Promise<Frame>;
}

/** The two font sets the layout is checked with (.ci/run installs both). */
const FONT_SETS: readonly (readonly [string, string])[] = [
  ["DejaVu Sans", "DejaVu Sans Mono"],
  ["Liberation Sans", "Liberation Mono"],
];

/** Where our ship is drawn (css px), null without one. */
async function ownShipOnScreen(page: Page): Promise<{ x: number; y: number } | null> {
  const f = await frame(page);
  const me = f.ships.find((s) => s.slot === f.selfSlot);
  if (me === undefined) return null;
  return { x: f.view.width / 2 + (me.x - f.view.x) * f.view.scale, y: f.view.height / 2 - (me.y - f.view.y) * f.view.scale };
}

/** Centre (css px) of element `id`. */
async function centre(page: Page, id: string): Promise<{ x: number; y: number }> {
  const box = await page.locator("#" + id).boundingBox();
  assert.ok(box !== null, `#${id} is shown`);
  return { x: box.x + box.width / 2, y: box.y + box.height / 2 };
}

/** Ids of our own projectiles the page knows. */
async function ownShots(page: Page): Promise<number[]> {
  const s = await snap(page);
  return s.entities.filter((e) => e.kind === Kind.Shot && e.owner === s.selfId).map((e) => e.id);
}

describe("browser: the page on a phone and a desktop", function () {
  this.timeout(60000);
  let server: Served | null = null;
  let browser: Browser | null = null;
  let bots: Bot[] = [];
  let url = "";
  let dir = "";
  const open: Player[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set LWAR_CHROMIUM)`);
      this.skip();
    }
    // The page as the sources build it now, not the copy in dist/.
    server = await serve({ config: makeConfig(), seed: 20240611, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: await buildWeb() });
    url = `http://127.0.0.1:${server.http!.port}/`;
    // Seven, and the page: the scoreboard at its fullest, eight long names.
    bots = await crowd(server.udp.port, 7);
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), "lwar-phone-"));
  });

  afterEach(async function () {
    for (const p of open.splice(0)) {
      assert.deepEqual(p.errors, [], "no errors in the page");
      await p.context.close();
    }
  });

  after(async function () {
    if (browser !== null) await browser.close();
    await closeCrowd(bots);
    if (server !== null) await server.close();
    if (dir !== "") console.log(`      screenshots in ${dir}`);
  });

  async function play(screen: Screen): Promise<Page> {
    const p = await player(browser!, url, screen);
    open.push(p);
    // The UDP players' chat lines are in the log before the rectangles are taken.
    chatter(bots);
    await p.page.waitForFunction('document.querySelectorAll("#chat-log div").length >= 6', null, { timeout: 10000 });
    return p.page;
  }

  /** Destroy the UDP players' ships in the sun until `page`'s kill feed holds at least `n` lines. */
  async function fillFeed(page: Page, n: number): Promise<void> {
    await until(
      async () => {
        const lines = (await snap(page)).page.feed.length;
        if (lines < n) crash(server!.game!, bots.map((b) => b.client.selfSlot));
        return lines;
      },
      (lines) => lines >= n,
      10000,
      `${n} lines in the kill feed`,
    );
  }

  /** Use `fonts` (a sans-serif and a monospace family) for the page's text from now on. */
  async function useFonts(page: Page, fonts: readonly [string, string]): Promise<void> {
    await page.addStyleTag({ content: `*{font-family:"${fonts[0]}",sans-serif!important}#scores,#hud,#scores *{font-family:"${fonts[1]}",monospace!important}` });
  }

  async function checkLayout(page: Page, screen: Screen, menuOpen: boolean, fonts: readonly [string, string] = FONT_SETS[0]): Promise<void> {
    await useFonts(page, fonts);
    await settled(page);
    // The kill feed at its fullest, long names in every line.
    await fillFeed(page, FEED_LINES);
    // The page draws the feed on its next animation frame, which a busy machine delays.
    await page.waitForFunction(`document.querySelectorAll("#feed div").length >= 1`, null, { timeout: 10000 });
    // The scoreboard counts the deaths the page saw (its D column).
    await page.waitForFunction(
      `Array.from(document.querySelectorAll("#scores tbody tr"), (tr) => Number(tr.children[5].textContent)).reduce((a, b) => a + b, 0) >= ${FEED_LINES}`,
      null,
      { timeout: 10000 },
    );
    if (menuOpen) {
      await page.click("#menu-button");
      await page.waitForSelector("#menu", { state: "visible" });
    }
    const rects = await layoutRects(page);
    const names = rects.map((r) => r.name);
    const wanted = screen.touch ? ["chat", "menu-button", "mute", "scores", "minimap", "stick", "fire", "auto-fire", "chat-button"] : ["chat", "menu-button", "mute", "scores", "minimap"];
    for (const want of wanted) assert.ok(names.includes(want), `${want} is shown (${names.join(", ")})`);
    assert.equal(names.includes("menu"), menuOpen);
    // On a phone the feed gives way to the menu.
    assert.equal(names.includes("feed"), !menuOpen, `the feed is shown: ${names.join(", ")}`);
    // The scoreboard lists everyone (and no longer a page an earlier test closed).
    await page.waitForFunction(`document.querySelectorAll("#scores tbody tr").length === ${bots.length + 1}`, null, { timeout: 5000 });
    assert.deepEqual(overlaps(rects), [], JSON.stringify(rects));
    assert.deepEqual(outside(rects, screen.width, screen.height), []);
    // No line of the feed is cut short: each fits its width.
    const cut = (await page.evaluate(`Array.from(document.querySelectorAll("#feed div")).filter((d) => d.scrollWidth > d.clientWidth + 1).length`)) as number;
    assert.equal(cut, 0, "feed lines cut short");
    if (menuOpen) {
      // The menu leaves our ship in view: the page moves it beside the menu.
      const menu = rects.find((r) => r.name === "menu")!;
      await until(
        () => ownShipOnScreen(page),
        (p) => p !== null && (p.x < menu.left - 10 || p.x > menu.right + 10 || p.y < menu.top - 10 || p.y > menu.bottom + 10),
        5000,
        `our ship clear of the menu at ${JSON.stringify(menu)}`,
      );
    }
    await page.screenshot({ path: join(dir, `${screen.name.replace(" ", "-")}${menuOpen ? "-menu" : ""}-${fonts[0].split(" ")[0]}.png`) });
  }

  for (const fonts of FONT_SETS) {
    const with_ = ` (${fonts[0]})`;

    it(`390 x 844 touch, playing: chat, menu button, minimap, scoreboard, stick, FIRE, AUTO and chat button apart and on screen${with_}`, async function () {
      await checkLayout(await play(PHONE_PORTRAIT), PHONE_PORTRAIT, false, fonts);
    });

    it(`390 x 844 touch, menu open: the menu too; the name field is not focused (no phone keyboard) and the help is for touch${with_}`, async function () {
      const page = await play(PHONE_PORTRAIT);
      await checkLayout(page, PHONE_PORTRAIT, true, fonts);
      assert.notEqual(await page.evaluate("document.activeElement && document.activeElement.id"), "name");
      assert.ok(await page.isVisible("#menu .taps"));
      assert.ok(!(await page.isVisible("#menu .keys")));
    });

    it(`844 x 390 touch, playing: the same elements apart and on screen${with_}`, async function () {
      await checkLayout(await play(PHONE_LANDSCAPE), PHONE_LANDSCAPE, false, fonts);
    });

    it(`844 x 390 touch, menu open: the menu fits beside them${with_}`, async function () {
      await checkLayout(await play(PHONE_LANDSCAPE), PHONE_LANDSCAPE, true, fonts);
    });
  }

  for (const width of [320, 480, 601, 750, 900, 1280]) {
    it(`${width} px wide: the feed fits, clear of the scoreboard and the corners, no line cut short`, async function () {
      const screen: Screen = { name: `w${width}`, width, height: 700, touch: false };
      await checkLayout(await play(screen), screen, false, FONT_SETS[1]);
    });
  }

  it(`the view shows at least ${WANTED_WU} wu across the short side, upright, sideways and on a desktop`, async function () {
    for (const screen of [PHONE_PORTRAIT, PHONE_LANDSCAPE, DESKTOP]) {
      const page = await play(screen);
      await settled(page);
      const f = await frame(page);
      assert.equal(f.view.width, screen.width);
      assert.equal(f.view.height, screen.height);
      const across = Math.min(screen.width, screen.height) / f.view.scale;
      console.log(`      ${screen.name}: ${across.toFixed(0)} wu across the short side`);
      assert.ok(across >= WANTED_WU, `${screen.name}: ${across.toFixed(0)} wu`);
      assert.ok(across >= MIN_VIEW_WU - 1);
      // Leave, so the next screen finds a free slot in the match.
      const p = open.pop()!;
      assert.deepEqual(p.errors, []);
      await p.context.close();
    }
  });

  it("an arrow at the screen's edge points at each other ship outside the view, in that ship's colour slot", async function () {
    const page = await play(DESKTOP);
    await settled(page);
    // Six idle ships spread over a 6000 wu arena: some are outside a 3070 x 1920 wu view.
    const f = await until(() => frame(page), (v) => v.view.arrows.length > 0, 10000, "an edge arrow");
    const { view } = f;
    const expected: ShipArrow[] = [];
    for (const ship of f.ships) {
      if (ship.slot === f.selfSlot) continue;
      const a: Arrow = { x: 0, y: 0, angle: 0 };
      if (edgeArrow((ship.x - view.x) * view.scale, -(ship.y - view.y) * view.scale, view.width, view.height, 12, a)) {
        clearArrow(a, view.keepOut, view.width, view.height);
        expected.push({ slot: ship.slot, ...a });
      }
    }
    const bySlot = (a: ShipArrow, b: ShipArrow): number => a.slot - b.slot;
    assert.equal(view.arrows.length, expected.length);
    const got = view.arrows.slice().sort(bySlot);
    expected.sort(bySlot);
    for (let k = 0; k < got.length; k++) {
      assert.equal(got[k].slot, expected[k].slot);
      assert.ok(Math.abs(got[k].x - expected[k].x) < 0.01 && Math.abs(got[k].y - expected[k].y) < 0.01, JSON.stringify([got[k], expected[k]]));
      assert.ok(got[k].x > 0 && got[k].x < view.width && got[k].y > 0 && got[k].y < view.height, "on screen");
      for (const r of view.keepOut) assert.ok(got[k].x <= r.left || got[k].x >= r.right || got[k].y <= r.top || got[k].y >= r.bottom, `arrow ${JSON.stringify(got[k])} clear of ${JSON.stringify(r)}`);
    }
    // And the pixel there is drawn in a player's colour, not the background (the minimap, drawn last, may cover an arrow).
    const m = view.minimap;
    const a = got.find((g) => g.x > m.x + m.size + 12 || g.y > m.y + m.size + 12);
    if (a !== undefined) {
      const rgb = (await page.evaluate(`(() => {
        const c = document.getElementById("arena");
        const k = c.width / innerWidth;
        return Array.from(c.getContext("2d").getImageData(Math.round(${a.x} * k), Math.round(${a.y} * k), 1, 1).data);
      })()`)) as number[];
      assert.ok(rgb[0] + rgb[1] + rgb[2] > 200, `arrow pixel ${rgb}`);
    }
  });

  it("FIRE looks pressed while a finger holds it, and fires", async function () {
    const page = await play(PHONE_PORTRAIT);
    const cdp = await page.context().newCDPSession(page);
    const c = await centre(page, "fire");
    const look = (): Promise<string> => page.evaluate('(() => { const s = getComputedStyle(document.getElementById("fire")); return s.backgroundColor + " " + s.transform; })()') as Promise<string>;
    const idle = await look();
    assert.equal(await page.evaluate('document.getElementById("fire").classList.contains("pressed")'), false);
    assert.deepEqual(await ownShots(page), [], "no shots before FIRE");
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: c.x, y: c.y, id: 1 }] });
    try {
      assert.equal(await page.evaluate('document.getElementById("fire").classList.contains("pressed")'), true);
      await sleep(100);
      assert.notEqual(await look(), idle, "pressed FIRE looks different");
      await until(() => ownShots(page), (ids) => ids.length > 0, 5000, "a shot while FIRE is held");
    } finally {
      await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
    }
    assert.equal(await page.evaluate('document.getElementById("fire").classList.contains("pressed")'), false);
    await until(look, (l) => l === idle, 2000, "FIRE to look as before");
  });

  it("AUTO fires without FIRE held until tapped again", async function () {
    const page = await play(PHONE_PORTRAIT);
    assert.equal(await page.getAttribute("#auto-fire", "aria-pressed"), "false");
    await sleep(500);
    assert.deepEqual(await ownShots(page), [], "no shots before AUTO");
    await page.tap("#auto-fire");
    assert.equal(await page.getAttribute("#auto-fire", "aria-pressed"), "true");
    const first = await until(() => ownShots(page), (ids) => ids.length >= 2, 5000, "shots with AUTO on");
    await page.tap("#auto-fire");
    assert.equal(await page.getAttribute("#auto-fire", "aria-pressed"), "false");
    // Shots in flight when it went off may still arrive; after that, no new ones.
    await sleep(400);
    const before = new Set(await ownShots(page));
    await sleep(1200);
    const fresh = (await ownShots(page)).filter((id) => !before.has(id) && !first.includes(id));
    assert.deepEqual(fresh, [], "no new shots with AUTO off");
  });

  for (const screen of [PHONE_PORTRAIT, PHONE_LANDSCAPE]) {
    it(`${screen.width} x ${screen.height} touch: the death screen, then the menu after leaving, keep clear of the rest; touch controls only while flying, the chat button stays`, async function () {
      const page = await play(screen);
      assert.ok(await page.isVisible("#stick"));
      await settled(page);
      await fillFeed(page, FEED_LINES - 1);
      // Our own ship into the sun: the death screen, and our death in the feed.
      const me = await snap(page);
      assert.equal(crash(server!.game!, [me.selfSlot]), 1);
      await until(() => snap(page), (s) => s.page.panel === "death", 5000, "the death screen");
      for (const id of ["stick", "fire", "auto-fire"]) await page.waitForSelector("#" + id, { state: "hidden", timeout: 2000 });
      assert.ok(await page.isVisible("#chat-button"));
      let rects = await layoutRects(page);
      for (const want of ["overlay", "feed", "mute", "chat-button"]) assert.ok(rects.some((r) => r.name === want), `${want} is shown`);
      assert.deepEqual(overlaps(rects), [], JSON.stringify(rects));
      assert.deepEqual(outside(rects, screen.width, screen.height), []);
      await page.screenshot({ path: join(dir, `${screen.name.replace(" ", "-")}-dead.png`) });
      // Leaving brings the menu back, with Play; nothing to steer.
      await page.click("#menu-button");
      await page.click("#leave");
      await until(() => snap(page), (s) => s.page.stage === "menu" && s.page.panel === "menu", 5000, "the page to leave for the menu");
      for (const id of ["stick", "fire", "auto-fire", "chat-button", "scores"]) assert.ok(!(await page.isVisible("#" + id)), `${id} hidden`);
      rects = await layoutRects(page);
      assert.ok(rects.some((r) => r.name === "menu"));
      assert.deepEqual(overlaps(rects), [], JSON.stringify(rects));
      assert.deepEqual(outside(rects, screen.width, screen.height), []);
    });
  }

  it("old chat lines fade: each line's fade starts when the line came, and a line 25 s old is faint", async function () {
    const page = await play(PHONE_PORTRAIT);
    const rows = (await page.evaluate(`Array.from(document.querySelectorAll("#chat-log div"), (d) => {
      const a = d.getAnimations()[0];
      return { delay: parseFloat(d.style.animationDelay), opacity: getComputedStyle(d).opacity, running: a !== undefined };
    })`)) as { delay: number; opacity: string; running: boolean }[];
    assert.ok(rows.length >= 6);
    for (const r of rows) {
      assert.ok(r.running, "each line has its fade");
      // The page joined a few seconds ago: every line in its log is that young.
      assert.ok(r.delay <= 0 && r.delay > -10000, `delay ${r.delay} ms`);
      assert.equal(r.opacity, "1", "young lines are fully shown");
    }
    const faded = (await page.evaluate(`(() => {
      const d = document.querySelector("#chat-log div");
      d.getAnimations()[0].currentTime = 25000;
      return Number(getComputedStyle(d).opacity);
    })()`)) as number;
    assert.ok(faded < 0.4, `opacity ${faded}`);
  });
});
