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
  CHAT_LENGTH, HEADER_SIZE, MAX_PACKET, MAX_PLAYERS, Msg, NAME_LENGTH,
  RELIABLE_HEADER, UPDATE_ENTRY, typeTable,
} from "../protocol/constants";
import { setU32 } from "../protocol/bytes";
import {
  INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING, MAX_MESSAGES,
  validateFromClient, writeAdd, writeId, writeStats,
} from "../protocol/codec";
import { DUPLICATE, Endpoint, finishPacket, FUTURE_SLACK_MS, PROCESS } from "../transport/endpoint";
import { EntityTable, type EntityListener } from "../game/entities";
import { KickReason, LogEvent } from "./events";
import { NativePriorityPlanner, PriorityPlanner, RoundRobinPlanner, type UpdatePlanner } from "./updates";
import { kernelsFor, type NativeOptions } from "../native";
import { type EntryPacker, JsEntryPacker, NativeEntryPacker } from "./entries";
import { type EntitySync, JsEntitySync, NativeEntitySync } from "./entity-sync";
import type { Focus, Players, Simulation } from "../sim";
import { Admission, HANDSHAKE_MEMORY, LEFT_MEMORY, PORT_HINT_MASK } from "./admission";
import { BROADCAST_BYTES, Session } from "./session";
import { Pilots } from "./pilots";
import { Schedule } from "./schedule";
import { ServerState } from "./state";

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
  readonly selected: Uint8Array;
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
  /** The native loops this server was given (modules/native.ts), or null. */
  readonly #native: NativeOptions | null;
  /** The Update entry loop: the JavaScript or the native kernel's, chosen at start-up. */
  readonly #packer: EntryPacker;
  /** The entity sync of one player: the JavaScript or the native kernel's, chosen at start-up. */
  readonly #entitySync: EntitySync;
  /** The Adds and Removes a native sync queued, for the planner (~index: a Remove). */
  readonly #actions!: Int32Array;

  /** The server's own bots (config.bots): which slots they fly, and their pilots. */
  readonly pilots: Pilots;
  #nextBotFill = 0;
  /** Each player's ship (the game's focus), for the pilots; null without a game. */
  #focus: Focus | null = null;

  constructor(config: Config, host: Host, native: NativeOptions | null = null) {
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
      this.#actions = a.i32(kernelsFor(native, "sync") !== null ? cap : 0, "entity sync (known, dirty)");
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
      t.selected = a.u8(n, "player tables");
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
    this.selected = t.selected;
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
    // Each loop picks its implementation once: the native kernel's if given, else the JavaScript.
    this.#native = native;
    const entries = { all: this.#txAndEntries, encoded: this.#encoded, entities: this.entities, list: this.#list };
    const pack = kernelsFor(native, "pack");
    this.#packer = pack !== null ? new NativeEntryPacker(entries, pack, native) : new JsEntryPacker(entries);
    const memory = {
      entities: this.entities, dirty: this.#dirty, known: this.known, endpoints: this.endpoints,
      keep: MAX_PACKET + this.#leaveReserve, frontSince: this.#frontSince,
    };
    const sync = kernelsFor(native, "sync");
    this.#entitySync = sync !== null
      ? new NativeEntitySync(memory, whole, queues, this.#actions, this.#planner, sync, native)
      : new JsEntitySync(memory, { add: (to, i) => this.#sendAdd(to, i), remove: (to, i) => this.#sendRemove(to, i) }, this.#planner);
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
    if (focus !== null) {
      const plan = kernelsFor(this.#native, "plan");
      const options = { limit: this.#updateLimit() };
      const n = this.config.maxPlayers;
      this.#planner = plan !== null
        ? new NativePriorityPlanner(this.entities, n, focus, options, plan, this.#list, this.#actions, this.#native)
        : new PriorityPlanner(this.entities, n, focus, options);
      this.#entitySync.planner = this.#planner;
    }
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
    // Only a datagram that passes validation can count against a player: anyone can send
    // garbage that names a player's address. Invalid ones are dropped and counted, nothing more.
    if (!validateFromClient(this.#rxView, rx, length, this.counters, this.#offsets)) return;
    const now = this.host.now();
    this.#state.now = now;
    let slot = this.#admission.find(address, port);
    if (slot < 0) {
      slot = this.#admission.admit(length, address, port, now);
      if (slot < 0) return;
      this.#joined(slot);
    }
    this.#handle(slot, now);
    if (this.#state.kickPending) this.#processKicks();
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

  #handle(slot: number, now: number): void {
    const rx = this.#rx;
    const ep = this.endpoints[slot];
    const counters = this.counters;
    const v = this.#rxView;
    const ack = v.getInt32(4);
    // The usual case, an ack of nothing new from an announced player, without the call.
    if (((ack - ep.firstSeq) | 0) < 0 && this.#announced[slot] !== 0) ep.lastHeard = now;
    else if (!this.#acknowledged(slot, ep, ack, now)) return;
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
    writeAdd(this.endpoints[to].buf, o, ((e.generation[index] << 16) | index) >>> 0, e.owner[index], e.type[index]);
    this.known[to * e.capacity + index] = e.generation[index];
    this.#planner.added(to, index);
    return true;
  }

  /** Queue Remove of the entity `to` knows at `index`; false when the queue is full. */
  #sendRemove(to: number, index: number): boolean {
    const k = to * this.entities.capacity + index;
    const o = this.#reserve(to, Msg.Remove, 4);
    if (o < 0) return false;
    writeId(this.endpoints[to].buf, o, ((this.known[k] << 16) | index) >>> 0);
    this.known[k] = 0;
    this.#planner.removed(to, index);
    return true;
  }

  /** EntityListener: every player reconciles this index at its next chance. */
  entityAdded(index: number): void {
    // A new id in this cache slot: its bytes now, the state at the next encoding.
    // The id is the entry's first field (UpdateEntryAt.id).
    setU32(this.#txAndEntries, MAX_PACKET + index * UPDATE_ENTRY, this.entities.id(index));
    this.#encoded[index] = 0;
    this.#markIndex(index);
  }

  entityRemoved(index: number, _id: number): void {
    this.#markIndex(index);
  }

  #markIndex(index: number): void {
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
    const sync = this.#entitySync;
    for (let s = 0; s < this.config.maxPlayers; s++) {
      if (this.#dirtyAny[s] === 0) continue;
      if (this.active[s] === 0 || this.#pendingKick[s] !== 0 || this.#state.bot[s] !== 0) {
        this.#dirtyAny[s] = 0;
        continue;
      }
      if (sync.slot(s, this.#now)) this.#dirtyAny[s] = 0;
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
    const list = this.#list;
    const e = this.entities;
    const packer = this.#packer;
    // Entries stay valid until the entities change in place (a game step bumps the
    // version); an entity added at a reused index is re-encoded (entityAdded).
    if (e.version !== this.#encodedVersion) {
      this.#encoded.fill(0);
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
        pos = packer.pack(pos, n, o);
        o = packer.o;
        k = packer.k;
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

/** A server on `host`; `native` gives it native loops (modules/native.ts). */
export function createServer(config: Config, host: Host, native: NativeOptions | null = null): Server {
  return new Server(config, host, native);
}
