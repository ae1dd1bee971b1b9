/**
 * The big-screen view's source: watch frames (modules/watch.ts) from WATCH_WS_PATH, turned
 * into what a Client would have applied and told its listener, so the page's World, feed,
 * scoreboard and renderer work unchanged. A watcher takes no slot and sends nothing.
 *
 * Each frame holds every player and entity: a player or an entity not seen before is a
 * Join and Name, or an Add; one gone since the last frame a Leave, or a Remove; every
 * entity's record is an Update entry. Deaths come as the server's own (killer, victim and
 * what dealt the blow): no inference. Chat lines come with their text.
 */
import { ClientState, KillCause, type Client } from "./client";
import { causeOfTemplate } from "./kills";
import { getI16, getU16, getU32 } from "../protocol/bytes";
import { writeAdd, writeChat, writeId, writeName } from "../protocol/codec";
import { MAX_PLAYERS, Msg, NAME_LENGTH, UPDATE_ENTRY } from "../protocol/constants";
import { NO_PLAYER } from "../game/entities";
import { Counter } from "../protocol/counters";
import { deathCause, deathKiller, LogEvent } from "../server/events";
import { WATCH_ENTITY, WATCH_EVENT, WATCH_HEADER, WATCH_KIND, WATCH_PLAYER, WATCH_VERSION } from "../watch";

/** Entries in one synthetic Update. */
const UPDATE_MAX = 255;


export class WatchSource {
  readonly #c: Client;
  /** Scratch for one synthetic message. */
  readonly #msg = new Uint8Array(4 + NAME_LENGTH + 256);
  readonly #update: Uint8Array;
  /** Per entity index: the frame that last listed it. */
  readonly #seen: Uint32Array;
  /** Per slot: listed in the frame being applied. */
  readonly #here = new Uint8Array(MAX_PLAYERS);
  #frames = 0;
  /** Frames applied, and frames refused (not a watch frame, or cut short). */
  frames = 0;
  bad = 0;

  constructor(client: Client) {
    this.#c = client;
    this.#seen = new Uint32Array(client.entityCapacity);
    this.#update = new Uint8Array(1 + UPDATE_MAX * UPDATE_ENTRY);
    // Never connected: the page shows it as a match it is in, with no ship of its own.
    client.state = ClientState.Connected;
  }

  /** Apply one watch frame of `n` bytes. False when it is not one (nothing applied). */
  frame(b: Uint8Array, n: number): boolean {
    if (n < WATCH_HEADER || b[0] !== WATCH_KIND || b[1] !== WATCH_VERSION || !this.#fits(b, n)) {
      this.bad++;
      return false;
    }
    const c = this.#c;
    const first = this.#frames === 0;
    const frame = ++this.#frames;
    c.counters[Counter.PacketsIn]++;
    const ts = getU32(b, 2);
    const players = b[6];
    const entities = getU16(b, 7);
    const events = b[9];
    const l = c.listener;
    const m = this.#msg;
    let o = WATCH_HEADER;
    // Players: joins, renames and leaves against what the client has.
    const here = this.#here;
    here.fill(0);
    for (let k = 0; k < players; k++) {
      const r = o;
      const slot = b[r];
      const id = getU32(b, r + 1);
      const len = b[r + 12];
      const at = r + WATCH_PLAYER;
      o = at + len;
      if (slot >= MAX_PLAYERS) continue;
      here[slot] = 1;
      const fresh = c.present[slot] === 0 || c.playerIds[slot] !== id;
      if (fresh && c.present[slot] !== 0) this.#leave(slot);
      let renamed = fresh || c.nameLength[slot] !== len;
      for (let i = 0; i < len && !renamed; i++) renamed = c.names[slot * NAME_LENGTH + i] !== b[at + i];
      if (fresh) {
        c.present[slot] = 1;
        c.playerIds[slot] = id;
        writeId(m, 0, id);
        if (l !== null) l.reliable(c, Msg.Join, 0, m, 0);
      }
      c.scores[slot] = getU16(b, r + 5);
      // The server flies its bots (flags bit 0): they have no ping.
      c.pings[slot] = (b[r + 11] & 1) !== 0 ? 0 : getU16(b, r + 7);
      if (b[r + 9] !== c.ship[slot] || b[r + 10] !== c.weapon[slot]) {
        c.ship[slot] = b[r + 9];
        c.weapon[slot] = b[r + 10];
        if (l !== null) l.reliable(c, Msg.Selection, 0, m, 0);
      }
      if (renamed) {
        writeName(m, 0, id, b, at, len);
        // As a Client: the join or rename is told before the name is in the roster.
        if (fresh && !first && c.onPlayerJoined !== null) c.onPlayerJoined(id, m, 4, len);
        else if (!fresh && c.onRename !== null) c.onRename(id, m, 4, len);
        for (let i = 0; i < NAME_LENGTH; i++) c.names[slot * NAME_LENGTH + i] = i < len ? b[at + i] : 0;
        c.nameLength[slot] = len;
        if (l !== null) l.reliable(c, Msg.Name, 0, m, 0);
      }
    }
    for (let s = 0; s < MAX_PLAYERS; s++) if (here[s] === 0 && c.present[s] !== 0) this.#leave(s);
    // Entities: Adds for the new, an Update entry for each, Removes for the gone.
    const u = this.#update;
    let count = 0;
    for (let k = 0; k < entities; k++, o += WATCH_ENTITY) {
      const e = o + 2;
      const id = getU32(b, e);
      const i = id & 0xffff;
      if (i >= c.entityCapacity) continue;
      this.#seen[i] = frame;
      if (c.alive[i] !== 0 && c.entityId[i] !== id) this.#remove(i);
      if (c.alive[i] === 0) {
        const slot = b[o + 1];
        const owner = slot < MAX_PLAYERS && c.present[slot] !== 0 ? c.playerIds[slot] : NO_PLAYER;
        c.alive[i] = 1;
        c.entityCount++;
        c.entityId[i] = id;
        c.owner[i] = owner;
        c.type[i] = b[o];
        c.health[i] = 100;
        writeAdd(m, 0, id, owner, b[o]);
        if (l !== null) l.reliable(c, Msg.Add, 0, m, 0);
      }
      c.x[i] = getI16(b, e + 4);
      c.y[i] = getI16(b, e + 6);
      c.vx[i] = getI16(b, e + 8);
      c.vy[i] = getI16(b, e + 10);
      c.rot[i] = getU16(b, e + 12);
      c.health[i] = b[e + 14];
      for (let j = 0; j < UPDATE_ENTRY; j++) u[1 + count * UPDATE_ENTRY + j] = b[e + j];
      if (++count === UPDATE_MAX) {
        this.#flushUpdate(count, ts);
        count = 0;
      }
    }
    if (count > 0) this.#flushUpdate(count, ts);
    for (let i = 0; i < c.entityCapacity; i++) if (c.alive[i] !== 0 && this.#seen[i] !== frame) this.#remove(i);
    // Events: the server's deaths, and chat lines.
    for (let k = 0; k < events; k++) {
      const kind = b[o];
      const slot = b[o + 1];
      const value = getU32(b, o + 2);
      o += WATCH_EVENT;
      if (kind === LogEvent.Chat) {
        const len = b[o];
        const at = o + 1;
        o = at + len;
        if (slot < MAX_PLAYERS && c.present[slot] !== 0) {
          writeChat(m, 0, c.playerIds[slot], b, at, len);
          if (l !== null) l.reliable(c, Msg.Chat, 0, m, 0);
        }
      } else if (kind === LogEvent.Death && slot < MAX_PLAYERS && c.onKill !== null) {
        const ks = deathKiller(value);
        const template = deathCause(value);
        const killer = ks >= 0 && ks < MAX_PLAYERS && c.present[ks] !== 0 ? c.playerIds[ks] : -1;
        const cause = causeOfTemplate(template);
        c.onKill(c.playerIds[slot], ks === slot ? c.playerIds[slot] : killer, cause, cause === KillCause.Shot ? template : -1);
      }
    }
    this.frames++;
    return true;
  }

  /** Whether the counts of frame `b` fit its `n` bytes. */
  #fits(b: Uint8Array, n: number): boolean {
    let o = WATCH_HEADER;
    for (let k = 0; k < b[6]; k++) {
      if (o + WATCH_PLAYER > n) return false;
      o += WATCH_PLAYER + b[o + 12];
    }
    o += getU16(b, 7) * WATCH_ENTITY;
    for (let k = 0; k < b[9]; k++) {
      if (o + WATCH_EVENT > n) return false;
      const chat = b[o] === LogEvent.Chat;
      o += WATCH_EVENT;
      if (chat) {
        if (o + 1 > n) return false;
        o += 1 + b[o];
      }
    }
    return o <= n;
  }

  #flushUpdate(count: number, ts: number): void {
    const c = this.#c;
    const u = this.#update;
    u[0] = count;
    c.updatesReceived++;
    if (c.listener !== null) c.listener.unreliable(c, Msg.Update, ts, u, 0);
  }

  #remove(i: number): void {
    const c = this.#c;
    writeId(this.#msg, 0, c.entityId[i]);
    if (c.listener !== null) c.listener.reliable(c, Msg.Remove, 0, this.#msg, 0);
    c.alive[i] = 0;
    c.entityCount--;
  }

  #leave(slot: number): void {
    const c = this.#c;
    writeId(this.#msg, 0, c.playerIds[slot]);
    if (c.listener !== null) c.listener.reliable(c, Msg.Leave, 0, this.#msg, 0);
    c.present[slot] = 0;
    c.nameLength[slot] = 0;
  }
}
