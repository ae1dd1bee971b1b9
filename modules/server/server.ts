/**
 * The lwar Rev 1 server core: player slots, the connection life cycle, reliable and
 * unreliable delivery to each player, and Update/Stats on schedule. Host-free: it
 * talks to the world through `Host` only, and allocates nothing after `createServer`.
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
  APP_ID, CHAT_LENGTH, FROM_CLIENT, HEADER_SIZE, MAX_PACKET, MAX_PLAYERS, Msg, NAME_LENGTH, NO_ACK,
  RELIABLE_HEADER, RejectReason, UPDATE_ENTRY, typeTable,
} from "../protocol/constants";
import { getU32 } from "../protocol/bytes";
import {
  Fields, headerRel, INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING, MAX_MESSAGES, readChat, readName,
  readSelection, validatePacket, writeChat, writeHeader, writeId, writeName, writeReject,
  writeSelection, writeStats,
} from "../protocol/codec";
import { CURRENT, DUPLICATE, Endpoint, finishPacket, PROCESS, STALE } from "../transport/endpoint";
import { lwarChannel } from "../protocol/channel";
import { EntityTable, type EntityListener } from "../game/entities";
import { isPrintable } from "../text";
import { KickReason, LogEvent } from "./events";
import { PriorityPlanner, RoundRobinPlanner, type UpdatePlanner } from "./updates";
import { Binding, type Kernels } from "../native";
import type { Focus, Players, Simulation } from "../sim";
import { ANGLE_BITS, ANGLE_MASK, CENTIDEGREES, POS_SHIFT, STEP_HZ } from "../units";

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
/** How often the tick looks for players past their timeout, ms. */
const TIMEOUT_CHECK_MS = 100;
/** APP_ID as a signed 32-bit integer, as DataView.getInt32 reads it. */
const APP_ID_I32 = APP_ID | 0;
/** Bytes 12..14 of an ack + Input packet: 0 reliable, 1 unreliable, type Input. */
const INPUT_SHAPE = (1 << 8) | Msg.Input;
const ANGLE_HALF = 1 << (ANGLE_BITS - 1);

const STATS_SIZE = 1 + 4 * MAX_PLAYERS;
/**
 * Every queue keeps this much free for Leaves: one for each other player it may be told
 * about and the final one of its own kick. Player events other than Leave, and entity
 * traffic, may only use the rest, so no queue overflows because of what others do.
 */
function reserve(maxPlayers: number): number {
  return (maxPlayers + 1) * (RELIABLE_HEADER + 4);
}
/** Bytes a queued Leave takes; kept free in every queue for a kick. */
const LEAVE_SIZE = RELIABLE_HEADER + 4;

/** Join, Name and Selection of one player: what announcing it puts in each queue. */
const ANNOUNCE_SIZE = 3 * RELIABLE_HEADER + 4 + (4 + NAME_LENGTH) + 6;
/** A player who has not acknowledged its Join after this long is dropped, ms. */
export const HANDSHAKE_MS = 3000;
/** Input older than this no longer steers or fires, ms. */
export const INPUT_STALE_MS = 500;
/** Strikes: at most one counts per window, and one decays per period. */
export const STRIKE_WINDOW_MS = 250;
export const STRIKE_DECAY_MS = 1000;
/**
 * Admissions: a bucket of `maxPlayers` tokens, one back every ADMISSION_REFILL_MS. A server
 * can fill up at once, but peers that join and leave again cannot make the others' queues
 * carry more than a few announcements a second. A Connect that finds the bucket empty is
 * dropped and counted; the client resends it and gets in when a token is back.
 */
export const ADMISSION_REFILL_MS = 250;
/**
 * A peer dropped for not completing its handshake is not admitted again for this long, ms:
 * a connector that resends Connect but never acknowledges cannot hold a slot by coming back.
 * The last HANDSHAKE_MEMORY such peers are remembered (a fixed table).
 */
export const HANDSHAKE_PENALTY_MS = 10000;
const HANDSHAKE_MEMORY = 8;
/**
 * Packets from a player that left this recently, ms, are counted as AfterLeave, not as a
 * stranger's (UnknownPeer): a client's packets still in flight after its Disconnect, or a
 * kicked client that has not noticed yet. The last LEFT_MEMORY who left are remembered.
 */
export const LEFT_MEMORY_MS = 5000;
const LEFT_MEMORY = 8;
/** #find's hint table: a slot per port's low bits (a hint only: a clash falls back to the search). */
const PORT_HINT_MASK = 63;
/**
 * Flood control: a token bucket per player for chat lines, and one each for renames and
 * selections. A bucket holds BURST tokens and gets one back every REFILL ms; a message that
 * finds its bucket empty is refused at its source (acknowledged, counted as `refused`, not
 * echoed: the sender's client library reports it as not delivered).
 */
export const CHAT_BURST = 4;
export const CHAT_REFILL_MS = 250;
export const CHANGE_BURST = 2;
export const CHANGE_REFILL_MS = 500;
/**
 * Bytes of the ring that holds session messages for many players (modules/server/broadcasts.ts):
 * a player more than this far behind in taking them into its queue is dropped.
 */
export const BROADCAST_BYTES = 2048;
/** How often the acknowledgement rule is looked at, ms: a staller goes at most this late. */
export const ACK_CHECK_MS = 50;
/**
 * A ring entry is `length u8, type u8, target u8, payload`; target EVERYONE, EXCEPT | slot
 * (every player but that one) or a slot (that one only).
 */
const ENTRY_HEADER = 3;
const EVERYONE = 0xff;
const EXCEPT = 0x80;

/** ASCII letters fold to lower case; everything else compares as is. */
function fold(c: number): number {
  return c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
}

export class Server implements Core, EntityListener, Players {
  readonly config: Config;
  readonly host: Host;
  readonly counters: Uint32Array;
  readonly entities: EntityTable;
  #sim: Simulation | null = null;
  #planner: UpdatePlanner;

  // Player slots (struct of arrays, indexed by slot).
  readonly active!: Uint8Array;
  readonly generation!: Uint16Array;
  readonly address: string[];
  readonly port!: Int32Array;
  readonly endpoints: Endpoint[];
  readonly names!: Uint8Array;
  readonly nameLength!: Uint8Array;
  readonly ship!: Uint8Array;
  readonly weapon!: Uint8Array;
  /** Newest Input of each player as INPUT_* bits. */
  readonly input!: Uint8Array;
  readonly misbehaviour!: Uint16Array;
  /** Entities below this index have been sent as Add to the player. */
  /**
   * [slot × capacity + index]: the generation of the entity at that index that the player
   * knows (its Add was queued and no Remove since), 0 for none. Generations are never 0.
   */
  readonly known!: Uint16Array;
  /** Scores are written by the game; pings by the server. Both sent in Stats. */
  readonly scores!: Uint16Array;
  readonly pings!: Uint16Array;
  /** The last chat line accepted (for the host's log). */
  readonly lastChat!: Uint8Array;
  lastChatLength = 0;

  readonly #pendingKick!: Uint8Array;
  /** Where the tables above come from (its rows are the memory budget's). */
  readonly #arena: Arena;
  /** A kick is pending in #pendingKick. */
  #kickPending = false;
  /** The datagram being handled, copied in with one native call, and a DataView on it. */
  readonly #rx!: Uint8Array;
  readonly #rxView: DataView;
  /** Payload offsets of the datagram's messages, recorded by validatePacket. */
  readonly #offsets!: Uint16Array;
  readonly #tx!: Uint8Array;
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
  readonly #fields = new Fields();
  readonly #nameScratch!: Uint8Array;
  #now = 0;
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
  #nextTimeoutCheck = 0;
  #nextAckCheck = 0;
  /**
   * Entity sync is lazy. An add or remove only marks the index in every player's `#dirty`
   * bits; each tick, while a player's queue has room, its dirty indices are reconciled with
   * what it knows: a Remove for what it knows that is gone, an Add for what lives that it
   * does not know. A stalled player's queue thus never fills with entity traffic, and what
   * is born and dies while it is away never reaches it. [slot × words + word].
   */
  readonly #dirty!: Int32Array;
  /** 1 once the player acknowledged its Join; then (and only then) the others are told of it. */
  readonly #announced!: Uint8Array;
  /** Per slot (plain arrays of integers): admission time, last Input, last counted strike, last chat or change. */
  // Times in ms modulo 2^32, compared wrap-safe: `((now - t) | 0) > limit`.
  readonly #joinedAt!: Int32Array;
  readonly #inputAt!: Int32Array;
  readonly #strikeAt!: Int32Array;
  readonly #chatAt!: Int32Array;
  readonly #nameAt!: Int32Array;
  readonly #selectAt!: Int32Array;
  /** Flood control: tokens left in each player's chat, rename and selection buckets. */
  readonly #chatTokens!: Uint8Array;
  readonly #nameTokens!: Uint8Array;
  readonly #selectTokens!: Uint8Array;
  /**
   * Session messages for many players (Chat, Name, Selection, the Join, Name and Selection
   * that announce a newcomer, Leave) are stored once, in a ring every player reads with its
   * own cursor, taking entries into its queue in order as it has room: nobody's message is
   * refused or held back because one player is slow, and memory stays fixed. Positions count
   * bytes modulo 2^32 (compared wrap-safe); position p is byte p & (BROADCAST_BYTES - 1).
   * A player so far behind that a new entry would overwrite one it has not taken has failed
   * to keep up, and is dropped (#broadcast).
   */
  readonly #ring!: Uint8Array;
  #ringHead = 0;
  /** Some player's queue had no room for its next ring entry: pump again next tick. */
  #ringWaiting = false;
  readonly #cursor!: Int32Array;
  /** A message's payload is built here before it goes into the ring. */
  readonly #scratch!: Uint8Array;
  /**
   * Liveness is acknowledgement: since when the message at the front of the player's queue
   * has waited (queued into an empty queue, or the last acknowledgement that moved it).
   */
  readonly #frontSince!: Int32Array;
  #nextDecay = 0;
  #admitTokens: number;
  /** Peers recently dropped at the handshake: a ring of address, port and until when. */
  readonly #penaltyAddress: string[];
  readonly #penaltyPort: Int32Array;
  readonly #penaltyUntil!: Int32Array;
  #penaltyNext = 0;
  /** Players who left recently: a ring of address, port and until when (LEFT_MEMORY_MS). */
  readonly #leftAddress: string[];
  readonly #leftPort: Int32Array;
  readonly #leftUntil!: Int32Array;
  #leftNext = 0;
  #nextToken = 0;
  /** Bytes every queue keeps free for Leaves (see reserve()). */
  readonly #leaveReserve: number;
  /** 1 while the slot has dirty bits. */
  readonly #dirtyAny!: Uint8Array;
  readonly #words: number;
  #players = 0;
  #closed = false;
  /** The host's native loops (modules/native.ts), or null: the JavaScript here runs. */
  readonly #kernels: Kernels | null;
  /** The Update entry loop's binding for `#kernels.pack` (PackMem, PackWord). */
  readonly #pack: Binding | null = null;
  /** #sync's binding for `#kernels.sync` (SyncMem, SyncWord), and the Adds and Removes it queued (~index: a Remove). */
  readonly #syncBinding: Binding | null = null;
  /** [port & PORT_HINT_MASK]: 1 + the slot last admitted from such a port (0: none); #find checks it first. */
  readonly #slotByPort!: Uint8Array;
  /** The receive fast path's binding for `#kernels.peek` (PeekMem, PeekWord). */
  readonly #peek: Binding | null = null;
  readonly #actions!: Int32Array;
  /**
   * With native kernels: the indices added or removed since the last sync, for everyone
   * (#markIndex sets one bit; the sync merges them into each player's dirty bits).
   */
  readonly #changed!: Int32Array;
  #changedAny = false;

  constructor(config: Config, host: Host) {
    const n = config.maxPlayers;
    this.config = config;
    this.host = host;
    this.counters = createCounters();
    this.entities = new EntityTable(config.maxEntities);
    this.entities.listener = this;

    const q = config.reliableQueueBytes;
    const cap = config.maxEntities;
    this.#words = (cap + 31) >> 5;
    this.#leaveReserve = reserve(n);
    this.#admitTokens = n;
    this.#penaltyAddress = new Array<string>(HANDSHAKE_MEMORY).fill("");
    this.#penaltyPort = new Int32Array(HANDSHAKE_MEMORY).fill(-1);
    this.#leftAddress = new Array<string>(LEFT_MEMORY).fill("");
    this.#leftPort = new Int32Array(LEFT_MEMORY).fill(-1);
    // Room for a packet of entity traffic, an announcement and the Leave reserve.
    if (q < MAX_PACKET + ANNOUNCE_SIZE + this.#leaveReserve)
      throw new ConfigError(`config.reliableQueueBytes must be at least ${MAX_PACKET + ANNOUNCE_SIZE + this.#leaveReserve} for ${n} players`);
    // Two passes over the same takes: the first measures, the second carves (see Arena);
    // the fields marked `!` are assigned in that loop.
    // Widest elements first.
    const queues: Uint8Array[] = [];
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes);
      this.port = a.i32(n, "player tables");
      this.#cursor = a.i32(n, "session broadcasts (ring, cursors)");
      this.#joinedAt = a.i32(n, "player tables");
      this.#inputAt = a.i32(n, "player tables");
      this.#strikeAt = a.i32(n, "player tables");
      this.#chatAt = a.i32(n, "player tables");
      this.#nameAt = a.i32(n, "player tables");
      this.#selectAt = a.i32(n, "player tables");
      this.#frontSince = a.i32(n, "player tables");
      this.#penaltyUntil = a.i32(HANDSHAKE_MEMORY, "player tables");
      this.#leftUntil = a.i32(LEFT_MEMORY, "player tables");
      this.#dirty = a.i32(n * ((cap + 31) >> 5), "entity sync (known, dirty)");
      this.#actions = a.i32(host.kernels ? cap : 0, "entity sync (known, dirty)");
      this.#changed = a.i32(host.kernels ? (cap + 31) >> 5 : 0, "entity sync (known, dirty)");
      this.generation = a.u16(n, "player tables");
      this.known = a.u16(n * cap, "entity sync (known, dirty)");
      this.misbehaviour = a.u16(n, "player tables");
      this.scores = a.u16(MAX_PLAYERS, "stats (scores, pings), last chat");
      this.pings = a.u16(MAX_PLAYERS, "stats (scores, pings), last chat");
      this.#list = a.u16(cap, "update plan list");
      this.#offsets = a.u16(MAX_MESSAGES, "packet buffers (rx, tx), message offsets");
      this.#slotByPort = a.u8(PORT_HINT_MASK + 1, "player tables");
      this.active = a.u8(n, "player tables");
      this.nameLength = a.u8(n, "player tables");
      this.ship = a.u8(n, "player tables");
      this.weapon = a.u8(n, "player tables");
      this.input = a.u8(n, "player tables");
      this.#pendingKick = a.u8(n, "player tables");
      this.#updated = a.u8(n, "player tables");
      this.#statsDue = a.u8(n, "player tables");
      this.#dirtyAny = a.u8(n, "entity sync (known, dirty)");
      this.#announced = a.u8(n, "player tables");
      this.#chatTokens = a.u8(n, "player tables");
      this.#nameTokens = a.u8(n, "player tables");
      this.#selectTokens = a.u8(n, "player tables");
      this.#scratch = a.u8(4 + CHAT_LENGTH, "session broadcasts (ring, cursors)");
      this.#ring = a.u8(BROADCAST_BYTES, "session broadcasts (ring, cursors)");
      this.names = a.u8(n * NAME_LENGTH, "player tables");
      this.#nameScratch = a.u8(NAME_LENGTH, "player tables");
      this.lastChat = a.u8(CHAT_LENGTH, "stats (scores, pings), last chat");
      this.#rx = a.u8(MAX_PACKET, "packet buffers (rx, tx), message offsets");
      this.#tx = a.u8(MAX_PACKET, "packet buffers (rx, tx), message offsets");
      // Right after #tx: the Update entry cache, so that #txAndEntries spans both.
      a.u8(cap * UPDATE_ENTRY, "update entries, encoded once per change");
      this.#encoded = a.u8(cap, "update entries, encoded once per change");
      for (let i = 0; i < n; i++) queues[i] = a.u8(q, `reliable queues (${n} × ${q} B)`);
    }
    a.done();
    this.#arena = a;
    this.#txAndEntries = new Uint8Array(a.buffer, this.#tx.byteOffset, MAX_PACKET + cap * UPDATE_ENTRY);
    this.#rxView = new DataView(a.buffer, this.#rx.byteOffset, MAX_PACKET);
    // One view of the whole arena: reliable messages go from the queues into #tx with copyWithin.
    const whole = new Uint8Array(a.buffer);
    const channel = lwarChannel(q, config.resendIntervalMs, this.counters);
    this.endpoints = [];
    for (let i = 0; i < n; i++) this.endpoints.push(new Endpoint(channel, queues[i], whole));
    this.#planner = new RoundRobinPlanner(this.entities, n, this.known, this.#updateLimit());
    this.address = new Array<string>(n).fill("");
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
    this.#now = host.now();
    this.#cycleStart = this.#now;
    this.#nextStats = this.#now;
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
    if (this.#sim !== null && this.#sim.pools) for (const row of this.#sim.pools()) rows.push(row);
    return rows;
  }

  /**
   * Host a simulation: it is ticked, told of joins and leaves, and its focus centres each
   * player's Update plan. Players already connected are joined. Start-up only (allocates).
   */
  attach(sim: Simulation, focus: Focus | null): void {
    if (this.#sim !== null) throw new RangeError("the server already hosts a simulation");
    this.#sim = sim;
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
    return this.#sim;
  }

  /** The update planner in use. */
  get planner(): UpdatePlanner {
    return this.#planner;
  }

  /** Players connected now. */
  playerCount(): number {
    return this.#players;
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
    this.#now = now;
    let slot = this.#find(address, port);
    if (slot < 0) {
      slot = this.#admit(length, address, port, now);
      if (slot < 0) return;
    }
    if (kind !== PeekKind.Other) this.#handleFast(slot, now, kind, peek!);
    else this.#handle(slot, now);
    if (this.#kickPending) this.#processKicks();
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

  #find(address: string, port: number): number {
    // The slot last admitted from a port with these low bits, if it is still that peer.
    const hint = this.#slotByPort[port & PORT_HINT_MASK] - 1;
    if (hint >= 0 && this.port[hint] === port && this.address[hint] === address) return hint;
    // Else every slot: a free slot's port is -1, which no datagram has.
    const ports = this.port;
    const n = ports.length;
    for (let s = 0; s < n; s++) if (ports[s] === port && this.address[s] === address) return s;
    return -1;
  }

  /** A packet from an unknown address: admit it if its first reliable message is Connect #0. */
  #admit(length: number, address: string, port: number, now: number): number {
    const rx = this.#rx;
    if (headerRel(rx) === 0 || length < HEADER_SIZE + RELIABLE_HEADER || getU32(rx, HEADER_SIZE) !== 0 || rx[HEADER_SIZE + 4] !== Msg.Connect) {
      this.counters[this.#leftRecently(address, port, now) ? C.AfterLeave : C.UnknownPeer]++;
      return -1;
    }
    let slot = -1;
    for (let s = 0; s < this.config.maxPlayers; s++) {
      if (this.active[s] === 0) {
        slot = s;
        break;
      }
    }
    if (slot < 0) {
      this.#reject(address, port, RejectReason.ServerFull);
      return -1;
    }
    if (this.#admitTokens === 0) {
      this.counters[C.AdmissionsDeferred]++;
      return -1;
    }
    for (let k = 0; k < HANDSHAKE_MEMORY; k++) {
      if (this.#penaltyPort[k] === port && this.#penaltyAddress[k] === address && ((now - this.#penaltyUntil[k]) | 0) < 0) {
        this.counters[C.AdmissionsDeferred]++;
        return -1;
      }
    }
    this.#admitTokens--;
    this.generation[slot] = (this.generation[slot] + 1) & 0xffff || 1;
    this.active[slot] = 1;
    this.address[slot] = address;
    this.port[slot] = port;
    this.#slotByPort[port & PORT_HINT_MASK] = slot + 1;
    this.endpoints[slot].reset(now);
    this.ship[slot] = 0;
    this.weapon[slot] = 0;
    this.input[slot] = 0;
    this.misbehaviour[slot] = 0;
    // Everything alive is new to the newcomer.
    const cap = this.entities.capacity;
    this.known.fill(0, slot * cap, (slot + 1) * cap);
    this.#markAll(slot);
    this.scores[slot] = 0;
    this.pings[slot] = 0;
    this.#pendingKick[slot] = 0;
    this.#updated[slot] = 0;
    this.#statsDue[slot] = 0;
    this.#announced[slot] = 0;
    this.#joinedAt[slot] = now;
    this.#inputAt[slot] = now;
    this.#strikeAt[slot] = now - STRIKE_WINDOW_MS;
    this.#chatTokens[slot] = CHAT_BURST;
    this.#nameTokens[slot] = CHANGE_BURST;
    this.#selectTokens[slot] = CHANGE_BURST;
    this.#chatAt[slot] = now;
    this.#nameAt[slot] = now;
    this.#selectAt[slot] = now;
    // The newcomer learns the roster below; what others broadcast from now on, it reads.
    this.#cursor[slot] = this.#ringHead;
    this.#frontSince[slot] = now;
    this.#players++;
    this.#defaultName(slot);
    const id = this.playerId(slot);
    this.counters[C.Joins]++;
    this.host.log(LogEvent.Join, slot, id);

    // The newcomer learns itself first, then every announced player. The others learn of
    // it once it acknowledges its Join (#announce): a Connect that goes no further costs
    // them nothing. Adds follow through the entity sync.
    this.#sendJoin(slot, slot);
    this.#sendName(slot, slot);
    this.#sendSelection(slot, slot);
    for (let s = 0; s < this.config.maxPlayers; s++) {
      if (s === slot || this.active[s] === 0 || this.#announced[s] === 0) continue;
      this.#sendJoin(slot, s);
      this.#sendName(slot, s);
      this.#sendSelection(slot, s);
    }
    this.#planner.resetSlot(slot);
    if (this.#sim !== null) this.#sim.playerJoined(slot, id);
    return slot;
  }

  #reject(address: string, port: number, reason: number): void {
    const tx = this.#tx;
    let o = writeHeader(tx, NO_ACK, this.host.now() >>> 0, 0, 1);
    tx[o++] = Msg.Reject;
    o = writeReject(tx, o, reason);
    this.counters[C.Rejects]++;
    this.host.log(LogEvent.Reject, -1, reason);
    this.#send(o, address, port);
  }

  /** Act on a validated datagram from `slot`, walking the offsets validatePacket recorded. */
  /** The header's ack (signed: only compared modulo 2^32): false when it was bad (counted). */
  #acknowledged(slot: number, ep: Endpoint, ack: number, now: number): boolean {
    // Most datagrams acknowledge nothing new: only call when the ack is past our queue's front.
    if (((ack - ep.firstSeq) | 0) >= 0) {
      const front = ep.firstSeq;
      if (!ep.acknowledge(ack, now)) {
        this.counters[C.BadAck]++;
        this.#misbehave(slot);
        return false;
      }
      // Progress: the new front (if any) starts its wait now.
      if (ep.firstSeq !== front) this.#frontSince[slot] = now;
    }
    ep.heard(now);
    // Its Join (seqno 0) acknowledged: the handshake is complete.
    if (this.#announced[slot] === 0 && ep.firstSeq !== 0) this.#announce(slot);
    return true;
  }

  /** #handle for an ack alone or an ack and one Input, as `peek` read them (native kernels). */
  #handleFast(slot: number, now: number, kind: number, peek: Binding): void {
    const ep = this.endpoints[slot];
    const w = peek.words;
    const at = peek.scalars;
    const ack = w[at + PeekWord.Ack];
    // The usual case, an ack of nothing new from an announced player, without the call.
    if (((ack - ep.firstSeq) | 0) < 0 && this.#announced[slot] !== 0) ep.heard(now);
    else if (!this.#acknowledged(slot, ep, ack, now)) return;
    if (kind === PeekKind.Ack) return;
    const verdict = ep.acceptUnreliable(w[at + PeekWord.Timestamp], now);
    if (verdict !== CURRENT) {
      this.counters[verdict === STALE ? C.StaleUnreliable : C.FutureTimestamp]++;
      return;
    }
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
    // Stale when older than the newest applied, not believed when further ahead than our
    // clock has moved since (signed, modulo 2^32).
    const verdict = ep.acceptUnreliable(v.getInt32(8), now);
    if (verdict !== CURRENT) {
      if (verdict === STALE) counters[C.StaleUnreliable] += unrel;
      else counters[C.FutureTimestamp]++;
      return;
    }
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

  #reliable(slot: number, id: number, type: number, p: number): void {
    const rx = this.#rx;
    const f = this.#fields;
    switch (type) {
      case Msg.Connect:
        return; // already admitted; a later Connect changes nothing
      case Msg.Disconnect:
        this.#disconnect(slot);
        return;
      case Msg.Chat: {
        readChat(rx, p, f);
        if (f.id !== id) return this.#spoofed(slot);
        if (f.textLength === 0 || !this.#printable(rx, f.textOffset, f.textLength)) {
          this.counters[C.BadChat]++;
          return this.#misbehave(slot);
        }
        if (this.#announced[slot] === 0 || !this.#take(this.#chatTokens, this.#chatAt, slot, CHAT_BURST, CHAT_REFILL_MS)) {
          this.counters[C.Refused]++;
          return;
        }
        const chat = this.lastChat;
        for (let i = 0; i < f.textLength; i++) chat[i] = rx[f.textOffset + i];
        this.lastChatLength = f.textLength;
        const n = writeChat(this.#scratch, 0, id, chat, 0, f.textLength);
        this.#broadcast(Msg.Chat, EVERYONE, n);
        this.host.log(LogEvent.Chat, slot, id);
        return;
      }
      case Msg.Name: {
        readName(rx, p, f);
        if (f.id !== id) return this.#spoofed(slot);
        if (f.textLength === 0 || !this.#printable(rx, f.textOffset, f.textLength)) {
          this.counters[C.BadName]++;
          return this.#misbehave(slot);
        }
        if (!this.#take(this.#nameTokens, this.#nameAt, slot, CHANGE_BURST, CHANGE_REFILL_MS)) {
          this.counters[C.Refused]++;
          return;
        }
        this.#setName(slot, rx, f.textOffset, f.textLength);
        this.#broadcastAbout(Msg.Name, this.#announced[slot] !== 0 ? EVERYONE : slot, slot);
        this.host.log(LogEvent.Rename, slot, id);
        return;
      }
      case Msg.Selection: {
        readSelection(rx, p, f);
        if (f.id !== id) return this.#spoofed(slot);
        if (f.a >= this.config.shipTypes || f.b >= this.config.weaponTypes) {
          this.counters[C.BadSelection]++;
          return this.#misbehave(slot);
        }
        if (!this.#take(this.#selectTokens, this.#selectAt, slot, CHANGE_BURST, CHANGE_REFILL_MS)) {
          this.counters[C.Refused]++;
          return;
        }
        this.ship[slot] = f.a;
        this.weapon[slot] = f.b;
        this.#broadcastAbout(Msg.Selection, this.#announced[slot] !== 0 ? EVERYONE : slot, slot);
        return;
      }
    }
  }

  /**
   * Takes a token from `slot`'s bucket (`tokens`, refilled one every `refillMs` since
   * `at`, up to `burst`): false when it is empty.
   */
  #take(tokens: Uint8Array, at: Int32Array, slot: number, burst: number, refillMs: number): boolean {
    const now = this.#now;
    let t = tokens[slot];
    while (t < burst && ((now - at[slot]) | 0) >= refillMs) {
      t++;
      at[slot] += refillMs;
    }
    if (t === 0) {
      tokens[slot] = 0;
      return false;
    }
    // A full bucket starts its next refill from now.
    if (t === burst) at[slot] = now;
    tokens[slot] = t - 1;
    return true;
  }

  /**
   * Name, Selection or Join of player `who`, to `target` (EVERYONE, EXCEPT | slot or a slot):
   * a new Name or Selection goes to the player itself and, once it is announced, to everyone.
   */
  #broadcastAbout(type: number, target: number, who: number): void {
    const b = this.#scratch;
    const id = this.playerId(who);
    let n: number;
    if (type === Msg.Name) n = writeName(b, 0, id, this.names, who * NAME_LENGTH, this.nameLength[who]);
    else if (type === Msg.Selection) n = writeSelection(b, 0, id, this.ship[who], this.weapon[who]);
    else n = writeId(b, 0, id);
    this.#broadcast(type, target, n);
  }

  /**
   * The player acknowledged its Join: tell everyone else of it at once (nobody's queue
   * holds it back: each takes the announcement from the ring as it has room).
   */
  #announce(slot: number): void {
    this.#announced[slot] = 1;
    const target = EXCEPT | slot;
    this.#broadcastAbout(Msg.Join, target, slot);
    this.#broadcastAbout(Msg.Name, target, slot);
    this.#broadcastAbout(Msg.Selection, target, slot);
  }

  /**
   * Puts the `length` bytes in #scratch into the ring for `target`, then lets every player
   * take what it has room for. A player the new entry would lap (it has not taken an entry
   * that the ring must now overwrite) has failed to keep up: it is dropped, as one that
   * timed out.
   */
  #broadcast(type: number, target: number, length: number): void {
    const n = this.config.maxPlayers;
    const head = this.#ringHead;
    let lapped = 0;
    for (let s = 0; s < n; s++) if (this.active[s] !== 0 && ((head - this.#cursor[s]) | 0) + ENTRY_HEADER + length > BROADCAST_BYTES) lapped |= 1 << s;
    const b = this.#ring;
    const m = BROADCAST_BYTES - 1;
    const from = this.#scratch;
    b[head & m] = length;
    b[(head + 1) & m] = type;
    b[(head + 2) & m] = target;
    for (let i = 0, p = head + ENTRY_HEADER; i < length; i++, p++) b[p & m] = from[i];
    this.#ringHead = (head + ENTRY_HEADER + length) | 0;
    for (let s = 0; s < n; s++) {
      if (this.active[s] === 0) continue;
      if ((lapped & (1 << s)) === 0) {
        this.#pump(s);
        continue;
      }
      // Lapped: dropped like a player that timed out (nothing is sent to it).
      this.counters[C.Timeouts]++;
      this.counters[C.Laggards]++;
      this.host.log(LogEvent.Timeout, s, this.playerId(s));
      this.#remove(s);
    }
  }

  /**
   * Moves ring entries for `slot` into its queue, in order, while it has room (a Leave may
   * use the reserve). An entry is `length, type, target, payload` (broadcasts.ts); target
   * EVERYONE, EXCEPT | slot, or a slot.
   */
  #pump(slot: number): void {
    const head = this.#ringHead;
    let c = this.#cursor[slot];
    if (c === head || this.#pendingKick[slot] !== 0) return;
    const ep = this.endpoints[slot];
    const reserve = this.#leaveReserve;
    const b = this.#ring;
    const m = BROADCAST_BYTES - 1;
    while (((head - c) | 0) > 0) {
      const n = b[c & m];
      const target = b[(c + 2) & m];
      if (target === EVERYONE || (target >= EXCEPT ? (target & 0x7f) !== slot : target === slot)) {
        const type = b[(c + 1) & m];
        if (!ep.canQueue(n + (type === Msg.Leave ? LEAVE_SIZE : reserve))) {
          this.#ringWaiting = true;
          break;
        }
        if (ep.count === 0) this.#frontSince[slot] = this.#now;
        const o = ep.queue(type, n);
        const out = ep.buf;
        for (let i = 0, p = c + ENTRY_HEADER; i < n; i++, p++) out[o + i] = b[p & m];
      }
      c = (c + ENTRY_HEADER + n) | 0;
    }
    this.#cursor[slot] = c;
  }



  /**
   * Liveness is acknowledgement: a player whose oldest unacknowledged reliable message has
   * waited longer than timeoutMs is dropped as timed out, whatever else it sends. The wait
   * starts when a message goes into an empty queue (#reserve, #pump, the entity sync) or
   * when an acknowledgement moves the queue (#acknowledged); it is looked at every
   * ACK_CHECK_MS.
   */
  #checkAcks(now: number): void {
    const limit = this.config.timeoutMs;
    for (let s = 0; s < this.config.maxPlayers; s++) {
      if (this.active[s] === 0) continue;
      if (this.endpoints[s].count !== 0 && ((now - this.#frontSince[s]) | 0) > limit) {
        this.counters[C.Timeouts]++;
        this.counters[C.AckStalls]++;
        this.host.log(LogEvent.Timeout, s, this.playerId(s));
        this.#remove(s);
      }
    }
  }

  #printable(b: Uint8Array, o: number, n: number): boolean {
    for (let i = 0; i < n; i++) if (!isPrintable(b[o + i])) return false;
    return true;
  }

  #spoofed(slot: number): void {
    this.counters[C.SpoofedId]++;
    this.#misbehave(slot);
  }

  /**
   * A strike. At most one counts per STRIKE_WINDOW_MS and one decays every STRIKE_DECAY_MS,
   * so a kick takes a sustained pattern (misbehaviourLimit strikes net), not a burst.
   */
  #misbehave(slot: number): void {
    this.counters[C.Misbehaviour]++;
    const now = this.#now;
    if (((now - this.#strikeAt[slot]) | 0) < STRIKE_WINDOW_MS) return;
    this.#strikeAt[slot] = now;
    if (++this.misbehaviour[slot] >= this.config.misbehaviourLimit && this.#pendingKick[slot] === 0) {
      this.#pendingKick[slot] = KickReason.Misbehaviour;
      this.#kickPending = true;
    }
  }

  // ---------------------------------------------------------------- names

  #defaultName(slot: number): void {
    const s = this.#nameScratch;
    // "Player N", N = slot + 1
    s[0] = 0x50; s[1] = 0x6c; s[2] = 0x61; s[3] = 0x79; s[4] = 0x65; s[5] = 0x72; s[6] = 0x20;
    s[7] = 0x31 + slot;
    this.#setName(slot, s, 0, 8);
  }

  /** Store a name for `slot`, made unique among players with a "-N" suffix. */
  #setName(slot: number, src: Uint8Array, from: number, length: number): void {
    const names = this.names;
    const base = slot * NAME_LENGTH;
    if (src !== names) for (let i = 0; i < length; i++) names[base + i] = src[from + i];
    let len = length;
    this.nameLength[slot] = len;
    for (let suffix = 2; this.#nameTaken(slot); suffix++) {
      const digits = suffix < 10 ? 1 : 2;
      len = length + 1 + digits <= NAME_LENGTH - 1 ? length : NAME_LENGTH - 2 - digits;
      if (src !== names) for (let i = 0; i < len; i++) names[base + i] = src[from + i];
      names[base + len] = 0x2d; // '-'
      if (digits === 2) names[base + len + 1] = 0x30 + ((suffix / 10) | 0);
      names[base + len + digits] = 0x30 + (suffix % 10);
      this.nameLength[slot] = len + 1 + digits;
    }
    for (let i = this.nameLength[slot]; i < NAME_LENGTH; i++) names[base + i] = 0;
  }

  #nameTaken(slot: number): boolean {
    const names = this.names;
    const len = this.nameLength[slot];
    const a = slot * NAME_LENGTH;
    for (let s = 0; s < this.config.maxPlayers; s++) {
      if (s === slot || this.active[s] === 0 || this.nameLength[s] !== len) continue;
      const b = s * NAME_LENGTH;
      let same = true;
      for (let i = 0; i < len && same; i++) same = fold(names[a + i]) === fold(names[b + i]);
      if (same) return true;
    }
    return false;
  }

  // ---------------------------------------------------------------- queueing

  /** Reserve a reliable message for `to`; -1 (and a pending kick) when its queue is full. */
  #reserve(to: number, type: number, payload: number): number {
    if (this.#pendingKick[to] !== 0) return -1;
    const ep = this.endpoints[to];
    // A Leave may use the reserve; everything else must leave it free.
    if (ep.count === 0) this.#frontSince[to] = this.#now;
    const o = ep.canQueue(payload + (type === Msg.Leave ? LEAVE_SIZE : this.#leaveReserve)) ? ep.queue(type, payload) : -1;
    if (o < 0) {
      this.counters[C.QueueOverflows]++;
      this.#pendingKick[to] = KickReason.QueueOverflow;
      this.#kickPending = true;
    }
    return o;
  }

  #sendJoin(to: number, who: number): void {
    const o = this.#reserve(to, Msg.Join, 4);
    if (o >= 0) writeId(this.endpoints[to].buf, o, this.playerId(who));
  }

  #sendName(to: number, who: number): void {
    const o = this.#reserve(to, Msg.Name, 4 + NAME_LENGTH);
    if (o >= 0) writeName(this.endpoints[to].buf, o, this.playerId(who), this.names, who * NAME_LENGTH, this.nameLength[who]);
  }

  #sendSelection(to: number, who: number): void {
    const o = this.#reserve(to, Msg.Selection, 6);
    if (o >= 0) writeSelection(this.endpoints[to].buf, o, this.playerId(who), this.ship[who], this.weapon[who]);
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
      if (this.active[s] === 0 || this.#pendingKick[s] !== 0) {
        this.#dirtyAny[s] = 0;
        continue;
      }
      const ep = this.endpoints[s];
      let done = true;
      for (let j = 0, w = s * words; j < words; j++, w++) {
        let bits = dirty[w];
        while (bits !== 0) {
          if (ep.room() < MAX_PACKET + this.#leaveReserve) {
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
      if (this.active[s] === 0 || this.#pendingKick[s] !== 0) {
        this.#dirtyAny[s] = 0;
        continue;
      }
      const ep = this.endpoints[s];
      let state: number = SyncStop.Actions;
      while (state === SyncStop.Actions) {
        w[at + SyncWord.Used] = ep.usedBytes;
        w[at + SyncWord.Seq] = ep.nextSeq;
        const n = k.sync(b.layout, b.m0, b.m1, b.m2, b.m3, s);
        if (ep.count === 0) this.#frontSince[s] = this.#now;
        ep.commit(w[at + SyncWord.Used], w[at + SyncWord.Messages]);
        state = w[at + SyncWord.State];
        if (n !== 0) planner.applyActions(s, actions, n);
      }
      if (state === SyncStop.Done) this.#dirtyAny[s] = 0;
    }
  }

  // ---------------------------------------------------------------- leaving

  #disconnect(slot: number): void {
    const id = this.playerId(slot);
    // One last packet that acknowledges the Disconnect, so the client can stop resending.
    const tx = this.#tx;
    const o = writeHeader(tx, this.endpoints[slot].lastProcessed, this.host.now() >>> 0, 0, 0);
    this.#send(o, this.address[slot], this.port[slot]);
    this.counters[C.Leaves]++;
    this.host.log(LogEvent.Leave, slot, id);
    this.#remove(slot);
  }

  /**
   * The host's transport lost the peer for good (a WebSocket closed): a Disconnect with
   * nothing sent back. Returns whether a player was there.
   */
  disconnectPeer(address: string, port: number): boolean {
    const slot = this.#find(address, port);
    if (slot < 0 || this.#closed) return false;
    this.counters[C.Leaves]++;
    this.host.log(LogEvent.Leave, slot, this.playerId(slot));
    this.#remove(slot);
    if (this.#kickPending) this.#processKicks();
    return true;
  }

  /** Free the slot; the others get Leave, then Remove for the player's entities. */
  #leftRecently(address: string, port: number, now: number): boolean {
    for (let k = 0; k < LEFT_MEMORY; k++)
      if (this.#leftPort[k] === port && this.#leftAddress[k] === address && ((now - this.#leftUntil[k]) | 0) < 0) return true;
    return false;
  }

  #remove(slot: number): void {
    const id = this.playerId(slot);
    const k = this.#leftNext;
    this.#leftNext = (k + 1) % LEFT_MEMORY;
    this.#leftAddress[k] = this.address[slot];
    this.#leftPort[k] = this.port[slot];
    this.#leftUntil[k] = this.#now + LEFT_MEMORY_MS;
    this.active[slot] = 0;
    this.port[slot] = -1;
    this.#players--;
    this.#pendingKick[slot] = 0;
    this.input[slot] = 0;
    this.scores[slot] = 0;
    this.pings[slot] = 0;
    // Only those told of the player hear that it left.
    if (this.#announced[slot] !== 0) {
      this.#broadcast(Msg.Leave, EVERYONE, writeId(this.#scratch, 0, id));
    }
    this.#announced[slot] = 0;

    if (this.#sim !== null) this.#sim.playerLeft(slot, id);
    this.entities.removeOwnedBy(id);
  }

  /**
   * Queue `Leave(own id)` and flush the whole queue once, in as many packets as it
   * takes, so the player can process Leave wherever its receive cursor stands. A byte
   * budget of one Leave is kept free in every queue for this (see #reserve).
   */
  #kick(slot: number, reason: number): void {
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
    this.#remove(slot);
  }

  #processKicks(): void {
    this.#kickPending = false;
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
    this.#now = this.host.now();
    for (let s = 0; s < this.config.maxPlayers; s++) if (this.active[s] !== 0) this.#kick(s, KickReason.Shutdown);
    this.#closed = true;
  }

  // ---------------------------------------------------------------- tick

  tick(now: number): void {
    if (this.#closed) return;
    this.#now = now;
    const cfg = this.config;
    // Timeouts are seconds long: looking every TIMEOUT_CHECK_MS is enough.
    if (now >= this.#nextTimeoutCheck) {
      this.#nextTimeoutCheck = now + TIMEOUT_CHECK_MS;
      if (now >= this.#nextToken) {
        this.#nextToken = now + ADMISSION_REFILL_MS;
        if (this.#admitTokens < cfg.maxPlayers) this.#admitTokens++;
      }
      const decay = now >= this.#nextDecay;
      if (decay) this.#nextDecay = now + STRIKE_DECAY_MS;
      for (let s = 0; s < cfg.maxPlayers; s++) {
        if (this.active[s] === 0) continue;
        if (now - this.endpoints[s].lastHeard > cfg.timeoutMs) {
          this.counters[C.Timeouts]++;
          this.host.log(LogEvent.Timeout, s, this.playerId(s));
          this.#remove(s);
          continue;
        }
        if (this.endpoints[s].firstSeq === 0) {
          // A handshake completes or ends: the Join (seqno 0) acknowledged in time, or dropped.
          if (((now - this.#joinedAt[s]) | 0) > HANDSHAKE_MS) {
            this.counters[C.HandshakeTimeouts]++;
            this.host.log(LogEvent.Timeout, s, this.playerId(s));
            const k = this.#penaltyNext;
            this.#penaltyNext = (k + 1) % HANDSHAKE_MEMORY;
            this.#penaltyAddress[k] = this.address[s];
            this.#penaltyPort[k] = this.port[s];
            this.#penaltyUntil[k] = now + HANDSHAKE_PENALTY_MS;
            this.#remove(s);
            continue;
          }
        } else if (this.#announced[s] === 0) this.#announce(s);
        if (this.input[s] !== 0 && ((now - this.#inputAt[s]) | 0) > INPUT_STALE_MS) {
          this.input[s] = 0;
          this.counters[C.StaleInputs]++;
        }
        if (decay && this.misbehaviour[s] > 0) this.misbehaviour[s]--;
      }
    }
    // A tick on which the world stepped carries that step (and the Adds and Removes it
    // caused); the Updates due on it wait for the next tick, 10 ms later and no staler
    // than they would be. A game step is never two ticks in a row, so nothing waits twice.
    const version = this.entities.version;
    if (this.#sim !== null) this.#sim.tick(now);
    const stepped = this.entities.version !== version;
    if (this.#kickPending) this.#processKicks();
    // Session messages before entity traffic: each player takes what the ring holds for it.
    if (this.#ringWaiting) {
      this.#ringWaiting = false;
      for (let s = 0; s < cfg.maxPlayers; s++) if (this.active[s] !== 0 && this.#cursor[s] !== this.#ringHead) this.#pump(s);
    }
    this.#sync();
    if (this.#kickPending) this.#processKicks();
    if (now >= this.#nextAckCheck) {
      this.#nextAckCheck = now + ACK_CHECK_MS;
      this.#checkAcks(now);
    }

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
        if (this.active[s] === 0 || this.#updated[s] !== 0) continue;
        this.#sendUpdates(s, now, this.#statsDue[s] !== 0);
        this.#statsDue[s] = 0;
      }
      this.#cycleStart += cfg.updateIntervalMs;
      if (now - this.#cycleStart >= cfg.updateIntervalMs) this.#cycleStart = now;
      this.#updated.fill(0);
    }
    const into = now - this.#cycleStart;
    for (let s = 0; s < cfg.maxPlayers; s++) {
      if (this.active[s] === 0) continue;
      if (this.#updated[s] === 0 && into >= this.#offset[s] && !stepped) {
        this.#updated[s] = 1;
        this.#sendUpdates(s, now, this.#statsDue[s] !== 0);
        this.#statsDue[s] = 0;
        continue;
      }
      const ep = this.endpoints[s];
      if (ep.due(now)) {
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

  /** Start a packet in #tx with the peer's reliables; the endpoint counts first sends and resends (lwarChannel). */
  #fill(ep: Endpoint, now: number, first = 0): number {
    return ep.fill(this.#tx, now, now, first);
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
