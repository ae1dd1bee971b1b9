/**
 * The lwar Rev 1 server core: player slots, the connection life cycle, reliable and
 * unreliable delivery to each player, and Update/Stats on schedule. Host-free: it
 * talks to the world through `Host` only, and allocates nothing after `createServer`.
 *
 * This file composes the rooms (state.ts holds what they share): admission.ts finds and
 * admits peers and frees their slots, session.ts carries what players say (chat, names,
 * selections, announcements, leaves) and counts strikes, schedule.ts runs the timeouts and
 * the acknowledgement rule; here are receive, tick, kicks, the entity sync and Updates.
 *
 * Flow in:  host → receive() → one native copy into `#rx` → validation (a fast path for the
 *           common client packets, else validatePacket) → per-peer handling.
 * Flow out: tick() → timers → Endpoint.fill (reliables) + Stats/Update → host.send.
 */
import { Arena } from "../arena";
import { ConfigError, type Config } from "../config";
import type { Core, Host } from "../host";
import { C, createCounters } from "../protocol/counters";
import {
  APP_ID, CHAT_LENGTH, FROM_CLIENT, HEADER_SIZE, MAX_PACKET, MAX_PLAYERS, Msg, NAME_LENGTH,
  RELIABLE_HEADER, UPDATE_ENTRY, typeTable,
} from "../protocol/constants";
import {
  INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING, MAX_MESSAGES,
  validatePacket, writeId, writeStats,
} from "../protocol/codec";
import { DUPLICATE, Endpoint, finishPacket, FUTURE_SLACK_MS, PROCESS } from "../transport/endpoint";
import { EntityTable, type EntityListener } from "../game/entities";
import { KickReason, LogEvent } from "./events";
import { PriorityPlanner, RoundRobinPlanner, type UpdatePlanner } from "./updates";
import { Binding, type Kernels } from "../native";
import type { Focus, Players, Simulation } from "../sim";
import { ANGLE_BITS, ANGLE_MASK, CENTIDEGREES, POS_SHIFT, STEP_HZ } from "../units";
import { Admission, HANDSHAKE_MEMORY, LEFT_MEMORY, PORT_HINT_MASK } from "./admission";
import { BROADCAST_BYTES, Session } from "./session";
import { Pilots } from "./pilots";
import { Schedule } from "./schedule";
import { ServerState } from "./state";

const POS_HALF = 1 << (POS_SHIFT - 1);

/** The Update entry loop's binding for native kernels (hosts/moddable/kernels.c reads the same numbers). */
export const enum PackMem {
  Entries, Encoded, X, Y, VX, VY, Rot, Health, List,
  Count,
}
export const enum PackWord {
  MaxPacket, Entry, StepHz, PosShift, AngleBits, Centidegrees, O, K,
  Count,
}
/** #sync's binding for native kernels; Queue0 is the first of maxPlayers queue offsets. */
export const enum SyncMem {
  Dirty, Alive, Generation, Known, Owner, Type, Arena, Actions, Changed, Active, DirtyAny,
  Count,
}
export const enum SyncWord {
  Capacity, Words, ActionRoom, Header, AddType, RemoveType, QueueBytes, Keep, Used, Seq, Messages, State, Queue0,
}
/** The receive fast path's binding for native kernels: the receive buffer, then words. */
export const enum PeekMem {
  Rx,
  Count,
}
export const enum PeekWord {
  AppId, InputType, Forward, Backward, Left, Right, Shooting, Ack, Timestamp, Input,
  Count,
}
/** What `peek` found: a packet for the general path, an ack alone, an ack and one Input. */
export const enum PeekKind {
  Other, Ack, AckInput,
}
/** Why a native sync stopped: the slot is done, its queue is at the line it keeps, or the action list is full. */
export const enum SyncStop {
  Done, Room, Actions,
}
/** APP_ID as a signed 32-bit integer, as DataView.getInt32 reads it. */
const APP_ID_I32 = APP_ID | 0;
/** Bytes 12..14 of an ack + Input packet: 0 reliable, 1 unreliable, type Input. */
const INPUT_SHAPE = (1 << 8) | Msg.Input;
const ANGLE_HALF = 1 << (ANGLE_BITS - 1);

const STATS_SIZE = 1 + 4 * MAX_PLAYERS;
/** How often empty slots are looked at for bots to fill (config.bots), ms. */
export const BOT_FILL_MS = 1000;
/** Join, Name and Selection of one player: what announcing it puts in each queue. */
const ANNOUNCE_SIZE = 3 * RELIABLE_HEADER + 4 + (4 + NAME_LENGTH) + 6;

export class Server implements Core, EntityListener, Players {
  readonly config: Config;
  readonly host: Host;
  readonly counters: Uint32Array;
  readonly entities: EntityTable;
  #planner: UpdatePlanner;
  /** What the rooms share (state.ts), and the rooms. */
  readonly #state: ServerState;
  readonly #admission: Admission;
  readonly #session: Session;
  readonly #schedule: Schedule;

  // Player slots (struct of arrays, indexed by slot): the state's tables, named here for
  // the hosts, the game (Players) and the tests.
  readonly active: Uint8Array;
  readonly generation: Uint16Array;
  readonly address: string[];
  readonly port: Int32Array;
  readonly endpoints: Endpoint[];
  readonly names: Uint8Array;
  readonly nameLength: Uint8Array;
  readonly ship: Uint8Array;
  readonly weapon: Uint8Array;
  /** Newest Input of each player as INPUT_* bits. */
  readonly input: Uint8Array;
  readonly misbehaviour: Uint16Array;
  /**
   * [slot × capacity + index]: the generation of the entity at that index that the player
   * knows (its Add was queued and no Remove since), 0 for none. Generations are never 0.
   */
  readonly known!: Uint16Array;
  /** Scores are written by the game; pings by the server. Both sent in Stats. */
  readonly scores: Uint16Array;
  readonly pings: Uint16Array;
  /** The last chat line accepted (for the host's log); its length is lastChatLength. */
  readonly lastChat: Uint8Array;

  // The state's tables that the entity sync and the receive path read (state.ts).
  readonly #pendingKick: Uint8Array;
  readonly #announced: Uint8Array;
  readonly #inputAt: Int32Array;
  readonly #frontSince: Int32Array;
  /** Bytes every queue keeps free for Leaves (state.ts, leaveReserve()). */
  readonly #leaveReserve: number;
  /** Where the tables above come from (its rows are the memory budget's). */
  readonly #arena: Arena;
  /** The datagram being handled, copied in with one native call, and a DataView on it. */
  readonly #rx: Uint8Array;
  readonly #rxView: DataView;
  /** Payload offsets of the datagram's messages, recorded by validatePacket. */
  readonly #offsets!: Uint16Array;
  readonly #tx: Uint8Array;
  /**
   * One buffer: the packet being built (`#tx`, its first MAX_PACKET bytes), then each
   * entity's Update entry as encoded in the current update tick. An entry is encoded once
   * per update tick, by the first client whose plan has it, and copied into every packet
   * with one native copyWithin: on XS that is about ten times cheaper than encoding it
   * again for each client.
   */
  readonly #txAndEntries: Uint8Array;
  /** Per entity: 1 once its entry is encoded in the current update tick. */
  readonly #encoded!: Uint8Array;
  readonly #list!: Uint16Array;
  /**
   * Update cycle: every `updateIntervalMs`, each player gets its Update at its own offset
   * into the cycle (slot × interval / maxPlayers), so the work of one update round is spread
   * over the ticks of the cycle instead of landing on one.
   */
  #cycleStart = 0;
  readonly #offset: number[];
  readonly #updated!: Uint8Array;
  /** A Stats is due in the player's next Update. */
  readonly #statsDue!: Uint8Array;
  /** The entity table's version when the entries in #txAndEntries were encoded. */
  #encodedVersion = -1;
  #nextStats = 0;
  /**
   * Entity sync is lazy. An add or remove only marks the index in every player's `#dirty`
   * bits; each tick, while a player's queue has room, its dirty indices are reconciled with
   * what it knows: a Remove for what it knows that is gone, an Add for what lives that it
   * does not know. A stalled player's queue thus never fills with entity traffic, and what
   * is born and dies while it is away never reaches it. [slot × words + word].
   */
  readonly #dirty!: Int32Array;
  /** 1 while the slot has dirty bits. */
  readonly #dirtyAny!: Uint8Array;
  readonly #words: number;
  #closed = false;
  /** The host's native loops (modules/native.ts), or null: the JavaScript here runs. */
  readonly #kernels: Kernels | null;
  /** The Update entry loop's binding for `#kernels.pack` (PackMem, PackWord). */
  readonly #pack: Binding | null = null;
  /** #sync's binding for `#kernels.sync` (SyncMem, SyncWord), and the Adds and Removes it queued (~index: a Remove). */
  readonly #syncBinding: Binding | null = null;
  /** The receive fast path's binding for `#kernels.peek` (PeekMem, PeekWord). */
  readonly #peek: Binding | null = null;
  readonly #actions!: Int32Array;
  /**
   * With native kernels: the indices added or removed since the last sync, for everyone
   * (#markIndex sets one bit; the sync merges them into each player's dirty bits).
   */
  readonly #changed!: Int32Array;
  #changedAny = false;

  /** The server's own bots (config.bots): which slots they fly, and their pilots. */
  readonly pilots: Pilots;
  #nextBotFill = 0;
  /** Each player's ship (the game's focus), for the pilots; null without a game. */
  #focus: Focus | null = null;

  constructor(config: Config, host: Host) {
    const n = config.maxPlayers;
    this.config = config;
    this.host = host;
    this.counters = createCounters();
    this.entities = new EntityTable(config.maxEntities);
    this.entities.listener = this;
    this.pilots = new Pilots(config.maxPlayers);
    const t = new ServerState(config, host, this.counters, this.entities, HANDSHAKE_MEMORY, LEFT_MEMORY, this.pilots.bot);
    this.#state = t;

    const q = config.reliableQueueBytes;
    const cap = config.maxEntities;
    this.#words = (cap + 31) >> 5;
    this.#leaveReserve = t.leaveReserve;
    // Room for a packet of entity traffic, an announcement and the Leave reserve.
    if (q < MAX_PACKET + ANNOUNCE_SIZE + this.#leaveReserve)
      throw new ConfigError(`config.reliableQueueBytes must be at least ${MAX_PACKET + ANNOUNCE_SIZE + this.#leaveReserve} for ${n} players`);
    // Two passes over the same takes: the first measures, the second carves (see Arena);
    // the fields marked `!` (here and in the state) are assigned in that loop.
    // Widest elements first.
    const queues: Uint8Array[] = [];
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes);
      t.port = a.i32(n, "player tables");
      t.cursor = a.i32(n, "session broadcasts (ring, cursors)");
      t.joinedAt = a.i32(n, "player tables");
      t.inputAt = a.i32(n, "player tables");
      t.strikeAt = a.i32(n, "player tables");
      t.chatAt = a.i32(n, "player tables");
      t.nameAt = a.i32(n, "player tables");
      t.selectAt = a.i32(n, "player tables");
      t.frontSince = a.i32(n, "player tables");
      t.penaltyUntil = a.i32(HANDSHAKE_MEMORY, "player tables");
      t.leftUntil = a.i32(LEFT_MEMORY, "player tables");
      this.#dirty = a.i32(n * ((cap + 31) >> 5), "entity sync (known, dirty)");
      this.#actions = a.i32(host.kernels ? cap : 0, "entity sync (known, dirty)");
      this.#changed = a.i32(host.kernels ? (cap + 31) >> 5 : 0, "entity sync (known, dirty)");
      t.generation = a.u16(n, "player tables");
      this.known = a.u16(n * cap, "entity sync (known, dirty)");
      t.misbehaviour = a.u16(n, "player tables");
      t.scores = a.u16(MAX_PLAYERS, "stats (scores, pings), last chat");
      t.pings = a.u16(MAX_PLAYERS, "stats (scores, pings), last chat");
      this.#list = a.u16(cap, "update plan list");
      this.#offsets = a.u16(MAX_MESSAGES, "packet buffers (rx, tx), message offsets");
      t.slotByPort = a.u8(PORT_HINT_MASK + 1, "player tables");
      t.active = a.u8(n, "player tables");
      t.nameLength = a.u8(n, "player tables");
      t.ship = a.u8(n, "player tables");
      t.weapon = a.u8(n, "player tables");
      t.input = a.u8(n, "player tables");
      t.pendingKick = a.u8(n, "player tables");
      this.#updated = a.u8(n, "player tables");
      this.#statsDue = a.u8(n, "player tables");
      this.#dirtyAny = a.u8(n, "entity sync (known, dirty)");
      t.announced = a.u8(n, "player tables");
      t.chatTokens = a.u8(n, "player tables");
      t.nameTokens = a.u8(n, "player tables");
      t.selectTokens = a.u8(n, "player tables");
      t.scratch = a.u8(4 + CHAT_LENGTH, "session broadcasts (ring, cursors)");
      t.ring = a.u8(BROADCAST_BYTES, "session broadcasts (ring, cursors)");
      t.names = a.u8(n * NAME_LENGTH, "player tables");
      t.nameScratch = a.u8(NAME_LENGTH, "player tables");
      t.lastChat = a.u8(CHAT_LENGTH, "stats (scores, pings), last chat");
      t.rx = a.u8(MAX_PACKET, "packet buffers (rx, tx), message offsets");
      t.tx = a.u8(MAX_PACKET, "packet buffers (rx, tx), message offsets");
      // Right after tx: the Update entry cache, so that #txAndEntries spans both.
      a.u8(cap * UPDATE_ENTRY, "update entries, encoded once per change");
      this.#encoded = a.u8(cap, "update entries, encoded once per change");
      for (let i = 0; i < n; i++) queues[i] = a.u8(q, `reliable queues (${n} × ${q} B)`);
    }
    a.done();
    this.#arena = a;
    this.active = t.active;
    this.generation = t.generation;
    this.address = t.address;
    this.port = t.port;
    this.names = t.names;
    this.nameLength = t.nameLength;
    this.ship = t.ship;
    this.weapon = t.weapon;
    this.input = t.input;
    this.misbehaviour = t.misbehaviour;
    this.scores = t.scores;
    this.pings = t.pings;
    this.lastChat = t.lastChat;
    this.#pendingKick = t.pendingKick;
    this.#announced = t.announced;
    this.#inputAt = t.inputAt;
    this.#frontSince = t.frontSince;
    this.#rx = t.rx;
    this.#tx = t.tx;
    this.#txAndEntries = new Uint8Array(a.buffer, this.#tx.byteOffset, MAX_PACKET + cap * UPDATE_ENTRY);
    this.#rxView = new DataView(a.buffer, this.#rx.byteOffset, MAX_PACKET);
    // One view of the whole arena: reliable messages go from the queues into #tx with copyWithin.
    const whole = new Uint8Array(a.buffer);
    this.endpoints = [];
    for (let i = 0; i < n; i++) this.endpoints.push(new Endpoint(q, queues[i], whole));
    t.endpoints = this.endpoints;
    this.#session = new Session(t);
    this.#admission = new Admission(t, this.#session);
    this.#session.bind(this.#admission);
    this.#schedule = new Schedule(t, this.#admission, this.#session);
    this.#planner = new RoundRobinPlanner(this.entities, n, this.known, this.#updateLimit());
    this.port.fill(-1);
    // Integral offsets (a plain array keeps them integers on XS).
    this.#offset = new Array<number>(n).fill(0);
    for (let s = 0; s < n; s++) this.#offset[s] = Math.floor((s * config.updateIntervalMs) / n);
    typeTable();
    this.#kernels = host.kernels ?? null;
    if (this.#kernels !== null) {
      const e = this.entities;
      const b = new Binding([this.#txAndEntries, this.#encoded, e.x, e.y, e.vx, e.vy, e.rot, e.health, this.#list], PackWord.Count);
      const w = b.words;
      w[b.scalars + PackWord.MaxPacket] = MAX_PACKET;
      w[b.scalars + PackWord.Entry] = UPDATE_ENTRY;
      w[b.scalars + PackWord.StepHz] = STEP_HZ;
      w[b.scalars + PackWord.PosShift] = POS_SHIFT;
      w[b.scalars + PackWord.AngleBits] = ANGLE_BITS;
      w[b.scalars + PackWord.Centidegrees] = CENTIDEGREES;
      this.#pack = b;
      const sb = new Binding(
        [this.#dirty, e.alive, e.generation, this.known, e.owner, e.type, whole, this.#actions, this.#changed, this.active, this.#dirtyAny],
        SyncWord.Queue0 + n,
      );
      const sw = sb.words;
      const at = sb.scalars;
      sw[at + SyncWord.Capacity] = cap;
      sw[at + SyncWord.Words] = this.#words;
      sw[at + SyncWord.ActionRoom] = cap;
      sw[at + SyncWord.Header] = RELIABLE_HEADER;
      sw[at + SyncWord.AddType] = Msg.Add;
      sw[at + SyncWord.RemoveType] = Msg.Remove;
      sw[at + SyncWord.QueueBytes] = q;
      sw[at + SyncWord.Keep] = MAX_PACKET + this.#leaveReserve;
      for (let i = 0; i < n; i++) sw[at + SyncWord.Queue0 + i] = queues[i].byteOffset;
      this.#syncBinding = sb;
      const pb = new Binding([this.#rx], PeekWord.Count);
      const pw = pb.words;
      const pt = pb.scalars;
      pw[pt + PeekWord.AppId] = APP_ID_I32;
      pw[pt + PeekWord.InputType] = Msg.Input;
      pw[pt + PeekWord.Forward] = INPUT_FORWARD;
      pw[pt + PeekWord.Backward] = INPUT_BACKWARD;
      pw[pt + PeekWord.Left] = INPUT_LEFT;
      pw[pt + PeekWord.Right] = INPUT_RIGHT;
      pw[pt + PeekWord.Shooting] = INPUT_SHOOTING;
      this.#peek = pb;
    }
    t.now = host.now();
    this.#cycleStart = t.now;
    this.#nextStats = t.now;
  }

  /** Now, ms, as the rooms see it (state.ts). */
  get #now(): number {
    return this.#state.now;
  }
  /**
   * Every pool the server allocated, as [name, bytes] rows, for the memory budget.
   * Allocates; never called on a hot path.
   */
  pools(): Array<[string, number]> {
    const rows = this.#arena.rows();
    rows.push([`entity arrays (${this.entities.capacity} entities)`, this.entities.poolBytes()]);
    rows.push(["counters", this.counters.byteLength]);
    if (this.#planner.poolBytes) rows.push(["update planner", this.#planner.poolBytes()]);
    const sim = this.#state.sim;
    if (sim !== null && sim.pools) for (const row of sim.pools()) rows.push(row);
    return rows;
  }

  /**
   * Host a simulation: it is ticked, told of joins and leaves, and its focus centres each
   * player's Update plan. Players already connected are joined. Start-up only (allocates).
   */
  attach(sim: Simulation, focus: Focus | null): void {
    if (this.#state.sim !== null) throw new RangeError("the server already hosts a simulation");
    this.#state.sim = sim;
    this.#focus = focus;
    if (focus !== null)
      this.#planner = new PriorityPlanner(this.entities, this.config.maxPlayers, focus, {
        limit: this.#updateLimit(), kernels: this.#kernels, list: this.#list, actions: this.#actions,
      });
    for (let s = 0; s < this.config.maxPlayers; s++) if (this.active[s] !== 0) sim.playerJoined(s, this.playerId(s));
  }

  /** Most Update entries one player's update can carry: its packets, each without reliables. */
  #updateLimit(): number {
    return this.config.maxUpdatePacketsPerTick * Math.floor((MAX_PACKET - HEADER_SIZE - 2) / UPDATE_ENTRY);
  }

  /** The hosted simulation, or null. */
  get simulation(): Simulation | null {
    return this.#state.sim;
  }

  /** The update planner in use. */
  get planner(): UpdatePlanner {
    return this.#planner;
  }

  /** The length of the last chat line accepted, in `lastChat`. */
  get lastChatLength(): number {
    return this.#state.lastChatLength;
  }

  /** Players connected now. */
  playerCount(): number {
    return this.#state.players;
  }

  /** The generational id of the player in `slot` (valid while active). */
  playerId(slot: number): number {
    return ((this.generation[slot] << 16) | slot) >>> 0;
  }

  // ---------------------------------------------------------------- receive

  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    const counters = this.counters;
    counters[C.PacketsIn]++;
    counters[C.BytesIn] += length;
    if (this.#closed) return;
    if (length > MAX_PACKET) {
      counters[C.TooLong]++;
      return;
    }
    // One native copy when the host's bytes are exactly the datagram (both hosts' are).
    const rx = this.#rx;
    if (bytes.length === length) rx.set(bytes);
    else for (let i = 0; i < length; i++) rx[i] = bytes[i];
    // What clients send most, an ack alone or with one Input, checked and read in C where
    // the host has the native loops (#handleFast); everything else goes the general way.
    const peek = this.#peek;
    const kind = peek !== null ? this.#kernels!.peek(peek.layout, peek.m0, peek.m1, peek.m2, peek.m3, length) : PeekKind.Other;
    // Only a datagram that passes validation can count against a player: anyone can send
    // garbage that names a player's address. Invalid ones are dropped and counted, nothing more.
    if (kind === PeekKind.Other && !this.#validate(length)) return;
    const now = this.host.now();
    this.#state.now = now;
    let slot = this.#admission.find(address, port);
    if (slot < 0) {
      slot = this.#admission.admit(length, address, port, now);
      if (slot < 0) return;
      this.#joined(slot);
    }
    if (kind !== PeekKind.Other) this.#handleFast(slot, now, kind, peek!);
    else this.#handle(slot, now);
    if (this.#state.kickPending) this.#processKicks();
  }

  /**
   * validatePacket, with a fast path for what clients send most: an ack alone (14 bytes) and
   * an ack with one Input (20 bytes). Both are valid exactly when the app id and the counts
   * and type bytes match; two DataView reads tell. On XS each typed-array access is costly.
   */
  #validate(length: number): boolean {
    const v = this.#rxView;
    if ((length === 14 || length === 20) && v.getInt32(0) === APP_ID_I32) {
      const shape = v.getInt32(12) >> 8;
      if (length === 14 ? shape >> 8 === 0 : shape === INPUT_SHAPE) {
        this.#offsets[0] = HEADER_SIZE + 1;
        return true;
      }
    }
    return validatePacket(this.#rx, length, FROM_CLIENT, this.counters, this.#offsets);
  }

  /**
   * A newcomer was admitted (admission.ts, which queued its roster): everything alive is new
   * to it, its Update cycle starts afresh, and the planner and the game hear of it.
   */
  #joined(slot: number): void {
    const cap = this.entities.capacity;
    this.known.fill(0, slot * cap, (slot + 1) * cap);
    this.#markAll(slot);
    this.#updated[slot] = 0;
    this.#statsDue[slot] = 0;
    this.#planner.resetSlot(slot);
    const sim = this.#state.sim;
    if (sim !== null) sim.playerJoined(slot, this.playerId(slot));
  }

  /** Act on a validated datagram from `slot`, walking the offsets validatePacket recorded. */
  /** The header's ack (signed: only compared modulo 2^32): false when it was bad (counted). */
  #acknowledged(slot: number, ep: Endpoint, ack: number, now: number): boolean {
    // Most datagrams acknowledge nothing new: only call when the ack is past our queue's front.
    if (((ack - ep.firstSeq) | 0) >= 0) {
      const front = ep.firstSeq;
      if (!ep.acknowledge(ack, now)) {
        this.counters[C.BadAck]++;
        this.#session.misbehave(slot);
        return false;
      }
      // Progress: the new front (if any) starts its wait now.
      if (ep.firstSeq !== front) this.#frontSince[slot] = now;
    }
    ep.lastHeard = now;
    // Its Join (seqno 0) acknowledged: the handshake is complete.
    if (this.#announced[slot] === 0 && ep.firstSeq !== 0) this.#session.announce(slot);
    return true;
  }

  /** #handle for an ack alone or an ack and one Input, as `peek` read them (native kernels). */
  #handleFast(slot: number, now: number, kind: number, peek: Binding): void {
    const ep = this.endpoints[slot];
    const w = peek.words;
    const at = peek.scalars;
    const ack = w[at + PeekWord.Ack];
    // The usual case, an ack of nothing new from an announced player, without the call.
    if (((ack - ep.firstSeq) | 0) < 0 && this.#announced[slot] !== 0) ep.lastHeard = now;
    else if (!this.#acknowledged(slot, ep, ack, now)) return;
    if (kind === PeekKind.Ack) return;
    const ts = w[at + PeekWord.Timestamp];
    if (ep.hasTimestamp) {
      const ahead = (ts - ep.newestTimestamp) | 0;
      if (ahead < 0) {
        this.counters[C.StaleUnreliable]++;
        return;
      }
      const elapsed = now - ep.newestAt;
      if (ahead > elapsed + FUTURE_SLACK_MS + (elapsed >> 6)) {
        this.counters[C.FutureTimestamp]++;
        return;
      }
    }
    ep.newestTimestamp = ts;
    ep.newestAt = now;
    ep.hasTimestamp = true;
    this.#inputAt[slot] = now;
    this.input[slot] = w[at + PeekWord.Input];
  }

  #handle(slot: number, now: number): void {
    const rx = this.#rx;
    const ep = this.endpoints[slot];
    const counters = this.counters;
    const v = this.#rxView;
    if (!this.#acknowledged(slot, ep, v.getInt32(4), now)) return;
    const rel = rx[12];
    const unrel = rx[13];
    const offsets = this.#offsets;
    if (rel !== 0) {
      const id = this.playerId(slot);
      for (let m = 0; m < rel; m++) {
        const p = offsets[m];
        const seq = v.getUint32(p - 5);
        const verdict = ep.acceptReliable(seq);
        if (verdict !== PROCESS) {
          counters[verdict === DUPLICATE ? C.DuplicateReliable : C.OutOfOrderReliable]++;
          continue;
        }
        counters[C.ReliableReceived]++;
        this.#reliable(slot, id, rx[p - 1], p);
        if (this.active[slot] === 0 || this.#pendingKick[slot] !== 0) return;
      }
    }
    if (unrel === 0) return;
    // Endpoint.acceptUnreliable, inlined: stale when older than the newest applied, not
    // believed when further ahead than our clock has moved since (signed, modulo 2^32).
    const ts = v.getInt32(8);
    if (ep.hasTimestamp) {
      const ahead = (ts - ep.newestTimestamp) | 0;
      if (ahead < 0) {
        counters[C.StaleUnreliable] += unrel;
        return;
      }
      const elapsed = now - ep.newestAt;
      if (ahead > elapsed + FUTURE_SLACK_MS + (elapsed >> 6)) {
        counters[C.FutureTimestamp]++;
        return;
      }
    }
    ep.newestTimestamp = ts;
    ep.newestAt = now;
    ep.hasTimestamp = true;
    for (let m = rel; m < rel + unrel; m++) {
      const p = offsets[m];
      // Input: five bytes, any non-zero one is true (readInput, with one DataView read for four).
      if (rx[p - 1] === Msg.Input) {
        this.#inputAt[slot] = now;
        const w = v.getInt32(p);
        this.input[slot] = ((w & 0xff000000) !== 0 ? INPUT_FORWARD : 0) | ((w & 0xff0000) !== 0 ? INPUT_BACKWARD : 0) |
          ((w & 0xff00) !== 0 ? INPUT_LEFT : 0) | ((w & 0xff) !== 0 ? INPUT_RIGHT : 0) | (rx[p + 4] !== 0 ? INPUT_SHOOTING : 0);
      }
    }
  }

  /** One reliable message from `slot` (player `id`), its payload at `p` in #rx, in order. */
  #reliable(slot: number, id: number, type: number, p: number): void {
    switch (type) {
      case Msg.Connect:
        return; // already admitted; a later Connect changes nothing
      case Msg.Disconnect:
        return this.#admission.disconnect(slot);
      case Msg.Chat:
        return this.#session.chat(slot, id, p);
      case Msg.Name:
        return this.#session.rename(slot, id, p);
      case Msg.Selection:
        return this.#session.select(slot, id, p);
    }
  }

  // ---------------------------------------------------------------- queueing

  /** Reserve a reliable message for `to`; -1 (and a pending kick) when its queue is full (state.ts). */
  #reserve(to: number, type: number, payload: number): number {
    return this.#state.reserve(to, type, payload);
  }

  /** Queue Add of entity `index` to `to`; false when the queue is full (a kick is pending then). */
  #sendAdd(to: number, index: number): boolean {
    const o = this.#reserve(to, Msg.Add, 9);
    const e = this.entities;
    if (o < 0) return false;
    // writeAdd's layout (id, owner, type), with two DataView writes: this runs for every
    // entity and player.
    const ep = this.endpoints[to];
    ep.view.setUint32(o, ((e.generation[index] << 16) | index) >>> 0);
    ep.view.setUint32(o + 4, e.owner[index]);
    ep.buf[o + 8] = e.type[index];
    this.known[to * e.capacity + index] = e.generation[index];
    this.#planner.added(to, index);
    return true;
  }

  /** Queue Remove of the entity `to` knows at `index`; false when the queue is full. */
  #sendRemove(to: number, index: number): boolean {
    const k = to * this.entities.capacity + index;
    const o = this.#reserve(to, Msg.Remove, 4);
    if (o < 0) return false;
    this.endpoints[to].view.setUint32(o, ((this.known[k] << 16) | index) >>> 0);
    this.known[k] = 0;
    this.#planner.removed(to, index);
    return true;
  }

  /** EntityListener: every player reconciles this index at its next chance. */
  entityAdded(index: number): void {
    // A new id in this cache slot: its bytes now, the state at the next encoding.
    const id = this.entities.id(index);
    const all = this.#txAndEntries;
    const at = MAX_PACKET + index * UPDATE_ENTRY;
    all[at] = id >>> 24;
    all[at + 1] = id >>> 16;
    all[at + 2] = id >>> 8;
    all[at + 3] = id;
    this.#encoded[index] = 0;
    this.#markIndex(index);
  }

  entityRemoved(index: number, _id: number): void {
    this.#markIndex(index);
  }

  #markIndex(index: number): void {
    if (this.#syncBinding !== null) {
      this.#changed[index >> 5] |= 1 << (index & 31);
      this.#changedAny = true;
      return;
    }
    const words = this.#words;
    const bit = 1 << (index & 31);
    const dirty = this.#dirty;
    for (let s = 0, w = index >> 5; s < this.config.maxPlayers; s++, w += words) {
      if (this.active[s] === 0) continue;
      dirty[w] |= bit;
      this.#dirtyAny[s] = 1;
    }
  }

  /** Mark every index up to the pool's high-water mark dirty for `slot`. */
  #markAll(slot: number): void {
    const words = this.#words;
    const end = this.entities.end;
    const base = slot * words;
    this.#dirty.fill(0, base, base + words);
    for (let w = 0; w < words && w << 5 < end; w++) this.#dirty[base + w] = -1;
    this.#dirtyAny[slot] = 1;
  }

  /**
   * Reconcile each player's dirty indices while its queue keeps a packet's worth of room
   * (the rest of the queue is for player events and the final Leave): Remove what it knows
   * that is gone or replaced, Add what lives that it does not know.
   */
  #sync(): void {
    if (this.#syncBinding !== null) {
      this.#syncNative(this.#syncBinding);
      return;
    }
    const e = this.entities;
    const cap = e.capacity;
    const alive = e.alive;
    const gen = e.generation;
    const words = this.#words;
    const dirty = this.#dirty;
    const known = this.known;
    const clz = Math.clz32;
    for (let s = 0; s < this.config.maxPlayers; s++) {
      if (this.#dirtyAny[s] === 0) continue;
      if (this.active[s] === 0 || this.#pendingKick[s] !== 0 || this.#state.bot[s] !== 0) {
        this.#dirtyAny[s] = 0;
        continue;
      }
      const ep = this.endpoints[s];
      let done = true;
      for (let j = 0, w = s * words; j < words; j++, w++) {
        let bits = dirty[w];
        while (bits !== 0) {
          if (ep.capacityBytes - ep.usedBytes < MAX_PACKET + this.#leaveReserve) {
            done = false;
            break;
          }
          const low = bits & -bits;
          const i = (j << 5) + 31 - clz(low);
          const k = s * cap + i;
          const now = alive[i] !== 0 ? gen[i] : 0;
          if (known[k] !== now) {
            if (known[k] !== 0 && !this.#sendRemove(s, i)) {
              done = false;
              break;
            }
            if (now !== 0 && !this.#sendAdd(s, i)) {
              done = false;
              break;
            }
          }
          bits ^= low;
        }
        dirty[w] = bits;
        if (!done) break;
      }
      if (done) this.#dirtyAny[s] = 0;
    }
  }

  /**
   * #sync in C (hosts/moddable/kernels.c, xs_lwar_sync): per player, the C reconciles the
   * dirty indices and writes the Adds and Removes into the queue while it keeps its line;
   * the endpoint's counts and the planner are brought up to date here from what it did.
   */
  #syncNative(b: Binding): void {
    const k = this.#kernels!;
    const w = b.words;
    const at = b.scalars;
    const actions = this.#actions;
    const planner = this.#planner;
    if (this.#changedAny) {
      // What changed since the last sync, into every present player's dirty bits (as
      // #markIndex does at once without the kernels).
      this.#changedAny = false;
      k.merge(b.layout, b.m0, b.m1, b.m2, b.m3, this.config.maxPlayers);
    }
    for (let s = 0; s < this.config.maxPlayers; s++) {
      if (this.#dirtyAny[s] === 0) continue;
      if (this.active[s] === 0 || this.#pendingKick[s] !== 0 || this.#state.bot[s] !== 0) {
        this.#dirtyAny[s] = 0;
        continue;
      }
      const ep = this.endpoints[s];
      let state: number = SyncStop.Actions;
      while (state === SyncStop.Actions) {
        w[at + SyncWord.Used] = ep.usedBytes;
        w[at + SyncWord.Seq] = ep.nextSeq;
        const n = k.sync(b.layout, b.m0, b.m1, b.m2, b.m3, s);
        ep.usedBytes = w[at + SyncWord.Used];
        if (ep.count === 0) this.#frontSince[s] = this.#now;
        ep.count += w[at + SyncWord.Messages];
        ep.nextSeq = w[at + SyncWord.Seq] >>> 0;
        state = w[at + SyncWord.State];
        if (n !== 0) planner.applyActions(s, actions, n);
      }
      if (state === SyncStop.Done) this.#dirtyAny[s] = 0;
    }
  }

  // ---------------------------------------------------------------- leaving

  /**
   * The host's transport lost the peer for good (a WebSocket closed): a Disconnect with
   * nothing sent back. Returns whether a player was there.
   */
  disconnectPeer(address: string, port: number): boolean {
    const slot = this.#admission.find(address, port);
    if (slot < 0 || this.#closed) return false;
    this.counters[C.Leaves]++;
    this.host.log(LogEvent.Leave, slot, this.playerId(slot));
    this.#admission.remove(slot);
    if (this.#state.kickPending) this.#processKicks();
    return true;
  }

  // ---------------------------------------------------------------- bots

  /** Bots the server flies now. */
  botCount(): number {
    return this.#state.bots;
  }

  /** Put bots into empty slots until config.bots of them fly. */
  #fillBots(now: number): void {
    const t = this.#state;
    for (let s = 0; s < this.config.maxPlayers && t.bots < this.config.bots; s++) {
      if (this.active[s] !== 0) continue;
      this.#admission.admitBot(s, now);
      this.#joined(s);
      // A bot takes no entity traffic: it reads the game's tables.
      this.#dirtyAny[s] = 0;
    }
  }

  /**
   * Queue `Leave(own id)` and flush the whole queue once, in as many packets as it
   * takes, so the player can process Leave wherever its receive cursor stands. A byte
   * budget of one Leave is kept free in every queue for this (state.ts, leaveReserve).
   */
  #kick(slot: number, reason: number): void {
    if (this.#state.bot[slot] !== 0) {
      // Nobody to tell: the bot leaves like a player that sent Disconnect.
      this.counters[C.Leaves]++;
      this.host.log(LogEvent.Leave, slot, this.playerId(slot));
      this.#admission.remove(slot);
      return;
    }
    const ep = this.endpoints[slot];
    const id = this.playerId(slot);
    const o = ep.queue(Msg.Leave, 4);
    if (o >= 0) writeId(ep.buf, o, id);
    const now = this.host.now();
    for (let first = 0; first < ep.count; ) {
      const end = this.#fill(ep, now, first);
      this.#send(end, this.address[slot], this.port[slot]);
      if (ep.filledMessages === 0) break;
      first += ep.filledMessages;
    }
    this.counters[C.Kicks]++;
    this.host.log(LogEvent.Kick, slot, reason);
    this.#admission.remove(slot);
  }

  #processKicks(): void {
    this.#state.kickPending = false;
    for (let again = true; again; ) {
      again = false;
      for (let s = 0; s < this.config.maxPlayers; s++) {
        const reason = this.#pendingKick[s];
        if (reason === 0 || this.active[s] === 0) continue;
        this.#pendingKick[s] = 0;
        this.#kick(s, reason);
        again = true;
      }
    }
  }

  /** Kick everyone with one final flushed packet each; the server then ignores input. */
  shutdown(): void {
    if (this.#closed) return;
    this.#state.now = this.host.now();
    for (let s = 0; s < this.config.maxPlayers; s++) if (this.active[s] !== 0) this.#kick(s, KickReason.Shutdown);
    this.#closed = true;
  }

  // ---------------------------------------------------------------- tick

  tick(now: number): void {
    if (this.#closed) return;
    const t = this.#state;
    t.now = now;
    const cfg = this.config;
    this.#schedule.checkTimeouts(now);
    // A tick on which the world stepped carries that step (and the Adds and Removes it
    // caused); the Updates due on it wait for the next tick, 10 ms later and no staler
    // than they would be. A game step is never two ticks in a row, so nothing waits twice.
    if (cfg.bots !== 0 && now >= this.#nextBotFill) {
      this.#nextBotFill = now + BOT_FILL_MS;
      this.#fillBots(now);
    }
    if (t.bots !== 0 && this.#focus !== null) this.pilots.fly(now, this.entities, this.#focus.focusIndex, this.weapon, this.input);
    const version = this.entities.version;
    const sim = t.sim;
    if (sim !== null) sim.tick(now);
    const stepped = this.entities.version !== version;
    if (t.kickPending) this.#processKicks();
    // Session messages before entity traffic: each player takes what the ring holds for it.
    this.#session.pumpWaiting();
    this.#sync();
    if (t.kickPending) this.#processKicks();
    this.#schedule.checkAcks(now);

    if (now >= this.#nextStats) {
      this.#nextStats += cfg.statsIntervalMs;
      if (this.#nextStats <= now) this.#nextStats = now + cfg.statsIntervalMs;
      for (let s = 0; s < MAX_PLAYERS; s++) this.pings[s] = s < cfg.maxPlayers && this.active[s] !== 0 ? this.endpoints[s].ping() : 0;
      this.#statsDue.fill(1);
    }
    if (now - this.#cycleStart >= cfg.updateIntervalMs) {
      // A player whose offset fell between two ticks of the ending cycle gets its turn now,
      // so every cycle carries one Update for every player, whatever the tick period.
      for (let s = 0; s < cfg.maxPlayers; s++) {
        if (this.active[s] === 0 || this.#updated[s] !== 0 || t.bot[s] !== 0) continue;
        this.#sendUpdates(s, now, this.#statsDue[s] !== 0);
        this.#statsDue[s] = 0;
      }
      this.#cycleStart += cfg.updateIntervalMs;
      if (now - this.#cycleStart >= cfg.updateIntervalMs) this.#cycleStart = now;
      this.#updated.fill(0);
    }
    const into = now - this.#cycleStart;
    const resend = cfg.resendIntervalMs;
    const bot = t.bot;
    for (let s = 0; s < cfg.maxPlayers; s++) {
      if (this.active[s] === 0 || bot[s] !== 0) continue;
      if (this.#updated[s] === 0 && into >= this.#offset[s] && !stepped) {
        this.#updated[s] = 1;
        this.#sendUpdates(s, now, this.#statsDue[s] !== 0);
        this.#statsDue[s] = 0;
        continue;
      }
      const ep = this.endpoints[s];
      // Endpoint.wantsSend, with its common answers inlined: nothing queued, or an old resend.
      const count = ep.count;
      if (ep.ackDue || (count !== 0 && (now - ep.lastReliableSend >= resend || (count > ep.sentCount && ep.wantsSend(now, resend))))) {
        const o = this.#fill(ep, now);
        this.#send(o, this.address[s], this.port[s]);
      }
    }
  }

  /** One update tick for one player: reliables first, then Stats (if due) and Update. */
  #sendUpdates(slot: number, now: number, stats: boolean): void {
    const ep = this.endpoints[slot];
    const tx = this.#tx;
    const all = this.#txAndEntries;
    const encoded = this.#encoded;
    const list = this.#list;
    const e = this.entities;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const erot = e.rot;
    const ehealth = e.health;
    // Entries stay valid until the entities change in place (a game step bumps the
    // version); an entity added at a reused index is re-encoded (entityAdded).
    if (e.version !== this.#encodedVersion) {
      encoded.fill(0);
      this.#encodedVersion = e.version;
    }
    const n = this.#planner.plan(slot, list, now);
    let pos = 0;
    for (let packets = 0; packets < this.config.maxUpdatePacketsPerTick; packets++) {
      let o = this.#fill(ep, now);
      let unrel = 0;
      if (stats && packets === 0 && o + STATS_SIZE <= MAX_PACKET) {
        tx[o] = Msg.Stats;
        o = writeStats(tx, o + 1, this.scores, this.pings);
        unrel++;
        this.counters[C.StatsSent]++;
      }
      let k = 0;
      if (o + 2 <= MAX_PACKET) {
        tx[o] = Msg.Update;
        const numAt = o + 1;
        o += 2;
        // Entries of consecutive indices lie side by side in the cache: each run of them
        // in the plan is one copyWithin.
        const room = MAX_PACKET - UPDATE_ENTRY;
        const pack = this.#pack;
        if (pack !== null) {
          // The same loop in C (hosts/moddable/kernels.c).
          pos = this.#kernels!.pack(pack.layout, pack.m0, pack.m1, pack.m2, pack.m3, pos, n, o);
          o = pack.words[pack.scalars + PackWord.O];
          k = pack.words[pack.scalars + PackWord.K];
        }
        while (pos < n && o <= room && k < 255) {
          const first = list[pos];
          let i = first;
          const start = o;
          do {
            if (encoded[i] === 0) {
              // The entry after a change: fixed point to wire units (modules/units.ts),
              // rounded half up and clamped to int16, written in place (the layout of
              // codec.writeUpdateEntry; a test checks it against units.ts). Inlined: on XS a
              // call costs as much as the writes. The id's bytes are written when the entity
              // is added (entityAdded); only the state changes here.
              const at = MAX_PACKET + i * UPDATE_ENTRY;
              let v = (ex[i] + POS_HALF) >> POS_SHIFT;
              v = v < -32768 ? -32768 : v > 32767 ? 32767 : v;
              all[at + 4] = v >> 8;
              all[at + 5] = v;
              v = (ey[i] + POS_HALF) >> POS_SHIFT;
              v = v < -32768 ? -32768 : v > 32767 ? 32767 : v;
              all[at + 6] = v >> 8;
              all[at + 7] = v;
              v = (evx[i] * STEP_HZ + POS_HALF) >> POS_SHIFT;
              v = v < -32768 ? -32768 : v > 32767 ? 32767 : v;
              all[at + 8] = v >> 8;
              all[at + 9] = v;
              v = (evy[i] * STEP_HZ + POS_HALF) >> POS_SHIFT;
              v = v < -32768 ? -32768 : v > 32767 ? 32767 : v;
              all[at + 10] = v >> 8;
              all[at + 11] = v;
              v = ((erot[i] & ANGLE_MASK) * CENTIDEGREES + ANGLE_HALF) >> ANGLE_BITS;
              all[at + 12] = v >> 8;
              all[at + 13] = v;
              v = ehealth[i];
              all[at + 14] = v > 100 ? 100 : v;
              encoded[i] = 1;
            }
            pos++;
            i++;
            o += UPDATE_ENTRY;
            k++;
          } while (pos < n && list[pos] === i && o <= room && k < 255);
          all.copyWithin(start, MAX_PACKET + first * UPDATE_ENTRY, MAX_PACKET + i * UPDATE_ENTRY);
        }
        tx[numAt] = k;
        unrel++;
        this.counters[C.UpdatesSent]++;
        this.counters[C.UpdateEntitiesSent] += k;
      }
      finishPacket(tx, unrel);
      this.#send(o, this.address[slot], this.port[slot]);
      if (pos >= n || k === 0) break;
    }
    this.#planner.commit(slot, list, pos, now);
  }

  /** Start a packet in #tx with the peer's reliables; counts first sends and resends. */
  #fill(ep: Endpoint, now: number, first = 0): number {
    const sent = ep.sent;
    const resent = ep.resent;
    const o = ep.fill(this.#tx, now, now, first);
    this.counters[C.ReliableSent] += ep.sent - sent;
    this.counters[C.ReliableResent] += ep.resent - resent;
    return o;
  }

  #send(length: number, address: string, port: number): void {
    this.counters[C.PacketsOut]++;
    this.counters[C.BytesOut] += length;
    this.host.send(this.#tx, length, address, port);
  }
}

export function createServer(config: Config, host: Host): Server {
  return new Server(config, host);
}
