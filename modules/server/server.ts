/**
 * The lwar Rev 1 server core: player slots, the connection life cycle, reliable and
 * unreliable delivery to each player, and Update/Stats on schedule. Host-free: it
 * talks to the world through `Host` only, and allocates nothing after `createServer`.
 *
 * This file composes the rooms (state.ts holds what they share): admission.ts finds and
 * admits peers and frees their slots, session.ts carries what players say (chat, names,
 * selections, announcements, leaves) and counts strikes, schedule.ts runs the timeouts and
 * the acknowledgement rule, receive.ts acts on a player's datagram, entity-sync.ts queues
 * the Adds and Removes each player is owed, update-writer.ts sends each player its packets;
 * here are the arena, receive, tick, kicks, the server's bots and the public API.
 *
 * Flow in:  host → receive() → one native copy into `state.rx` → validation (a fast path
 *           for the common client packets, else validatePacket) → Receiver.handle.
 * Flow out: tick() → timers → the game's step, or else entity sync → UpdateWriter.tick:
 *           Endpoint.fill (reliables) + Stats/Update → host.send (nothing on a step's tick).
 */
import { Arena } from "../arena";
import { ConfigError, type Config } from "../config";
import type { DirectCore, Host } from "../host";
import { COUNTER_COUNT, Counter, createCounters } from "../protocol/counters";
import {
  CHAT_LENGTH, FROM_CLIENT, HEADER_SIZE, MAX_PACKET, MAX_PLAYERS, Msg, NAME_LENGTH,
  RELIABLE_HEADER, UPDATE_ENTRY, typeTable,
} from "../protocol/constants";
import { MAX_MESSAGES, SHAPE_OTHER, shapeFromClient, validatePacket, writeId } from "../protocol/codec";
import { type Endpoint, EndpointTable } from "../transport/endpoint";
import { EndpointWord } from "../native-words";
import { lwarChannel } from "../protocol/channel";
import { EntityTable, type EntityListener } from "../game/entities";
import { KickReason, LogEvent } from "./events";
import { PriorityPlanner, RoundRobinPlanner, type UpdatePlanner } from "./updates";
import { type NativeOptions, platformNative } from "../native";
import { EntityReconciler } from "./entity-sync";
import type { Focus, Players, Simulation } from "../sim";
import { Admission, HANDSHAKE_MEMORY, LEFT_MEMORY, PORT_HINT_MASK } from "./admission";
import { Receiver } from "./receive";
import { BROADCAST_BYTES, Session } from "./session";
import { Pilots } from "./pilots";
import { Schedule } from "./schedule";
import { ServerState } from "./state";
import { UpdateWriter } from "./update-writer";

/** How often empty slots are looked at for bots to fill (config.bots), ms. */
export const BOT_FILL_MS = 1000;
/** Join, Name and Selection of one player: what announcing it puts in each queue. */
const ANNOUNCE_SIZE = 3 * RELIABLE_HEADER + 4 + (4 + NAME_LENGTH) + 6;

export class Server implements DirectCore, EntityListener, Players {
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
  readonly #receiver: Receiver;
  readonly #reconciler: EntityReconciler;
  readonly #writer: UpdateWriter;

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

  /** Where the tables come from (its rows are the memory budget's). */
  readonly #arena: Arena;
  #closed = false;
  /** The native loops this server was given (modules/native.ts), or null. */
  readonly #native: NativeOptions | null;

  /** The server's own bots (config.bots): which slots they fly, and their pilots. */
  readonly pilots: Pilots;
  #nextBotFill = 0;
  /** Each player's ship (the game's focus), for the pilots; null without a game. */
  #focus: Focus | null = null;

  constructor(config: Config, host: Host, native: NativeOptions | null = platformNative(config)) {
    const n = config.maxPlayers;
    this.config = config;
    this.host = host;
    const memory = native?.memory ?? null;
    // In the native memory where the platform has one (WebAssembly): the Update packer
    // counts in C what it writes and sends (entries.ts).
    this.counters = memory !== null ? new Uint32Array(memory.buffer, memory.take(4 * COUNTER_COUNT), COUNTER_COUNT) : createCounters();
    this.entities = new EntityTable(config.maxEntities, memory);
    this.entities.listener = this;
    this.pilots = new Pilots(config.maxPlayers, config.botSkill);
    const t = new ServerState(config, host, this.counters, this.entities, HANDSHAKE_MEMORY, LEFT_MEMORY, this.pilots.bot);
    this.#state = t;

    const q = config.reliableQueueBytes;
    const cap = config.maxEntities;
    // Room for a packet of entity traffic, an announcement and the Leave reserve.
    if (q < MAX_PACKET + ANNOUNCE_SIZE + t.leaveReserve)
      throw new ConfigError(`config.reliableQueueBytes must be at least ${MAX_PACKET + ANNOUNCE_SIZE + t.leaveReserve} for ${n} players`);
    // Two passes over the same takes: the first measures, the second carves (see Arena);
    // the fields marked `!` (here and in the state) are assigned in that loop.
    // Widest elements first.
    const queues: Uint8Array[] = [];
    let allQueues: Uint8Array = new Uint8Array(0);
    let endpointState: Float64Array = new Float64Array(0);
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, memory);
      endpointState = a.f64((n * EndpointWord.Stride) >> 1, `reliable queues (${n} × ${q} B)`);
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
      t.dirty = a.i32(n * ((cap + 31) >> 5), "entity sync (known, dirty)");
      t.pending = a.i32((cap + 31) >> 5, "entity sync (known, dirty)");
      t.actions = a.i32(cap, "entity sync (known, dirty)");
      t.generation = a.u16(n, "player tables");
      this.known = a.u16(n * cap, "entity sync (known, dirty)");
      t.misbehaviour = a.u16(n, "player tables");
      t.scores = a.u16(MAX_PLAYERS, "stats (scores, pings), last chat");
      t.pings = a.u16(MAX_PLAYERS, "stats (scores, pings), last chat");
      t.list = a.u16(cap, "update plan list");
      t.offsets = a.u16(MAX_MESSAGES, "packet buffers (rx, tx), message offsets");
      t.slotByPort = a.u8(PORT_HINT_MASK + 1, "player tables");
      t.active = a.u8(n, "player tables");
      t.nameLength = a.u8(n, "player tables");
      t.ship = a.u8(n, "player tables");
      t.weapon = a.u8(n, "player tables");
      t.selected = a.u8(n, "player tables");
      t.input = a.u8(n, "player tables");
      t.pendingKick = a.u8(n, "player tables");
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
      // Right after tx: the Update entry cache (update-writer.ts), so that one view spans both.
      a.u8(cap * UPDATE_ENTRY, "update entries, encoded once per change");
      t.encoded = a.u8(cap, "update entries, encoded once per change");
      allQueues = a.u8(n * q, `reliable queues (${n} × ${q} B)`);
      for (let i = 0; i < n; i++) queues[i] = allQueues.subarray(i * q, (i + 1) * q);
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
    t.known = this.known;
    t.rxView = new DataView(a.buffer, t.rx.byteOffset, MAX_PACKET);
    // One view of the whole arena: reliable messages go from the queues into tx with copyWithin.
    const whole = new Uint8Array(a.buffer);
    const wholeView = new DataView(a.buffer);
    t.whole = whole;
    t.wholeView = wholeView;
    const channel = lwarChannel(q, config.resendIntervalMs, this.counters);
    const table = new EndpointTable(channel, n, native ?? { kernels: null }, { state: endpointState, queues: allQueues, out: whole, front: t.frontSince });
    this.endpoints = table.endpoints;
    t.endpoints = this.endpoints;
    t.endpointTable = table;
    this.port.fill(-1);
    typeTable();
    t.now = host.now();
    this.#session = new Session(t, native);
    this.#admission = new Admission(t, this.#session);
    this.#session.bind(this.#admission);
    this.#schedule = new Schedule(t, this.#admission, this.#session);
    this.#receiver = new Receiver(t, this.#admission, this.#session);
    this.#planner = new RoundRobinPlanner(this.entities, n, this.known, this.#updateLimit());
    // Each loop picks its implementation once: the native kernel's if given, else the JavaScript.
    this.#native = native;
    this.#reconciler = new EntityReconciler(t, whole, queues, this.#planner, native);
    this.#writer = new UpdateWriter(t, this.#planner, native);
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
      const options = { limit: this.#updateLimit() };
      const n = this.config.maxPlayers;
      this.#planner = new PriorityPlanner(this.entities, n, focus, options, this.#native, this.#state.list, this.#state.actions);
      this.#reconciler.planner = this.#planner;
      this.#writer.planner = this.#planner;
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

  /** The native loops this server was made with (the game shares them and their memory). */
  get native(): NativeOptions | null {
    return this.#native;
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
    if (length <= MAX_PACKET && !this.#closed) {
      // One native copy when the host's bytes are exactly the datagram (the Node host's are).
      const rx = this.#state.rx;
      if (bytes.length === length) rx.set(bytes);
      else for (let i = 0; i < length; i++) rx[i] = bytes[i];
    }
    this.received(length, address, port, this.host.now());
  }

  /** The receive buffer a host may write a datagram into before `received` (DirectCore): MAX_PACKET bytes. */
  get rxBuffer(): Uint8Array {
    return this.#state.rx;
  }

  /** A datagram the host wrote into `rxBuffer` (the board's host: no copy at all), taken at `now` (DirectCore). */
  received(length: number, address: string, port: number, now: number): void {
    const counters = this.counters;
    counters[Counter.PacketsIn]++;
    counters[Counter.BytesIn] += length;
    if (this.#closed) return;
    if (length > MAX_PACKET) {
      counters[Counter.TooLong]++;
      return;
    }
    const t = this.#state;
    // Only a datagram that passes validation can count against a player: anyone can send
    // garbage that names a player's address. Invalid ones are dropped and counted, nothing more.
    // An ack or an ack + Input is valid as recognised; any other is checked in full.
    const shape = shapeFromClient(t.rxView, length);
    if (shape === SHAPE_OTHER && !validatePacket(t.rx, length, FROM_CLIENT, counters, t.offsets, t.rxView)) return;
    t.now = now;
    let slot = this.#admission.find(address, port);
    if (slot < 0) {
      slot = this.#admission.admit(length, address, port, now);
      if (slot < 0) return;
      this.#joined(slot);
    }
    this.#receiver.handle(slot, now, shape);
    if (t.kickPending) this.#processKicks();
  }

  /**
   * A newcomer was admitted (admission.ts, which queued its roster): everything alive is new
   * to it, its Update cycle starts afresh, and the planner and the game hear of it.
   */
  #joined(slot: number): void {
    this.#reconciler.joined(slot);
    this.#writer.joined(slot);
    this.#planner.resetSlot(slot);
    const sim = this.#state.sim;
    if (sim !== null) sim.playerJoined(slot, this.playerId(slot));
  }

  /** EntityListener: the entry cache learns the new id, and every player reconciles this index at its next chance. */
  entityAdded(index: number): void {
    this.#writer.entityAdded(index);
    this.#reconciler.markIndex(index);
  }

  entityRemoved(index: number, _id: number): void {
    this.#reconciler.markIndex(index);
  }

  // ---------------------------------------------------------------- leaving

  /**
   * The host's transport lost the peer for good (a WebSocket closed): a Disconnect with
   * nothing sent back. Returns whether a player was there.
   */
  disconnectPeer(address: string, port: number): boolean {
    const slot = this.#admission.find(address, port);
    if (slot < 0 || this.#closed) return false;
    this.counters[Counter.Leaves]++;
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
      // A bot takes no entity traffic (entity-sync.ts): it reads the game's tables.
      this.#joined(s);
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
      this.counters[Counter.Leaves]++;
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
      const end = this.#writer.fill(ep, now, first);
      this.#state.send(end, this.address[slot], this.port[slot]);
      if (ep.filledMessages === 0) break;
      first += ep.filledMessages;
    }
    this.counters[Counter.Kicks]++;
    this.host.log(LogEvent.Kick, slot, reason);
    this.#admission.remove(slot);
  }

  #processKicks(): void {
    this.#state.kickPending = false;
    const pendingKick = this.#state.pendingKick;
    for (let again = true; again; ) {
      again = false;
      for (let s = 0; s < this.config.maxPlayers; s++) {
        const reason = pendingKick[s];
        if (reason === 0 || this.active[s] === 0) continue;
        pendingKick[s] = 0;
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
    if (cfg.bots !== 0 && now >= this.#nextBotFill) {
      this.#nextBotFill = now + BOT_FILL_MS;
      this.#fillBots(now);
    }
    if (t.bots !== 0 && this.#focus !== null) this.pilots.fly(now, this.entities, this.#focus.focusIndex, this.weapon, this.input);
    // A tick on which the world stepped carries that step alone: its Adds and Removes (the
    // entity sync), the Updates and the packets due on it wait for the next tick, 10 ms
    // later and no staler than they would be, so the heaviest work is not on one tick. A
    // game step is never two ticks in a row, so nothing waits twice.
    const version = this.entities.version;
    const sim = t.sim;
    if (sim !== null) sim.tick(now);
    const stepped = this.entities.version !== version;
    if (t.kickPending) this.#processKicks();
    // Session messages before entity traffic: each player takes what the ring holds for it.
    this.#session.pumpWaiting();
    if (!stepped) this.#reconciler.reconcile(now);
    if (t.kickPending) this.#processKicks();
    this.#schedule.checkAcks(now);
    this.#writer.tick(now, stepped);
  }
}

/** A server on `host`; `native` gives it native loops (modules/native.ts). */
export function createServer(config: Config, host: Host, native: NativeOptions | null = platformNative(config)): Server {
  return new Server(config, host, native);
}
