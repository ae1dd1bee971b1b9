/**
 * `npm run watch -- --host H --port P`: watch a match live in the terminal.
 *
 * A client-library Client joins the server (Rev 1 has no spectators, so the watcher
 * takes a player slot; its ship drifts on its spawn orbit), or with `--no-slot` follows
 * the server's watch feed (modules/watch.ts, the page's /watch/ws) and takes none. It
 * draws what it knows:
 * the sun, planets, ships with names (placed where they cover nothing: placeLabels),
 * projectiles, the scoreboard from Stats, and under the arena a feed of kills, joins and chat.
 */
import { defineCommand } from "../cli";
import { pathToFileURL } from "node:url";
import { makeConfig } from "../modules/config";
import { ClientState, createClient, describeKill, type Client } from "../modules/client/client";
import { DEFAULT_PORT, MAX_PLAYERS, Msg, NAME_LENGTH } from "../modules/protocol/constants";
import { Fields, readChat } from "../modules/protocol/codec";
import {
  ARENA_RADIUS, Kind, kindOf, SHIP_NAME, SHIP_TYPES, SHOT_BASE, SHOT_TYPES, TEMPLATE_RADIUS, TemplateId, WEAPON_NAME,
} from "../modules/game/templates";
import { bytesToAscii } from "../modules/text";
import { NodeHost } from "../hosts/node/host";
import { WatchSource } from "../modules/client/watch";
import { WATCH_WS_PATH } from "../modules/watch";
import { WebSocket } from "ws";
import { installNodeKernels } from "../hosts/node/kernels";

export interface RenderOptions {
  /** Terminal size in character cells. */
  cols: number;
  rows: number;
  /** ANSI colours. */
  color: boolean;
  /** The server, "HOST:PORT", shown on the status line until the client is in the match. */
  server?: string;
  /** Kill feed and chat lines, oldest first: the last few are shown under the arena. */
  feed?: readonly string[];
}

/** Lines of the feed under the arena, when the terminal has room (16 rows or more). */
export const FEED_ROWS = 4;

/** A label to place: the cell of what it names and its width in cells. */
export interface LabelRequest {
  x: number;
  y: number;
  width: number;
}

/**
 * Where each label goes on a `cols` × `rows` grid, or null when it fits nowhere: beside its
 * cell on the right (one cell apart), on the left, then above or below either way. A label
 * covers no cell that `blocked` marks (non-zero at y × cols + x: the arena's edge and what
 * lies outside it, bodies, ships) and keeps a cell clear of every label placed before it on
 * its row; labels are placed in the order given. Pure: `blocked` is not changed.
 */
export function placeLabels(cols: number, rows: number, blocked: Uint8Array, labels: readonly LabelRequest[]): ({ x: number; y: number } | null)[] {
  const taken = new Uint8Array(cols * rows);
  const out: ({ x: number; y: number } | null)[] = [];
  const free = (lx: number, ly: number, w: number): boolean => {
    if (ly < 0 || ly >= rows || lx < 0 || lx + w > cols) return false;
    for (let x = lx; x < lx + w; x++) if (blocked[ly * cols + x] !== 0 || taken[ly * cols + x] !== 0) return false;
    return true;
  };
  for (const l of labels) {
    const w = l.width;
    const spots = [
      [l.x + 2, l.y], [l.x - 1 - w, l.y], [l.x + 1, l.y - 1], [l.x + 1, l.y + 1], [l.x - w, l.y - 1], [l.x - w, l.y + 1],
    ];
    let at: { x: number; y: number } | null = null;
    for (const [x, y] of spots) {
      if (w > 0 && free(x, y, w)) {
        at = { x, y };
        break;
      }
    }
    if (at !== null) for (let x = Math.max(0, at.x - 1); x < Math.min(cols, at.x + w + 1); x++) taken[at.y * cols + x] = 1;
    out.push(at);
  }
  return out;
}

const RESET = "\x1b[0m";
const SUN_COLOR = "\x1b[1;33m";
const PLANET_COLOR = "\x1b[36m";
const EDGE_COLOR = "\x1b[2m";
const SHOT_COLOR = "\x1b[31m";
const LABEL_COLOR = "\x1b[2;37m";
const PLAYER_COLORS: readonly string[] = ["\x1b[1;32m", "\x1b[1;35m", "\x1b[1;34m", "\x1b[1;31m", "\x1b[1;36m", "\x1b[1;33m", "\x1b[1;37m", "\x1b[1;91m"];
/** Ship glyphs by heading, in eighths of a turn counter-clockwise from +x. */
const ARROWS: readonly string[] = ["→", "↗", "↑", "↖", "←", "↙", "↓", "↘"];
const SHOT_GLYPHS: readonly string[] = ["·", "•", "*"];
/** Scoreboard columns: name (with " (me)"), score, ping, ship/weapon. */
const NAME_COLUMN = 13;
const BOARD_WIDTH = NAME_COLUMN + 6 + 5 + 2 + 10;

export function playerName(client: Client, slot: number): string {
  return bytesToAscii(client.names, slot * NAME_LENGTH, client.nameLength[slot]);
}

/** A character grid with a colour per cell. */
class Canvas {
  readonly w: number;
  readonly h: number;
  readonly ch: string[];
  readonly col: string[];
  constructor(w: number, h: number) {
    this.w = w;
    this.h = h;
    this.ch = new Array<string>(w * h).fill(" ");
    this.col = new Array<string>(w * h).fill("");
  }
  put(x: number, y: number, c: string, color: string): void {
    if (x < 0 || y < 0 || x >= this.w || y >= this.h) return;
    this.ch[y * this.w + x] = c;
    this.col[y * this.w + x] = color;
  }
  /** Write `s` from column `x`, clipped before column `end`. */
  text(x: number, y: number, s: string, color: string, end = this.w): void {
    for (let i = 0; i < s.length && x + i < end; i++) this.put(x + i, y, s[i], color);
  }
  line(y: number, color: boolean): string {
    let out = "";
    let cur = "";
    for (let x = 0; x < this.w; x++) {
      const c = color ? this.col[y * this.w + x] : "";
      if (c !== cur) {
        out += c === "" ? RESET : RESET + c;
        cur = c;
      }
      out += this.ch[y * this.w + x];
    }
    if (cur !== "") out += RESET;
    return out.replace(/\s+$/, "");
  }
}

/**
 * One frame: the arena on the left, the scoreboard on the right, a status line below.
 * It fits `cols` × `rows` down to 60 × 10 with the scoreboard (an 80 × 24 terminal shows all
 * of it), and down to 18 × 10 without.
 */
export function renderFrame(client: Client, o: RenderOptions): string {
  const board = o.cols >= 60 ? BOARD_WIDTH : 0;
  const feedRows = o.feed !== undefined && o.rows >= 16 ? FEED_ROWS : 0;
  // Arena rows 0..mapH-1 (y = -ARENA_RADIUS alone would reach row mapH), the feed, then the status line.
  const mapH = Math.max(8, o.rows - 1 - feedRows);
  // Arena columns 0..mapW; terminal cells are about twice as tall as wide.
  const mapW = Math.max(16, Math.min(o.cols - (board > 0 ? board + 3 : 1), mapH * 2));
  const cv = new Canvas(board > 0 ? mapW + 2 + board : mapW + 1, mapH + 1 + feedRows);
  const sx = (x: number): number => Math.floor(((x + ARENA_RADIUS) / (2 * ARENA_RADIUS)) * mapW);
  const sy = (y: number): number => Math.floor(((ARENA_RADIUS - y) / (2 * ARENA_RADIUS)) * mapH);
  const cellW = (2 * ARENA_RADIUS) / mapW;
  const cellH = (2 * ARENA_RADIUS) / mapH;

  for (let k = 0; k < 4 * (mapW + mapH); k++) {
    const a = (k / (4 * (mapW + mapH))) * 2 * Math.PI;
    cv.put(sx(ARENA_RADIUS * Math.cos(a) * 0.999), sy(ARENA_RADIUS * Math.sin(a) * 0.999), ".", EDGE_COLOR);
  }
  const disc = (x: number, y: number, r: number, c: string, color: string): void => {
    const cx = sx(x);
    const cy = sy(y);
    const rx = Math.ceil(r / cellW);
    const ry = Math.ceil(r / cellH);
    for (let dy = -ry; dy <= ry; dy++)
      for (let dx = -rx; dx <= rx; dx++) {
        const wx = dx * cellW;
        const wy = dy * cellH;
        if (wx * wx + wy * wy <= r * r || (dx === 0 && dy === 0)) cv.put(cx + dx, cy + dy, c, color);
      }
  };

  // Bodies first, then projectiles, then the ships, then their names where they fit.
  for (let pass = 0; pass < 4; pass++) {
    for (let i = 0; i < client.entityCapacity; i++) {
      if (client.alive[i] === 0) continue;
      const t = client.type[i];
      const kind = kindOf(t);
      const x = client.x[i];
      const y = client.y[i];
      if (pass === 0 && kind === Kind.Sun) disc(x, y, TEMPLATE_RADIUS[t], "@", SUN_COLOR);
      else if (pass === 0 && kind === Kind.Planet) disc(x, y, TEMPLATE_RADIUS[t], t === TemplateId.PlanetLarge ? "O" : "o", PLANET_COLOR);
      else if (pass === 1 && kind === Kind.Shot) cv.put(sx(x), sy(y), SHOT_GLYPHS[(t - SHOT_BASE) % SHOT_TYPES], SHOT_COLOR);
      else if (pass === 2 && kind === Kind.Ship) {
        const slot = client.owner[i] & 0xffff;
        cv.put(sx(x), sy(y), ARROWS[Math.round(client.rot[i] / 4500) % 8], PLAYER_COLORS[slot % PLAYER_COLORS.length]);
      }
    }
  }
  // Labels cover nothing drawn so far (the edge, bodies, ships, and, with a scoreboard to
  // the right, nothing past the arena's columns) and nothing outside the arena's circle.
  const cols = mapW + 1;
  const blocked = new Uint8Array(cols * mapH);
  for (let y = 0; y < mapH; y++)
    for (let x = 0; x < cols; x++) {
      const wx = (x + 0.5) * cellW - ARENA_RADIUS;
      const wy = ARENA_RADIUS - (y + 0.5) * cellH;
      const ch = cv.ch[y * cv.w + x];
      // Projectiles come and go: a label may cover them.
      if ((ch !== " " && SHOT_GLYPHS.indexOf(ch) < 0) || wx * wx + wy * wy >= ARENA_RADIUS * ARENA_RADIUS) blocked[y * cols + x] = 1;
    }
  const named: number[] = [];
  for (let i = 0; i < client.entityCapacity; i++) {
    if (client.alive[i] === 0 || kindOf(client.type[i]) !== Kind.Ship) continue;
    const slot = client.owner[i] & 0xffff;
    if (slot < MAX_PLAYERS && client.present[slot] !== 0) named.push(i);
  }
  // Our own ship's name first, then by slot.
  named.sort((a, b) => Number(client.owner[b] === client.selfId) - Number(client.owner[a] === client.selfId) || (client.owner[a] & 0xffff) - (client.owner[b] & 0xffff));
  const texts = named.map((i) => playerName(client, client.owner[i] & 0xffff).slice(0, 12));
  const spots = placeLabels(cols, mapH, blocked, named.map((i, k) => ({ x: sx(client.x[i]), y: sy(client.y[i]), width: texts[k].length })));
  spots.forEach((p, k) => {
    if (p !== null) cv.text(p.x, p.y, texts[k], LABEL_COLOR, cols);
  });

  if (board > 0) {
    const bx = mapW + 2;
    cv.text(bx, 0, "lwar", "\x1b[1m");
    cv.text(bx, 1, "player".padEnd(NAME_COLUMN) + "score".padStart(6) + "ping".padStart(5) + "  ship".padEnd(12), "\x1b[4m");
    const order: number[] = [];
    for (let s = 0; s < MAX_PLAYERS; s++) if (client.present[s] !== 0) order.push(s);
    order.sort((a, b) => client.scores[b] - client.scores[a] || a - b);
    let row = 2;
    for (const s of order) {
      if (row >= mapH - 1) break;
      const name = playerName(client, s);
      const label = s === client.selfSlot ? `${name.slice(0, NAME_COLUMN - 5)} (me)` : name.slice(0, NAME_COLUMN - 1);
      const ship = SHIP_NAME[client.ship[s] % SHIP_TYPES].slice(0, 5) + "/" + WEAPON_NAME[client.weapon[s] % SHOT_TYPES].slice(0, 4);
      const line = label.padEnd(NAME_COLUMN) + String(client.scores[s]).padStart(6) + String(client.pings[s]).padStart(5) + "  " + ship;
      cv.text(bx, row++, line, PLAYER_COLORS[s % PLAYER_COLORS.length]);
    }
  }
  let shots = 0;
  let ships = 0;
  for (let i = 0; i < client.entityCapacity; i++) {
    if (client.alive[i] === 0) continue;
    const kind = kindOf(client.type[i]);
    if (kind === Kind.Shot) shots++;
    else if (kind === Kind.Ship) ships++;
  }
  const status =
    o.server !== undefined && client.state < ClientState.Connected
      ? `connecting to ${o.server}…`
      : `${client.playerCount()} players, ${ships} ships, ${shots} projectiles, ${client.entityCount} entities`;
  const feed = o.feed ?? [];
  for (let k = 0; k < feedRows; k++) {
    const line = feed[feed.length - feedRows + k];
    for (let x = 0; x < cv.w; x++) cv.put(x, mapH + k, " ", "");
    if (line !== undefined) cv.text(0, mapH + k, line, "");
  }
  const statusRow = mapH + feedRows;
  for (let x = 0; x < cv.w; x++) cv.put(x, statusRow, " ", "");
  cv.text(0, statusRow, status, LABEL_COLOR);
  const lines: string[] = [];
  for (let y = 0; y < cv.h; y++) lines.push(cv.line(y, o.color));
  return lines.join("\n");
}

/** Most lines the feed keeps. */
const FEED_KEEP = 32;

/**
 * The watcher's feed, kept up to date from the client: kills (onKill, worded by
 * describeKill), joins (onPlayerJoined) and chat lines, oldest first.
 */
export function watchFeed(client: Client): string[] {
  const feed: string[] = [];
  const add = (line: string): void => {
    feed.push(line);
    if (feed.length > FEED_KEEP) feed.shift();
  };
  const nameOf = (id: number): string => playerName(client, id & 0xffff);
  client.onKill = (victim, killer, cause, weapon) => {
    add(describeKill(nameOf(victim), killer < 0 ? null : nameOf(killer), cause, weapon >= SHOT_BASE && weapon < SHOT_BASE + SHOT_TYPES ? WEAPON_NAME[weapon - SHOT_BASE] : null));
  };
  client.onPlayerJoined = (_id, b, o, n) => add(`${bytesToAscii(b, o, n)} joined`);
  client.onRename = (id, b, o, n) => add(`${nameOf(id)} is now ${bytesToAscii(b, o, n)}`);
  client.listener = {
    reliable: (_c, type, _seq, b, o) => {
      if (type !== Msg.Chat) return;
      const f = new Fields();
      readChat(b, o, f);
      add(`<${nameOf(f.id)}> ${bytesToAscii(b, f.textOffset, f.textLength)}`);
    },
    unreliable: () => {},
  };
  return feed;
}

export const watchCommand = defineCommand({
  name: "watch",
  script: "npm run watch",
  summary: "show a match live in the terminal.",
  options: {
    host: { type: "string", default: "127.0.0.1", arg: "ADDR", help: "server address" },
    port: { type: "int", default: DEFAULT_PORT, min: 1, max: 65535, help: "server UDP port" },
    name: { type: "string", default: "watch", arg: "NAME", help: `the watcher's player name, 1..${NAME_LENGTH - 1} characters` },
    "no-slot": { type: "flag", help: "take no player slot: follow the server's watch feed over its HTTP port (ws://HOST:HTTP-PORT/watch/ws)" },
    "http-port": { type: "int", default: 8080, min: 1, max: 65535, help: "the server's HTTP port, for --no-slot" },
    fps: { type: "int", default: 10, min: 1, max: 30, help: "frames per second" },
    duration: { type: "number", default: 0, min: 0, max: 86400, arg: "S", help: "stop after S seconds; 0 watches until Ctrl-C" },
    "no-color": { type: "flag", help: "plain text" },
  },
  notes:
    "Rev 1 has no spectator mode: the watcher takes a player slot, and its ship drifts. With --no-slot it takes none: the server sends it the whole match over its HTTP port (the big-screen view's feed), and it sends nothing.",
  failure: "the server never answered",
});

async function main(): Promise<void> {
  // Clients run the transport's C as WebAssembly (hosts/node/kernels.ts).
  installNodeKernels();
  const v = watchCommand.parse();
  const address = v.host;
  const port = v.port;
  const fps = v.fps;
  const duration = v.duration;
  const name = v.name;
  if (name.length === 0 || name.length >= NAME_LENGTH) watchCommand.usage(`--name must be 1..${NAME_LENGTH - 1} characters, got '${name}'`);
  const color = !v["no-color"] && process.stdout.isTTY === true;
  const tty = process.stdout.isTTY === true;

  if (v["no-slot"]) {
    await watchWithoutSlot(address, v["http-port"], fps, duration, color, tty);
    return;
  }
  const server = `${address.includes(":") ? `[${address}]` : address}:${port}`;
  console.log(`watch: connecting to ${server}…`);
  const host = new NodeHost({ tickMs: 10 });
  await host.listen(0, address.includes(":") ? "::" : "0.0.0.0");
  const client = createClient(makeConfig(), host, address, port);
  client.joinAs(name);
  const feed = watchFeed(client);
  host.attach(client);
  client.connect();
  const start = performance.now();
  let frames = 0;
  let maxPlayers = 0;
  let stopping = false;
  if (tty) process.stdout.write("\x1b[?1049h\x1b[?25l");

  const stop = async (): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const seconds = (performance.now() - start) / 1000;
    clearInterval(timer);
    client.disconnect();
    const deadline = performance.now() + 1000;
    while (client.selfId >= 0 && performance.now() < deadline && client.state === ClientState.Disconnecting) await new Promise((r) => setTimeout(r, 20));
    if (tty) process.stdout.write("\x1b[?25h\x1b[?1049l");
    else if (client.selfId >= 0) console.log(renderFrame(client, { cols: 80, rows: 24, color: false }));
    const scores: string[] = [];
    for (let s = 0; s < MAX_PLAYERS; s++) if (client.present[s] !== 0) scores.push(`${playerName(client, s)} ${client.scores[s]}`);
    const state = Object.keys(ClientState).find((k) => ClientState[k as keyof typeof ClientState] === client.state) ?? String(client.state);
    if (client.selfId < 0 && client.state !== ClientState.Rejected) console.log(`watch: no answer from ${server} after ${seconds.toFixed(1)} s`);
    else console.log(
      `watch: ${seconds.toFixed(1)} s, ${frames} frames, ${maxPlayers} players seen, ${client.updatesReceived} updates, ` +
        `state ${state}; scores: ${scores.length > 0 ? scores.join(", ") : "none"}`,
    );
    await host.close();
    process.exit(client.selfId >= 0 ? 0 : 1);
  };

  const timer = setInterval(() => {
    if (client.playerCount() > maxPlayers) maxPlayers = client.playerCount();
    if (client.state >= ClientState.Closed || (duration > 0 && performance.now() - start >= duration * 1000)) {
      void stop();
      return;
    }
    const cols = process.stdout.columns ?? 120;
    const rows = process.stdout.rows ?? 40;
    const frame = renderFrame(client, { cols, rows, color, server, feed });
    frames++;
    if (tty) process.stdout.write("\x1b[H" + frame.split("\n").join("\x1b[K\n") + "\x1b[K\x1b[J");
  }, 1000 / fps);
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
}

/**
 * `--no-slot`: a Client that never connects, driven by the server's watch feed
 * (modules/client/watch.ts), drawn as the player's view is. Exits 0 once frames came.
 */
async function watchWithoutSlot(address: string, httpPort: number, fps: number, duration: number, color: boolean, tty: boolean): Promise<void> {
  const where = `${address.includes(":") ? `[${address}]` : address}:${httpPort}`;
  console.log(`watch: following ws://${where}${WATCH_WS_PATH} (no slot)…`);
  const client = createClient(makeConfig(), { send() {}, now: () => performance.now(), log() {} }, "watch", 0);
  const feed = watchFeed(client);
  const source = new WatchSource(client);
  const ws = new WebSocket(`ws://${where}${WATCH_WS_PATH}`);
  ws.binaryType = "nodebuffer";
  ws.on("message", (data: Buffer) => source.frame(data, data.length));
  const start = performance.now();
  let frames = 0;
  let stopping = false;
  let closed = false;
  ws.on("close", () => {
    closed = true;
  });
  ws.on("error", () => {
    closed = true;
  });
  if (tty) process.stdout.write("\x1b[?1049h\x1b[?25l");
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    clearInterval(timer);
    ws.close();
    if (tty) process.stdout.write("\x1b[?25h\x1b[?1049l");
    else if (source.frames > 0) console.log(renderFrame(client, { cols: 80, rows: 24, color: false, feed }));
    const seconds = (performance.now() - start) / 1000;
    const scores: string[] = [];
    for (let s = 0; s < MAX_PLAYERS; s++) if (client.present[s] !== 0) scores.push(`${playerName(client, s)} ${client.scores[s]}`);
    if (source.frames === 0) console.log(`watch: no watch feed from ${where} after ${seconds.toFixed(1)} s`);
    else console.log(`watch: ${seconds.toFixed(1)} s, ${frames} frames drawn, ${source.frames} watch frames, no slot; scores: ${scores.length > 0 ? scores.join(", ") : "none"}`);
    process.exit(source.frames > 0 ? 0 : 1);
  };
  const timer = setInterval(() => {
    if (closed || (duration > 0 && performance.now() - start >= duration * 1000)) {
      stop();
      return;
    }
    const frame = renderFrame(client, { cols: process.stdout.columns ?? 120, rows: process.stdout.rows ?? 40, color, server: where, feed });
    frames++;
    if (tty) process.stdout.write("\x1b[H" + frame.split("\n").join("\x1b[K\n") + "\x1b[K\x1b[J");
  }, 1000 / fps);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
