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
import { CHAT_LENGTH, NAME_LENGTH, UPDATE_ENTRY } from "./protocol/constants";
import type { Server } from "./server/server";
import { LogEvent } from "./server/events";
import { ANGLE_BITS, ANGLE_MASK, CENTIDEGREES, POS_SHIFT, STEP_HZ } from "./units";

const POS_HALF = 1 << (POS_SHIFT - 1);
const ANGLE_HALF = 1 << (ANGLE_BITS - 1);

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
/** Watchers the board serves at most, and how often it writes a frame (ms): docs/performance.md, "A watcher's cost". */
export const BOARD_WATCHERS = 2;
export const BOARD_WATCH_INTERVAL_MS = 250;

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
  readonly #server: Server;
  /** The entity table's owners as signed 32-bit integers (NO_PLAYER is -1): a Uint32Array read past 2^31 is a double on XS. */
  readonly #owners: Int32Array;
  /** Events dropped because a frame's ring was full. */
  dropped = 0;
  /** Frames written. */
  frames = 0;

  /** A feed of `server`'s match: its frame buffer sized from the server's config, made once. */
  constructor(server: Server) {
    this.#server = server;
    this.frame = new Uint8Array(watchFrameBytes(server.config));
    const owner = server.entities.owner;
    this.#owners = new Int32Array(owner.buffer, owner.byteOffset, owner.length);
  }

  /**
   * A server log event (Host.log): deaths and chat lines go into the next frame. The server
   * holds the chat text (lastChat) while its Chat event is logged.
   */
  note(event: number, slot: number, value: number): void {
    const server = this.#server;
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

  /** Write the frame at `now` (the server's clock, ms) into `frame`; returns its length. The events go with it. */
  write(now: number): number {
    const server = this.#server;
    const b = this.frame;
    const e = server.entities;
    const n = server.config.maxPlayers;
    b[0] = WATCH_KIND;
    b[1] = WATCH_VERSION;
    b[2] = (now >> 24) & 0xff;
    b[3] = (now >> 16) & 0xff;
    b[4] = (now >> 8) & 0xff;
    b[5] = now & 0xff;
    let o = WATCH_HEADER;
    let players = 0;
    for (let s = 0; s < n; s++) {
      if (server.active[s] === 0) continue;
      const id = server.playerId(s);
      b[o] = s;
      b[o + 1] = (id >> 24) & 0xff;
      b[o + 2] = (id >> 16) & 0xff;
      b[o + 3] = (id >> 8) & 0xff;
      b[o + 4] = id & 0xff;
      b[o + 5] = (server.scores[s] >>> 8) & 0xff;
      b[o + 6] = server.scores[s] & 0xff;
      b[o + 7] = (server.pings[s] >>> 8) & 0xff;
      b[o + 8] = server.pings[s] & 0xff;
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
    const gen = e.generation;
    const owners = this.#owners;
    const alive = e.alive;
    const type = e.type;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const erot = e.rot;
    const health = e.health;
    const cap = e.capacity;
    // Declared once: on XS a declaration inside the loop costs a little every iteration.
    let owner: number, g: number, x: number, y: number, vx: number, vy: number, rot: number, h: number;
    for (let i = 0; i < cap; i++) {
      if (alive[i] === 0) continue;
      owner = owners[i];
      g = gen[i];
      // The id (generation << 16 | index) a byte at a time: as one number it may pass 2^31,
      // which XS keeps as a double. Then an Update entry's fields (codec.ts), converted as
      // modules/units.ts does (toWire*), inlined, and clamped to int16.
      x = (ex[i] + POS_HALF) >> POS_SHIFT;
      y = (ey[i] + POS_HALF) >> POS_SHIFT;
      vx = (evx[i] * STEP_HZ + POS_HALF) >> POS_SHIFT;
      vy = (evy[i] * STEP_HZ + POS_HALF) >> POS_SHIFT;
      x = x < -32768 ? -32768 : x > 32767 ? 32767 : x;
      y = y < -32768 ? -32768 : y > 32767 ? 32767 : y;
      vx = vx < -32768 ? -32768 : vx > 32767 ? 32767 : vx;
      vy = vy < -32768 ? -32768 : vy > 32767 ? 32767 : vy;
      rot = ((erot[i] & ANGLE_MASK) * CENTIDEGREES + ANGLE_HALF) >> ANGLE_BITS;
      h = health[i];
      b[o] = type[i];
      b[o + 1] = owner === -1 ? 0xff : owner & 0xff;
      b[o + 2] = (g >> 8) & 0xff;
      b[o + 3] = g & 0xff;
      b[o + 4] = (i >> 8) & 0xff;
      b[o + 5] = i & 0xff;
      b[o + 6] = (x >> 8) & 0xff;
      b[o + 7] = x & 0xff;
      b[o + 8] = (y >> 8) & 0xff;
      b[o + 9] = y & 0xff;
      b[o + 10] = (vx >> 8) & 0xff;
      b[o + 11] = vx & 0xff;
      b[o + 12] = (vy >> 8) & 0xff;
      b[o + 13] = vy & 0xff;
      b[o + 14] = (rot >> 8) & 0xff;
      b[o + 15] = rot & 0xff;
      b[o + 16] = h > 100 ? 100 : h;
      o += WATCH_ENTITY;
      entities++;
    }
    b[7] = (entities >> 8) & 0xff;
    b[8] = entities & 0xff;
    b[9] = this.#events;
    for (let k = 0; k < this.#events; k++) {
      b[o] = this.#kind[k];
      b[o + 1] = this.#slot[k];
      const v = this.#value[k];
      b[o + 2] = (v >> 24) & 0xff;
      b[o + 3] = (v >> 16) & 0xff;
      b[o + 4] = (v >> 8) & 0xff;
      b[o + 5] = v & 0xff;
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

