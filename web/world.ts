/**
 * What the page shows, kept from a client-library Client: the live entities with smoothed
 * motion between Updates, the chat and event lines, and the player's phase. No DOM here:
 * the Node tests drive it too.
 *
 * Motion. An entity is drawn only once an Update has placed it (its Add carries no
 * position). From each Update the page moves it along its velocity (Update: x, y in wu,
 * vx, vy in wu/s, rot in centidegrees counter-clockwise from +x) for up to
 * MAX_EXTRAPOLATION_S, and the jump between where it was drawn and where the Update puts
 * it fades out with time constant SMOOTH_MS. Own and nearby ships get an Update every
 * 66 ms, distant ones every 266 ms at worst (docs/game.md, "Updates").
 */
import { ClientState, type Client } from "../modules/client/client";
import { Counter } from "../modules/protocol/counters";
import { MAX_PLAYERS, Msg, NAME_LENGTH, UPDATE_ENTRY } from "../modules/protocol/constants";
import { Fields, readAdd, readChat, readId, readName, updateEntryId } from "../modules/protocol/codec";
import { Kind, kindOf, RESPAWN_STEPS, SHIP_BASE, SHOT_BASE, SPAWN_GUARD_STEPS } from "../modules/game/templates";
import { STEP_HZ } from "../modules/units";
import { bytesToAscii } from "../modules/text";
import { fromUpdate, Predictor, type ShipState } from "./predict";
import { FirePredictor } from "./fire";

export const SMOOTH_MS = 90;
export const MAX_EXTRAPOLATION_S = 0.35;
/** A correction larger than this (wu) is a teleport (a respawn in a reused slot): no smoothing. */
export const TELEPORT_WU = 400;
export const RESPAWN_MS = (RESPAWN_STEPS * 1000) / STEP_HZ;
/** A new ship is guarded this long (docs/game.md, "Spawn protection"), unless it fires first. */
export const GUARD_MS = (SPAWN_GUARD_STEPS * 1000) / STEP_HZ;
const CENTIDEGREE = Math.PI / 18000;
const MAX_LINES = 40;

export type Phase = "connecting" | "spawning" | "playing" | "dead" | "rejected" | "kicked" | "lost" | "left";

export interface ChatLine {
  /** The writer's slot, or -1 for a line about the match (joins, leaves, renames). */
  slot: number;
  name: string;
  text: string;
  at: number;
  /** Why our own line did not reach the others (NOT_SENT); "" for a line that did. */
  note: string;
}

/** The note on a line of ours the server did not echo: it refuses lines sent too fast. */
export const NOT_SENT = "not sent: too fast";
/** The note on a line the client could not send at all (not connected, or its queue full). */
export const NOT_CONNECTED = "not sent: not connected";

export interface Blast {
  x: number;
  y: number;
  radius: number;
  slot: number;
  at: number;
}

/**
 * What the page's effects and sounds hear of the world (web/effects.ts). Each is called
 * while the client's arrays still hold the entity's type, owner and health.
 */
export interface WorldEvents {
  /** Entity `i` was added (its position comes with the next Update). */
  added(i: number): void;
  /** Ship `i`'s hull dropped from `before` to `after` percent. */
  hurt(i: number, before: number, after: number): void;
  /** Entity `i` is gone; it was last drawn at x, y (wu) if `placed`. */
  removed(i: number, x: number, y: number, placed: boolean): void;
  /** Someone else said something. */
  chat(slot: number): void;
}

/** A drawn position: world units and radians. */
export interface Pose {
  x: number;
  y: number;
  rot: number;
}

/** What the last frame drew, in wu (web/render.ts keeps it; tests read it through the page's debug hook). */
export interface Drawn {
  frames: number;
  /** rot: the drawn heading, radians counter-clockwise from +x. */
  ships: { slot: number; name: string; x: number; y: number; rot: number; guarded: boolean }[];
  /** predicted: one of our shots the page fired ahead of the server (web/fire.ts); fading: a predicted one no Add claimed in time, going. */
  projectiles: { slot: number; x: number; y: number; predicted: boolean; fading: boolean }[];
}

/** Plain data for tests and the debug hook. */
export interface Snapshot {
  phase: Phase;
  selfId: number;
  selfSlot: number;
  players: { slot: number; id: number; name: string; score: number; ping: number; ship: number; weapon: number }[];
  /** Ship type and weapon type we fly (our ship's template, our projectiles'), -1 while we have no ship. */
  flown: { ship: number; weapon: number };
  entities: { id: number; type: number; kind: number; owner: number; x: number; y: number; vx: number; vy: number; rot: number; health: number; placed: boolean }[];
  chat: { slot: number; name: string; text: string; note: string }[];
}

/** The page around the match (web/main.ts, web/session.ts), as the debug hook shows it. */
export interface PageState {
  /** Stage of web/session.ts: menu, match, retry, away, ended. */
  stage: string;
  /** The one panel shown: menu, notice, death, none. */
  panel: string;
  /** The notice or death screen's text, "" when neither shows. */
  notice: string;
  hud: string;
  feed: string[];
  /** Kill reports received, hull drops of ours, hit markers, explosions, sounds played. */
  kills: number;
  hurt: number;
  hits: number;
  explosions: number;
  sounds: number;
  muted: boolean;
  /** True once a gesture has created the AudioContext. */
  audio: boolean;
  /** Reconnect attempts since the last connection that worked. */
  attempt: number;
}

/** What the page's `window.lwar.snapshot()` returns: the world, the status line, the last frame and the page. */
export type PageSnapshot = Snapshot & { drawn: Drawn; status: string; page: PageState };

export class World {
  readonly client: Client;
  readonly capacity: number;
  /** Indices of live entities, densely packed; `slotOf[i]` is i's place in it or -1. */
  readonly live: number[] = [];
  readonly #place: Int32Array;
  /** 1 once an Update has placed the entity. */
  readonly placed: Uint8Array;
  readonly #bx: Float64Array;
  readonly #by: Float64Array;
  readonly #bvx: Float64Array;
  readonly #bvy: Float64Array;
  readonly #brot: Float64Array;
  readonly #bt: Float64Array;
  readonly #ox: Float64Array;
  readonly #oy: Float64Array;
  readonly #orot: Float64Array;
  readonly #pose: Pose = { x: 0, y: 0, rot: 0 };
  readonly #fields = new Fields();
  readonly #now: () => number;
  /** Our own ship as the page predicts it (web/predict.ts); the page feeds it the input held. */
  readonly own = new Predictor();
  readonly #ownState: ShipState = { x: 0, y: 0, vx: 0, vy: 0, rot: 0 };
  /** Our shots as the page predicts them (web/fire.ts); the page feeds it the trigger. */
  readonly fire = new FirePredictor();

  readonly lines: ChatLine[] = [];
  /** Lines ever added; the page redraws the log when it changes. */
  lineCount = 0;
  readonly blasts: Blast[] = [];
  /** Names by slot as the page knows them ("" for none yet). */
  readonly names: string[] = new Array<string>(MAX_PLAYERS).fill("");
  /** Roster or selection changes; the scoreboard redraws when it changes. */
  rosterVersion = 0;
  /** Entity index of our ship, -1 while we have none. */
  selfShip = -1;
  /** When our ship was last destroyed, -1 if it has not been since it last spawned. */
  diedAt = -1;
  /**
   * Newcomers whose "joined" line waits for the end of the packet that announced them.
   * A newcomer sends its name with the acknowledgement of its Join, and the server tells
   * the others of it (under "Player N") before it reads that name: both Names come in
   * one packet, and the line names the chosen one. Holds the packet count (counter
   * PacketsIn) of the announcement, 0 for none.
   */
  readonly #pendingJoin = new Uint32Array(MAX_PLAYERS);
  /** Names whose last line was "left" (carried across reconnects): a second one is not written. */
  readonly #gone = new Set<string>();
  #pendingJoins = 0;
  /** Hull percentage each entity had in the last Update, to see it drop. */
  readonly #hull: Uint8Array;
  /** By entity: until when (ms) a ship is guarded, as the page infers it: GUARD_MS from its Add, until its player fires. */
  readonly #guardUntil: Float64Array;
  /** Ship type (0..) of our current ship and weapon type (0..) it fires; -1 while dead. */
  flownShip = -1;
  flownWeapon = -1;
  events: WorldEvents | null = null;
  /** Set when the socket closes: code and reason, as the page shows them. */
  closeCode = 0;
  closeReason = "";
  socketClosed = false;

  constructor(client: Client, now: () => number) {
    this.client = client;
    this.#now = now;
    const cap = client.entityCapacity;
    this.capacity = cap;
    this.#place = new Int32Array(cap).fill(-1);
    this.placed = new Uint8Array(cap);
    this.#bx = new Float64Array(cap);
    this.#by = new Float64Array(cap);
    this.#bvx = new Float64Array(cap);
    this.#bvy = new Float64Array(cap);
    this.#brot = new Float64Array(cap);
    this.#bt = new Float64Array(cap);
    this.#ox = new Float64Array(cap);
    this.#oy = new Float64Array(cap);
    this.#orot = new Float64Array(cap);
    this.#hull = new Uint8Array(cap);
    this.#guardUntil = new Float64Array(cap);
    client.listener = {
      reliable: (_c, type, _seq, b, o) => this.#reliable(type, b, o),
      unreliable: (_c, type, ts, b, o) => {
        if (type === Msg.Update) this.#update(b, o, ts);
      },
    };
    client.onPlayerJoined = (id) => this.#joined(id & 0xffff);
    client.onRename = (id, name, o, n) => this.#renamed(id & 0xffff, bytesToAscii(name, o, n));
    client.onChatOutcome = (delivered, text, o, n) => {
      // A delivered line is already in the log, from its echo.
      if (!delivered) this.notSent(bytesToAscii(text, o, n), NOT_SENT);
    };
  }

  /** The socket closed; `code` and `reason` as the close frame gave them. */
  closed(code: number, reason: string): void {
    if (this.socketClosed) return;
    this.socketClosed = true;
    this.closeCode = code;
    this.closeReason = reason;
  }

  /** Take over `prev`'s chat and event lines (a new connection of the same page), and who it last saw leave. */
  adopt(prev: World): void {
    for (const l of prev.lines) this.lines.push(l);
    this.lineCount = prev.lineCount;
    for (const name of prev.#gone) this.#gone.add(name);
  }

  /**
   * The connection ended: forget the match (its ships, projectiles, names and our ship), so
   * nothing of it is drawn while the page waits to reconnect. The lines stay.
   */
  forget(): void {
    for (const i of this.live) {
      this.#place[i] = -1;
      this.placed[i] = 0;
    }
    this.live.length = 0;
    this.blasts.length = 0;
    this.names.fill("");
    this.rosterVersion++;
    this.selfShip = -1;
    this.diedAt = -1;
    this.flownShip = -1;
    this.flownWeapon = -1;
    this.own.clear();
    this.fire.clear();
  }

  /** A line about the match or the page (slot -1), shown greyed in the log. */
  note(text: string): void {
    this.#line(-1, "", text);
  }

  /** Say "joined" for newcomers whose Join packet is complete. The page calls it every frame. */
  tick(): void {
    if (this.#pendingJoins !== 0) this.#flushJoins(this.client.counters[Counter.PacketsIn]);
  }

  phase(): Phase {
    const c = this.client;
    switch (c.state) {
      case ClientState.Rejected:
        return "rejected";
      case ClientState.Kicked:
        return "kicked";
      case ClientState.Closed:
        return "left";
      case ClientState.TimedOut:
        return "lost";
    }
    if (this.socketClosed) return c.state === ClientState.Disconnecting ? "left" : "lost";
    if (c.state !== ClientState.Connected) return "connecting";
    if (this.selfShip >= 0) return this.placed[this.selfShip] !== 0 ? "playing" : "spawning";
    return this.diedAt >= 0 ? "dead" : "spawning";
  }

  /** Milliseconds until our ship respawns, while dead. */
  respawnIn(now: number): number {
    return this.diedAt < 0 ? 0 : Math.max(0, this.diedAt + RESPAWN_MS - now);
  }

  nameOf(slot: number): string {
    if (slot < 0 || slot >= MAX_PLAYERS) return "?";
    return this.names[slot] || `Player ${slot + 1}`;
  }

  /** Where entity `i` is drawn at time `t` (ms): our own ship predicted. The result is reused by the next call. */
  pose(i: number, t: number): Pose {
    if (i === this.selfShip && this.own.active) return this.own.pose(t);
    return this.#serverPose(i, t);
  }

  /** Where entity `i` is at time `t` (ms) by the server's Updates alone. */
  #serverPose(i: number, t: number): Pose {
    const age = t - this.#bt[i];
    const dt = Math.min(Math.max(age, 0) / 1000, MAX_EXTRAPOLATION_S);
    const k = age > 0 ? Math.exp(-age / SMOOTH_MS) : 1;
    const p = this.#pose;
    p.x = this.#bx[i] + this.#bvx[i] * dt + this.#ox[i] * k;
    p.y = this.#by[i] + this.#bvy[i] * dt + this.#oy[i] * k;
    p.rot = this.#brot[i] + this.#orot[i] * k;
    return p;
  }

  /** Where the last Update put entity `i` (reused by the next call, as pose()'s). */
  lastPose(i: number): Pose {
    return this.#serverPose(i, this.#bt[i]);
  }

  /** Whether ship `i` is guarded at `now` (ms): it takes no damage (the page draws a ring). */
  guarded(i: number, now: number): boolean {
    return now < this.#guardUntil[i];
  }

  /** Drop blasts older than `maxAgeMs`. */
  expireBlasts(now: number, maxAgeMs: number): void {
    let n = 0;
    for (const b of this.blasts) if (now - b.at < maxAgeMs) this.blasts[n++] = b;
    this.blasts.length = n;
  }

  snapshot(): Snapshot {
    const c = this.client;
    const now = this.#now();
    const players: Snapshot["players"] = [];
    for (let s = 0; s < MAX_PLAYERS; s++) {
      if (c.present[s] === 0) continue;
      players.push({ slot: s, id: c.playerIds[s], name: this.nameOf(s), score: c.scores[s], ping: c.pings[s], ship: c.ship[s], weapon: c.weapon[s] });
    }
    const entities: Snapshot["entities"] = [];
    for (const i of this.live) {
      const p = this.pose(i, now);
      entities.push({
        id: c.entityId[i], type: c.type[i], kind: kindOf(c.type[i]), owner: c.owner[i], x: p.x, y: p.y,
        vx: c.vx[i], vy: c.vy[i], rot: c.rot[i], health: c.health[i], placed: this.placed[i] !== 0,
      });
    }
    return {
      phase: this.phase(), selfId: c.selfId, selfSlot: c.selfSlot, players, entities,
      flown: { ship: this.flownShip, weapon: this.flownWeapon },
      chat: this.lines.map((l) => ({ slot: l.slot, name: l.name, text: l.text, note: l.note })),
    };
  }

  /** Our own line `text` did not reach the others: it is shown with `note`. */
  notSent(text: string, note: string): void {
    const slot = this.client.selfSlot;
    this.#line(slot, slot >= 0 ? this.nameOf(slot) : "you", text, note);
  }

  // ---------------------------------------------------------------- from the client

  #line(slot: number, name: string, text: string, note = ""): void {
    this.lines.push({ slot, name, text, at: this.#now(), note });
    if (this.lines.length > MAX_LINES) this.lines.shift();
    this.lineCount++;
  }

  /** The "joined" lines of newcomers whose Join came in a packet before number `packet`. */
  #flushJoins(packet: number): void {
    for (let s = 0; s < MAX_PLAYERS; s++) {
      const at = this.#pendingJoin[s];
      if (at === 0 || at === packet) continue;
      this.#pendingJoin[s] = 0;
      this.#pendingJoins--;
      if (this.client.present[s] !== 0) {
        this.#gone.delete(this.nameOf(s));
        this.#line(-1, "", `${this.nameOf(s)} joined`);
      }
    }
  }

  /** A newcomer's first Name (the client library tells it from a rename): "joined" once its packet is done. */
  #joined(slot: number): void {
    const packet = this.client.counters[Counter.PacketsIn];
    if (this.#pendingJoins !== 0) this.#flushJoins(packet);
    if (slot >= MAX_PLAYERS) return;
    if (this.#pendingJoin[slot] === 0) this.#pendingJoins++;
    this.#pendingJoin[slot] = packet;
  }

  /** `slot` is now called `name`; names[slot] still holds the old one. */
  #renamed(slot: number, name: string): void {
    const packet = this.client.counters[Counter.PacketsIn];
    if (this.#pendingJoins !== 0) this.#flushJoins(packet);
    if (slot >= MAX_PLAYERS) return;
    // The name a newcomer chose, in the packet that announced it under the default.
    if (this.#pendingJoin[slot] === packet) return;
    const old = this.nameOf(slot);
    if (old !== name) this.#line(-1, "", `${old} is now ${name}`);
  }

  #reliable(type: number, b: Uint8Array, o: number): void {
    const c = this.client;
    const f = this.#fields;
    const packet = c.counters[Counter.PacketsIn];
    if (this.#pendingJoins !== 0) this.#flushJoins(packet);
    switch (type) {
      case Msg.Join: {
        const slot = readId(b, o) & 0xffff;
        if (slot >= MAX_PLAYERS) return;
        this.names[slot] = "";
        this.rosterVersion++;
        return;
      }
      case Msg.Name: {
        readName(b, o, f);
        const slot = f.id & 0xffff;
        if (slot >= MAX_PLAYERS) return;
        this.names[slot] = bytesToAscii(c.names, slot * NAME_LENGTH, c.nameLength[slot]);
        this.rosterVersion++;
        return;
      }
      case Msg.Selection:
        this.rosterVersion++;
        return;
      case Msg.Leave: {
        const id = readId(b, o);
        const slot = id & 0xffff;
        if (id === c.selfId || slot >= MAX_PLAYERS) return;
        if (this.#pendingJoin[slot] !== 0) {
          // Came and went within one packet: not worth two lines.
          this.#pendingJoin[slot] = 0;
          this.#pendingJoins--;
        } else {
          const name = this.nameOf(slot);
          if (!this.#gone.has(name)) this.#line(-1, "", `${name} left`);
          this.#gone.add(name);
        }
        this.names[slot] = "";
        this.rosterVersion++;
        return;
      }
      case Msg.Chat: {
        readChat(b, o, f);
        const slot = f.id & 0xffff;
        this.#line(slot, this.nameOf(slot), bytesToAscii(b, f.textOffset, f.textLength));
        if (f.id !== c.selfId && this.events !== null) this.events.chat(slot);
        return;
      }
      case Msg.Add: {
        readAdd(b, o, f);
        const i = f.id & 0xffff;
        if (i >= this.capacity) return;
        if (this.#place[i] < 0) {
          this.#place[i] = this.live.length;
          this.live.push(i);
        }
        this.placed[i] = 0;
        this.#hull[i] = 100;
        this.#guardUntil[i] = 0;
        const addedKind = kindOf(f.a);
        if (addedKind === Kind.Ship) this.#guardUntil[i] = this.#now() + GUARD_MS;
        else if (addedKind === Kind.Shot) {
          // Firing ends the guard of the shooter's ship.
          for (const j of this.live) if (c.owner[j] === f.other && kindOf(c.type[j]) === Kind.Ship) this.#guardUntil[j] = 0;
        }
        if (f.other === c.selfId) {
          const kind = kindOf(f.a);
          if (kind === Kind.Ship) {
            this.own.clear();
            this.selfShip = i;
            this.diedAt = -1;
            this.flownShip = f.a - SHIP_BASE;
            // The server's Selection at the moment it spawned us; our first shot confirms it.
            const slot = c.selfSlot;
            this.flownWeapon = slot >= 0 ? c.weapon[slot] : 0;
          } else if (kind === Kind.Shot) {
            if (this.selfShip >= 0) this.flownWeapon = f.a - SHOT_BASE;
            this.fire.claim(i, this.#now());
          }
        }
        if (this.events !== null) this.events.added(i);
        return;
      }
      case Msg.Remove: {
        const id = readId(b, o);
        const i = id & 0xffff;
        if (i >= this.capacity || this.#place[i] < 0 || c.entityId[i] !== id) return;
        const ownerSlot = c.owner[i] & 0xffff;
        const wasPlaced = this.placed[i] !== 0;
        const p = this.pose(i, this.#now());
        if (kindOf(c.type[i]) === Kind.Ship && wasPlaced && ownerSlot < MAX_PLAYERS && c.present[ownerSlot] !== 0) {
          this.blasts.push({ x: p.x, y: p.y, radius: 60, slot: ownerSlot, at: this.#now() });
        }
        if (this.events !== null) this.events.removed(i, p.x, p.y, wasPlaced);
        if (i === this.selfShip) {
          this.own.clear();
          this.selfShip = -1;
          this.diedAt = this.#now();
          this.flownShip = -1;
          this.flownWeapon = -1;
        }
        this.fire.removed(i);
        // Swap-remove from the dense list.
        const at = this.#place[i];
        const last = this.live.pop()!;
        if (last !== i) {
          this.live[at] = last;
          this.#place[last] = at;
        }
        this.#place[i] = -1;
        this.placed[i] = 0;
        return;
      }
    }
  }

  /** An Update the server sent at `sentAt` (its clock, ms). */
  #update(b: Uint8Array, o: number, sentAt: number): void {
    const c = this.client;
    const n = b[o];
    const now = this.#now();
    const events = this.events;
    for (let k = 0; k < n; k++) {
      const id = updateEntryId(b, o + 1 + k * UPDATE_ENTRY);
      const i = id & 0xffff;
      if (i >= this.capacity || c.alive[i] === 0 || c.entityId[i] !== id) continue;
      const x = c.x[i];
      const y = c.y[i];
      const rot = c.rot[i] * CENTIDEGREE;
      if (i === this.selfShip) {
        const own = fromUpdate(x, y, c.vx[i], c.vy[i], c.rot[i], this.#ownState);
        this.own.server(own, c.type[i] - SHIP_BASE, now, sentAt);
      }
      if (this.placed[i] !== 0) {
        const p = this.#serverPose(i, now);
        let dx = p.x - x;
        let dy = p.y - y;
        if (dx * dx + dy * dy > TELEPORT_WU * TELEPORT_WU) dx = dy = 0;
        this.#ox[i] = dx;
        this.#oy[i] = dy;
        let dr = (p.rot - rot) % (2 * Math.PI);
        if (dr > Math.PI) dr -= 2 * Math.PI;
        else if (dr < -Math.PI) dr += 2 * Math.PI;
        this.#orot[i] = dr;
      } else {
        // One of our shots the page predicted: drawn on from where the prediction is, the difference fading.
        const shot = this.fire.handOver(i, now);
        this.#ox[i] = shot === null ? 0 : shot.x - x;
        this.#oy[i] = shot === null ? 0 : shot.y - y;
        this.#orot[i] = 0;
        this.placed[i] = 1;
      }
      this.#bx[i] = x;
      this.#by[i] = y;
      this.#bvx[i] = c.vx[i];
      this.#bvy[i] = c.vy[i];
      this.#brot[i] = rot;
      this.#bt[i] = now;
      const hull = c.health[i];
      const before = this.#hull[i];
      this.#hull[i] = hull;
      if (hull < before && events !== null && kindOf(c.type[i]) === Kind.Ship) events.hurt(i, before, hull);
    }
  }
}
