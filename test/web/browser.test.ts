/**
 * The browser game in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) on a server started here on free ports. Two pages and one UDP bot
 * play; what one page does, the other shows. The pages' state is read through the
 * `window.lwar` debug hook; screenshots go to a temporary folder (`npm run screenshots`
 * makes the ones in docs/).
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { CHROMIUM, launchChromium } from "./chromium";
import { ready } from "../../tools/screens";
import { makeConfig } from "../../modules/config";
import { Kind } from "../../modules/game/templates";
import { serve, type Served } from "../../hosts/node/serve";
import { buildWeb } from "../../web/build";
import type { PageSnapshot } from "../../web/world";
import { sleep, udpPlayer, waitFor, type UdpPlayer } from "../integration/players";

export { CHROMIUM, CHROMIUM_ARGS, launchChromium } from "./chromium";

type Snap = PageSnapshot;

// Page-side code is passed as text: this file is typechecked for Node, without the DOM.
function snap(page: Page): Promise<Snap> {
  return page.evaluate("window.lwar.snapshot()") as Promise<Snap>;
}

/** Poll a page's snapshot until `cond` holds; returns that snapshot. */
async function until(page: Page, cond: (s: Snap) => boolean, ms: number, what: string): Promise<Snap> {
  const end = performance.now() + ms;
  for (;;) {
    const s = await snap(page);
    if (cond(s)) return s;
    if (performance.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}; last state: ${JSON.stringify({ phase: s.phase, status: s.status, players: s.players, chat: s.chat })}`);
    await sleep(50);
  }
}

describe("browser: two pages and a UDP bot in one match", function () {
  this.timeout(60000);
  let server: Served | null = null;
  let browser: Browser | null = null;
  let bot: UdpPlayer | null = null;
  const errors: string[] = [];

  before(function () {
    if (!existsSync(CHROMIUM)) {
      console.log(`      skipped: no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set LWAR_CHROMIUM)`);
      this.skip();
    }
  });

  after(async function () {
    if (browser !== null) await browser.close();
    if (bot !== null) await bot.host.close();
    if (server !== null) await server.close();
  });

  it("one page names itself, chats, thrusts and fires; the other shows it all, and the scoreboard lists all three", async function () {
    const started = performance.now();
    // The page as the sources build it now, not the copy in dist/.
    server = await serve({ config: makeConfig(), seed: 20240607, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: await buildWeb() });
    const url = `http://127.0.0.1:${server.http!.port}/`;
    browser = await launchChromium();
    // Two contexts: each page has its own storage, like two people's browsers.
    const pages: Page[] = [];
    for (let k = 0; k < 2; k++) {
      const context = await browser.newContext({ viewport: { width: 960, height: 600 } });
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(`page ${k + 1}: ${e.message}`));
      await page.goto(url);
      await ready(page);
      pages.push(page);
    }
    const [alice, other] = pages;
    const dir = mkdtempSync(join(tmpdir(), "lwar-browser-"));
    const shots = [join(dir, "alice.png"), join(dir, "other.png")];
    // A first visit opens the menu. One page picks a name; the other keeps its own.
    await alice.fill("#name", "Alice");
    await alice.press("#name", "Enter");
    await other.click("#menu button[type=submit]");
    for (const page of pages) await until(page, (s) => s.phase === "spawning" || s.phase === "playing", 10000, "the page to join");
    bot = await udpPlayer(server.udp.port, "wander");
    await waitFor(() => bot!.client.selfId >= 0, 5000, "the UDP bot to join");
    const a = await until(alice, (s) => s.phase === "playing" && s.players.some((p) => p.slot === s.selfSlot && p.name === "Alice"), 10000, "Alice to fly under her name");
    const aliceSlot = a.selfSlot;
    const aliceId = a.selfId;

    await alice.keyboard.press("Enter");
    await alice.keyboard.type("hello from Alice");
    await alice.keyboard.press("Enter");

    const o1 = await until(other, (s) => s.drawn.ships.some((x) => x.name === "Alice"), 10000, "the other page to draw Alice's ship");
    const before = o1.drawn.ships.find((x) => x.name === "Alice")!;
    await alice.keyboard.down("ArrowUp");
    await alice.keyboard.down("Space");
    try {
      const shot = await until(
        other,
        (s) => s.drawn.projectiles.some((p) => p.slot === aliceSlot) && s.entities.some((e) => e.kind === Kind.Shot && e.owner === aliceId),
        5000,
        "the other page to draw one of Alice's projectiles",
      );
      assert.ok(shot.drawn.ships.some((x) => x.name === "Alice"));
      await sleep(600);
      await alice.screenshot({ path: shots[0] });
    } finally {
      await alice.keyboard.up("ArrowUp");
      await alice.keyboard.up("Space");
    }
    const movedFrom = (s: Snap): number => {
      const ship = s.drawn.ships.find((x) => x.name === "Alice");
      return ship === undefined ? 0 : Math.hypot(ship.x - before.x, ship.y - before.y);
    };
    const o2 = await until(other, (s) => movedFrom(s) > 50, 5000, "the other page to draw Alice's ship moving");
    assert.ok(o2.drawn.frames > o1.drawn.frames + 10, "the other page keeps drawing frames");

    // The chat line, in the other page's DOM.
    await other.waitForFunction('document.getElementById("chat-log").textContent.includes("Alice: hello from Alice")', null, { timeout: 5000 });
    // The scoreboard lists all three players, with scores and pings.
    const botName = o2.players.find((p) => p.slot === bot!.client.selfSlot)!.name;
    const otherName = o2.players.find((p) => p.slot === o2.selfSlot)!.name;
    await other.waitForFunction('document.querySelectorAll("#scores tbody tr").length === 3', null, { timeout: 5000 });
    const rows = (await other.evaluate(
      'Array.from(document.querySelectorAll("#scores tbody tr"), (tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent))',
    )) as string[][];
    const names = rows.map((r) => r[2]).sort();
    assert.deepEqual(names, ["Alice", botName, otherName].sort());
    for (const r of rows) {
      assert.match(r[0], /^[1-3]$/, "rank");
      assert.match(r[3], /^\d+$/, "score");
      assert.match(r[4], /^\d+$/, "kills");
      assert.match(r[5], /^\d+$/, "deaths");
      assert.match(r[6], /^\d+ ms$/, "ping");
    }
    assert.equal(rows[0][0], "1", "the first row ranks first");

    await other.screenshot({ path: shots[1] });
    console.log(`      screenshots: ${shots.join(" ")}`);
    console.log(`      browser test took ${((performance.now() - started) / 1000).toFixed(1)} s`);
    assert.deepEqual(errors, []);
  });
});
