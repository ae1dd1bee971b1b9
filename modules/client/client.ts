/**
 * The lwar Rev 1 client library, host-free, on the same codec and Endpoint as the
 * server. It connects, processes reliable messages exactly once and in order, keeps
 * the roster, the entities and the stats, and sends Input, Chat, Name and Selection.
 */
import type { Config } from "../config";
import type { Core, Host } from "../host";
import { COUNTER_COUNT, Counter } from "../protocol/counters";
import {
  CHAT_LENGTH, FROM_SERVER, MAX_PACKET, MAX_PLAYERS, Msg, NAME_LENGTH,
  UPDATE_ENTRY, typeTable,
} from "../protocol/constants";
import {
  Fields, readAdd, readChat, readId,
  readName, readReject, readSelection, readStats, updateEntryHealth, updateEntryId, updateEntryRot,
  updateEntryVx, updateEntryVy, updateEntryX, updateEntryY, validatePacket, MAX_MESSAGES, writeChat, writeInput,
  writeName, writeSelection,
} from "../protocol/codec";
import { type NativeOptions, nativeWords, platformMemory } from "../native";
import { type Endpoint, EndpointTable, finishPacket } from "../transport/endpoint";
import { HEADER_REL, HEADER_UNREL } from "../transport/frame";
import { RECEIVE_BAD_ACK, RECEIVE_STOPPED, ReceiveStep, type Receiving, SHAPE_ANY } from "../transport/receive";
import { lwarChannel } from "../protocol/channel";
import { KillTracker, type KillListener } from "./kills";

export { describeKill, KillCause, type KillListener } from "./kills";

const charCodeAt = String.prototype.charCodeAt;

/**
 * Writes up to `max` char codes of `text` (each & 0x7f) to `out` from 0; returns how many.
 * On XS every property read on a primitive string, `.length` included, boxes it in a new
 * String object; `charCodeAt.call` reads the string as it is, so this allocates nothing.
 */
function encode(text: string, out: Uint8Array, max: number): number {
  let n = 0;
  for (; n < max; n++) {
    const c = charCodeAt.call(text, n);
    if (c !== c) break; // NaN: past the end
    out[n] = c & 0x7f;
  }
  return n;
}

/** How long a disconnecting client waits for the server's ack before closing anyway. */
export const DISCONNECT_WAIT_MS = 1000;

/**
 * Own chat lines awaiting their echo; sending one more reports the oldest not delivered.
 * The oldest lines of a burst are the ones the server accepts, so the ring holds more than
 * a burst of 10 typed as fast as keys repeat, before its first echo can arrive.
 */
export const CHAT_PENDING = 16;
/** The RTT assumed before the first sample. */
export const CHAT_DEFAULT_RTT_MS = 250;
/** A line not echoed within 2 RTT + this much of being sent was refused. */
export const CHAT_MARGIN_MS = 100;

/**
 * What became of one of our own chat lines: the server echoed it (delivered) or did not
 * in time (refused, flood control). The text is at `text[offset..offset+length)`, valid
 * until the next chat() or chatBytes(): copy it to keep it.
 */
export type ChatOutcome = (delivered: boolean, text: Uint8Array, offset: number, length: number) => void;

export const ClientState = Object.freeze({
  Idle: 0,
  Connecting: 1,
  Connected: 2,
  Disconnecting: 3,
  /** Closed after our Disconnect was acknowledged. */
  Closed: 4,
  /** The server answered Reject; see `rejectReason`. */
  Rejected: 5,
  /** The server sent Leave with our own id (kick or shutdown). */
  Kicked: 6,
  /** Nothing heard from the server for `timeoutMs`. */
  TimedOut: 7,
} as const);

/** Optional observer of every message the client applies (tests and tools). */
export interface ClientListener {
  /** A reliable message, processed once and in order; payload at `b[o..]`. */
  reliable(client: Client, type: number, seq: number, b: Uint8Array, o: number): void;
  /** An unreliable message that passed the timestamp filter. */
  unreliable(client: Client, type: number, timestamp: number, b: Uint8Array, o: number): void;
}

/**
 * A player's name at `name[offset..offset+length)`, valid only during the call: a remote
 * player's first Name (onPlayerJoined) or a later one (onRename).
 */
export type NameListener = (id: number, name: Uint8Array, offset: number, length: number) => void;

export interface ClientOptions {
  /** Input (and keepalive) period; ~20 Hz by default. */
  inputIntervalMs?: number;
  /**
   * The transport's native loops and the memory they reach (modules/native.ts); absent, the
   * platform's (`platformMemory`: on Node and in the page, a WebAssembly instance of its own).
   */
  native?: NativeOptions | null;
}

export class Client implements Core, Receiving {
  readonly config: Config;
  readonly host: Host;
  readonly serverAddress: string;
  readonly serverPort: number;
  readonly counters: Uint32Array;
  readonly endpoint: Endpoint;
  listener: ClientListener | null = null;
  state: number = ClientState.Idle;
  rejectReason = 0;
  /** Our player id and slot, known once Join(self) arrives. */
  selfId = -1;
  selfSlot = -1;

  // Roster, by slot.
  readonly present: Uint8Array;
  readonly playerIds: Uint32Array;
  readonly names: Uint8Array;
  readonly nameLength: Uint8Array;
  readonly ship: Uint8Array;
  readonly weapon: Uint8Array;
  readonly scores: Uint16Array;
  readonly pings: Uint16Array;

  // Entities, by id index (low 16 bits).
  readonly entityCapacity: number;
  readonly alive: Uint8Array;
  readonly entityId: Uint32Array;
  readonly owner: Uint32Array;
  readonly type: Uint8Array;
  readonly x: Int16Array;
  readonly y: Int16Array;
  readonly vx: Int16Array;
  readonly vy: Int16Array;
  readonly rot: Uint16Array;
  readonly health: Uint8Array;
  entityCount = 0;

  // Statistics for tools.
  updatesReceived = 0;
  statsReceived = 0;
  updateEntitiesReceived = 0;
  /** Entity messages that named an unknown id or an index beyond capacity. */
  unknownEntities = 0;
  connectedAt = -1;
  /** When Join(self) arrived, and when the last Add of the initial sync was applied. */
  lastReliableAt = -1;
  /** Our own chat lines the server echoed, and those it did not. */
  chatsDelivered = 0;
  chatsNotDelivered = 0;
  /** Told what became of each of our chat lines, in the order they were sent. */
  onChatOutcome: ChatOutcome | null = null;
  /**
   * Told of each ship destroyed, once, as its Remove is applied (modules/client/kills.ts):
   * victim and killer are player ids (killer -1 when none), cause a KillCause, weapon the
   * projectile template id or -1.
   */
  onKill: KillListener | null = null;
  /** Infers the kills onKill reports. */
  readonly kills: KillTracker;
  /**
   * Per slot, 1 once the player's first Name after its Join has arrived. The server tells
   * the others of a newcomer (Join, Name, Selection) once it has acknowledged its Join, and
   * a client that sent its name with that acknowledgement is announced under it: its first
   * Name is the name it chose, not "Player N".
   */
  readonly named: Uint8Array;
  /**
   * A player who joined after us is in the match under this name (its first Name). Not
   * called for those already playing when we joined (they arrive in the packet that
   * admits us), nor for ourselves.
   */
  onPlayerJoined: NameListener | null = null;
  /**
   * A player, ourselves included, changed name. Called before the roster changes: `names`
   * still holds the old one. Our own default name and the echo of the name we joined with
   * are not renames.
   */
  onRename: NameListener | null = null;

  readonly #rx: Uint8Array;
  /** Payload offsets of the received packet's messages, recorded by validatePacket. */
  readonly #offsets: Uint16Array;
  /** The transport's receive step over `#rx`. */
  readonly #step: ReceiveStep;
  readonly #tx: Uint8Array;
  readonly #fields = new Fields();
  readonly #inputInterval: number;
  #input = 0;
  #nextInput = 0;
  #now = 0;
  #disconnectAt = 0;
  /** host.now() of the packet being received. */
  #rxAt = 0;
  /** What to send with the acknowledgement of our Join (joinAs): name bytes, ship, weapon. */
  readonly #joinName: Uint8Array;
  #joinNameLength = 0;
  #joinShip = -1;
  #joinWeapon = -1;
  /** PacketsIn when our Join arrived: Joins in that packet are the players already here. */
  #joinPacket = -1;
  /** Per slot, 1 while its Join came in the packet that admitted us. */
  readonly #inRoster: Uint8Array;
  /** Names of our own to take quietly: the server's default, and the echo of our join name. */
  #selfQuiet = 0;
  /**
   * Our chat lines not yet echoed, oldest at #chatHead: their text (CHAT_LENGTH bytes each),
   * lengths and send times (ms mod 2^32).
   */
  readonly #chatText: Uint8Array;
  readonly #chatLength: Uint8Array;
  readonly #chatAt: Uint32Array;
  #chatHead = 0;
  #chatCount = 0;

  constructor(config: Config, host: Host, serverAddress: string, serverPort: number, options?: ClientOptions) {
    this.config = config;
    this.host = host;
    this.serverAddress = serverAddress;
    this.serverPort = serverPort;
    // The counters and the endpoint in the memory the transport's C reaches.
    const native = options?.native ?? platformMemory(clientMemoryBytes(config));
    this.counters = nativeWords(native, COUNTER_COUNT);
    this.endpoint = new EndpointTable(lwarChannel(config.reliableQueueBytes, config.resendIntervalMs, this.counters), 1, native).endpoints[0];
    this.present = new Uint8Array(MAX_PLAYERS);
    this.playerIds = new Uint32Array(MAX_PLAYERS);
    this.names = new Uint8Array(MAX_PLAYERS * NAME_LENGTH);
    this.nameLength = new Uint8Array(MAX_PLAYERS);
    this.ship = new Uint8Array(MAX_PLAYERS);
    this.weapon = new Uint8Array(MAX_PLAYERS);
    this.scores = new Uint16Array(MAX_PLAYERS);
    this.pings = new Uint16Array(MAX_PLAYERS);
    const cap = config.maxEntities;
    this.entityCapacity = cap;
    this.alive = new Uint8Array(cap);
    this.entityId = new Uint32Array(cap);
    this.owner = new Uint32Array(cap);
    this.type = new Uint8Array(cap);
    this.x = new Int16Array(cap);
    this.y = new Int16Array(cap);
    this.vx = new Int16Array(cap);
    this.vy = new Int16Array(cap);
    this.rot = new Uint16Array(cap);
    this.health = new Uint8Array(cap);
    this.#rx = new Uint8Array(MAX_PACKET);
    this.#offsets = new Uint16Array(MAX_MESSAGES);
    this.#step = new ReceiveStep(new DataView(this.#rx.buffer), this.#rx, this.#offsets, this.counters, this);
    // The packet buffer in the endpoint's own memory: fill() writes there in place.
    this.#tx = this.endpoint.table.packet;
    this.#inputInterval = options?.inputIntervalMs ?? 50;
    this.#chatText = new Uint8Array(CHAT_PENDING * CHAT_LENGTH);
    this.#chatLength = new Uint8Array(CHAT_PENDING);
    this.#chatAt = new Uint32Array(CHAT_PENDING);
    this.kills = new KillTracker(this);
    this.named = new Uint8Array(MAX_PLAYERS);
    this.#inRoster = new Uint8Array(MAX_PLAYERS);
    this.#joinName = new Uint8Array(NAME_LENGTH);
    typeTable();
  }

  /** Players in the roster. */
  playerCount(): number {
    let n = 0;
    for (let s = 0; s < MAX_PLAYERS; s++) n += this.present[s];
    return n;
  }

  /** True while messages can be sent. */
  isOpen(): boolean {
    return this.state === ClientState.Connecting || this.state === ClientState.Connected;
  }

  // ---------------------------------------------------------------- sending

  /**
   * Who we are when we join: the name (1..31 characters; null keeps the server's "Player N")
   * and the ship and weapon types (-1 keeps the server's). They go out in the packet that
   * acknowledges our Join, so the others first hear of us under this name. Call before
   * connect(); returns false for a name of the wrong length.
   */
  joinAs(name: string | null, ship = -1, weapon = -1): boolean {
    let n = 0;
    if (name !== null) {
      n = encode(name, this.#joinName, NAME_LENGTH);
      if (n === 0 || n >= NAME_LENGTH) return false;
    }
    this.#joinNameLength = n;
    this.#joinShip = ship;
    this.#joinWeapon = weapon;
    return true;
  }

  /** Queue Connect (seqno 0) and start sending. */
  connect(): void {
    if (this.state !== ClientState.Idle) throw new Error("connect() called twice");
    const now = this.host.now();
    this.endpoint.reset(now);
    this.endpoint.queue(Msg.Connect, 0);
    this.state = ClientState.Connecting;
    this.connectedAt = now;
    this.#nextInput = now;
    this.#flush(now, true);
  }

  /** Queue Disconnect; the client closes once the server acknowledges it. */
  disconnect(): void {
    if (!this.isOpen()) return;
    if (this.#queue(Msg.Disconnect, 0) < 0) return;
    this.state = ClientState.Disconnecting;
    this.#disconnectAt = this.host.now();
    this.#flush(this.host.now(), true);
  }

  /** Current input as INPUT_* bits; sent with every Input message. */
  setInput(bits: number): void {
    this.#input = bits;
  }

  /**
   * Queue a Chat message from ASCII bytes. Returns false if not sent (closed, full, too long).
   * A line sent is awaited: onChatOutcome learns whether the server echoed it.
   */
  chatBytes(text: Uint8Array, from: number, length: number): boolean {
    if (this.selfId < 0 || length >= CHAT_LENGTH || length === 0) return false;
    const o = this.#queue(Msg.Chat, 4 + length + 1);
    if (o < 0) return false;
    writeChat(this.endpoint.buf, o, this.selfId, text, from, length);
    if (this.#chatCount === CHAT_PENDING) this.#chatOutcome(false);
    const k = (this.#chatHead + this.#chatCount) % CHAT_PENDING;
    const t = this.#chatText;
    const base = k * CHAT_LENGTH;
    for (let i = 0; i < length; i++) t[base + i] = text[from + i];
    this.#chatLength[k] = length;
    this.#chatAt[k] = this.host.now() >>> 0;
    this.#chatCount++;
    return true;
  }

  /** Own chat lines sent and not yet known delivered or not. */
  get chatsPending(): number {
    return this.#chatCount;
  }

  /** Queue a Chat message from ASCII text (up to 127 characters; the rest is cut). */
  chat(text: string): boolean {
    const n = encode(text, this.#tx, CHAT_LENGTH - 1);
    return this.chatBytes(this.#tx, 0, n);
  }

  /** Queue a Name change: 1 to 31 ASCII characters. */
  rename(name: string): boolean {
    if (this.selfId < 0) return false;
    const n = encode(name, this.#tx, NAME_LENGTH);
    if (n === 0 || n >= NAME_LENGTH) return false;
    const o = this.#queue(Msg.Name, 4 + NAME_LENGTH);
    if (o < 0) return false;
    writeName(this.endpoint.buf, o, this.selfId, this.#tx, 0, n);
    return true;
  }

  /** Queue a Selection change. */
  select(ship: number, weapon: number): boolean {
    if (this.selfId < 0) return false;
    const o = this.#queue(Msg.Selection, 6);
    if (o < 0) return false;
    writeSelection(this.endpoint.buf, o, this.selfId, ship, weapon);
    return true;
  }

  /** Low-level: queue any reliable message; returns the payload offset in endpoint.buf or -1. */
  queueRaw(type: number, payload: number): number {
    return this.#queue(type, payload);
  }

  #queue(type: number, payload: number): number {
    if (!this.isOpen()) return -1;
    const o = this.endpoint.queue(type, payload);
    if (o < 0) this.counters[Counter.QueueOverflows]++;
    return o;
  }

  tick(now: number): void {
    this.#now = now;
    if (this.#chatCount > 0) this.#expireChats(now);
    if (this.state === ClientState.Idle || this.state >= ClientState.Closed) return;
    // If the server's ack of our Disconnect was lost, it has forgotten us: close anyway.
    if (this.state === ClientState.Disconnecting && now - this.#disconnectAt > DISCONNECT_WAIT_MS) {
      this.state = ClientState.Closed;
      return;
    }
    if (now - this.endpoint.lastHeard > this.config.timeoutMs) {
      this.state = ClientState.TimedOut;
      return;
    }
    const inputDue = now >= this.#nextInput;
    if (inputDue) {
      this.#nextInput += this.#inputInterval;
      if (this.#nextInput <= now) this.#nextInput = now + this.#inputInterval;
    }
    const ep = this.endpoint;
    if (inputDue || ep.due(now)) this.#flush(now, inputDue);
  }

  #flush(now: number, withInput: boolean): void {
    const tx = this.#tx;
    const ep = this.endpoint;
    // fill() adds to counters[Counter.ReliableSent] and [Counter.ReliableResent] (lwarChannel).
    let o = ep.fill(tx, now, now);
    let unrel = 0;
    if (withInput && this.state === ClientState.Connected && o + 6 <= MAX_PACKET) {
      tx[o] = Msg.Input;
      o = writeInput(tx, o + 1, this.#input);
      unrel++;
    }
    finishPacket(tx, unrel);
    this.counters[Counter.PacketsOut]++;
    this.counters[Counter.BytesOut] += o;
    this.host.send(tx, o, this.serverAddress, this.serverPort);
  }

  // ---------------------------------------------------------------- receiving

  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    const counters = this.counters;
    counters[Counter.PacketsIn]++;
    counters[Counter.BytesIn] += length;
    if (port !== this.serverPort || address !== this.serverAddress) {
      counters[Counter.UnknownPeer]++;
      return;
    }
    if (length > MAX_PACKET) {
      counters[Counter.TooLong]++;
      return;
    }
    const rx = this.#rx;
    for (let i = 0; i < length; i++) rx[i] = bytes[i];
    const offsets = this.#offsets;
    if (!validatePacket(rx, length, FROM_SERVER, counters, offsets, this.#step.view)) return;
    if (this.state === ClientState.Idle || this.state >= ClientState.Closed) return;
    const now = this.host.now();
    const ep = this.endpoint;
    this.#rxAt = now;
    // The transport's receive step (transport/receive.ts) calls `reliable` and `unreliable` below.
    const r = this.#step.run(ep, SHAPE_ANY, now, 0);
    if (r === RECEIVE_BAD_ACK) return;
    if (this.#disconnected()) {
      this.state = ClientState.Closed;
      return;
    }
    if ((r & RECEIVE_STOPPED) !== 0) return;
    if (this.kills.pending > 0) this.kills.settle(now);
    // Reject comes in a packet of its own with no reliable state: it applies whatever its stamp.
    if (rx[HEADER_REL] === 0 && rx[HEADER_UNREL] !== 0 && rx[offsets[0] - 1] === Msg.Reject) {
      this.rejectReason = readReject(rx, offsets[0]);
      this.state = ClientState.Rejected;
    }
  }

  /** Our Disconnect is acknowledged: nothing more from the server is ours to act on. */
  #disconnected(): boolean {
    return this.state === ClientState.Disconnecting && this.endpoint.count === 0;
  }

  /** Receiving (the transport's receive step): a reliable message in order. False once kicked: the rest is not for us. */
  reliable(_tag: number, type: number, p: number, seq: number): boolean {
    if (this.#disconnected()) return false;
    this.lastReliableAt = this.#rxAt;
    this.#reliable(type, p);
    if (this.listener !== null) this.listener.reliable(this, type, seq, this.#rx, p);
    return this.state !== ClientState.Kicked;
  }

  /** Receiving: a current unreliable message (Reject is `receive`'s own). */
  unreliable(_tag: number, type: number, p: number, timestamp: number): void {
    if (this.#disconnected()) return;
    const now = this.#rxAt;
    const ts = timestamp >>> 0;
    // The deaths this datagram's reliable messages showed are decided before its Stats credit anyone.
    if (this.kills.pending > 0) this.kills.settle(now);
    if (type === Msg.Stats) {
      readStats(this.#rx, p, this.scores, this.pings);
      this.statsReceived++;
      this.kills.stats(now);
    } else if (type === Msg.Update) this.#update(p);
    if (this.listener !== null) this.listener.unreliable(this, type, ts, this.#rx, p);
  }

  #slotOf(id: number): number {
    const slot = id & 0xffff;
    return slot < MAX_PLAYERS ? slot : -1;
  }

  #reliable(type: number, p: number): void {
    const rx = this.#rx;
    const f = this.#fields;
    switch (type) {
      case Msg.Join: {
        const id = readId(rx, p);
        const slot = this.#slotOf(id);
        if (slot < 0) return;
        const packet = this.counters[Counter.PacketsIn];
        if (this.selfId < 0) {
          // The first Join is always our own.
          this.selfId = id;
          this.selfSlot = slot;
          this.state = ClientState.Connected;
          this.#joinPacket = packet;
          this.#selfQuiet = 1;
          this.#sendJoinChoices();
        }
        this.present[slot] = 1;
        this.playerIds[slot] = id;
        this.named[slot] = 0;
        this.#inRoster[slot] = packet === this.#joinPacket ? 1 : 0;
        return;
      }
      case Msg.Leave: {
        const id = readId(rx, p);
        if (id === this.selfId) {
          this.state = ClientState.Kicked;
          return;
        }
        const slot = this.#slotOf(id);
        if (slot >= 0 && this.playerIds[slot] === id) this.present[slot] = 0;
        return;
      }
      case Msg.Name: {
        readName(rx, p, f);
        const slot = this.#slotOf(f.id);
        if (slot < 0) return;
        this.#named(slot, f.id, f.textOffset, f.textLength);
        for (let i = 0; i < NAME_LENGTH; i++) this.names[slot * NAME_LENGTH + i] = i < f.textLength ? rx[f.textOffset + i] : 0;
        this.nameLength[slot] = f.textLength;
        return;
      }
      case Msg.Selection: {
        readSelection(rx, p, f);
        const slot = this.#slotOf(f.id);
        if (slot < 0) return;
        this.ship[slot] = f.a;
        this.weapon[slot] = f.b;
        return;
      }
      case Msg.Add: {
        readAdd(rx, p, f);
        const i = f.id & 0xffff;
        if (i >= this.entityCapacity) {
          this.unknownEntities++;
          return;
        }
        if (this.alive[i] === 0) this.entityCount++;
        this.alive[i] = 1;
        this.entityId[i] = f.id;
        this.owner[i] = f.other;
        this.type[i] = f.a;
        this.x[i] = 0;
        this.y[i] = 0;
        this.vx[i] = 0;
        this.vy[i] = 0;
        this.rot[i] = 0;
        this.health[i] = 100;
        this.kills.added(i, this.#rxAt);
        return;
      }
      case Msg.Remove: {
        const id = readId(rx, p);
        const i = id & 0xffff;
        if (i >= this.entityCapacity || this.alive[i] === 0 || this.entityId[i] !== id) {
          this.unknownEntities++;
          return;
        }
        this.kills.removed(i, this.#rxAt);
        this.alive[i] = 0;
        this.entityCount--;
        return;
      }
      case Msg.Chat:
        readChat(rx, p, f);
        if (f.id === this.selfId && this.#chatCount > 0) this.#chatEcho(f.textOffset, f.textLength);
        return;
    }
  }

  /** Our Join arrived: queue the name and selection chosen with joinAs (the next packet acknowledges the Join). */
  #sendJoinChoices(): void {
    const n = this.#joinNameLength;
    if (n > 0) {
      const o = this.#queue(Msg.Name, 4 + NAME_LENGTH);
      if (o >= 0) {
        writeName(this.endpoint.buf, o, this.selfId, this.#joinName, 0, n);
        this.#selfQuiet = 2;
      }
    }
    if (this.#joinShip >= 0 && this.#joinWeapon >= 0) {
      const o = this.#queue(Msg.Selection, 6);
      if (o >= 0) writeSelection(this.endpoint.buf, o, this.selfId, this.#joinShip, this.#joinWeapon);
    }
  }

  /** A Name of player `id` (slot) is at rx[o..o+n), about to be applied: a join or a rename. */
  #named(slot: number, id: number, o: number, n: number): void {
    const first = this.named[slot] === 0;
    this.named[slot] = 1;
    if (id === this.selfId) {
      if (this.#selfQuiet > 0) {
        this.#selfQuiet--;
        return;
      }
    } else if (first) {
      if (this.#inRoster[slot] === 0 && this.onPlayerJoined !== null) this.onPlayerJoined(id, this.#rx, o, n);
      return;
    }
    if (this.onRename !== null) this.onRename(id, this.#rx, o, n);
  }

  // ---------------------------------------------------------------- own chat lines

  /**
   * The server echoed one of our lines at rx[o..o+n). It handles our lines in order and
   * never echoes one it refuses, so the first pending line with this text is the one, and
   * those before it were refused. An echo matching none is of a line already given up.
   */
  #chatEcho(o: number, n: number): void {
    const rx = this.#rx;
    const t = this.#chatText;
    for (let j = 0; j < this.#chatCount; j++) {
      const k = (this.#chatHead + j) % CHAT_PENDING;
      if (this.#chatLength[k] !== n) continue;
      const base = k * CHAT_LENGTH;
      let i = 0;
      while (i < n && t[base + i] === rx[o + i]) i++;
      if (i < n) continue;
      while (j-- > 0) this.#chatOutcome(false);
      this.#chatOutcome(true);
      return;
    }
  }

  /** Lines not echoed within 2 RTT + CHAT_MARGIN_MS of being sent were refused. */
  #expireChats(now: number): void {
    const srtt = this.endpoint.srtt;
    const limit = 2 * (srtt > 0 ? srtt : CHAT_DEFAULT_RTT_MS) + CHAT_MARGIN_MS;
    const t = now >>> 0;
    while (this.#chatCount > 0 && ((t - this.#chatAt[this.#chatHead]) >>> 0) > limit) this.#chatOutcome(false);
  }

  /** Settle the oldest pending line. */
  #chatOutcome(delivered: boolean): void {
    const k = this.#chatHead;
    this.#chatHead = (k + 1) % CHAT_PENDING;
    this.#chatCount--;
    if (delivered) this.chatsDelivered++;
    else this.chatsNotDelivered++;
    const cb = this.onChatOutcome;
    if (cb !== null) cb(delivered, this.#chatText, k * CHAT_LENGTH, this.#chatLength[k]);
  }

  #update(p: number): void {
    const rx = this.#rx;
    const n = rx[p];
    this.updatesReceived++;
    this.updateEntitiesReceived += n;
    for (let k = 0; k < n; k++) {
      const e = p + 1 + k * UPDATE_ENTRY;
      const id = updateEntryId(rx, e);
      const i = id & 0xffff;
      if (i >= this.entityCapacity || this.alive[i] === 0 || this.entityId[i] !== id) {
        this.unknownEntities++;
        continue;
      }
      this.x[i] = updateEntryX(rx, e);
      this.y[i] = updateEntryY(rx, e);
      this.vx[i] = updateEntryVx(rx, e);
      this.vy[i] = updateEntryVy(rx, e);
      this.rot[i] = updateEntryRot(rx, e);
      this.health[i] = updateEntryHealth(rx, e);
      this.kills.updated(i, this.#rxAt);
    }
  }

  /** Time of this client's last tick. */
  get now(): number {
    return this.#now;
  }
}

/** Bytes of native memory a client of `config` takes: its counters and its endpoint (the state, the queue, a packet). */
export function clientMemoryBytes(config: Config): number {
  return 4 * COUNTER_COUNT + 256 + config.reliableQueueBytes + MAX_PACKET + 64;
}

export function createClient(config: Config, host: Host, serverAddress: string, serverPort: number, options?: ClientOptions): Client {
  return new Client(config, host, serverAddress, serverPort, options);
}
