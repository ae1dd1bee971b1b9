/**
 * The browser game at the screen sizes it is played on, in headless Chromium: a desktop
 * (1280 × 800) and a phone held upright (390 × 844) or sideways (844 × 390), the phone
 * with touch emulated. Shared by the layout tests (test/web/phone.test.ts) and
 * `npm run screenshots` (tools/screenshots.ts): a crowd of UDP players with long names that
 * chat, a page that joins and plays, and the rectangles its controls and panels take.
 */
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { makeConfig } from "../modules/config";
import { ClientState, createClient, type Client } from "../modules/client/client";
import { NAME_LENGTH } from "../modules/protocol/constants";
import type { Game } from "../modules/game/game";
import { NodeHost } from "../hosts/node/host";
import { behaviourInput } from "../harness/behaviours";
import type { PageSnapshot } from "../web/world";
import { CHROMIUM } from "./sim/browser";

export { CHROMIUM };

export interface Screen {
  name: string;
  width: number;
  height: number;
  touch: boolean;
}

export const DESKTOP: Screen = { name: "desktop", width: 1280, height: 800, touch: false };
export const PHONE_PORTRAIT: Screen = { name: "phone portrait", width: 390, height: 844, touch: true };
export const PHONE_LANDSCAPE: Screen = { name: "phone landscape", width: 844, height: 390, touch: true };

export function launchChromium(): Promise<Browser> {
  const args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args, timeout: 30000 });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

// Page-side code is passed as text: this file is typechecked for Node, without the DOM.
export function snap(page: Page): Promise<PageSnapshot> {
  return page.evaluate("window.lwar.snapshot()") as Promise<PageSnapshot>;
}

/**
 * Wait until the page's game runs (`window.lwar`): the page loads kernels.wasm before it
 * starts (web/boot.ts), after the load event that `goto` waits for.
 */
export async function ready(page: Page): Promise<void> {
  await page.waitForFunction("window.lwar !== undefined", undefined, { timeout: 10000 });
}

/** Poll `probe` until `cond` holds; returns that value. */
export async function until<T>(probe: () => Promise<T>, cond: (v: T) => boolean, ms: number, what: string): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (cond(v)) return v;
    if (performance.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}; last: ${JSON.stringify(v).slice(0, 400)}`);
    await sleep(50);
  }
}

// ---------------------------------------------------------------- the crowd

export interface Bot {
  host: NodeHost;
  client: Client;
}

/** Names as long as the protocol allows (NAME_LENGTH − 1 characters), so the scoreboard is at its widest. */
export function longName(k: number): string {
  return `Captain Longname the ${k + 1}${"th".repeat(8)}`.slice(0, NAME_LENGTH - 1);
}

/**
 * `n` UDP players on 127.0.0.1:`port` flying as `behaviour` (harness/behaviours.ts), each
 * under a long name unless `names` gives theirs.
 */
export async function crowd(port: number, n: number, behaviour = "idle", names: readonly string[] = []): Promise<Bot[]> {
  const bots: Bot[] = [];
  for (let k = 0; k < n; k++) {
    const host = new NodeHost({ tickMs: 10 });
    await host.listen(0, "127.0.0.1");
    const client = createClient(makeConfig(), host, "127.0.0.1", port);
    let named = false;
    host.attach({
      receive: (b, len, a, p) => client.receive(b, len, a, p),
      tick: (now) => {
        if (client.state === ClientState.Connected) {
          if (!named) named = client.rename(names[k] ?? longName(k));
          client.setInput(behaviourInput(behaviour, client, now));
        }
        client.tick(now);
      },
    });
    client.connect();
    bots.push({ host, client });
  }
  const end = performance.now() + 10000;
  while (bots.some((b) => b.client.selfId < 0)) {
    if (performance.now() > end) throw new Error("timed out waiting for the UDP players to join");
    await sleep(20);
  }
  return bots;
}

/**
 * Put the ships of `slots` into the sun of `game` (the server's, in this process): each
 * is destroyed there at the next step, and the pages' kill feeds get a line with its
 * name. Returns how many had a ship to put there.
 */
export function crash(game: Game, slots: readonly number[]): number {
  let n = 0;
  for (const slot of slots) {
    const i = game.focusIndex[slot];
    if (i < 0) continue;
    game.entities.x[i] = 0;
    game.entities.y[i] = 0;
    n++;
  }
  return n;
}

/** Each of `bots` says a long line, so the chat logs of the pages then in the match hold wrapped lines. */
export function chatter(bots: readonly Bot[]): void {
  for (let k = 0; k < bots.length; k++) bots[k].client.chat(`line ${k + 1}: anyone near the sun? watch the planets, they pull harder than they look`);
}

export async function closeCrowd(bots: readonly Bot[]): Promise<void> {
  for (const b of bots) {
    b.client.disconnect();
    await sleep(20);
    await b.host.close();
  }
}

// ---------------------------------------------------------------- a page

export interface Player {
  context: BrowserContext;
  page: Page;
  errors: string[];
}

/** A fresh browser (its own storage) at `screen`, on the game at `url`: Play in the menu a first visit opens, then flying. */
export async function player(browser: Browser, url: string, screen: Screen): Promise<Player> {
  const context = await browser.newContext({
    viewport: { width: screen.width, height: screen.height },
    hasTouch: screen.touch,
    isMobile: screen.touch,
    deviceScaleFactor: screen.touch ? 2 : 1,
  });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`${screen.name}: ${e.message}`));
  await page.goto(url);
  await ready(page);
  // A first visit opens the menu and joins nothing until Play is pressed, as a player would.
  await page.waitForSelector("#menu", { state: "visible", timeout: 5000 });
  if (screen.touch) await page.tap("#menu button[type=submit]");
  else await page.click("#menu button[type=submit]");
  await until(() => snap(page), (s) => s.page.stage === "match" && s.phase === "playing", 10000, `the ${screen.name} page to fly`);
  await page.waitForSelector("#menu", { state: "hidden", timeout: 5000 });
  return { context, page, errors };
}

/** The camera scale has settled (it eases towards its target over a few dozen frames). */
export async function settled(page: Page): Promise<void> {
  let last = 0;
  await until(
    async () => {
      const s = (await page.evaluate("window.lwar.drawn.view.scale")) as number;
      const steady = last > 0 && Math.abs(s - last) / last < 0.002;
      last = s;
      return steady;
    },
    (steady) => steady,
    10000,
    "the camera to settle",
  );
}

// ---------------------------------------------------------------- rectangles

export interface Rect {
  name: string;
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** The elements that must not overlap, by id (the kill feed, when it has lines, and the menu or notice panel among them); `minimap` is drawn on the canvas and comes from lwar.drawn.view. */
export const LAYOUT_IDS: readonly string[] = ["chat", "menu-button", "mute", "feed", "scores", "stick", "fire", "auto-fire", "chat-button", "menu", "overlay"];

/** The rectangles (css px) of the visible ones among LAYOUT_IDS, and the minimap's. */
export function layoutRects(page: Page): Promise<Rect[]> {
  return page.evaluate(`(() => {
    const out = [];
    for (const id of ${JSON.stringify(LAYOUT_IDS)}) {
      const e = document.getElementById(id);
      if (e === null || e.getClientRects().length === 0 || getComputedStyle(e).visibility === "hidden") continue;
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      out.push({ name: id, left: r.left, top: r.top, right: r.right, bottom: r.bottom });
    }
    const m = window.lwar.drawn.view.minimap;
    out.push({ name: "minimap", left: m.x, top: m.y, right: m.x + m.size, bottom: m.y + m.size });
    return out;
  })()`) as Promise<Rect[]>;
}

/** Pairs of `rects` that share area (touching edges do not count). */
export function overlaps(rects: readonly Rect[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rects.length; i++) {
    for (let j = i + 1; j < rects.length; j++) {
      const a = rects[i];
      const b = rects[j];
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 0.5 && h > 0.5) out.push(`${a.name} and ${b.name} overlap by ${w.toFixed(0)} x ${h.toFixed(0)} px`);
    }
  }
  return out;
}

/** Those of `rects` not wholly inside a `width` × `height` screen. */
export function outside(rects: readonly Rect[], width: number, height: number): string[] {
  const out: string[] = [];
  for (const r of rects) {
    if (r.left < -0.5 || r.top < -0.5 || r.right > width + 0.5 || r.bottom > height + 0.5) {
      out.push(`${r.name} at ${r.left.toFixed(0)},${r.top.toFixed(0)}..${r.right.toFixed(0)},${r.bottom.toFixed(0)} is not inside ${width} x ${height}`);
    }
  }
  return out;
}
