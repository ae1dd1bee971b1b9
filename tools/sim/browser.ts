/**
 * The simulator test's web checks (tools/sim-test.ts), against the Moddable app's HTTP port:
 *
 * - the page: `/` and `/app.js` come back gzipped and byte for byte the resources
 *   `npm run build:page` wrote; another path is 404; a GET of `/ws` that is no upgrade, 400;
 * - the carriage, with `ws` and no browser: the handshake completes (ws checks
 *   Sec-WebSocket-Accept), a text message, a fragmented one and one over 512 bytes are
 *   dropped and counted, a client-library player joins over the WebSocket and leaves with
 *   Disconnect, and the board closes with 1000 "left";
 * - the game in headless Chromium: two pages and a UDP bot play; one page names itself,
 *   chats, thrusts and fires, and the other page shows its name, chat line, moving ship and
 *   a projectile, with all three on the scoreboard.
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import type { Page } from "playwright-core";
import WebSocket from "ws";
import { makeConfig } from "../../modules/config";
import { ClientState, createClient } from "../../modules/client/client";
import { Kind } from "../../modules/game/templates";
import { PAGES } from "../../hosts/moddable/pages";
import { SERVER_ADDRESS, SERVER_PORT, SocketHost } from "../../web/socket";
import type { PageSnapshot } from "../../web/world";
import { runBots, type BotSummary } from "../botlib";

export const CHROMIUM = process.env.LWAR_CHROMIUM ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"];

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

async function until<T>(probe: () => Promise<T>, cond: (v: T) => boolean, ms: number, what: string): Promise<T> {
  const end = performance.now() + ms;
  for (;;) {
    const v = await probe();
    if (cond(v)) return v;
    if (performance.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(100);
  }
}

interface Got {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Got> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { "accept-encoding": "gzip", ...headers } }, (res) => {
      const parts: Buffer[] = [];
      res.on("data", (d: Buffer) => parts.push(d));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts), ms: performance.now() - started }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.setTimeout(10000, () => req.destroy(new Error(`GET ${url}: no answer in 10 s`)));
  });
}

/** The page as served, against the resources in `folder`. Returns failures; prints what it saw. */
export async function checkPage(base: string, folder: string, say: (line: string) => void): Promise<string[]> {
  const failures: string[] = [];
  for (const page of PAGES) {
    const r = await get(base + page.path);
    const want = fs.readFileSync(path.join(folder, page.resource));
    const same = r.status === 200 && r.headers["content-encoding"] === "gzip" && Buffer.compare(r.body, want) === 0;
    say(`  GET ${page.path}: ${r.status}, ${r.headers["content-type"]}, ${r.headers["content-encoding"] ?? "identity"}, ${r.body.length} B in ${r.ms.toFixed(0)} ms${same ? ", the resource byte for byte" : ""}`);
    if (!same) failures.push(`GET ${page.path}: status ${r.status}, encoding ${r.headers["content-encoding"]}, ${r.body.length} B, not the ${want.length} B of ${page.resource}`);
  }
  const missing = await get(base + "/no-such-page");
  say(`  GET /no-such-page: ${missing.status}`);
  if (missing.status !== 404) failures.push(`GET /no-such-page: ${missing.status}, expected 404`);
  const plain = await get(base + "/ws");
  say(`  GET /ws without an upgrade: ${plain.status}`);
  if (plain.status !== 400) failures.push(`GET /ws without an upgrade: ${plain.status}, expected 400`);
  return failures;
}

/**
 * The carriage with `ws`: the handshake, messages the board drops, and a client-library
 * player's whole life over the WebSocket. Returns failures.
 */
export async function checkCarriage(wsUrl: string, say: (line: string) => void): Promise<string[]> {
  const failures: string[] = [];
  // A bare socket: the handshake, then what the board must drop.
  const started = performance.now();
  const bare = new WebSocket(wsUrl);
  try {
    await new Promise<void>((resolve, reject) => {
      bare.once("open", () => resolve());
      bare.once("error", reject);
      bare.once("unexpected-response", (_req, res) => reject(new Error(`upgrade answered ${res.statusCode}`)));
    });
  } catch (err) {
    return [`WebSocket handshake on ${wsUrl}: ${(err as Error).message}`];
  }
  say(`  handshake: 101 with a valid Sec-WebSocket-Accept in ${(performance.now() - started).toFixed(0)} ms`);
  bare.send("a text message", { binary: false });
  bare.send(Buffer.from([1, 2, 3]), { binary: true, fin: false });
  bare.send(Buffer.from([4, 5, 6]), { binary: true, fin: true });
  bare.send(Buffer.alloc(600, 7), { binary: true });
  await sleep(300);
  const bareClosed = new Promise<number>((resolve) => bare.once("close", (code: number) => resolve(code)));
  bare.close(1000, "done");
  const bareCode = await Promise.race([bareClosed, sleep(5000).then(() => -1)]);
  say(`  sent a text message, a message in two frames and one of 600 bytes; closed, the board answered ${bareCode}`);
  if (bareCode !== 1000) failures.push(`closing a bare connection: the board answered ${bareCode}, expected 1000`);

  // A client-library player over the WebSocket: join, then Disconnect; the board closes with 1000 "left".
  const socket = new WebSocket(wsUrl);
  const host = new SocketHost(socket);
  const client = createClient(makeConfig(), host, SERVER_ADDRESS, SERVER_PORT);
  socket.on("open", () => {
    host.attach(client, 10);
    client.connect();
  });
  socket.on("message", (data: Buffer, isBinary: boolean) => {
    if (isBinary) host.deliver(data);
  });
  socket.on("error", () => {});
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on("close", (code: number, reason: Buffer) => {
      host.stop();
      resolve({ code, reason: reason.toString() });
    }),
  );
  try {
    await until(async () => client.state, (s) => s === ClientState.Connected, 10000, "the WebSocket player to join");
    say(`  a client-library player joined over the WebSocket as slot ${client.selfSlot}, id 0x${client.selfId.toString(16)}`);
    await sleep(1000);
    client.disconnect();
    const c = await Promise.race([closed, sleep(8000).then(() => null)]);
    if (c === null) failures.push("the WebSocket player sent Disconnect, and the board did not close the connection within 8 s");
    else {
      say(`  it sent Disconnect; the board closed the connection with ${c.code} "${c.reason}"`);
      if (c.code !== 1000 || c.reason !== "left") failures.push(`after Disconnect the board closed with ${c.code} "${c.reason}", expected 1000 "left"`);
    }
  } catch (err) {
    failures.push((err as Error).message);
  } finally {
    host.stop();
    if (socket.readyState === WebSocket.OPEN) socket.terminate();
  }
  return failures;
}

export interface PlayResult {
  failures: string[];
  bots: BotSummary | null;
  /** When play started and ended, in the caller's clock (seconds). */
  from: number;
  to: number;
}

/**
 * Two Chromium pages and a UDP bot for `durationS` seconds. `now` is the caller's clock in
 * seconds (the instruments' time base). `udpBot: false` leaves the bot out, and `others`
 * counts players the caller runs meanwhile (they show on the scoreboard).
 */
export async function playInChromium(o: {
  pageUrl: string;
  udpPort: number;
  udpBot?: boolean;
  others?: number;
  durationS: number;
  now: () => number;
  say: (line: string) => void;
  shots: string;
}): Promise<PlayResult> {
  const { say } = o;
  const withBot = o.udpBot ?? true;
  const players = 2 + (withBot ? 1 : 0) + (o.others ?? 0);
  const failures: string[] = [];
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, timeout: 30000 });
  const errors: string[] = [];
  const from = o.now();
  let bots: Promise<BotSummary> | null = null;
  let summary: BotSummary | null = null;
  try {
    const pages: Page[] = [];
    for (let k = 0; k < 2; k++) {
      const context = await browser.newContext({ viewport: { width: 960, height: 600 } });
      const page = await context.newPage();
      page.on("pageerror", (e) => errors.push(`page ${k + 1}: ${e.message}`));
      const t = performance.now();
      await page.goto(o.pageUrl);
      await page.waitForFunction("window.lwar !== undefined", undefined, { timeout: 10000 });
      say(`  page ${k + 1} loaded from the board in ${(performance.now() - t).toFixed(0)} ms`);
      pages.push(page);
    }
    const snap = (k: number) => () => pages[k].evaluate("window.lwar.snapshot()") as Promise<PageSnapshot>;
    const [alice, other] = pages;
    // A page joins when Play is pressed: one picks a name, the other keeps the server's.
    await alice.fill("#name", "Alice");
    await alice.press("#name", "Enter");
    await other.click("#menu button[type=submit]");
    for (let k = 0; k < 2; k++) await until(snap(k), (s) => s.phase === "spawning" || s.phase === "playing", 15000, `page ${k + 1} to join`);
    say("  both pages joined over the WebSocket");
    if (withBot) bots = runBots({ host: "127.0.0.1", port: o.udpPort, count: 1, durationS: o.durationS, behaviour: "wander", chatEveryS: 4, seed: 7 });
    const playEnd = performance.now() + o.durationS * 1000;

    const a = await until(snap(0), (s) => s.phase === "playing" && s.players.some((p) => p.slot === s.selfSlot && p.name === "Alice"), 15000, "Alice to fly under her name");
    await alice.keyboard.press("Enter");
    await alice.keyboard.type("hello from Alice");
    await alice.keyboard.press("Enter");
    const o1 = await until(snap(1), (s) => s.drawn.ships.some((x) => x.name === "Alice"), 15000, "the other page to draw Alice's ship");
    const before = o1.drawn.ships.find((x) => x.name === "Alice")!;
    await alice.keyboard.down("ArrowUp");
    await alice.keyboard.down("Space");
    try {
      await until(snap(1), (s) => s.drawn.projectiles.some((p) => p.slot === a.selfSlot) && s.entities.some((e) => e.kind === Kind.Shot && e.owner === a.selfId), 10000, "the other page to draw one of Alice's projectiles");
      say("  Alice fires: the other page draws her projectile");
      await sleep(800);
      await alice.screenshot({ path: path.join(o.shots, "alice.png") });
    } finally {
      await alice.keyboard.up("ArrowUp");
      await alice.keyboard.up("Space");
    }
    const moved = (s: PageSnapshot): number => {
      const ship = s.drawn.ships.find((x) => x.name === "Alice");
      return ship === undefined ? 0 : Math.hypot(ship.x - before.x, ship.y - before.y);
    };
    await until(snap(1), (s) => moved(s) > 50, 10000, "the other page to draw Alice's ship moving");
    say("  Alice thrusts: the other page draws her ship moving");
    // The page's own record of the chat (its log shows only the newest lines, and bots chat fast).
    await until(snap(1), (s) => s.chat.some((l) => l.name === "Alice" && l.text === "hello from Alice"), 10000, "the other page to show Alice's line");
    say('  the other page shows "Alice: hello from Alice"');
    await other.waitForFunction(`document.querySelectorAll("#scores tbody tr").length === ${players}`, null, { timeout: 10000 });
    const rows = (await other.evaluate('Array.from(document.querySelectorAll("#scores tbody tr"), (tr) => Array.from(tr.querySelectorAll("td"), (td) => td.textContent))')) as string[][];
    // Columns: rank, colour, name, score, kills, deaths, ping (web/main.ts).
    say(`  the other page's scoreboard: ${rows.map((r) => `${r[0]}. ${r[2]} ${r[3]}`).join("; ")}`);
    if (!rows.some((r) => r[2] === "Alice")) failures.push("the scoreboard does not list Alice");

    // Keep playing until the time is up: Alice turns, thrusts and fires now and then.
    let k = 0;
    while (performance.now() < playEnd - 1000) {
      const key = ["ArrowUp", "ArrowLeft", "Space", "ArrowRight"][k++ % 4];
      await alice.keyboard.down(key);
      await sleep(700);
      await alice.keyboard.up(key);
      await sleep(300);
    }
    const last = await snap(1)();
    say(`  after ${o.durationS} s: the other page is ${last.phase}, ${last.players.length} players, ${last.drawn.frames} frames drawn`);
    if (last.phase !== "playing" && last.phase !== "dead" && last.phase !== "spawning") failures.push(`the other page ended ${last.phase}`);
    await other.screenshot({ path: path.join(o.shots, "other.png") });
    say(`  screenshots: ${path.join(o.shots, "alice.png")} ${path.join(o.shots, "other.png")}`);
  } catch (err) {
    failures.push((err as Error).message);
  } finally {
    if (bots !== null) summary = await bots;
    await browser.close();
  }
  if (withBot && summary !== null) {
    say(`  UDP bot: ${summary.connected}/${summary.bots} connected, ${summary.disconnectedCleanly} left cleanly; Update ${summary.updatesPerSecond.toFixed(1)}/s`);
    if (summary.connected !== 1 || summary.disconnectedCleanly !== 1) failures.push(`the UDP bot: ${summary.connected} connected, ${summary.disconnectedCleanly} left cleanly`);
  } else if (withBot) failures.push("the UDP bot never started");
  for (const e of errors) failures.push(`page error: ${e}`);
  return { failures, bots: summary, from, to: o.now() };
}
