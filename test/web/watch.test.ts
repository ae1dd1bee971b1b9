/**
 * The big-screen view: the watch feed (modules/watch.ts) written from a server and applied
 * to a page's World (web/watch.ts) without a browser; then /watch in headless Chromium on
 * the Node server, taking no slot, with names, the feed and the scoreboard.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import type { Browser } from "playwright-core";
import { WebSocket } from "ws";
import { makeConfig } from "../../modules/config";
import { createClient, KillCause } from "../../modules/client/client";
import { Kind, kindOf } from "../../modules/game/templates";
import { BOT_FILL_MS } from "../../modules/server/server";
import { WATCH_KIND, WATCH_PATH, WATCH_WS_PATH, WatchFeed, watchFrameBytes } from "../../modules/watch";
import { TestMatch } from "../../harness/match";
import { serve, type Served } from "../../hosts/node/serve";
import { buildWeb } from "../../web/build";
import { WatchSource } from "../../modules/client/watch";
import { World } from "../../web/world";
import { isWatchPage } from "../../web/session";
import { crash, ready, sleep, snap, until } from "../../tools/screens";
import { CHROMIUM, launchChromium } from "./chromium";
import { LogEvent } from "../../modules/server/events";

describe("watch feed", function () {
  it("a watcher's World has every player, ship and projectile the server has, and the server's deaths, with no slot taken", function () {
    const m = new TestMatch({ bots: 4 }, { seed: 5, delayMs: 5 });
    const game = m.withGame(5, null);
    const feed = new WatchFeed(m.server);
    const deaths: number[] = [];
    game.onDeath = (slot, killer, cause) => m.serverHost.log(LogEvent.Death, slot, (killer + 1) * 256 + cause);
    const log = m.serverHost.log.bind(m.serverHost);
    m.serverHost.log = (event, slot, value) => {
      feed.note(event, slot, value);
      log(event, slot, value);
    };
    const client = createClient(makeConfig(), { send() {}, now: () => m.net.now, log() {} }, "none", 0);
    const world = new World(client, () => m.net.now);
    const source = new WatchSource(client);
    client.onKill = (victim) => deaths.push(victim);
    m.run(BOT_FILL_MS + 200);
    let served = 0;
    for (let t = 0; t < 30000; t += 100) {
      m.run(100);
      const n = feed.write(m.net.now);
      assert.ok(n <= watchFrameBytes(m.config));
      assert.equal(feed.frame[0], WATCH_KIND);
      assert.ok(source.frame(feed.frame, n));
      served = Math.max(served, m.server.entities.count);
    }
    assert.equal(m.server.playerCount(), 4, "the watcher took no slot");
    const s = world.snapshot();
    assert.deepEqual(s.players.map((p) => p.name).sort(), ["Altair [bot]", "Deneb [bot]", "Rigel [bot]", "Vega [bot]"]);
    assert.ok(s.players.every((p) => p.ping === 0), "bots have no ping");
    const e = m.server.entities;
    let ships = 0;
    let shots = 0;
    for (let i = 0; i < e.capacity; i++) {
      if (e.alive[i] === 0) continue;
      assert.equal(client.alive[i], 1, `entity ${i}`);
      assert.equal(client.entityId[i], e.id(i));
      assert.equal(client.type[i], e.type[i]);
      if (kindOf(e.type[i]) === Kind.Ship) ships++;
      if (kindOf(e.type[i]) === Kind.Shot) shots++;
    }
    assert.equal(client.entityCount, e.count, "no entity more or less than the server's");
    assert.ok(ships >= 1 && shots >= 1, `${ships} ships, ${shots} shots`);
    assert.equal(world.live.length, e.count);
    assert.ok(game.counters[5] + game.counters[6] + game.counters[7] >= 1, "somebody died");
    assert.ok(deaths.length >= 1, "the deaths reached the feed");
    assert.equal(source.bad, 0);
  });

  it("refuses what is not a watch frame, and a frame cut short", function () {
    const client = createClient(makeConfig(), { send() {}, now: () => 0, log() {} }, "none", 0);
    const source = new WatchSource(client);
    assert.equal(source.frame(new Uint8Array([1, 2, 3]), 3), false);
    const m = new TestMatch({ bots: 2 }, { seed: 1, delayMs: 1 });
    m.withGame(1, null);
    m.run(BOT_FILL_MS + 500);
    const feed = new WatchFeed(m.server);
    const n = feed.write(0);
    assert.equal(source.frame(feed.frame, n - 1), false, "cut short");
    assert.equal(source.bad, 2);
    assert.equal(source.frame(feed.frame, n), true);
  });

  it("the page is the watch view at /watch or with ?watch", function () {
    assert.ok(isWatchPage(WATCH_PATH, ""));
    assert.ok(isWatchPage("/", "?watch"));
    assert.ok(isWatchPage("/", "?away=100&watch=1"));
    assert.ok(!isWatchPage("/", ""));
    assert.ok(!isWatchPage("/", "?watchful"));
    assert.equal(KillCause.Sun, 2);
  });
});

describe("browser: /watch", function () {
  this.timeout(60000);
  let server: Served | null = null;
  let browser: Browser | null = null;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: no Chromium at ${CHROMIUM}`);
      this.skip();
    }
    server = await serve({ config: makeConfig({ bots: 3 }), seed: 99, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: await buildWeb(), web: { maxWatchers: 2 } });
    browser = await launchChromium();
  });

  after(async function () {
    if (browser !== null) await browser.close();
    if (server !== null) await server.close();
  });

  it("shows the whole arena, the names, the scoreboard and the feed, takes no slot and sends nothing", async function () {
    const s = server!;
    const context = await browser!.newContext({ viewport: { width: 1280, height: 720 } });
    const errors: string[] = [];
    try {
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(`http://127.0.0.1:${s.http!.port}${WATCH_PATH}`);
      await ready(page);
      const view = await until(() => snap(page), (x) => x.players.length === 3 && x.drawn.ships.length === 3, 10000, "the bots' ships on the big screen");
      assert.equal(view.page.stage, "watch");
      assert.equal(view.page.panel, "none");
      assert.equal(view.selfSlot, -1);
      assert.deepEqual(view.drawn.ships.map((x) => x.name).sort(), ["Deneb [bot]", "Rigel [bot]", "Vega [bot]"]);
      assert.equal(await page.isVisible("#menu"), false);
      assert.equal(await page.isVisible("#menu-button"), false);
      assert.equal(await page.isVisible("#scores"), true);
      await page.waitForFunction('document.querySelectorAll("#scores tbody tr").length === 3', null, { timeout: 5000 });
      // Rank, name, kills and deaths; the server flies its bots itself, so no ping for them.
      const rows = (await page.evaluate(
        'Array.from(document.querySelectorAll("#scores tbody tr"), (tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent))',
      )) as string[][];
      assert.equal(rows[0][0], "1", "the first row ranks first");
      for (const r of rows) {
        assert.match(r[0], /^[1-3]$/, "rank");
        assert.match(r[2], / \[bot\]$/, "name");
        assert.match(r[4], /^\d+$/, "kills");
        assert.match(r[5], /^\d+$/, "deaths");
        assert.equal(r[6], "bot", "no ping for a bot");
      }
      // The whole arena: a 6000 wu circle fits the short side.
      const scale = (await page.evaluate("window.lwar.drawn.view.scale")) as number;
      assert.ok(scale * 6000 <= 720, `scale ${scale}`);
      assert.equal(s.server.playerCount(), 3, "no slot taken");
      assert.equal(s.web!.open, 0, "no player connection");
      assert.equal(s.web!.watchers, 1);
      // A death in the server's words: a bot into the sun (past its guard).
      await sleep(2200);
      const slots = [0, 1, 2].filter((k) => s.game!.focusIndex[k] >= 0);
      crash(s.game!, slots);
      const fed = await until(() => snap(page), (x) => x.page.feed.some((l) => l.endsWith("fell into the sun")), 5000, "the feed");
      assert.ok(fed.page.kills >= 1);
      await page.keyboard.press("Escape");
      await page.keyboard.press("Enter");
      assert.equal((await snap(page)).page.panel, "none", "no menu, no chat");
      assert.equal(s.server.playerCount(), 3);
    } finally {
      await context.close();
    }
    assert.deepEqual(errors, []);
  });

  it("at most maxWatchers watchers: the next is refused", async function () {
    const url = `ws://127.0.0.1:${server!.http!.port}${WATCH_WS_PATH}`;
    const open = (): Promise<WebSocket | number> =>
      new Promise((resolve) => {
        const ws = new WebSocket(url);
        ws.on("open", () => resolve(ws));
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
        ws.on("error", () => resolve(-1));
      });
    // The page of the test before has gone.
    await until(async () => server!.web!.watchers, (n) => n === 0, 5000, "no watcher left");
    const a = await open();
    const b = await open();
    const c = await open();
    assert.ok(a instanceof WebSocket && b instanceof WebSocket);
    assert.equal(c, 503);
    const frame = await new Promise<Buffer>((resolve) => (a as WebSocket).once("message", (d) => resolve(d as Buffer)));
    assert.equal(frame[0], WATCH_KIND);
    (a as WebSocket).close();
    (b as WebSocket).close();
  });
});
