/**
 * The watch feed: the whole match for a big screen, with no player slot. A watcher opens a
 * WebSocket at WATCH_WS_PATH on the page's port (the page itself at WATCH_PATH is the same
 * index.html as `/`); it sends nothing, and the host sends it one binary message, a watch
 * frame, every WATCH_INTERVAL_MS: every player, every entity and the events since the last
 * frame. The frame is written once per interval for all watchers (`WatchFeed.write`) and
 * is the same bytes for each. docs/protocol.md ("Watching") has the layout.
 *
 * Watch frame, big-endian:
 *
 *   0  u8   WATCH_KIND (0x57, "W")
 *   1  u8   WATCH_VERSION (1)
 *   2  u32  server clock, ms
 *   6  u8   P, players
 *   7  u16  E, entities
 *   9  u8   V, events
 *   10      P players:  slot u8, id u32, score u16, ping u16, ship u8, weapon u8,
 *                       flags u8 (bit 0: a bot the server flies), name length u8, name bytes
 *   ..      E entities: template u8, owner slot u8 (0xFF none), then an Update entry
 *                       (15 bytes: id u32, x i16, y i16 wu, vx i16, vy i16 wu/s,
 *                       rot u16 centidegrees, health u8)
 *   ..      V events:   kind u8 (LogEvent), slot u8, value u32; a Chat event then its text
 *                       (length u8, bytes). Death: value is deathValue(killer slot, template).
 *
 * Fixed memory: the frame buffer and the event ring are made in the constructor.
 */
import type { Config } from "./config";
import { NO_PLAYER } from "./game/entities";
import { CHAT_LENGTH, NAME_LENGTH, UPDATE_ENTRY } from "./protocol/constants";
import { writeUpdateEntry } from "./protocol/codec";
import type { Server } from "./server/server";
import { LogEvent } from "./server/events";
import { toWireAngle, toWirePosition, toWireVelocity } from "./units";

/** The page for a big screen: the same index.html as `/`. */
export const WATCH_PATH = "/watch";
/** The watch feed's WebSocket. */
export const WATCH_WS_PATH = "/watch/ws";
/** A frame this often (ms): 10 a second. */
export const WATCH_INTERVAL_MS = 100;
export const WATCH_KIND = 0x57;
export const WATCH_VERSION = 1;
/** Events a frame carries at most; older ones of a busy interval are dropped (and counted). */
export const WATCH_EVENTS = 16;
/** Watchers the board serves at most. */
export const BOARD_WATCHERS = 2;

export const WATCH_HEADER = 10;
/** A player's record without its name. */
export const WATCH_PLAYER = 13;
export const WATCH_ENTITY = 2 + UPDATE_ENTRY;
export const WATCH_EVENT = 6;

/** The largest frame for `config`, bytes. */
export function watchFrameBytes(config: Config): number {
  return (
    WATCH_HEADER + config.maxPlayers * (WATCH_PLAYER + NAME_LENGTH) + config.maxEntities * WATCH_ENTITY + WATCH_EVENTS * (WATCH_EVENT + 1 + CHAT_LENGTH)
  );
}

export class WatchFeed {
  /** The frame, written by `write`. */
  readonly frame: Uint8Array;
  readonly #kind = new Uint8Array(WATCH_EVENTS);
  readonly #slot = new Uint8Array(WATCH_EVENTS);
  readonly #value = new Uint32Array(WATCH_EVENTS);
  readonly #chat = new Uint8Array(WATCH_EVENTS * CHAT_LENGTH);
  readonly #chatLength = new Uint8Array(WATCH_EVENTS);
  #events = 0;
  /** Events dropped because a frame's ring was full. */
  dropped = 0;
  /** Frames written. */
  frames = 0;

  constructor(config: Config) {
    this.frame = new Uint8Array(watchFrameBytes(config));
  }

  /**
   * A server log event (Host.log): deaths and chat lines go into the next frame. `server`
   * holds the chat text (lastChat) while its Chat event is logged.
   */
  note(server: Server, event: number, slot: number, value: number): void {
    if (event !== LogEvent.Death && event !== LogEvent.Chat) return;
    if (slot < 0 || slot > 0xff) return;
    if (this.#events === WATCH_EVENTS) {
      this.dropped++;
      return;
    }
    const k = this.#events++;
    this.#kind[k] = event;
    this.#slot[k] = slot;
    this.#value[k] = value;
    let n = 0;
    if (event === LogEvent.Chat) {
      n = server.lastChatLength;
      if (n > CHAT_LENGTH - 1) n = CHAT_LENGTH - 1;
      const text = server.lastChat;
      const at = k * CHAT_LENGTH;
      for (let i = 0; i < n; i++) this.#chat[at + i] = text[i];
    }
    this.#chatLength[k] = n;
  }

  /** No watcher to write for: forget the events (a watcher that comes later starts from now). */
  skip(): void {
    this.#events = 0;
  }

  /** Write the frame for `server` at `now` (ms) into `frame`; returns its length. The events go with it. */
  write(server: Server, now: number): number {
    const b = this.frame;
    const e = server.entities;
    const n = server.config.maxPlayers;
    b[0] = WATCH_KIND;
    b[1] = WATCH_VERSION;
    b[2] = now >>> 24;
    b[3] = now >>> 16;
    b[4] = now >>> 8;
    b[5] = now;
    let o = WATCH_HEADER;
    let players = 0;
    for (let s = 0; s < n; s++) {
      if (server.active[s] === 0) continue;
      const id = server.playerId(s);
      b[o] = s;
      b[o + 1] = id >>> 24;
      b[o + 2] = id >>> 16;
      b[o + 3] = id >>> 8;
      b[o + 4] = id;
      b[o + 5] = server.scores[s] >>> 8;
      b[o + 6] = server.scores[s];
      b[o + 7] = server.pings[s] >>> 8;
      b[o + 8] = server.pings[s];
      b[o + 9] = server.ship[s];
      b[o + 10] = server.weapon[s];
      b[o + 11] = server.pilots.bot[s] !== 0 ? 1 : 0;
      const len = server.nameLength[s];
      b[o + 12] = len;
      o += WATCH_PLAYER;
      const from = s * NAME_LENGTH;
      for (let i = 0; i < len; i++) b[o + i] = server.names[from + i];
      o += len;
      players++;
    }
    b[6] = players;
    let entities = 0;
    for (let i = 0; i < e.capacity; i++) {
      if (e.alive[i] === 0) continue;
      const owner = e.owner[i];
      b[o] = e.type[i];
      b[o + 1] = owner === NO_PLAYER ? 0xff : owner & 0xff;
      o = writeUpdateEntry(
        b, o + 2, e.id(i), toWirePosition(e.x[i]), toWirePosition(e.y[i]), toWireVelocity(e.vx[i]), toWireVelocity(e.vy[i]),
        toWireAngle(e.rot[i]), e.health[i],
      );
      entities++;
    }
    b[7] = entities >>> 8;
    b[8] = entities;
    b[9] = this.#events;
    for (let k = 0; k < this.#events; k++) {
      b[o] = this.#kind[k];
      b[o + 1] = this.#slot[k];
      const v = this.#value[k];
      b[o + 2] = v >>> 24;
      b[o + 3] = v >>> 16;
      b[o + 4] = v >>> 8;
      b[o + 5] = v;
      o += WATCH_EVENT;
      if (this.#kind[k] === LogEvent.Chat) {
        const len = this.#chatLength[k];
        b[o++] = len;
        const at = k * CHAT_LENGTH;
        for (let i = 0; i < len; i++) b[o + i] = this.#chat[at + i];
        o += len;
      }
    }
    this.#events = 0;
    this.frames++;
    return o;
  }
}
