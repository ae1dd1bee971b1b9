/**
 * The page's life around a match in headless Chromium (see browser.test.ts): joining only
 * on Play, the kill feed and death screen, the hit flash, sound and its mute, coming back
 * after a server restart and after a hidden tab left. Kills and damage are forced through
 * the game object of the server running in this process.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { makeConfig } from "../../modules/config";
import { ClientState, createClient, type Client } from "../../modules/client/client";
import type { Game } from "../../modules/game/game";
import { SHIP_HP } from "../../modules/game/templates";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { bytesToAscii } from "../../modules/text";
import { fromWu } from "../../modules/units";
import { NodeHost } from "../../hosts/node/host";
import { serve, type Served } from "../../hosts/node/serve";
import type { PageFile } from "../../hosts/node/web";
import { buildWeb } from "../../web/build";
import type { PageSnapshot } from "../../web/world";
import { sleep, waitFor } from "../integration/players";
import { CHROMIUM, launchChromium } from "./chromium";
import { ready } from "../../tools/screens";

type Snap = PageSnapshot;

function snap(page: Page): Promise<Snap> {
  return page.evaluate("window.lwar.snapshot()") as Promise<Snap>;
}

async function until(page: Page, cond: (s: Snap) => boolean, ms: number, what: string): Promise<Snap> {
  const end = performance.now() + ms;
  for (;;) {
    const s = await snap(page);
    if (cond(s)) return s;
    if (performance.now() > end) {
      throw new Error(`timed out after ${ms} ms waiting for ${what}; last state: ${JSON.stringify({ phase: s.phase, status: s.status, page: s.page, chat: s.chat })}`);
    }
    await sleep(40);
  }
}

const playing = (s: Snap): boolean => s.page.stage === "match" && s.phase === "playing";

/** The server's name for `slot`. */
function serverName(s: Served, slot: number): string {
  return bytesToAscii(s.server.names, slot * 32, s.server.nameLength[slot]);
}

/**
 * Hold the ship of `slot` still at (x, y) wu, heading `turn` (1/4096 turns, 0 along +x),
 * before every step, until the returned function is called.
 */
function pin(game: Game, slot: number, x: number, y: number, turn: number): () => void {
  const e = game.entities;
  const hold = (): void => {
    const i = game.focusIndex[slot];
    if (i < 0) return;
    e.x[i] = fromWu(x);
    e.y[i] = fromWu(y);
    e.vx[i] = 0;
    e.vy[i] = 0;
    e.rot[i] = turn;
  };
  hold();
  const timer = setInterval(hold, 5);
  return () => clearInterval(timer);
}

interface Gunner {
  host: NodeHost;
  client: Client;
}

/** A UDP player named `name` on its own loopback socket, holding fire while `fire()` says so. */
async function gunner(port: number, name: string, fire: () => boolean): Promise<Gunner> {
  const host = new NodeHost({ tickMs: 10 });
  await host.listen(0, "127.0.0.1");
  const client = createClient(makeConfig(), host, "127.0.0.1", port);
  host.attach({
    receive: (b, n, a, p) => client.receive(b, n, a, p),
    tick: (now) => {
      if (client.state === ClientState.Connected) client.setInput(fire() ? INPUT_SHOOTING : 0);
      client.tick(now);
    },
  });
  client.connect();
  await waitFor(() => client.state === ClientState.Connected, 5000, `${name} to join`);
  client.rename(name);
  return { host, client };
}

describe("browser: joining, kills, feedback, sound and coming back", function () {
  this.timeout(90000);
  let files: PageFile[] = [];
  let browser: Browser | null = null;
  const servers: Served[] = [];
  const bots: Gunner[] = [];
  const contexts: BrowserContext[] = [];
  const errors: string[] = [];

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set LWAR_CHROMIUM)`);
      this.skip();
    }
    files = await buildWeb();
    browser = await launchChromium();
  });

  afterEach(async function () {
    for (const b of bots.splice(0)) {
      await b.host.close();
    }
    for (const c of contexts.splice(0)) await c.close();
    for (const s of servers.splice(0)) await s.close();
    assert.deepEqual(errors.splice(0), []);
  });

  after(async function () {
    if (browser !== null) await browser.close();
  });

  async function start(httpPort = 0, bots = 0): Promise<Served> {
    const s = await serve({ config: makeConfig({ bots }), seed: 777, address: "127.0.0.1", udpPort: 0, httpPort, files });
    servers.push(s);
    return s;
  }

  async function page(s: Served, query = "", init?: string): Promise<Page> {
    const context = await browser!.newContext({ viewport: { width: 900, height: 600 } });
    contexts.push(context);
    if (init !== undefined) await context.addInitScript(init);
    const p = await context.newPage();
    p.on("pageerror", (e) => errors.push(e.message));
    await p.goto(`http://127.0.0.1:${s.http!.port}/${query}`);
    await ready(p);
    return p;
  }

  async function play(p: Page, name: string, ship = 0, weapon = 0): Promise<Snap> {
    await p.fill("#name", name);
    await p.selectOption("#ship", String(ship));
    await p.selectOption("#weapon", String(weapon));
    await p.click("#menu button[type=submit]");
    return until(p, playing, 10000, `${name} to fly`);
  }

  it("joins only on Play; the others read 'Ana joined'; the HUD names the ship and weapon flown", async function () {
    const s = await start();
    const bo = await page(s);
    const ana = await page(s);
    await sleep(800);
    assert.equal(s.server.playerCount(), 0, "an open page holds no slot");
    const before = await snap(ana);
    assert.equal(before.page.stage, "menu");
    assert.equal(before.page.panel, "menu");
    assert.equal(await ana.isVisible("#overlay"), false);
    await play(bo, "Bo");
    assert.equal(s.server.playerCount(), 1);
    const a = await play(ana, "Ana", 2, 2);
    assert.equal(s.server.playerCount(), 2);
    assert.equal(serverName(s, a.selfSlot), "Ana");
    const b = await until(bo, (x) => x.chat.some((l) => l.slot < 0 && l.text.endsWith("joined")), 5000, "a joined line");
    const events = b.chat.filter((l) => l.slot < 0).map((l) => l.text);
    assert.deepEqual(events, ["Ana joined"], "one line, under the chosen name");
    await bo.waitForFunction('document.getElementById("chat-log").textContent.includes("Ana joined")', null, { timeout: 3000 });
    // Flown: the ship's template and the game's weapon, whatever the menu says now.
    const game = s.game!;
    assert.equal(game.shipType[a.selfSlot], 2);
    assert.deepEqual(a.flown, { ship: 2, weapon: 2 });
    await ana.waitForFunction('document.getElementById("hud").textContent.startsWith("cruiser / torpedo")', null, { timeout: 3000 });
    await ana.keyboard.press("Escape");
    await ana.selectOption("#ship", "0");
    await ana.click("#menu button[type=submit]");
    const after = await until(ana, (x) => x.players.some((p) => p.slot === x.selfSlot && p.ship === 0), 3000, "the new selection to reach the server");
    assert.deepEqual(after.flown, { ship: 2, weapon: 2 }, "the ship flown stays until the next spawn");
    assert.match(after.page.hud, /^cruiser \/ torpedo .*next: interceptor \/ torpedo/);
  });

  it("the first screen: the menu and nothing of a match; in a match the menu says Resume and leaves our ship in view", async function () {
    const s = await start();
    const p = await page(s);
    await p.waitForSelector("#menu", { state: "visible" });
    // A few frames: nothing stale appears later.
    await p.waitForFunction("window.lwar.drawn.frames > 5", null, { timeout: 10000 });
    for (const id of ["status", "scores", "chat-button", "hud", "overlay"]) assert.equal(await p.isVisible("#" + id), false, `#${id} hidden before Play`);
    assert.equal(await p.textContent("#status"), "");
    assert.equal(await p.textContent("#play"), "Play");
    await play(p, "Di");
    assert.equal(await p.isVisible("#scores"), true);
    await p.keyboard.press("Escape");
    await p.waitForSelector("#menu", { state: "visible" });
    assert.equal(await p.textContent("#play"), "Resume");
    // Our ship is drawn at the screen's centre: the menu leaves it in view.
    const box = (await p.evaluate(`(() => { const r = document.getElementById("menu").getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; })()`)) as number[];
    const cx = 900 / 2;
    const cy = 600 / 2;
    assert.ok(box[2] < cx - 40 || box[0] > cx + 40 || box[3] < cy - 40 || box[1] > cy + 40, `menu ${box.join(", ")} clear of the centre`);
    await p.click("#play");
    await until(p, (x) => x.page.panel === "none", 3000, "the menu to close");
    assert.equal(await p.isVisible("#status"), false);
  });

  it("a forced kill: the victim's death screen and both feeds name the killer and the weapon", async function () {
    const s = await start();
    const cy = await page(s);
    const me = await play(cy, "Cy");
    const game = s.game!;
    let firing = true;
    const ana = await gunner(s.udp.port, "Ana", () => firing);
    bots.push(ana);
    await waitFor(() => game.focusIndex[ana.client.selfSlot] >= 0, 5000, "Ana's ship");
    await until(cy, (x) => x.players.some((p) => p.name === "Ana"), 3000, "Cy to know Ana");
    // Ana 100 wu behind Cy on the x axis, nose towards Cy; Cy at 1 hp.
    const unpinCy = pin(game, me.selfSlot, 1500, 0, 0);
    const unpinAna = pin(game, ana.client.selfSlot, 1400, 0, 0);
    game.hp[me.selfSlot] = 1;
    try {
      // The first death screen the page shows already names the killer: it never says a bare "Destroyed".
      const dead = await until(cy, (x) => x.page.panel === "death", 8000, "Cy's death screen");
      assert.match(dead.page.notice, /^Destroyed by Ana \(pulse\), respawning in [12] s$/);
      // The page's state leads its DOM by up to a frame, and a busy machine's headless frames come late: wait for the frame.
      await cy.waitForFunction(`document.getElementById("overlay-text").textContent === ${JSON.stringify(dead.page.notice)}`, null, { timeout: 1500 });
      assert.equal(await cy.isVisible("#overlay"), true);
      assert.equal(await cy.isVisible("#menu"), false);
      assert.ok(dead.page.feed.includes("Ana destroyed Cy (pulse)"), JSON.stringify(dead.page.feed));
      assert.equal(dead.page.hud, "", "no hull or speed of a dead ship");
      assert.ok(dead.page.explosions >= 1);
    } finally {
      firing = false;
      unpinCy();
    }
    // Now Cy fires on Ana, held at 1 hp in front of Cy's new ship.
    const back = await until(cy, playing, 5000, "Cy to respawn");
    unpinAna();
    const unpinCy2 = pin(game, back.selfSlot, 1500, 0, 0);
    const unpinAna2 = pin(game, ana.client.selfSlot, 1600, 0, 2048);
    // Five pulse hits (8 hp each) in half a second: hull drops, then the kill.
    game.hp[ana.client.selfSlot] = 40;
    await cy.keyboard.down("Space");
    try {
      const won = await until(cy, (x) => x.page.feed.includes("You destroyed Ana (pulse)"), 5000, "Cy's own kill in the feed");
      assert.ok(won.page.hits >= 2, `hit markers: ${won.page.hits}`);
      await cy.waitForFunction('document.getElementById("feed").textContent.includes("You destroyed Ana (pulse)")', null, { timeout: 2000 });
    } finally {
      await cy.keyboard.up("Space");
      unpinCy2();
      unpinAna2();
    }
  });

  it("a hull drop flashes the ship and the screen's edge", async function () {
    const s = await start();
    const p = await page(s);
    const me = await play(p, "Dee", 1);
    const game = s.game!;
    assert.equal(me.page.hurt, 0);
    assert.equal(await p.evaluate('document.getElementById("flash").style.opacity || "0"'), "0");
    // The brightest the edge gets, from every change of its style.
    await p.evaluate(`window.__flash = 0; const el = document.getElementById("flash");
      new MutationObserver(() => { window.__flash = Math.max(window.__flash, Number(el.style.opacity) || 0); }).observe(el, { attributes: true });`);
    const i = game.focusIndex[me.selfSlot];
    game.hp[me.selfSlot] = SHIP_HP[1] - 30;
    game.entities.health[i] = 70;
    game.entities.version++;
    const hurt = await until(p, (x) => x.page.hurt >= 1, 3000, "the hull drop to reach the page");
    assert.equal(hurt.entities.find((e) => e.id === (game.entities.generation[i] << 16 | i) >>> 0)?.health, 70);
    // The flash starts at the first frame drawn after the drop, at full strength, however late that frame is.
    await p.waitForFunction("window.__flash >= 0.5", null, { timeout: 5000 });
    const opacity = Number(await p.evaluate("window.__flash"));
    assert.ok(opacity >= 0.5, `edge flash opacity up to ${opacity}`);
    await p.waitForFunction('document.getElementById("flash").style.opacity === "0"', null, { timeout: 2000 });
    assert.match((await snap(p)).page.hud, / 70% hull /);
  });

  it("no AudioContext before a gesture; the mute toggle is remembered", async function () {
    const s = await start();
    const count = "window.__contexts = 0; const Real = window.AudioContext; window.AudioContext = class extends Real { constructor(o) { super(o); window.__contexts++; } };";
    const p = await page(s, "", count);
    await sleep(500);
    assert.equal(await p.evaluate("window.__contexts"), 0);
    const first = await snap(p);
    assert.equal(first.page.audio, false);
    assert.equal(first.page.muted, false);
    await p.click("#mute");
    assert.equal(await p.evaluate("window.__contexts"), 1, "the click made it");
    assert.equal((await snap(p)).page.muted, true);
    assert.equal(await p.evaluate('localStorage.getItem("lwar.mute")'), "1");
    await p.reload();
    await sleep(300);
    const again = await snap(p);
    assert.equal(again.page.muted, true, "remembered");
    assert.equal(again.page.audio, false);
    assert.equal(await p.evaluate("window.__contexts"), 0);
    assert.equal(await p.getAttribute("#mute", "aria-pressed"), "true");
    // Muted: firing makes no sound; unmuted, it does.
    await play(p, "Eve");
    await p.keyboard.down("Space");
    await sleep(400);
    assert.equal((await snap(p)).page.sounds, 0);
    await p.keyboard.up("Space");
    await p.click("#mute");
    await p.keyboard.down("Space");
    try {
      await until(p, (x) => x.page.sounds > 0, 3000, "a shot to sound");
    } finally {
      await p.keyboard.up("Space");
    }
    assert.equal(await p.evaluate('localStorage.getItem("lwar.mute")'), "0");
  });

  it("a server restarted on the same port has the page back in the match within 7 s, with the same name, ship and weapon", async function () {
    const s = await start();
    const port = s.http!.port;
    const p = await page(s);
    await play(p, "Fay", 1, 2);
    servers.splice(servers.indexOf(s), 1);
    await s.close();
    const down = performance.now();
    const notice = await until(p, (x) => x.page.stage === "retry", 3000, "the page to see the server go");
    assert.match(notice.page.notice, /^The server shut down\. Reconnecting in \d s\.\.\.$/);
    const s2 = await start(port);
    const back = await until(p, playing, 7000, "the page back in the match");
    const took = performance.now() - down;
    console.log(`      back in the match ${(took / 1000).toFixed(1)} s after the shutdown`);
    assert.ok(took < 7000, `${took} ms`);
    assert.equal(s2.server.playerCount(), 1);
    assert.equal(serverName(s2, back.selfSlot), "Fay");
    assert.equal(s2.server.ship[back.selfSlot], 1);
    assert.equal(s2.server.weapon[back.selfSlot], 2);
    assert.deepEqual(back.flown, { ship: 1, weapon: 2 });
    assert.equal(back.page.panel, "none");
  });

  it("reconnecting leaves no ghosts: the old match's ships and names go, and no 'left' line is written twice", async function () {
    let s = await start(0, 3);
    const port = s.http!.port;
    const p = await page(s);
    await play(p, "Gil");
    await until(p, (x) => x.players.length === 4 && x.drawn.ships.length >= 2, 8000, "the bots' ships");
    for (let cycle = 0; cycle < 2; cycle++) {
      servers.splice(servers.indexOf(s), 1);
      await s.close();
      const gone = await until(p, (x) => x.page.stage === "retry", 3000, "the page to see the server go");
      // Let a few frames pass in the retry stage: nothing of the old match is drawn, nobody is renamed.
      await sleep(300);
      const waiting = await snap(p);
      assert.equal(waiting.page.stage, "retry");
      assert.deepEqual(waiting.drawn.ships, [], "no ship drawn while reconnecting");
      assert.deepEqual(waiting.drawn.projectiles, []);
      assert.deepEqual(waiting.entities, []);
      assert.equal(await p.isVisible("#scores"), false, "no scoreboard while reconnecting");
      assert.ok(!waiting.chat.some((l) => /^Player \d+ left$/.test(l.text)), JSON.stringify(gone.chat));
      s = await start(port, 3);
      await until(p, (x) => playing(x) && x.players.length === 4, 8000, "the page back with the bots");
    }
    const events = (await snap(p)).chat.filter((l) => l.slot < 0).map((l) => l.text);
    for (const name of ["Vega [bot]", "Rigel [bot]", "Deneb [bot]"]) {
      const left = events.filter((t) => t === `${name} left`).length;
      assert.ok(left <= 2, `${name} left ${left} times in two restarts: ${JSON.stringify(events)}`);
    }
    for (let k = 1; k < events.length; k++) assert.ok(!(events[k] === events[k - 1] && events[k].endsWith(" left")), `repeated: ${events[k]}`);
  });

  it("a tab hidden past the away time leaves (its slot frees) and rejoins when shown, saying how long it was away", async function () {
    const s = await start();
    const p = await page(s, "?away=1500");
    const me = await play(p, "Gus");
    const hide = (state: string): Promise<unknown> =>
      p.evaluate(`Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "${state}" }); document.dispatchEvent(new Event("visibilitychange"))`);
    await hide("hidden");
    await sleep(700);
    assert.equal(s.server.playerCount(), 1, "still in before the away time");
    await waitFor(() => s.server.playerCount() === 0, 4000, "the slot to free");
    const away = await until(p, (x) => x.page.stage === "away", 2000, "the page to be away");
    assert.equal(away.page.panel, "notice");
    await sleep(1000);
    await hide("visible");
    const back = await until(p, playing, 5000, "the page back in the match");
    assert.equal(s.server.playerCount(), 1);
    assert.equal(serverName(s, back.selfSlot), "Gus");
    const line = back.chat.find((l) => l.text.startsWith("Back after"));
    assert.ok(line !== undefined, JSON.stringify(back.chat));
    const secs = Number(/^Back after (\d+) s away$/.exec(line.text)?.[1]);
    assert.ok(secs >= 2 && secs <= 5, line.text);
    assert.notEqual(me.selfId, back.selfId, "a new player id: it left and came back");
  });
});
