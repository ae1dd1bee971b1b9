/**
 * The browser game: a client-library Client over a WebSocket to `/ws` on the page's own
 * host, a canvas that draws what it knows at the display's frame rate, and the panels
 * around it (status, scoreboard, chat, kill feed, menu, notices). The page joins only when
 * Play is pressed, comes back by itself after the connection ends or the tab was hidden
 * a while (web/session.ts), and makes its sounds once the player has touched it.
 * `window.lwar` exposes the client and a plain snapshot for tests and curious players.
 */
import { makeConfig } from "../modules/config";
import { ClientState, createClient, type Client } from "../modules/client/client";
import { MAX_PLAYERS, NAME_LENGTH, CHAT_LENGTH } from "../modules/protocol/constants";
import { INPUT_SHOOTING, PRINTABLE_FIRST, PRINTABLE_LAST } from "../modules/protocol/codec";
import { SHIP_HP, SHIP_NAME, SHIP_TYPES, SHOT_TYPES, WEAPON_DAMAGE, WEAPON_NAME } from "../modules/game/templates";
import { POS_ONE, STEP_HZ } from "../modules/units";
import { SERVER_ADDRESS, SERVER_PORT, SocketHost } from "./socket";
import { NOT_CONNECTED, World, type Drawn, type PageSnapshot, type Phase } from "./world";
import { Renderer, SLOT_COLORS } from "./render";
import { Controls, typing } from "./input";
import { Effects } from "./effects";
import { KillFeed, listenKills } from "./feed";
import { addOverlays, showMute } from "./overlays";
import {
  awayMsFrom, formatDuration, FULL_RETRY_MS, isWatchPage, outcomeOf, panelFor, reconnectDelayMs, WATCH_RETRY_MS, type Outcome, type Panel,
  type Stage,
} from "./session";
import { WatchSource } from "../modules/client/watch";
import { WATCH_WS_PATH } from "../modules/watch";
import { ShipStepper } from "../modules/game/ship-stepper";
import { WasmKernels } from "../modules/native-wasm";
import { pageKernels } from "./boot";
import { Sound } from "./sound";
import { inputDelaySteps, type Predictor } from "./predict";
import { flow, sideways, upright, type Box } from "./flow";
import { MINIMAP_MARGIN, minimapSize } from "./layout";

/** The page keeps entity indices below this; the server's default pool is 192. */
const MAX_ENTITIES = 4096;
const config = makeConfig({ maxEntities: MAX_ENTITIES });
/** A kicked connection the server has not closed after this long is closed here. */
const KICK_CLOSE_MS = 2000;
/** How long a passing message ("Back after 20 s away") stays in the status line. */
const TOAST_MS = 4000;

interface Session {
  /** null for the idle session behind the first menu: it never connects. */
  socket: WebSocket | null;
  host: SocketHost | null;
  client: Client;
  world: World;
  /** When the server's Leave for us arrived, -1 before. */
  kickedAt: number;
}

declare global {
  interface Window {
    lwar: {
      readonly client: Client;
      readonly world: World;
      readonly drawn: Drawn;
      /** Our ship as predicted (web/predict.ts). */
      readonly own: Predictor;
      /** The last turn key pressed while flying: see `turnProbe`. */
      readonly turn: TurnProbe;
      /** The last Space pressed: see `fireProbe`. */
      readonly fire: { keyFrame: number; keyAt: number; frame: number; at: number };
      snapshot(): PageSnapshot;
    };
  }
}

/**
 * Key to screen: the number of frames drawn when a turn key went down (`keyFrame`, at
 * `keyAt`, the event's time) and the number drawn once a frame first showed our ship's
 * heading moved that way (`frame`, at `at`, that frame's time); -1 until then.
 */
interface TurnProbe {
  keyFrame: number;
  keyAt: number;
  frame: number;
  at: number;
  /** +1 for left (counter-clockwise), -1 for right. */
  sign: number;
  /** The heading drawn before the key (radians). */
  from: number;
}

/** The client's Input ticks (ms): SocketHost's default. */
const TICK_MS = 10;
/** A drawn heading this far (radians) the key's way has turned. */
const TURNED = 0.2 * (Math.PI / 180);

function $<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** Printable ASCII only, as the server accepts, trimmed and cut to `max` characters. */
function ascii(text: string, max: number): string {
  let out = "";
  for (let i = 0; i < text.length && out.length < max; i++) {
    const c = text.charCodeAt(i);
    if (c >= PRINTABLE_FIRST && c <= PRINTABLE_LAST) out += text[i];
  }
  return out.trim();
}

function storage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

function load(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

function save(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Private mode: the choice lasts for this page only.
  }
}

const canvas = $<HTMLCanvasElement>("arena");
const statusEl = $("status");
const hudEl = $("hud");
const scoresBody = $("scores").querySelector("tbody") as HTMLTableSectionElement;
const chatLog = $("chat-log");
const chatForm = $<HTMLFormElement>("chat-form");
const chatInput = $<HTMLInputElement>("chat-input");
const menu = $<HTMLFormElement>("menu");
const nameInput = $<HTMLInputElement>("name");
const shipSelect = $<HTMLSelectElement>("ship");
const weaponSelect = $<HTMLSelectElement>("weapon");
const leaveButton = $<HTMLButtonElement>("leave");
const playButton = $<HTMLButtonElement>("play");
const overlay = $("overlay");
const overlayText = $("overlay-text");
const retry = $<HTMLButtonElement>("retry");
const touch = $("touch");
const extra = addOverlays();

const renderer = new Renderer(canvas);
const controls = new Controls($("stick"), $("knob"), $("fire"));
const sound = new Sound(storage());
const effects = new Effects(sound, extra.flash, () => performance.now());
const feed = new KillFeed();
renderer.overlay = (ctx, cx, cy, s, now) => effects.draw(ctx, cx, cy, s, now);
const awayMs = awayMsFrom(location.search);

for (let s = 0; s < SHIP_TYPES; s++) shipSelect.add(new Option(`${SHIP_NAME[s]} (${SHIP_HP[s]} hp)`, String(s)));
for (let w = 0; w < SHOT_TYPES; w++) weaponSelect.add(new Option(`${WEAPON_NAME[w]} (${WEAPON_DAMAGE[w]} damage)`, String(w)));
let myName = ascii(load("lwar.name") ?? "", NAME_LENGTH - 1);
let myShip = Math.min(Number(load("lwar.ship") ?? 0) | 0, SHIP_TYPES - 1);
let myWeapon = Math.min(Number(load("lwar.weapon") ?? 0) | 0, SHOT_TYPES - 1);

// ---------------------------------------------------------------- the page's stage

let stage: Stage = "menu";
let menuOpen = false;
/** Why the last connection ended, while the stage is retry or ended. */
let outcome: Outcome = "lost";
/** Tries since the last connection that worked, and when the next one starts. */
let attempt = 0;
let retryAt = 0;
/** What we asked for when we said Disconnect: leave for the menu, or away. */
let intent: "leave" | "away" | null = null;
let hiddenAt = -1;
/** When the tab that went away was hidden. */
let awayFrom = -1;
let awayTimer: ReturnType<typeof setTimeout> | null = null;
let toast = "";
let toastUntil = 0;

/** The big-screen view (/watch): the whole arena, no slot, nothing sent. */
const watching = isWatchPage(location.pathname, location.search);
let watchSource: WatchSource | null = null;
/** The game's ship loop, for our own ship's prediction: an instance of kernels.wasm, which ./boot.ts compiled. */
let stepper: ShipStepper | null = null;
if (!watching && pageKernels !== null) {
  const kernels = WasmKernels.create(pageKernels, 0);
  stepper = new ShipStepper(kernels, kernels.memory);
}
let session = watching ? openWatch() : open(false);
if (watching) {
  stage = "watch";
  retryAt = -1;
  effects.follow(session.world);
  document.body.classList.add("watch");
}

/** A watcher's session: the watch feed (modules/watch.ts) drives a client that never connects. */
function openWatch(): Session {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + WATCH_WS_PATH;
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  const host = new SocketHost({ readyState: 3, send() {} });
  const client = createClient(config, host, SERVER_ADDRESS, SERVER_PORT);
  const world = new World(client, () => performance.now());
  const source = new WatchSource(client);
  watchSource = source;
  listenKills(client, (victim, killer, cause, weapon) => feed.report(world, victim, killer, cause, weapon, performance.now()));
  socket.onmessage = (e: MessageEvent) => {
    if (typeof e.data !== "string") {
      const bytes = new Uint8Array(e.data as ArrayBuffer);
      source.frame(bytes, bytes.length);
    }
  };
  socket.onclose = (e: CloseEvent) => world.closed(e.code, e.reason);
  return { socket, host: null, client, world, kickedAt: -1 };
}

function open(connect: boolean): Session {
  let socket: WebSocket | null = null;
  let host: SocketHost;
  if (connect) {
    const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
    socket = new WebSocket(url);
    socket.binaryType = "arraybuffer";
    host = new SocketHost(socket);
  } else host = new SocketHost({ readyState: 3, send() {} });
  const client = createClient(config, host, SERVER_ADDRESS, SERVER_PORT);
  const world = new World(client, () => performance.now());
  world.own.stepper = stepper;
  const s: Session = { socket, host: connect ? host : null, client, world, kickedAt: -1 };
  listenKills(client, (victim, killer, cause, weapon) => feed.report(world, victim, killer, cause, weapon, performance.now()));
  if (socket !== null) {
    introduce(client);
    socket.onopen = () => {
      host.attach({ receive: (b, n, a, p) => client.receive(b, n, a, p), tick: (now) => tick(s, now) });
      client.connect();
    };
    socket.onmessage = (e: MessageEvent) => {
      if (typeof e.data !== "string") host.deliver(e.data as ArrayBuffer);
    };
    socket.onclose = (e: CloseEvent) => {
      world.closed(e.code, e.reason);
      host.stop();
    };
  }
  return s;
}

/**
 * What we tell the server with the acknowledgement of our Join: the name, ship and weapon
 * the player chose, so that the others meet us under our name.
 */
function introduce(c: Client): void {
  c.joinAs(myName !== "" ? myName : null, myShip, myWeapon);
}

/** What the player steers with now: nothing unless flying with the menu closed. */
function inputBits(w: World): number {
  return w.phase() === "playing" && !menuOpen ? controls.bits() : 0;
}

function tick(s: Session, now: number): void {
  const c = s.client;
  if (c.state === ClientState.Connected) {
    const bits = inputBits(s.world);
    c.setInput(bits);
    if ((bits & INPUT_SHOOTING) !== 0) effects.firedAt = now;
  }
  c.tick(now);
  const socket = s.socket!;
  if (socket.readyState !== WebSocket.OPEN) return;
  // Over for this client: let the server see the socket go. A kicked one waits for the
  // server's close, which says why.
  if (c.state === ClientState.Kicked) {
    if (s.kickedAt < 0) s.kickedAt = now;
    else if (now - s.kickedAt > KICK_CLOSE_MS) socket.close(1000, "done");
  } else if (c.state >= ClientState.Closed) socket.close(1000, "done");
}

/** Drop the current connection (if any) and its socket. */
function drop(): void {
  const s = session;
  if (s.host !== null) s.host.stop();
  if (s.socket !== null && s.socket.readyState <= WebSocket.OPEN) {
    if (s.client.isOpen()) s.client.disconnect();
    s.socket.close(1000, "leaving");
  }
}

/** A new connection with the player's name, ship and weapon. */
function join(): void {
  const prev = session;
  drop();
  session = open(true);
  session.world.adopt(prev.world);
  effects.follow(session.world);
  stage = "match";
  menuOpen = false;
  intent = null;
  lines = -1;
  roster = -1;
}

/** The connection has ended: what next. */
function ended(now: number): void {
  const w = session.world;
  outcome = outcomeOf(w.phase(), w.closeCode, w.closeReason);
  // Nothing of the old match stays drawn while the page waits (its ships would be ghosts).
  w.forget();
  if (intent === "leave") {
    stage = "menu";
  } else if (intent === "away") {
    stage = "away";
    // Shown again while the Disconnect was on its way.
    if (document.visibilityState === "visible") comeBack(now);
  } else if (outcome === "full") {
    stage = "retry";
    retryAt = now + FULL_RETRY_MS;
  } else if (outcome === "lost" || outcome === "shutdown") {
    stage = "retry";
    retryAt = now + reconnectDelayMs(attempt);
    attempt++;
  } else stage = "ended";
  intent = null;
}

/** Advance the stage; the page calls it every frame. */
function step(now: number): void {
  const c = session.client;
  if (stage === "match") {
    if (c.state === ClientState.Connected) attempt = 0;
    if (session.world.socketClosed) ended(now);
  } else if (stage === "retry" && now >= retryAt) join();
  else if (stage === "watch" && session.world.socketClosed) {
    // The feed ended: nothing of it stays drawn; a new one in WATCH_RETRY_MS.
    if (retryAt < 0) {
      session.world.forget();
      retryAt = now + WATCH_RETRY_MS;
    } else if (now >= retryAt) {
      retryAt = -1;
      const prev = session;
      session = openWatch();
      session.world.adopt(prev.world);
      effects.follow(session.world);
    }
  }
}

function leave(): void {
  menuOpen = false;
  if (stage === "match" && session.client.isOpen() && session.socket!.readyState === WebSocket.OPEN) {
    intent = "leave";
    session.client.disconnect();
  } else {
    drop();
    stage = "menu";
  }
}

// ---------------------------------------------------------------- away

function goAway(): void {
  awayTimer = null;
  awayFrom = hiddenAt;
  if (stage === "match" && session.client.isOpen() && session.socket!.readyState === WebSocket.OPEN) {
    intent = "away";
    session.client.disconnect();
  } else if (stage === "match" || stage === "retry") {
    drop();
    stage = "away";
  }
}

document.addEventListener("visibilitychange", () => {
  const now = performance.now();
  if (awayTimer !== null) clearTimeout(awayTimer);
  awayTimer = null;
  if (document.visibilityState === "hidden") {
    hiddenAt = now;
    controls.release();
    awayTimer = setTimeout(goAway, awayMs);
    return;
  }
  hiddenAt = -1;
  step(now);
  if (stage === "away") comeBack(now);
});

/** Rejoin after the tab was away, and say for how long. */
function comeBack(now: number): void {
  join();
  const text = `Back after ${formatDuration(awayFrom < 0 ? 0 : now - awayFrom)} away`;
  session.world.note(text);
  toast = text;
  toastUntil = now + TOAST_MS;
}

// ---------------------------------------------------------------- panels

function seconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

function statusText(phase: Phase, now: number): string {
  if (now < toastUntil) return toast;
  if (stage === "watch") {
    if (session.world.socketClosed) return `Reconnecting to ${location.host}...`;
    return watchSource !== null && watchSource.frames > 0 ? "" : `Connecting to ${location.host}...`;
  }
  if (stage !== "match" || menuOpen) return "";
  switch (phase) {
    case "connecting":
      return attempt > 0 ? `Reconnecting to ${location.host}...` : `Connecting to ${location.host}...`;
    case "spawning":
      return "Spawning...";
  }
  return "";
}

function noticeText(panel: Panel, phase: Phase, now: number): string {
  if (panel === "death") {
    const why = feed.death !== "" ? feed.death : "Destroyed";
    return `${why}, respawning in ${seconds(session.world.respawnIn(now))} s`;
  }
  if (panel !== "notice") return "";
  const w = session.world;
  switch (stage) {
    case "away":
      return "You left the match while the tab was hidden.";
    case "ended":
      return `Removed from the match${w.closeReason ? ` (${w.closeReason})` : ""}.`;
    case "retry": {
      const wait = seconds(retryAt - now);
      if (outcome === "full") return `The match is full. Retrying in ${wait} s...`;
      const why = outcome === "shutdown" ? "The server shut down." : "Connection lost.";
      return `${why} Reconnecting in ${wait} s...`;
    }
  }
  return phase;
}

let shownPanel: Panel | "" = "";
let shownStatus = "";
let shownNotice = "";
let lines = -1;
let roster = -1;
let nextBoard = 0;
let shownHud = "";
let shownFeed = -1;

function showPanel(panel: Panel): void {
  if (panel === shownPanel) return;
  const wasMenu = shownPanel === "menu";
  shownPanel = panel;
  menu.hidden = panel !== "menu";
  overlay.hidden = panel !== "notice" && panel !== "death";
  overlay.classList.toggle("death", panel === "death");
  retry.hidden = panel !== "notice";
  if (panel === "menu") {
    controls.release();
    leaveButton.hidden = stage !== "match";
    playButton.textContent = stage === "match" ? "Resume" : "Play";
    const slot = session.client.selfSlot;
    nameInput.value = myName || (stage === "match" && slot >= 0 ? session.world.nameOf(slot) : "");
    shipSelect.value = String(myShip);
    weaponSelect.value = String(myWeapon);
    // On a touch screen a focused field pops up the keyboard over the menu: the player taps it when wanted.
    if (!document.body.classList.contains("touch")) {
      nameInput.focus();
      nameInput.select();
    }
  } else if (wasMenu && typing(document.activeElement)) (document.activeElement as HTMLElement).blur();
}

let inMatch = false;

function panels(now: number): void {
  const world = session.world;
  const c = session.client;
  const phase = world.phase();
  if ((stage === "match" || stage === "watch") !== inMatch) {
    inMatch = stage === "match" || stage === "watch";
    document.body.classList.toggle("match", inMatch);
  }
  const panel = panelFor(stage, phase, menuOpen);
  showPanel(panel);
  const notice = noticeText(panel, phase, now);
  if (notice !== shownNotice) {
    shownNotice = notice;
    overlayText.textContent = notice;
    retry.textContent = stage === "retry" ? (outcome === "full" ? "Try now" : "Reconnect now") : "Rejoin";
  }
  const status = statusText(phase, now);
  if (status !== shownStatus) {
    shownStatus = status;
    statusEl.textContent = status;
    statusEl.hidden = status === "";
  }
  if (phase === "playing" && feed.death !== "") feed.death = "";
  if (feed.expire(now) || feed.version !== shownFeed) {
    shownFeed = feed.version;
    extra.feed.replaceChildren();
    for (const l of feed.lines) {
      const row = document.createElement("div");
      if (l.mine) row.className = "mine";
      row.textContent = l.text;
      extra.feed.append(row);
    }
  }
  if (world.lineCount !== lines) {
    lines = world.lineCount;
    chatLog.replaceChildren();
    for (const l of world.lines.slice(-8)) {
      const row = document.createElement("div");
      // Old lines fade (index.html's CSS): the animation starts as long ago as the line came.
      row.style.animationDelay = `${l.at - now}ms`;
      if (l.slot < 0 && l.note === "") {
        row.className = "event";
        row.textContent = l.text;
      } else {
        const who = document.createElement("b");
        who.textContent = l.name + ": ";
        row.append(who, l.text);
        if (l.note !== "") {
          // Ours, and it did not reach the others: greyed, with why.
          row.className = "unsent";
          const note = document.createElement("i");
          note.textContent = " (" + l.note + ")";
          row.append(note);
        } else who.style.color = SLOT_COLORS[l.slot % MAX_PLAYERS];
      }
      chatLog.append(row);
    }
  }
  if (world.rosterVersion !== roster || now >= nextBoard) {
    roster = world.rosterVersion;
    nextBoard = now + 250;
    const order: number[] = [];
    if (stage === "match" || stage === "watch") for (let s = 0; s < MAX_PLAYERS; s++) if (c.present[s] !== 0) order.push(s);
    const deaths = (s: number): number => feed.deathsOf(c.playerIds[s]);
    order.sort((a, b) => c.scores[b] - c.scores[a] || deaths(a) - deaths(b) || a - b);
    scoresBody.replaceChildren();
    let rank = 0;
    for (let k = 0; k < order.length; k++) {
      const s = order[k];
      // Ties share a rank: the same score and deaths as the one above.
      if (k === 0 || c.scores[s] !== c.scores[order[k - 1]] || deaths(s) !== deaths(order[k - 1])) rank = k + 1;
      const tr = document.createElement("tr");
      if (s === c.selfSlot) tr.className = "me";
      const place = document.createElement("td");
      place.className = "rank";
      place.textContent = String(rank);
      const dot = document.createElement("td");
      dot.className = "dot";
      dot.style.background = SLOT_COLORS[s % MAX_PLAYERS];
      const name = document.createElement("td");
      name.className = "name";
      const who = world.nameOf(s);
      name.textContent = who;
      name.title = `${SHIP_NAME[c.ship[s] % SHIP_TYPES]}, ${WEAPON_NAME[c.weapon[s] % SHOT_TYPES]}`;
      const score = document.createElement("td");
      score.textContent = String(c.scores[s]);
      const kills = document.createElement("td");
      kills.textContent = String(feed.killsOf(c.playerIds[s]));
      const died = document.createElement("td");
      died.textContent = String(deaths(s));
      const ping = document.createElement("td");
      // The server flies its bots itself: they have no ping.
      ping.textContent = isBot(who) ? "bot" : `${c.pings[s]} ms`;
      tr.append(place, dot, name, score, kills, died, ping);
      scoresBody.append(tr);
    }
    const hud = hudText(phase);
    if (hud !== shownHud) {
      shownHud = hud;
      hudEl.textContent = hud;
    }
  }
}

/** A bot the server flies: its name ends in " [bot]" (modules/server/pilots.ts BOT_NAMES). */
function isBot(name: string): boolean {
  return name.endsWith(" [bot]");
}

/** The ship and weapon we fly (the server's, not the menu's), its hull and speed; nothing without a ship. */
function hudText(phase: Phase): string {
  const w = session.world;
  const c = session.client;
  const i = w.selfShip;
  if (stage !== "match" || phase !== "playing" || i < 0 || w.flownShip < 0) return "";
  const speed = Math.round(Math.hypot(c.vx[i], c.vy[i]));
  let hud = `${SHIP_NAME[w.flownShip % SHIP_TYPES]} / ${WEAPON_NAME[w.flownWeapon % SHOT_TYPES]}  ${c.health[i]}% hull  ${speed} wu/s`;
  const slot = c.selfSlot;
  // A choice the server has and our next ship will bring.
  if (slot >= 0 && (c.ship[slot] !== w.flownShip || c.weapon[slot] !== w.flownWeapon)) {
    hud += `  (next: ${SHIP_NAME[c.ship[slot] % SHIP_TYPES]} / ${WEAPON_NAME[c.weapon[slot] % SHOT_TYPES]})`;
  }
  return hud;
}

// ---------------------------------------------------------------- layout

const scoresEl = $("scores");
const menuButtonEl = $("menu-button");
const bottomIds = ["chat", "stick", "fire", "auto-fire", "chat-button", "hud"].map((id) => $(id));
/** The inline styles last written, so a frame that changes nothing writes nothing. */
let flowKey = "";

function box(e: HTMLElement): Box | null {
  if (e.getClientRects().length === 0) return null;
  const r = e.getBoundingClientRect();
  return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
}

/**
 * Place the feed, the phone menu and the death box from the measured sizes of the rest
 * (web/flow.ts): each frame, after the panels changed.
 */
function layout(): void {
  const w = innerWidth;
  const h = innerHeight;
  const size = minimapSize(w, h);
  const death = shownPanel === "death";
  const f = flow({
    width: w, height: h, touch: document.body.classList.contains("touch"),
    scores: box(scoresEl), menuButton: box(menuButtonEl), mute: box(extra.mute),
    minimap: { left: MINIMAP_MARGIN, top: MINIMAP_MARGIN, right: MINIMAP_MARGIN + size, bottom: MINIMAP_MARGIN + size },
    bottom: bottomIds.map(box), feedHeight: extra.feed.childElementCount > 0 ? extra.feed.offsetHeight : 0,
    deathWidth: death ? overlay.offsetWidth : 0, deathHeight: death ? overlay.offsetHeight : 0,
  });
  renderer.hud = hudEl.textContent === "" ? null : box(hudEl);
  const phone = upright(w, h) ? 1 : sideways(w, h) ? 2 : 0;
  const key = `${f.scoresTop},${f.feedLeft},${f.feedTop},${f.feedWidth},${f.menuTop},${f.menuMaxHeight},${f.menuLeft},${f.menuWidth},${f.deathTop},${phone},${death}`;
  if (key === flowKey) return;
  flowKey = key;
  scoresEl.style.top = `${f.scoresTop}px`;
  const fs = extra.feed.style;
  fs.left = `${f.feedLeft}px`;
  fs.top = `${f.feedTop}px`;
  fs.width = `${f.feedWidth}px`;
  const ms = menu.style;
  ms.top = phone === 1 ? `${f.menuTop}px` : "";
  ms.maxHeight = phone === 1 ? `${f.menuMaxHeight}px` : "";
  ms.left = phone === 2 ? `${f.menuLeft}px` : "";
  ms.width = phone === 2 ? `${f.menuWidth}px` : "";
  overlay.style.top = death ? `${f.deathTop}px` : "";
  overlay.style.transform = death ? "translateX(-50%)" : "";
}

/**
 * With the menu open over a match, our ship (the screen's centre) moves to the middle of
 * the largest clear strip beside the menu, so the player sees it while choosing.
 */
function focusBesideMenu(): void {
  let fx = 0;
  let fy = 0;
  const m = menuOpen && stage === "match" ? box(menu) : null;
  const w = innerWidth;
  const h = innerHeight;
  if (m !== null && m.left < w / 2 + 40 && m.right > w / 2 - 40 && m.top < h / 2 + 40 && m.bottom > h / 2 - 40) {
    // The strips right, left, below and above the menu; the widest (in its short direction) wins.
    const strips = [
      [w - m.right, (m.right + w) / 2, h / 2],
      [m.left, m.left / 2, h / 2],
      [h - m.bottom, w / 2, (m.bottom + h) / 2],
      [m.top, w / 2, m.top / 2],
    ];
    let best = strips[0];
    for (const st of strips) if (st[0] > best[0]) best = st;
    fx = best[1] - w / 2;
    fy = best[2] - h / 2;
  }
  renderer.focusX = fx;
  renderer.focusY = fy;
}

/** Key to screen for fire: frames drawn when Space went down, and when a frame first drew the shot it fired; -1 until then. */
const fireProbe = { keyFrame: -1, keyAt: 0, frame: -1, at: 0 };
window.addEventListener(
  "keydown",
  (e) => {
    if (e.code !== "Space" || e.repeat || typing(e.target)) return;
    fireProbe.keyFrame = renderer.drawn.frames;
    fireProbe.keyAt = e.timeStamp;
    fireProbe.frame = -1;
  },
  { capture: true },
);

const turnProbe: TurnProbe = { keyFrame: -1, keyAt: 0, frame: -1, at: 0, sign: 0, from: 0 };
/** Our ship's heading in the last frame drawn, NaN without one. */
let drawnHeading = Number.NaN;

function ownHeading(): number {
  const slot = session.client.selfSlot;
  for (const s of renderer.drawn.ships) if (s.slot === slot) return s.rot;
  return Number.NaN;
}

window.addEventListener(
  "keydown",
  (e) => {
    const sign = e.code === "ArrowLeft" || e.code === "KeyA" ? 1 : e.code === "ArrowRight" || e.code === "KeyD" ? -1 : 0;
    if (sign === 0 || e.repeat || typing(e.target) || Number.isNaN(drawnHeading)) return;
    turnProbe.keyFrame = renderer.drawn.frames;
    turnProbe.keyAt = e.timeStamp;
    turnProbe.frame = -1;
    turnProbe.sign = sign;
    turnProbe.from = drawnHeading;
  },
  { capture: true },
);

function frame(): void {
  const now = performance.now();
  step(now);
  const world = session.world;
  world.tick();
  controls.setPlaying(world.phase() === "playing");
  const c = world.client;
  world.own.delay = inputDelaySteps(c.selfSlot >= 0 ? c.pings[c.selfSlot] : 0, TICK_MS);
  const bits = inputBits(world);
  world.own.advance(now, bits);
  // Our shots, predicted from the predicted ship (web/fire.ts), with their sound at once.
  const own = world.own;
  const flying = world.phase() === "playing" && own.active && world.flownShip >= 0;
  const pose = own.pose(now);
  const fired = world.fire.advance(
    now, bits, flying, world.flownShip, world.flownWeapon, pose.x, pose.y, pose.rot,
    (own.lead.vx * STEP_HZ) / POS_ONE, (own.lead.vy * STEP_HZ) / POS_ONE,
  );
  if (fired) {
    effects.shotFired();
    effects.firedAt = now;
  }
  world.fire.expire(now);
  renderer.frame(world, now);
  if (fired && fireProbe.keyFrame >= 0 && fireProbe.frame < 0) {
    fireProbe.frame = renderer.drawn.frames;
    fireProbe.at = now;
  }
  drawnHeading = ownHeading();
  if (turnProbe.keyFrame >= 0 && turnProbe.frame < 0) {
    let d = (drawnHeading - turnProbe.from) % (2 * Math.PI);
    if (d > Math.PI) d -= 2 * Math.PI;
    else if (d < -Math.PI) d += 2 * Math.PI;
    if (d * turnProbe.sign > TURNED) {
      turnProbe.frame = renderer.drawn.frames;
      turnProbe.at = now;
    }
  }
  effects.frame(now);
  panels(now);
  layout();
  focusBesideMenu();
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);
// A hidden tab draws no frames: the stage moves on without them (a retry, going away).
setInterval(() => step(performance.now()), 250);

// ---------------------------------------------------------------- forms and keys

function showChat(show: boolean): void {
  chatForm.hidden = !show;
  if (show) {
    controls.release();
    chatInput.focus();
  } else {
    chatInput.value = "";
    chatInput.blur();
  }
}

/** Open or close the menu over the match; before joining, it stays. */
function toggleMenu(): void {
  if (stage === "menu" || stage === "watch") return;
  menuOpen = !menuOpen;
}

menu.addEventListener("submit", (e) => {
  e.preventDefault();
  const name = ascii(nameInput.value, NAME_LENGTH - 1);
  const ship = Number(shipSelect.value) | 0;
  const weapon = Number(weaponSelect.value) | 0;
  const c = session.client;
  const live = stage === "match" && c.state === ClientState.Connected;
  if (name !== "" && name !== myName) {
    myName = name;
    save("lwar.name", name);
    if (live && name !== session.world.nameOf(c.selfSlot)) c.rename(name);
  }
  if (ship !== myShip || weapon !== myWeapon) {
    myShip = ship;
    myWeapon = weapon;
    save("lwar.ship", String(ship));
    save("lwar.weapon", String(weapon));
    if (live) c.select(ship, weapon);
  }
  if (stage === "match") menuOpen = false;
  else join();
});
leaveButton.addEventListener("click", leave);
$("menu-button").addEventListener("click", toggleMenu);
retry.addEventListener("click", join);

chatForm.addEventListener("submit", (e) => {
  e.preventDefault();
  const text = ascii(chatInput.value, CHAT_LENGTH - 1);
  if (text !== "" && !session.client.chat(text)) session.world.notSent(text, NOT_CONNECTED);
  showChat(false);
});
chatInput.addEventListener("keydown", (e) => {
  if (e.key === "Escape") showChat(false);
});
$("chat-button").addEventListener("click", () => showChat(chatForm.hidden !== false));

window.addEventListener("keydown", (e) => {
  if (typing(e.target)) {
    if (e.key === "Escape" && e.target === nameInput && stage !== "menu") menuOpen = false;
    return;
  }
  if (e.key === "Enter" || e.key === "t" || e.key === "T") {
    if (stage !== "match") return;
    e.preventDefault();
    showChat(true);
  } else if (e.key === "Escape") toggleMenu();
  else if (e.key === "m" || e.key === "M") toggleMute();
});

// ---------------------------------------------------------------- sound

function toggleMute(): void {
  sound.setMuted(!sound.muted);
  showMute(extra.mute, sound.muted);
}
showMute(extra.mute, sound.muted);
extra.mute.addEventListener("click", (e) => {
  toggleMute();
  (e.currentTarget as HTMLElement).blur();
});
// Browsers allow sound only after a gesture: the AudioContext is made at the first one.
for (const type of ["pointerdown", "keydown", "touchend"]) window.addEventListener(type, () => sound.unlock(), { capture: true, passive: true });

function showTouch(): void {
  touch.hidden = false;
  document.body.classList.add("touch");
}
if (window.matchMedia("(pointer: coarse)").matches) showTouch();
window.addEventListener("touchstart", showTouch, { once: true, passive: true });

window.lwar = {
  get client() {
    return session.client;
  },
  get world() {
    return session.world;
  },
  get drawn() {
    return renderer.drawn;
  },
  get own() {
    return session.world.own;
  },
  turn: turnProbe,
  fire: fireProbe,
  snapshot() {
    const d = renderer.drawn;
    const now = performance.now();
    const phase = session.world.phase();
    return {
      ...session.world.snapshot(),
      status: statusText(phase, now),
      drawn: { frames: d.frames, ships: d.ships.slice(), projectiles: d.projectiles.slice() },
      page: {
        stage, panel: panelFor(stage, phase, menuOpen), notice: noticeText(panelFor(stage, phase, menuOpen), phase, now),
        hud: hudText(phase), feed: feed.lines.map((l) => l.text), kills: feed.kills,
        hurt: effects.counts.hurt, hits: effects.counts.hits, explosions: effects.counts.explosions, sounds: effects.counts.sounds,
        muted: sound.muted, audio: sound.started, attempt,
      },
    };
  },
};
