/**
 * The browser game: a client-library Client over a WebSocket to `/ws` on the page's own
 * host, a canvas that draws what it knows at the display's frame rate, and the panels
 * around it (status, scoreboard, chat, name, ship and weapon). `window.lwar` exposes the
 * client and a plain snapshot for tests and for curious players.
 */
import { makeConfig } from "../modules/config";
import { ClientState, createClient, type Client } from "../modules/client/client";
import { MAX_PLAYERS, NAME_LENGTH, CHAT_LENGTH } from "../modules/protocol/constants";
import { SHIP_HP, SHIP_NAME, SHIP_TYPES, SHOT_TYPES, WEAPON_DAMAGE, WEAPON_NAME } from "../modules/game/templates";
import { SERVER_ADDRESS, SERVER_PORT, SocketHost } from "./socket";
import { NOT_CONNECTED, World, type Drawn, type PageSnapshot, type Phase } from "./world";
import { Renderer, SLOT_COLORS } from "./render";
import { Controls, typing } from "./input";

/** The page keeps entity indices below this; the server's default pool is 192. */
const MAX_ENTITIES = 4096;
const config = makeConfig({ maxEntities: MAX_ENTITIES });

interface Session {
  socket: WebSocket;
  host: SocketHost;
  client: Client;
  world: World;
  /** Name and selection still to send once connected. */
  wantName: string | null;
  wantSelection: boolean;
}

declare global {
  interface Window {
    lwar: {
      readonly client: Client;
      readonly world: World;
      readonly drawn: Drawn;
      snapshot(): PageSnapshot;
    };
  }
}

function $<T extends HTMLElement>(id: string): T {
  return document.getElementById(id) as T;
}

/** Printable ASCII only, as the server accepts, trimmed and cut to `max` characters. */
function ascii(text: string, max: number): string {
  let out = "";
  for (let i = 0; i < text.length && out.length < max; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) out += text[i];
  }
  return out.trim();
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
const overlay = $("overlay");
const overlayText = $("overlay-text");
const retry = $<HTMLButtonElement>("retry");
const touch = $("touch");

const renderer = new Renderer(canvas);
const controls = new Controls($("stick"), $("knob"), $("fire"));

for (let s = 0; s < SHIP_TYPES; s++) shipSelect.add(new Option(`${SHIP_NAME[s]} (${SHIP_HP[s]} hp)`, String(s)));
for (let w = 0; w < SHOT_TYPES; w++) weaponSelect.add(new Option(`${WEAPON_NAME[w]} (${WEAPON_DAMAGE[w]} damage)`, String(w)));
let myName = ascii(load("lwar.name") ?? "", NAME_LENGTH - 1);
let myShip = Math.min(Number(load("lwar.ship") ?? 0) | 0, SHIP_TYPES - 1);
let myWeapon = Math.min(Number(load("lwar.weapon") ?? 0) | 0, SHOT_TYPES - 1);
nameInput.value = myName;
shipSelect.value = String(myShip);
weaponSelect.value = String(myWeapon);

let session = open();

function open(): Session {
  const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/ws";
  const socket = new WebSocket(url);
  socket.binaryType = "arraybuffer";
  const host = new SocketHost(socket);
  const client = createClient(config, host, SERVER_ADDRESS, SERVER_PORT);
  const world = new World(client, () => performance.now());
  const s: Session = { socket, host, client, world, wantName: myName || null, wantSelection: myShip !== 0 || myWeapon !== 0 };
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
  return s;
}

function tick(s: Session, now: number): void {
  const c = s.client;
  if (c.state === ClientState.Connected) {
    if (s.wantName !== null && c.rename(s.wantName)) s.wantName = null;
    if (s.wantSelection && c.select(myShip, myWeapon)) s.wantSelection = false;
    c.setInput(s.world.phase() === "playing" ? controls.bits() : 0);
  }
  c.tick(now);
  // Over for this client: let the server see the socket go.
  if (c.state >= ClientState.Closed && s.socket.readyState === WebSocket.OPEN) s.socket.close(1000, "done");
}

function restart(): void {
  session.host.stop();
  if (session.socket.readyState <= WebSocket.OPEN) session.socket.close(1000, "reconnect");
  session = open();
  lines = -1;
  roster = -1;
}

// ---------------------------------------------------------------- panels

function statusText(phase: Phase, world: World, now: number): string {
  switch (phase) {
    case "connecting":
      return `Connecting to ${location.host}...`;
    case "spawning":
      return "Spawning...";
    case "dead":
      return `Destroyed. Respawning in ${(world.respawnIn(now) / 1000).toFixed(1)} s`;
    case "playing":
      return "";
    case "rejected":
      return world.client.rejectReason === 1 ? "The match is full. Try again in a moment." : `Rejected by the server (reason ${world.client.rejectReason}).`;
    case "kicked":
      return world.closeReason.startsWith("kicked: shutdown") ? "The server shut down." : `Removed from the match${world.closeReason ? ` (${world.closeReason})` : ""}.`;
    case "lost":
      return `Connection lost${world.closeReason ? ` (${world.closeReason})` : ""}.`;
    case "left":
      return "You left the match.";
  }
}

let shownStatus = "";
let shownOverlay = "";
let lines = -1;
let roster = -1;
let nextBoard = 0;
let shownHud = "";

function panels(now: number): void {
  const world = session.world;
  const c = session.client;
  const phase = world.phase();
  const text = statusText(phase, world, now);
  const fatal = phase === "rejected" || phase === "kicked" || phase === "lost" || phase === "left";
  const banner = fatal ? "" : text;
  if (banner !== shownStatus) {
    shownStatus = banner;
    statusEl.textContent = banner;
    statusEl.hidden = banner === "";
  }
  const over = fatal ? text : "";
  if (over !== shownOverlay) {
    shownOverlay = over;
    overlayText.textContent = over;
    overlay.hidden = over === "";
    retry.textContent = phase === "lost" ? "Reconnect" : phase === "rejected" ? "Try again" : "Rejoin";
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
    nextBoard = now + 500;
    const order: number[] = [];
    for (let s = 0; s < MAX_PLAYERS; s++) if (c.present[s] !== 0) order.push(s);
    order.sort((a, b) => c.scores[b] - c.scores[a] || a - b);
    scoresBody.replaceChildren();
    for (const s of order) {
      const tr = document.createElement("tr");
      if (s === c.selfSlot) tr.className = "me";
      const dot = document.createElement("td");
      dot.className = "dot";
      dot.style.background = SLOT_COLORS[s % MAX_PLAYERS];
      const name = document.createElement("td");
      name.className = "name";
      name.textContent = world.nameOf(s);
      name.title = `${SHIP_NAME[c.ship[s] % SHIP_TYPES]}, ${WEAPON_NAME[c.weapon[s] % SHOT_TYPES]}`;
      const score = document.createElement("td");
      score.textContent = String(c.scores[s]);
      const ping = document.createElement("td");
      ping.textContent = `${c.pings[s]} ms`;
      tr.append(dot, name, score, ping);
      scoresBody.append(tr);
    }
    let hud = "";
    if (phase === "playing") {
      const i = world.selfShip;
      const speed = Math.round(Math.hypot(c.vx[i], c.vy[i]));
      hud = `${SHIP_NAME[c.ship[c.selfSlot] % SHIP_TYPES]} / ${WEAPON_NAME[c.weapon[c.selfSlot] % SHOT_TYPES]}  ${c.health[i]}% hull  ${speed} wu/s`;
    }
    if (hud !== shownHud) {
      shownHud = hud;
      hudEl.textContent = hud;
    }
  }
}

function frame(): void {
  const now = performance.now();
  controls.setPlaying(session.world.phase() === "playing");
  renderer.frame(session.world, now);
  panels(now);
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

// ---------------------------------------------------------------- forms and keys

/** The name the menu opened with: submitting it unchanged renames nobody. */
let shownName = "";

function showMenu(show: boolean): void {
  menu.hidden = !show;
  if (show) {
    controls.release();
    const slot = session.client.selfSlot;
    shownName = myName || (slot >= 0 ? session.world.nameOf(slot) : "");
    nameInput.value = shownName;
    // On a touch screen a focused field pops up the keyboard over the menu: the player taps it when wanted.
    if (!document.body.classList.contains("touch")) {
      nameInput.focus();
      nameInput.select();
    }
  } else if (typing(document.activeElement)) (document.activeElement as HTMLElement).blur();
}

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

menu.addEventListener("submit", (e) => {
  e.preventDefault();
  const name = ascii(nameInput.value, NAME_LENGTH - 1);
  if (name !== "" && name !== myName && name !== shownName) {
    myName = name;
    save("lwar.name", name);
    session.wantName = name;
  }
  const ship = Number(shipSelect.value) | 0;
  const weapon = Number(weaponSelect.value) | 0;
  if (ship !== myShip || weapon !== myWeapon) {
    myShip = ship;
    myWeapon = weapon;
    save("lwar.ship", String(ship));
    save("lwar.weapon", String(weapon));
    session.wantSelection = true;
  }
  showMenu(false);
});
$("leave").addEventListener("click", () => {
  session.client.disconnect();
  showMenu(false);
});
$("menu-button").addEventListener("click", () => showMenu(menu.hidden !== false));
retry.addEventListener("click", () => restart());

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
    if (e.key === "Escape" && e.target === nameInput) showMenu(false);
    return;
  }
  if (e.key === "Enter" || e.key === "t" || e.key === "T") {
    e.preventDefault();
    showChat(true);
  } else if (e.key === "Escape") showMenu(menu.hidden !== false);
});

function showTouch(): void {
  touch.hidden = false;
  document.body.classList.add("touch");
}
if (window.matchMedia("(pointer: coarse)").matches) showTouch();
window.addEventListener("touchstart", showTouch, { once: true, passive: true });
if (myName === "") showMenu(true);

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
  snapshot() {
    const d = renderer.drawn;
    return {
      ...session.world.snapshot(),
      status: statusText(session.world.phase(), session.world, performance.now()),
      drawn: { frames: d.frames, ships: d.ships.slice(), projectiles: d.projectiles.slice() },
    };
  },
};
