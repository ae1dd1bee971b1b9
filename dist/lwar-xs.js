#!/usr/bin/env node
// Built by `npm run build:dist` from hosts/node/main.ts and what it imports; do not edit.

// hosts/node/main.ts
import { readFileSync as readFileSync4 } from "node:fs";

// hosts/node/host.ts
import dgram from "node:dgram";
import { performance as performance2 } from "node:perf_hooks";

// modules/tickcost.ts
var TICK_BUCKETS = 104;
function tickBucket(us) {
  if (us < 8) return us < 0 ? 0 : us;
  const e = 31 - Math.clz32(us);
  const b = (e - 1 << 2) + (us >> e - 2 & 3);
  return b < TICK_BUCKETS ? b : TICK_BUCKETS - 1;
}
function tickBucketLower(b) {
  if (b < 8) return b;
  const e = (b >> 2) + 1;
  return (4 + (b & 3)) * 2 ** (e - 2);
}
var TickCost = class {
  /** Ticks by bucket, since start. */
  buckets;
  /** Ticks measured. */
  count = 0;
  /** Sum of their costs, µs. */
  sumUs = 0;
  /** The dearest tick, µs. */
  maxUs = 0;
  /** The period the host ticks at, ms. */
  periodMs;
  /** Where the microseconds come from: "performance.now", "Time.microseconds" or "Time.ticks" (1 ms steps). */
  clock;
  constructor(periodMs, clock) {
    this.periodMs = periodMs;
    this.clock = clock;
    this.buckets = new Uint32Array(TICK_BUCKETS);
  }
  record(us) {
    us = us > 0 ? Math.round(us) : 0;
    this.buckets[tickBucket(us)]++;
    this.count++;
    this.sumUs += us;
    if (us > this.maxUs) this.maxUs = us;
  }
};
function summarize(cost, since) {
  const ticks = cost.count - (since === null ? 0 : since.count);
  const sum = cost.sumUs - (since === null ? 0 : since.sumUs);
  if (ticks <= 0) return { ticks: 0, meanUs: 0, p99Us: 0, share: 0 };
  const want = Math.ceil(ticks * 0.99);
  let seen = 0;
  let p99 = 0;
  for (let b = 0; b < TICK_BUCKETS; b++) {
    seen += cost.buckets[b] - (since === null ? 0 : since.buckets[b]);
    if (seen >= want) {
      p99 = b < TICK_BUCKETS - 1 ? tickBucketLower(b + 1) : cost.maxUs;
      break;
    }
  }
  if (p99 > cost.maxUs) p99 = cost.maxUs;
  const mean = sum / ticks;
  return { ticks, meanUs: mean, p99Us: p99, share: mean / (cost.periodMs * 1e3) };
}

// hosts/node/host.ts
var RECEIVE_BUFFER_BYTES = 8 * 64 * 1024;
var NodeHost = class {
  #socket = null;
  #tickMs;
  #log;
  #core = null;
  #timer = null;
  #closed = false;
  #peers = null;
  /** Sends that failed synchronously or asynchronously. */
  sendErrors = 0;
  /** What each `core.tick` took. */
  tickCost;
  constructor(options = {}) {
    this.#tickMs = options.tickMs ?? 10;
    this.#log = options.log ?? null;
    this.tickCost = new TickCost(this.#tickMs, "performance.now");
  }
  /** The UDP socket (made by listen()). */
  get socket() {
    if (this.#socket === null) throw new Error("the host is not listening: call listen() first");
    return this.#socket;
  }
  /**
   * Bind and resolve with the bound address and port, and the receive buffer the kernel
   * granted. An IPv6 address binds an IPv6 socket; `::` is dual stack (IPv4 too).
   */
  listen(port, address) {
    const v6 = address.includes(":");
    const socket = dgram.createSocket({ type: v6 ? "udp6" : "udp4", reuseAddr: false, ipv6Only: false, recvBufferSize: RECEIVE_BUFFER_BYTES });
    this.#socket = socket;
    socket.on("message", (msg, rinfo) => {
      if (this.#core !== null) this.#core.receive(msg, msg.length, rinfo.address, rinfo.port);
    });
    return new Promise((resolve, reject) => {
      const onError = (err) => reject(err);
      socket.once("error", onError);
      socket.bind(port, address, () => {
        socket.off("error", onError);
        socket.on("error", () => this.sendErrors++);
        const a = socket.address();
        resolve({ address: a.address, port: a.port, receiveBuffer: socket.getRecvBufferSize() });
      });
    });
  }
  /** Start feeding `core`: datagrams as they come, ticks every tickMs. */
  attach(core) {
    this.#core = core;
    if (this.#timer === null) this.#timer = setInterval(() => this.#tick(core), this.#tickMs);
  }
  #tick(core) {
    const start2 = performance2.now();
    core.tick(start2);
    this.tickCost.record((performance2.now() - start2) * 1e3);
  }
  /** Route the peers numbered above 65535 to `carriage`; it closes with the host. */
  addPeers(carriage) {
    this.#peers = carriage;
  }
  send(bytes, length, address, port) {
    if (this.#closed) return;
    if (port > 65535) {
      if (this.#peers !== null) this.#peers.send(bytes, length, port);
      else this.sendErrors++;
      return;
    }
    const copy = Buffer.from(bytes.subarray(0, length));
    if (this.#socket === null) {
      this.sendErrors++;
      return;
    }
    this.#socket.send(copy, port, address, (err) => {
      if (err) this.sendErrors++;
    });
  }
  now() {
    return performance2.now();
  }
  log(event, slot, value) {
    if (this.#peers !== null) this.#peers.event(event, slot, value);
    if (this.#log !== null) this.#log(event, slot, value);
  }
  /** Stop ticking and close the socket (and the other carriage) once pending sends have gone out. */
  close() {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#core = null;
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const udp = new Promise((resolve) => {
      const socket = this.#socket;
      if (socket === null) resolve();
      else setTimeout(() => socket.close(() => resolve()), 20);
    });
    return this.#peers === null ? udp : Promise.all([udp, this.#peers.close()]).then(() => void 0);
  }
};

// modules/transport/frame.ts
var HEADER_SIZE = 14;
var HEADER_APP_ID = 0;
var HEADER_ACK = 4;
var HEADER_TIMESTAMP = 8;
var HEADER_REL = 12;
var HEADER_UNREL = 13;
var RELIABLE_HEADER = 5;
var UNRELIABLE_HEADER = 1;
var NO_ACK = 4294967295;
function headerRel(b) {
  return b[HEADER_REL];
}
function headerUnrel(b) {
  return b[HEADER_UNREL];
}

// modules/protocol/constants.ts
var APP_ID = 4067461061;
var MAX_PACKET = 512;
var NAME_LENGTH = 32;
var CHAT_LENGTH = 128;
var MAX_PLAYERS = 8;
var DEFAULT_PORT = 32422;
var UPDATE_ENTRY = 15;
var Msg = Object.freeze({
  Connect: 101,
  Disconnect: 102,
  Join: 103,
  Leave: 104,
  Chat: 105,
  Add: 106,
  Remove: 107,
  Selection: 108,
  Name: 109,
  Stats: 201,
  Update: 202,
  Input: 203,
  /** Extension: unreliable, server to client, `{reason u8}`. */
  Reject: 204
});
var RejectReason = Object.freeze({ ServerFull: 1 });
var FROM_CLIENT = 1;
var FROM_SERVER = 2;
var TYPE_BASE = 100;
var TYPE_ROWS = 105;
function table() {
  const size = new Int16Array(TYPE_ROWS);
  const reliable = new Uint8Array(TYPE_ROWS);
  const senders = new Uint8Array(TYPE_ROWS);
  const row = (type, bytes, rel, who) => {
    size[type - TYPE_BASE] = bytes;
    reliable[type - TYPE_BASE] = rel;
    senders[type - TYPE_BASE] = who;
  };
  row(Msg.Connect, 0, 1, FROM_CLIENT);
  row(Msg.Disconnect, 0, 1, FROM_CLIENT);
  row(Msg.Join, 4, 1, FROM_SERVER);
  row(Msg.Leave, 4, 1, FROM_SERVER);
  row(Msg.Chat, -1, 1, FROM_CLIENT | FROM_SERVER);
  row(Msg.Add, 9, 1, FROM_SERVER);
  row(Msg.Remove, 4, 1, FROM_SERVER);
  row(Msg.Selection, 6, 1, FROM_CLIENT | FROM_SERVER);
  row(Msg.Name, 4 + NAME_LENGTH, 1, FROM_CLIENT | FROM_SERVER);
  row(Msg.Stats, 2 * 2 * MAX_PLAYERS, 0, FROM_SERVER);
  row(Msg.Update, -1, 0, FROM_SERVER);
  row(Msg.Input, 5, 0, FROM_CLIENT);
  row(Msg.Reject, 1, 0, FROM_SERVER);
  return { size, reliable, senders };
}
var types = null;
function typeTable() {
  if (types === null) types = table();
  return types;
}

// modules/config.ts
var BOT_SKILLS = Object.freeze(["easy", "normal", "hard"]);
var defaultConfig = Object.freeze({
  maxPlayers: MAX_PLAYERS,
  reliableQueueBytes: 2048,
  maxEntities: 192,
  shipTypes: 3,
  weaponTypes: 3,
  timeoutMs: 15e3,
  updateIntervalMs: 66,
  statsIntervalMs: 500,
  resendIntervalMs: 100,
  misbehaviourLimit: 16,
  maxUpdatePacketsPerTick: 3,
  planets: 6,
  bots: 0,
  botSkill: 1
});
var ConfigError = class extends RangeError {
  // A field, not an assignment: on XS, Error.prototype is frozen after preload and
  // assigning an inherited read-only `name` would throw.
  name = "ConfigError";
};
function checkInt(name, value, min, max) {
  if (!Number.isInteger(value) || value < min || value > max)
    throw new ConfigError(`config.${name} must be an integer in ${min}..${max}, got ${value}`);
}
function makeConfig(overrides) {
  const c = Object.assign({}, defaultConfig, overrides);
  checkInt("maxPlayers", c.maxPlayers, 1, MAX_PLAYERS);
  checkInt("reliableQueueBytes", c.reliableQueueBytes, 512, 65535);
  checkInt("maxEntities", c.maxEntities, 1, 65535);
  checkInt("shipTypes", c.shipTypes, 1, 255);
  checkInt("weaponTypes", c.weaponTypes, 1, 255);
  checkInt("timeoutMs", c.timeoutMs, 100, 36e5);
  checkInt("updateIntervalMs", c.updateIntervalMs, 1, 1e4);
  checkInt("statsIntervalMs", c.statsIntervalMs, 1, 6e4);
  checkInt("resendIntervalMs", c.resendIntervalMs, 1, 1e4);
  checkInt("misbehaviourLimit", c.misbehaviourLimit, 1, 1e6);
  checkInt("maxUpdatePacketsPerTick", c.maxUpdatePacketsPerTick, 1, 64);
  checkInt("planets", c.planets, 0, 8);
  checkInt("bots", c.bots, 0, c.maxPlayers);
  checkInt("botSkill", c.botSkill, 0, BOT_SKILLS.length - 1);
  return c;
}

// hosts/node/kernels.ts
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

// modules/arena.ts
var Arena = class _Arena {
  /** The buffer the arrays are views into (a fixed memory's whole buffer, when given one). */
  buffer;
  #measuring;
  /** Where the arena starts in `buffer`, and its size. */
  #base;
  #size;
  #at = 0;
  #labels = [];
  #bytes = [];
  /**
   * A measuring arena hands out one empty array per element type, whatever the take: on XS
   * a new empty array per take would be 7 slots of garbage each, at the start-up peak.
   */
  #emptyf64 = null;
  #emptyf32 = null;
  #emptyu32 = null;
  #emptyi32 = null;
  #emptyu16 = null;
  #emptyi16 = null;
  #emptyu8 = null;
  /** An arena that only counts: its arrays are empty. */
  static measuring() {
    return new _Arena(-1);
  }
  constructor(bytes, memory = null) {
    this.#measuring = bytes < 0;
    this.#size = this.#measuring ? 0 : bytes;
    if (memory !== null && !this.#measuring) {
      this.buffer = memory.buffer;
      this.#base = memory.take(bytes);
    } else {
      this.buffer = new ArrayBuffer(this.#size);
      this.#base = 0;
    }
  }
  /** Bytes taken so far (for a measuring arena: the size the real one needs). */
  get bytes() {
    return this.#at;
  }
  f64(n, label2 = "") {
    const at = this.#take(n, 8, label2);
    if (this.#measuring) return this.#emptyf64 ??= new Float64Array(0);
    return new Float64Array(this.buffer, this.#base + at, n);
  }
  f32(n, label2 = "") {
    const at = this.#take(n, 4, label2);
    if (this.#measuring) return this.#emptyf32 ??= new Float32Array(0);
    return new Float32Array(this.buffer, this.#base + at, n);
  }
  u32(n, label2 = "") {
    const at = this.#take(n, 4, label2);
    if (this.#measuring) return this.#emptyu32 ??= new Uint32Array(0);
    return new Uint32Array(this.buffer, this.#base + at, n);
  }
  i32(n, label2 = "") {
    const at = this.#take(n, 4, label2);
    if (this.#measuring) return this.#emptyi32 ??= new Int32Array(0);
    return new Int32Array(this.buffer, this.#base + at, n);
  }
  u16(n, label2 = "") {
    const at = this.#take(n, 2, label2);
    if (this.#measuring) return this.#emptyu16 ??= new Uint16Array(0);
    return new Uint16Array(this.buffer, this.#base + at, n);
  }
  i16(n, label2 = "") {
    const at = this.#take(n, 2, label2);
    if (this.#measuring) return this.#emptyi16 ??= new Int16Array(0);
    return new Int16Array(this.buffer, this.#base + at, n);
  }
  u8(n, label2 = "") {
    const at = this.#take(n, 1, label2);
    if (this.#measuring) return this.#emptyu8 ??= new Uint8Array(0);
    return new Uint8Array(this.buffer, this.#base + at, n);
  }
  /** Throws unless every byte of the buffer went to an array. */
  done() {
    if (this.#at !== this.#size) throw new RangeError(`arena of ${this.#size} bytes: ${this.#at} taken`);
  }
  /** [label, bytes] per label, in the order labels were first used; unlabelled takes are left out. */
  rows() {
    const rows = [];
    for (let i = 0; i < this.#labels.length; i++) rows.push([this.#labels[i], this.#bytes[i]]);
    return rows;
  }
  #take(n, size, label2) {
    const at = this.#at;
    if (at % size !== 0) throw new RangeError(`arena: a ${size}-byte array at offset ${at}; take wider elements first`);
    if (!this.#measuring && at + n * size > this.#size)
      throw new RangeError(`arena of ${this.#size} bytes: no room for ${n} × ${size} at ${at}`);
    this.#at = at + n * size;
    if (label2 !== "") {
      const k = this.#labels.indexOf(label2);
      if (k < 0) {
        this.#labels.push(label2);
        this.#bytes.push(n * size);
      } else this.#bytes[k] += n * size;
    }
    return at;
  }
};
var FixedMemory = class {
  buffer;
  #at;
  #end;
  /** The bytes of `buffer` from `start` to `end` are this memory's to hand out. */
  constructor(buffer, start2 = 0, end = buffer.byteLength) {
    this.buffer = buffer;
    this.#at = start2;
    this.#end = end;
  }
  /** Bytes handed out so far, and left. */
  get used() {
    return this.#at;
  }
  get left() {
    return this.#end - this.#at;
  }
  /** The offset of `bytes` fresh bytes, 8-aligned. */
  take(bytes) {
    const at = this.#at + 7 & ~7;
    if (at + bytes > this.#end)
      throw new RangeError(`fixed memory of ${this.buffer.byteLength} bytes: no room for ${bytes} more at ${at}`);
    this.#at = at + bytes;
    return at;
  }
};

// modules/native-wasm.ts
var PAGE = 65536;
function wasm() {
  const api = globalThis.WebAssembly;
  if (api === void 0) throw new Error("this engine has no WebAssembly: the native loops cannot run");
  return api;
}
function compileKernels(bytes) {
  return new (wasm()).Module(bytes);
}
function nativeMemoryBytes(config) {
  const n = config.maxPlayers;
  const cap = config.maxEntities;
  const words = cap + 31 >> 5;
  const perEntity = 80;
  const perPlayer = config.reliableQueueBytes + 3 * cap + 18 * 4 * words + 256;
  return 96 * 1024 + cap * perEntity + n * perPlayer;
}
function fixedPages(bytes) {
  const pages = 1 + Math.ceil(bytes / PAGE);
  return { memory: new (wasm()).Memory({ initial: pages, maximum: pages }), pages };
}
var WasmKernels = class _WasmKernels {
  memory;
  #x;
  #buffer;
  /** An instance of `module` with `bytes` of memory for the arrays (synchronous: Node). Start-up only. */
  static create(module, bytes) {
    const { memory, pages } = fixedPages(bytes);
    return new _WasmKernels(new (wasm()).Instance(module, { env: { memory } }).exports, memory, pages);
  }
  /** An instance of the module in `wasm` with `bytes` of memory, compiled as a browser wants it: asynchronously. */
  static async load(wasmBytes, bytes) {
    const { memory, pages } = fixedPages(bytes);
    const { instance } = await wasm().instantiate(wasmBytes, { env: { memory } });
    return new _WasmKernels(instance.exports, memory, pages);
  }
  constructor(x, memory, pages) {
    const base = x.__heap_base.value;
    if (base > PAGE) throw new RangeError(`kernels.wasm: its stack and data take ${base} bytes, more than a page`);
    this.#x = x;
    this.#buffer = memory.buffer;
    this.memory = new FixedMemory(memory.buffer, base, pages * PAGE);
  }
  plan(layout, m0, m1, _m2, _m3, slot) {
    return this.#x.plan(this.#at(layout, m0, m1), slot);
  }
  commit(layout, m0, m1, _m2, _m3, slot, sent) {
    this.#x.commit(this.#at(layout, m0, m1), slot, sent);
  }
  notify(layout, m0, m1, _m2, _m3, slot, n) {
    this.#x.notify(this.#at(layout, m0, m1), slot, n);
  }
  pack(layout, m0, m1, _m2, _m3, pos, n, o, stats) {
    return this.#x.pack(this.#at(layout, m0, m1), pos, n, o, stats);
  }
  sync(layout, m0, m1, _m2, _m3, slot) {
    return this.#x.sync(this.#at(layout, m0, m1), slot);
  }
  ship(layout, m0, m1, _m2, _m3, slot) {
    return this.#x.ship(this.#at(layout, m0, m1), slot);
  }
  game(layout, m0, m1, _m2, _m3, run) {
    return this.#x.game(this.#at(layout, m0, m1), run);
  }
  mark(layout, m0, m1, _m2, _m3, mask) {
    this.#x.mark(this.#at(layout, m0, m1), mask);
  }
  transport(layout, m0, m1, _m2, _m3, run, i, a, b, c, d) {
    return this.#x.transport(this.#at(layout, m0, m1), run, i, a, b, c, d);
  }
  name(layout, m0, m1, _m2, _m3, slot, from, length, mask) {
    return this.#x.name(this.#at(layout, m0, m1), slot, from, length, mask);
  }
  /**
   * The layout's address, once it is clear that the layout and every array are in this
   * instance's memory (a binding's unused views repeat its first: one buffer, then m1 is m0).
   */
  #at(layout, m0, m1) {
    const b = this.#buffer;
    if (layout.buffer !== b || m0.buffer !== b || m1.buffer !== b)
      throw new RangeError("kernels.wasm: a binding with arrays outside its memory (made without NativeOptions.memory?)");
    return layout.byteOffset;
  }
};
function wasmNative(module, config) {
  const kernels = WasmKernels.create(module, nativeMemoryBytes(config));
  return { kernels, memory: kernels.memory };
}

// hosts/node/kernels.ts
var KERNELS_WASM = new URL(import.meta.url.endsWith(".ts") ? "../../dist/web/kernels.wasm" : "./web/kernels.wasm", import.meta.url);
var compiled = null;
function nodeKernels() {
  if (compiled === null) {
    let bytes;
    try {
      bytes = readFileSync(KERNELS_WASM);
    } catch {
      throw new Error(`the native loops are missing: ${fileURLToPath(KERNELS_WASM)} (npm run build:wasm)`);
    }
    compiled = compileKernels(bytes);
  }
  return compiled;
}
function nodeNative(config) {
  return wasmNative(nodeKernels(), config);
}

// hosts/node/serve.ts
import { networkInterfaces } from "node:os";

// modules/protocol/counters.ts
var Counter = Object.freeze({
  PacketsIn: 0,
  BytesIn: 1,
  PacketsOut: 2,
  BytesOut: 3,
  // Whole packets dropped by validation, by reason.
  TooShort: 4,
  TooLong: 5,
  BadAppId: 6,
  UnknownType: 7,
  WrongChannel: 8,
  WrongDirection: 9,
  Truncated: 10,
  UnterminatedChat: 11,
  UnterminatedName: 12,
  TrailingBytes: 13,
  // Packets that validate but are not acted on.
  UnknownPeer: 14,
  BadAck: 15,
  // Single messages dropped.
  DuplicateReliable: 16,
  OutOfOrderReliable: 17,
  StaleUnreliable: 18,
  SpoofedId: 19,
  BadName: 20,
  BadSelection: 21,
  BadChat: 22,
  // Life cycle.
  Joins: 23,
  Leaves: 24,
  Timeouts: 25,
  Kicks: 26,
  Rejects: 27,
  QueueOverflows: 28,
  Misbehaviour: 29,
  ReliableSent: 30,
  ReliableResent: 31,
  ReliableReceived: 32,
  UpdatesSent: 33,
  StatsSent: 34,
  UpdateEntitiesSent: 35,
  SendErrors: 36,
  /** Players dropped for not acknowledging their Join within the handshake time. */
  HandshakeTimeouts: 37,
  /** Chats, renames and selections refused at their source: the sender's flood bucket was empty, or it is not announced yet. */
  Refused: 38,
  /** Inputs cleared because none arrived for INPUT_STALE_MS. */
  StaleInputs: 39,
  /** Packets whose timestamp ran further ahead than the receiver's clock: not believed, their unreliable messages dropped. */
  FutureTimestamp: 40,
  /** Connects from new peers dropped because admissions ran ahead of the admission rate (they are resent). */
  AdmissionsDeferred: 41,
  /**
   * Packets from a player that just left (its Disconnect, kick or timeout), within
   * LEFT_MEMORY_MS: its last packets in flight, not a stranger's (those are UnknownPeer).
   */
  AfterLeave: 42,
  /**
   * Players dropped because the oldest reliable message they had not acknowledged waited
   * longer than timeoutMs, however many packets they sent (also counted in Timeouts).
   */
  AckStalls: 43,
  /** Players dropped for falling a whole broadcast ring behind (also counted in Timeouts). */
  Laggards: 44,
  /** Bots the server put into empty slots (config.bots). */
  BotJoins: 45,
  /** Bots that gave their slot up to a human who found the server full. */
  BotsReplaced: 46
});
var COUNTER_NAMES = Object.freeze(counterNames(Counter));
var COUNTER_COUNT = COUNTER_NAMES.length;
function counterNames(declaration) {
  const names2 = [];
  for (const key of Object.keys(declaration)) {
    const index = declaration[key];
    if (names2[index] !== void 0) throw new RangeError(`counter index ${index} used twice`);
    names2[index] = key[0].toLowerCase() + key.slice(1);
  }
  for (let i = 0; i < names2.length; i++) if (names2[i] === void 0) throw new RangeError(`no counter has index ${i}`);
  return names2;
}
var DROP_FIRST = Counter.TooShort;
var DROP_LAST = Counter.BadAck;
function createCounters() {
  return new Uint32Array(COUNTER_COUNT);
}

// modules/carriage.ts
var WS_PORT_BASE = 65536;
var WS_PATH = "/ws";
var WebCounter = Object.freeze({
  /** WebSocket connections accepted (handshake done). */
  Connections: 0,
  /** Text messages dropped (packets travel as binary messages only). */
  TextDropped: 1,
  /** Messages dropped because they came in more than one frame. */
  FragmentedDropped: 2,
  /** Connections closed for a protocol error, too many fragments or a message over the limit. */
  ProtocolErrors: 3,
  /** Packets not sent: the connection had no room, or was closing or gone. */
  SendDropped: 4,
  /** Connections closed after a Reject. */
  RejectCloses: 5,
  /** Connections closed after a kick, a timeout or a Disconnect of their player. */
  PlayerCloses: 6,
  /** Connections closed for not being a player for `idleMs`. */
  IdleCloses: 7,
  /** Upgrades refused: another path, not a valid upgrade, or `maxConnections` open already. */
  UpgradesRefused: 8,
  HttpRequests: 9,
  HttpNotFound: 10
});
var WEB_COUNTER_NAMES = Object.freeze(counterNames(WebCounter));
var WEB_DROPS = Object.freeze([
  WebCounter.TextDropped,
  WebCounter.FragmentedDropped,
  WebCounter.ProtocolErrors,
  WebCounter.SendDropped,
  WebCounter.UpgradesRefused
]);
var CloseCode = Object.freeze({
  /** The player sent Disconnect. */
  Left: 1e3,
  /** The HTTP server is shutting down with the connection not a player. */
  GoingAway: 1001,
  /** Reject: 4000 + reason (4001: server full). */
  Rejected: 4e3,
  /** Kicked: 4100 + kick reason (4101 queue overflow, 4102 misbehaviour, 4103 shutdown). */
  Kicked: 4100,
  /** Dropped for silence. */
  TimedOut: 4200,
  /** Open for `idleMs` without being a player. */
  Idle: 4201
});
function describePeer(address, port) {
  return port > WS_PORT_BASE ? `${address}#${port - WS_PORT_BASE}` : `${address}:${port}`;
}

// modules/native-layout.ts
var SHIP_ARRAYS = "x y vx vy rot type radius focusIndex input prevX prevY sine gravity contact bodyIndex pull mask rsqrtSeed";
var SHIP_WORDS = "shipBase headings forward backward left right shooting gridHalf gridShift gridSide octMin tMask dShift sShift planetBit planetBits bodies farPull arenaRadius turn*4 thrust*4 maxSpeed*4 clampScale*4 steps dither touching cos sin";
var NATIVE_LAYOUT = {
  /** PriorityPlanner: plan, commit, notify (modules/server/updates.ts); the last four words are plan's results. */
  plan: {
    arrays: "x y vx vy owner steady focusX focusY focusIndex sets tick cursor known list actions",
    words: "capacity words limit near mid far hasFocus hasSteady posShift ownEnd freshEnd carriedEnd planned"
  },
  /**
   * A packet's unreliable part (modules/server/entries.ts): Stats, the Update and its entry
   * loop; `o` and `k` are results. `counters` are the server's: it counts what it wrote and
   * the packet, which goes out right after.
   */
  pack: {
    arrays: "entries encoded generation x y vx vy rot health list scores pings counters",
    words: "maxPacket stepHz posShift angleBits centidegrees o k"
  },
  /** The entity sync (modules/server/entity-sync.ts): `queue` holds one byte offset per player. */
  sync: {
    // `sets` and `seen`: the priority planner's bit sets and what each player knows, when it
    // hears of the actions here (`notify` 1).
    arrays: "dirty alive generation known owner type arena actions sets seen",
    // In and out: the queue's length and next seqno; out: messages written, why it stopped.
    words: "capacity words actionRoom queueBytes keep notify used seq messages state queue*0",
    /** Why it stopped: the slot is done, its queue is at the line it keeps, the action list is full. */
    codes: "done room actions"
  },
  /** Folding the indices added or removed since the last sync into each player's dirty bits (modules/server/entity-sync.ts). */
  mark: {
    arrays: "dirty pending",
    words: "words"
  },
  /**
   * The transport (modules/transport/endpoint.ts, receive.ts): the delivery state of
   * `endpoints` peers (ENDPOINT_WORDS each in `state`), their reliable queues (`queueBytes`
   * each, back to back in `queues`), the buffer packets are written into (`out`) and the
   * statistics sink (`counters`, at `sentIndex` and `resentIndex`), and when each queue's
   * front began to wait (`front`, one int32 a peer: a broadcast into an empty queue and an
   * ack that moves the front stamp it with their time). `sizes` is the payload
   * size of each message type from `typeBase`, -1 for a text: `textPrefix` bytes, then up to
   * `textMax` bytes ending at a NUL. The runs are what a call does; the codes, what a fill
   * or a queueing says besides its offset.
   */
  transport: {
    arrays: "state queues out counters front",
    words: "endpoints queueBytes maxPacket typeBase types resendMs appId sentIndex resentIndex textPrefix textMax sizes*0",
    runs: "reset receiveReset queue queueCopy broadcast commit acknowledge receive receiveAt acceptReliable acceptUnreliable wantsSend owed due dueMask fill repeat ping",
    codes: "tooBig badType unmeasured badSpan badSeq badCommit"
  },
  /**
   * The session's names (modules/server/session.ts, modules/kernels/session.c): each player's
   * row of NAME_LENGTH bytes in `names`, its length in `nameLength`, and the arena a new name
   * is copied from; `players` rows.
   */
  name: {
    arrays: "names nameLength arena",
    words: "players"
  },
  /** The ships' step (modules/game/ship-stepper.ts, the page's own ship); the runs of four are per ship type; `touching`, `cos`, `sin` are results. */
  ship: {
    arrays: SHIP_ARRAYS,
    words: SHIP_WORDS,
    /** What it did: moved the ship; moved it, and it touches something or may fire. */
    codes: "moved effects"
  },
  /**
   * The game's step (modules/game/step-native.ts). Its arrays and words begin with the ship
   * loop's, in the same order, so that the step runs the ship loop on its own memory. The
   * runs of four are per ship or weapon type; from `phase` on, the step's own state, and
   * what it hands the game at a stop and takes back.
   */
  game: {
    arrays: `${SHIP_ARRAYS} owner health steady list doomed expires hp playerId bodyPrevX bodyPrevY present cooldown respawnStep newcomer selected guardUntil killer killedWith shipType weaponType focusX focusY orbitPhase orbitOmega orbitR32 orbitSpeed markX markY base counters alive`,
    words: `${SHIP_WORDS} maxPlayers ditherStep zones shipBit sunRadius arenaR2 planetNear reach armSteps shotBase shotCapacity posShift orbitFraction orbitTurnMask markSteps planetMark gentle planetBounce planetDamage planetDamageBase shipHp*4 hpReciprocal*4 weaponCooldown*4 weaponVelocity*4 weaponLife*4 weaponDamage*4 shotRadius*4 phase next inner innerMask rammed listed doomed dying shots slot other fireType fireOwner fireX fireY added ramDamage end clearX clearY spawnReach spawnWant*10 spawnRadius*10`,
    /**
     * Why it stopped: the step is done; `slot` is due a ship (spawnShip); the entity table
     * must add a projectile (`fire*`; its index into `added`); ships of `slot` and `other`
     * touched (the bounce into `ramDamage`); the doomed projectiles must leave the table
     * (and the step is done unless `dying` ships died); the ship of `slot` died.
     */
    codes: "done spawn fire ram reap die",
    /**
     * What a call does: begin a step; go on after a stop; place the bodies and mark the grid
     * (start-up); say how clear (clearX, clearY) is for a spawn (spawnClearance).
     */
    runs: "step resume place clear"
  }
};
function names(list) {
  return list === void 0 || list === "" ? [] : list.split(" ");
}
function wordCount(layout) {
  let at = 0;
  for (const w of names(layout.words)) {
    const star = w.indexOf("*");
    at += star < 0 ? 1 : Number(w.slice(star + 1));
  }
  return at;
}

// modules/native.ts
function platformNative(config) {
  const g = globalThis;
  return g.lwarNative !== void 0 ? g.lwarNative(config) : xsNative();
}
function xsNative() {
  const g = globalThis;
  if (g.lwarKernels != null) return { kernels: g.lwarKernels };
  return g.xs !== void 0 && g.xs.kernels !== void 0 ? { kernels: g.xs.kernels } : null;
}
function platformMemory(bytes) {
  const g = globalThis;
  return g.lwarMemory !== void 0 ? g.lwarMemory(bytes) : xsNative();
}
function requireKernels(options, who) {
  if (options == null || options.kernels == null)
    throw new RangeError(`${who} needs the platform's native loops (NativeOptions.kernels): on Node, installNodeKernels() (hosts/node/kernels.ts)`);
  return options.kernels;
}
var VIEWS = 4;
var Binding = class {
  /** The declaration this binding follows. */
  declared;
  /** The arrays it was given, by name. */
  arrays;
  /** [view, byte offset] per array, then the scalars. */
  words;
  /** `words` as bytes, as the kernels take it. */
  layout;
  m0;
  m1;
  m2;
  m3;
  /** Index of the first scalar word. */
  scalars;
  constructor(layout, arrays, tail = 0, native = null) {
    const given = arrays;
    const names2 = names(layout.arrays);
    for (const name of Object.keys(given))
      if (names2.indexOf(name) < 0) throw new RangeError(`binding: "${name}" is not one of its declared arrays (${layout.arrays})`);
    const buffers = [];
    this.declared = layout;
    this.arrays = given;
    this.scalars = 2 * names2.length;
    const count = this.scalars + wordCount(layout) + tail;
    const memory = native?.memory ?? null;
    this.words = memory !== null ? new Int32Array(memory.buffer, memory.take(4 * count), count) : new Int32Array(count);
    for (let i = 0; i < names2.length; i++) {
      const a = given[names2[i]];
      if (a === void 0) throw new RangeError(`binding: no array "${names2[i]}"`);
      const width = a.BYTES_PER_ELEMENT ?? 1;
      if ((a.byteOffset & 3) !== 0 && width === 4) throw new RangeError(`binding: array "${names2[i]}" is not 4-byte aligned`);
      let v = buffers.indexOf(a.buffer);
      if (v < 0) {
        if (buffers.length === VIEWS) throw new RangeError(`binding: more than ${VIEWS} buffers`);
        v = buffers.push(a.buffer) - 1;
      }
      this.words[2 * i] = v;
      this.words[2 * i + 1] = a.byteOffset;
    }
    const views = [];
    for (let v = 0; v < VIEWS; v++) views.push(v < buffers.length ? new Uint8Array(buffers[v]) : views[0]);
    this.m0 = views[0];
    this.m1 = views[1];
    this.m2 = views[2];
    this.m3 = views[3];
    this.layout = new Uint8Array(this.words.buffer, this.words.byteOffset, 4 * count);
    const made = native?.bindings ?? null;
    if (made !== null) made.push(this);
  }
};

// modules/units.ts
var POS_SHIFT = 10;
var POS_ONE = 1 << POS_SHIFT;
var STEP_HZ = 30;
var ANGLE_BITS = 12;
var ANGLE_TURN = 1 << ANGLE_BITS;
var ANGLE_MASK = ANGLE_TURN - 1;
var CENTIDEGREES = 36e3;

// modules/game/entities.ts
var NO_PLAYER = 4294967295;
var EntityError = class extends Error {
  // A field, not an assignment: on XS, Error.prototype is frozen after preload and
  // assigning an inherited read-only `name` would throw.
  name = "EntityError";
};
var EntityTable = class {
  capacity;
  /** Number of live entities. */
  count = 0;
  /** One past the highest index ever taken: no entity lives at or above it. */
  end = 0;
  /** 1 while the slot holds a live entity. */
  alive;
  generation;
  /** Template id, sent as Add.typeId. */
  type;
  /** Owning player id, or NO_PLAYER. */
  owner;
  /** Position and velocity in the fixed-point units of modules/units.ts (1/1024 wu, 1/1024 wu per step). */
  x;
  y;
  vx;
  vy;
  /** Heading in 1/4096 turn (modules/units.ts). */
  rot;
  /** 0..100. */
  health;
  /** Free list as a stack of indices. */
  #free;
  #freeTop;
  #bytes;
  listener = null;
  /**
   * Bumped by whoever changes positions, velocities, headings or health in place (the
   * game, once per step): the server re-encodes Update entries only after a change.
   */
  version = 0;
  /** `memory`: where to carve the table from (modules/arena.ts); absent, a buffer of its own. */
  constructor(capacity, memory = null) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 65535)
      throw new EntityError(`entity capacity must be 1..65535, got ${capacity}`);
    this.capacity = capacity;
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, memory);
      this.x = a.i32(capacity);
      this.y = a.i32(capacity);
      this.vx = a.i32(capacity);
      this.vy = a.i32(capacity);
      this.rot = a.i32(capacity);
      this.owner = a.u32(capacity);
      this.generation = a.u16(capacity);
      this.#free = a.u16(capacity);
      this.alive = a.u8(capacity);
      this.type = a.u8(capacity);
      this.health = a.u8(capacity);
    }
    a.done();
    this.#bytes = a.bytes;
    for (let i = 0; i < capacity; i++) this.#free[i] = capacity - 1 - i;
    this.#freeTop = capacity;
  }
  /** Bytes of the preallocated arrays (for the memory budget). */
  poolBytes() {
    return this.#bytes;
  }
  /** The generational id of the entity at `index`. */
  id(index) {
    return (this.generation[index] << 16 | index) >>> 0;
  }
  /** Index of a live entity by id, or -1. */
  indexOf(id) {
    const index = id & 65535;
    if (index >= this.capacity || this.alive[index] === 0) return -1;
    return this.generation[index] === id >>> 16 ? index : -1;
  }
  /** Take a slot, or return -1 when the pool is full. x, y in position units; the rest zeroed, health 100. */
  add(type, owner, x, y) {
    if (this.#freeTop === 0) return -1;
    const i = this.#free[--this.#freeTop];
    if (i >= this.end) this.end = i + 1;
    this.generation[i] = this.generation[i] + 1 & 65535 || 1;
    this.alive[i] = 1;
    this.type[i] = type;
    this.owner[i] = owner;
    this.x[i] = x;
    this.y[i] = y;
    this.vx[i] = 0;
    this.vy[i] = 0;
    this.rot[i] = 0;
    this.health[i] = 100;
    this.count++;
    if (this.listener !== null) this.listener.entityAdded(i);
    return i;
  }
  /** Free a live slot. Freeing a dead slot is a bug in our code and throws. */
  remove(index) {
    if (index < 0 || index >= this.capacity || this.alive[index] === 0)
      throw new EntityError(`remove of a dead entity slot ${index}`);
    this.alive[index] = 0;
    this.count--;
    this.#free[this.#freeTop++] = index;
    if (this.listener !== null) this.listener.entityRemoved(index, this.id(index));
  }
  /** Remove every entity owned by `owner`. */
  removeOwnedBy(owner) {
    for (let i = 0; i < this.capacity; i++)
      if (this.alive[i] !== 0 && this.owner[i] === owner) this.remove(i);
  }
};

// modules/game/geometry.ts
var ONE = 16384;
var RSQRT_SEEDS = 64;
function createGeometry(rsqrtSeed) {
  if (rsqrtSeed.length < RSQRT_SEEDS) throw new RangeError(`the square root seed table needs ${RSQRT_SEEDS} entries`);
  for (let k = 8; k < RSQRT_SEEDS; k++) rsqrtSeed[k] = Math.round(ONE * Math.sqrt(32 / (k + 0.5)));
  return { rsqrtSeed };
}

// modules/game/templates.ts
var TemplateId = Object.freeze({
  Sun: 0,
  PlanetSmall: 1,
  PlanetMedium: 2,
  PlanetLarge: 3,
  Interceptor: 4,
  Fighter: 5,
  Cruiser: 6,
  Pulse: 7,
  Cannon: 8,
  Torpedo: 9
});
var PLANET_BASE = 1;
var PLANET_TYPES = 3;
var SHIP_BASE = 4;
var SHIP_TYPES = 3;
var SHOT_BASE = 7;
var SHOT_TYPES = 3;
var TEMPLATE_COUNT = 10;
var Kind = Object.freeze({ Sun: 1, Planet: 2, Ship: 3, Shot: 4 });
var TEMPLATE_KIND = Object.freeze([
  Kind.Sun,
  Kind.Planet,
  Kind.Planet,
  Kind.Planet,
  Kind.Ship,
  Kind.Ship,
  Kind.Ship,
  Kind.Shot,
  Kind.Shot,
  Kind.Shot
]);
var TEMPLATE_RADIUS = Object.freeze([150, 28, 42, 64, 10, 14, 20, 3, 5, 8]);
var TEMPLATE_NAME = Object.freeze([
  "sun",
  "small planet",
  "planet",
  "gas giant",
  "interceptor",
  "fighter",
  "cruiser",
  "pulse",
  "cannon",
  "torpedo"
]);
var STEP_MS = 1e3 / STEP_HZ;
var DT = 1 / STEP_HZ;
var ARENA_RADIUS = 3e3;
var SUN_GM = 24e6;
var PLANET_GM = Object.freeze([15e4, 3e5, 6e5]);
var ORBIT_INNER = 600;
var ORBIT_OUTER = 2550;
var ORBIT_SPEED_FACTOR = 0.5;
var SPAWN_MIN = 700;
var SPAWN_MAX = 2700;
var SPAWN_CLEARANCE = 250;
var SPAWN_ATTEMPTS = 24;
var SPAWN_ENEMY_CLEARANCE = 1200;
var SPAWN_GUARD_STEPS = 60;
var RESPAWN_STEPS = 60;
var JOIN_SPAWN_STEPS = 30;
var SHOT_MAX_VELOCITY = 51200;
var SHOT_ARM_STEPS = 9;
var PLANET_RESTITUTION = 0.5;
var SHIP_RESTITUTION = 0.8;
var BOUNDARY_RESTITUTION = 0.5;
var PLANET_DAMAGE_BASE = 8;
var PLANET_DAMAGE_FACTOR = 0.05;
var RAM_DAMAGE_BASE = 6;
var RAM_DAMAGE_FACTOR = 0.05;
var SHIP_NAME = Object.freeze(["interceptor", "fighter", "cruiser"]);
var SHIP_THRUST = Object.freeze([478, 341, 228]);
var SHIP_TURN = Object.freeze([96, 76, 52]);
var SHIP_MAX_SPEED = Object.freeze([14336, 11264, 8533]);
var SHIP_HP = Object.freeze([60, 100, 180]);
var SHIP_MASS = Object.freeze([1, 2, 4]);
var WEAPON_NAME = Object.freeze(["pulse", "cannon", "torpedo"]);
var WEAPON_COOLDOWN = Object.freeze([3, 10, 24]);
var WEAPON_SPEED = Object.freeze([650, 520, 360]);
var WEAPON_VELOCITY = Object.freeze([22187, 17749, 12288]);
var WEAPON_DAMAGE = Object.freeze([8, 22, 55]);
var WEAPON_LIFE = Object.freeze([90, 75, 120]);
var MAX_SHIP_RADIUS = 20;
var MAX_PLANET_RADIUS = 64;
var MAX_SHOT_RADIUS = 8;
var MAX_SHIP_SPEED = 14336;

// modules/game/trig.ts
var PI = Math.PI;
var TWO_PI = 6.283185307179586;
var HALF_PI = 1.5707963267948966;
var SINE_ONE = 16384;
var SINE_STEPS = 256;
var SINE_TABLE_LENGTH = SINE_STEPS + 1;
function sin(a) {
  let x = a - TWO_PI * Math.floor((a + PI) / TWO_PI);
  if (x > HALF_PI) x = PI - x;
  else if (x < -HALF_PI) x = -PI - x;
  const x2 = x * x;
  return x * (1 + x2 * (-0.16666666666666666 + x2 * (0.008333333333333333 + x2 * (-1984126984126984e-19 + x2 * (27557319223985893e-22 + x2 * (-2505210838544172e-23 + x2 * (16059043836821613e-26 + x2 * (-7647163731819816e-28 + x2 * 28114572543455206e-31))))))));
}
function buildSineTable(out) {
  if (out.length < SINE_TABLE_LENGTH) throw new RangeError(`a sine table needs ${SINE_TABLE_LENGTH} entries`);
  for (let k = 0; k <= SINE_STEPS; k++) out[k] = Math.round(SINE_ONE * sin(k * HALF_PI / SINE_STEPS));
  return out;
}
function sinQ(table2, a) {
  a &= 4095;
  const q = a & 1023;
  const k = q >> 2;
  const f = q & 3;
  const lo = table2[k] + ((table2[k + 1] - table2[k]) * f >> 2);
  const hi = table2[256 - k] + ((table2[255 - k] - table2[256 - k]) * f >> 2);
  switch (a >> 10) {
    case 0:
      return lo;
    case 1:
      return hi;
    case 2:
      return 0 - lo;
    default:
      return 0 - hi;
  }
}
function cosQ(table2, a) {
  return sinQ(table2, a + 1024);
}

// modules/game/bodies.ts
var PLANET_NEAR = (MAX_PLANET_RADIUS + MAX_SHOT_RADIUS + 4 + 1) * POS_ONE + SHOT_MAX_VELOCITY;
var PLANET_MARK_STEPS = 8;
var PLANET_MARK = PLANET_NEAR + PLANET_MARK_STEPS * 4 * POS_ONE;
var ORBIT_FRACTION = 18;
var ORBIT_TURN_MASK = ANGLE_TURN * (1 << ORBIT_FRACTION) - 1;
var PLANET_BOUNCE = Math.round((1 + PLANET_RESTITUTION) * ONE);
var PLANET_DAMAGE = Math.round(PLANET_DAMAGE_FACTOR * STEP_HZ / POS_ONE * 65536);
function bodiesCreate(w) {
  const e = w.entities;
  const rng = w.rng;
  w.bodyIndex[0] = e.add(TemplateId.Sun, NO_PLAYER, 0, 0);
  const planets = w.bodies - 1;
  const spacing = planets > 1 ? (ORBIT_OUTER - ORBIT_INNER) / (planets - 1) : 0;
  for (let k = 1; k <= planets; k++) {
    const t = rng.below(PLANET_TYPES);
    const r = planets === 1 ? (ORBIT_INNER + ORBIT_OUTER) / 2 : ORBIT_INNER + (k - 1) * spacing;
    const omega = ORBIT_SPEED_FACTOR * Math.sqrt(SUN_GM / (r * r * r));
    w.orbitRadius[k] = Math.round(r * POS_ONE);
    w.orbitR32[k] = Math.round(r * 32);
    w.orbitOmega[k] = Math.round(omega / STEP_HZ / TWO_PI * ANGLE_TURN * (1 << ORBIT_FRACTION));
    w.orbitSpeed[k] = Math.round(omega * r / STEP_HZ * POS_ONE);
    w.orbitPhase[k] = rng.nextU32() >>> 2;
    let shift = 0;
    const ratio = PLANET_GM[t] / SUN_GM;
    while (ratio * 2 ** (10 + shift) < 512) shift++;
    w.bodyPull[k] = Math.round(ratio * 2 ** (10 + shift)) | shift << 16;
    w.bodyIndex[k] = e.add(PLANET_BASE + t, NO_PLAYER, 0, 0);
  }
  for (let b = 0; b < w.bodies; b++) {
    const i = w.bodyIndex[b];
    if (i < 0) throw new EntityError("no room for the sun and planets");
    w.steady[i] = 1;
    w.radius[i] = TEMPLATE_RADIUS[e.type[i]];
    for (let st = 0; st < SHIP_TYPES; st++) w.contact[st * w.bodies + b] = ((w.radius[i] + TEMPLATE_RADIUS[SHIP_BASE + st]) * 8) ** 2;
  }
}
function bodiesMoved(w, i) {
  for (let b = 0; b < w.bodies; b++) {
    if (w.bodyIndex[b] !== i) continue;
    w.bodyPrevX[b] = w.entities.x[i];
    w.bodyPrevY[b] = w.entities.y[i];
  }
}

// modules/game/gravity.ts
var OCT_MIN = 16;
var OCT_MAX = 30;
var GRAVITY_ENTRIES = (OCT_MAX - OCT_MIN + 2) * 32;
var U_FLOOR = 1 << OCT_MIN;
var T_MASK = 32767;
var D_SHIFT = 15;
var S_SHIFT = 25;
function gravityBuild(table2) {
  const G = 65536 * SUN_GM / (STEP_HZ * STEP_HZ);
  for (let e = OCT_MIN; e <= OCT_MAX; e++) {
    const top = G / (2 ** e * Math.sqrt(2 ** e));
    let s = 0;
    while (top * 2 ** (s + 1) < 16384) s++;
    const step = 2 ** (e - 5);
    let t = Math.round(G / (2 ** e * Math.sqrt(2 ** e)) * 2 ** s);
    for (let m = 0; m < 32; m++) {
      const lo = (32 + m) * step;
      const hi = lo + step;
      const next = Math.round(G / (hi * Math.sqrt(hi)) * 2 ** s);
      if (t > T_MASK || t - next > 1023 || s > 29 || s < 4) throw new RangeError("gravity table entry out of range");
      table2[(e - OCT_MIN + 1) * 32 + m] = t | t - next << D_SHIFT | s << S_SHIFT;
      t = next;
    }
  }
  for (let m = 0; m < 32; m++) table2[m] = table2[32] & (T_MASK | 31 << S_SHIFT);
}

// modules/random.ts
var Random = class {
  #s;
  constructor(seed) {
    this.#s = seed >>> 0 || 2654435769;
  }
  /** Next raw 32-bit value. */
  nextU32() {
    let x = this.#s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#s = x >>> 0;
    return this.#s;
  }
  /** Uniform in [0, 1). */
  next() {
    return this.nextU32() / 4294967296;
  }
  /** Integer in [0, n). */
  below(n) {
    return Math.floor(this.next() * n);
  }
  get state() {
    return this.#s;
  }
};

// modules/game/grid.ts
var ReachGrid = class {
  /** Cell size is 1 << cellShift position units. */
  cellShift;
  /** Cells per side. */
  side;
  /** Half the side, position units; a multiple of the cell size. */
  halfExtent;
  /** Bits of whatever reaches into the cell this step. Index: row × side + column. */
  mask;
  /** The slow layer (bits 0..15), which each step copies into `mask` before its marks. */
  base;
  /** `memory`: where to carve the two layers from (modules/arena.ts); absent, a buffer of their own. */
  constructor(halfExtent, cellShift, memory = null) {
    if (!Number.isInteger(cellShift) || cellShift < 0 || cellShift > 24) throw new RangeError("grid cell shift must be 0..24");
    const cell = 1 << cellShift;
    if (!Number.isInteger(halfExtent) || halfExtent <= 0 || halfExtent % cell !== 0 || halfExtent > 1073741823)
      throw new RangeError("grid half extent must be a positive multiple of the cell size");
    this.cellShift = cellShift;
    this.halfExtent = halfExtent;
    this.side = 2 * halfExtent >> cellShift;
    const cells = this.side * this.side;
    const buffer = memory !== null ? memory.buffer : new ArrayBuffer(6 * cells);
    const at = memory !== null ? memory.take(6 * cells) : 0;
    this.mask = new Int32Array(buffer, at, cells);
    this.base = new Uint16Array(buffer, at + 4 * cells, cells);
  }
  poolBytes() {
    return this.mask.byteLength + this.base.byteLength;
  }
  /** Column or row of a coordinate, clamped to the grid. */
  line(v) {
    const c = v + this.halfExtent >> this.cellShift;
    return c < 0 ? 0 : c >= this.side ? this.side - 1 : c;
  }
  /** The cell (x, y) falls in. */
  cell(x, y) {
    return this.line(y) * this.side + this.line(x);
  }
  /**
   * Set `bit` (0..15) in the slow layer for good, in every cell for which
   * `touches(x0, y0, x1, y1)` (the cell's corners) holds. Start-up only.
   */
  setFixed(bit, touches) {
    const cell = 1 << this.cellShift;
    for (let cy = 0; cy < this.side; cy++)
      for (let cx = 0; cx < this.side; cx++) {
        const x0 = cx * cell - this.halfExtent;
        const y0 = cy * cell - this.halfExtent;
        if (touches(x0, y0, x0 + cell, y0 + cell)) this.base[cy * this.side + cx] |= bit;
      }
  }
};

// modules/game/world.ts
var GameCounter = Object.freeze({
  Steps: 0,
  /** Steps dropped because the host fell more than MAX_CATCH_UP steps behind. */
  StepsSkipped: 1,
  ShotsFired: 2,
  /** Shots not fired because the projectile pool was full. */
  ShotsDropped: 3,
  Spawns: 4,
  Kills: 5,
  Suicides: 6,
  EnvironmentDeaths: 7,
  ShotHits: 8,
  Rams: 9,
  PlanetHits: 10,
  /** Spawns with no point clear of everything; the clearest one was taken. */
  CrowdedSpawns: 11,
  /** Blows a new ship's guard took (spawn.ts): damage not dealt. */
  GuardedBlows: 12
});
var GAME_COUNTER_COUNT = 13;
var GAME_COUNTER_NAMES = Object.freeze([
  "steps",
  "stepsSkipped",
  "shotsFired",
  "shotsDropped",
  "spawns",
  "kills",
  "suicides",
  "environmentDeaths",
  "shotHits",
  "rams",
  "planetHits",
  "crowdedSpawns",
  "guardedBlows"
]);
var SUN_RADIUS = TEMPLATE_RADIUS[TemplateId.Sun];
var ARENA = ARENA_RADIUS * POS_ONE;
var ARENA_R2 = ARENA_RADIUS * 8 * (ARENA_RADIUS * 8);
var GRID_SHIFT = 18;
var GRID_HALF = 12 << GRID_SHIFT;
var GRID_SIDE = 24;
var SUN_ZONE = 1;
var EDGE_ZONE = 2;
var ZONES = SUN_ZONE | EDGE_ZONE;
var PLANET_BIT = 2;
var SHIP_BIT = 16;
var REACH = (MAX_SHIP_RADIUS + MAX_SHOT_RADIUS + 2 * MAX_SHIP_RADIUS) * POS_ONE + SHOT_MAX_VELOCITY + MAX_SHIP_SPEED;
var DITHER_STEP = -1640531527;
var PLAYERS = "game players";
var ENTITIES = "game entity arrays";
var BODIES = "game bodies";
var TABLES = "game tables (sine, gravity, square roots)";
var GameWorld = class {
  config;
  entities;
  players;
  maxPlayers;
  /** Most projectiles alive at once: capacity less the sun, planets and one ship per player. */
  shotCapacity;
  /** The sun (body 0) and the planets (bodies 1..planets). */
  bodies;
  /** Bit b − 1 for each planet b. */
  planetBits;
  counters;
  /** Steps simulated. */
  steps = 0;
  /** Ships alive, and live entities the game does not manage (a ship whose player left, not yet removed). */
  ships = 0;
  others = 0;
  /** Told of every ship destroyed; null: nobody listens. */
  onDeath = null;
  // Players, by slot.
  present;
  playerId;
  /** Entity index of the slot's ship, -1 while dead or not yet spawned (Focus). */
  focusIndex;
  /** The slot's ship position (position units), kept while it is dead (Focus). */
  focusX;
  focusY;
  /** Step at which the slot spawns next, -1 while its ship is alive. */
  respawnStep;
  /** Step at which the guard of the slot's ship ends (SPAWN_GUARD_STEPS after its spawn; 0 once it fired). */
  guardUntil;
  /** 1 from joining until the first ship: it may come early, once the player has selected. */
  newcomer;
  /** Steps until the slot's weapon can fire again. */
  cooldown;
  /** Ship and weapon type of the current (or last) ship; Selection changes them at spawn. */
  shipType;
  weaponType;
  kills;
  deaths;
  /** Hit points of the slot's ship (the table's `health` is the percentage sent to clients). */
  hp;
  /** Player id of whatever brought the ship to 0 hp this step; NO_PLAYER for the environment. */
  killer;
  /** Template id of what dealt that blow (see DeathHook). */
  killedWith;
  /** The ship's position before this step, for swept tests. */
  prevX;
  prevY;
  // Per entity, by index.
  /** Collision radius, wu, set when the game adds the entity. */
  radius;
  /** 1 for projectiles and bodies: their paths extrapolate well, so Updates can be rarer (Focus). */
  steady;
  /** Step in which a projectile expires (its firing step is the first of its life). */
  expires;
  /** Live projectiles, densely; the projectile loop walks this (its length is the step's: step-native.ts). */
  shotList;
  /** Projectiles that hit something or expired this step, in that order; removed at the end of it. */
  doomed;
  // Bodies (bodies.ts).
  bodyIndex;
  /** Orbit radius, position units. */
  orbitRadius;
  /** Angular speed and starting angle, heading units with 18 fraction bits (per step; at step 0). */
  orbitOmega;
  orbitPhase;
  /** Orbit radius in 1/32 wu, and orbital speed in velocity units. */
  orbitR32;
  orbitSpeed;
  /** A planet's G·M is the sun's × pull / 2^(10 + shift): pull | shift << 16. */
  bodyPull;
  /** (radius of body b + radius of ship type st)² at 1/8 wu, at st · bodies + b: touching below it. */
  contact;
  /** Body positions before this step, for swept tests. */
  bodyPrevX;
  bodyPrevY;
  /** Where each planet's grid mark is centred. */
  markX;
  markY;
  // Tables, built at construction from IEEE-exact arithmetic.
  /** Quarter-wave sine, Q14, 1025 entries (trig.ts). */
  sine;
  /** gravity.ts. */
  gravity;
  /** The square root seeds and the results of geometry.ts. */
  geometry;
  rng;
  grid;
  /** The arena's [label, bytes] rows, for the memory budget. */
  rows;
  constructor(config, entities, players, seed, memory = null) {
    if (config.shipTypes > SHIP_TYPES) throw new ConfigError(`config.shipTypes must be at most ${SHIP_TYPES} for this game`);
    if (config.weaponTypes > SHOT_TYPES) throw new ConfigError(`config.weaponTypes must be at most ${SHOT_TYPES} for this game`);
    const cap = entities.capacity;
    const n = config.maxPlayers;
    const fixed = 1 + config.planets;
    if (cap < fixed + n + 1)
      throw new ConfigError(`config.maxEntities must be at least ${fixed + n + 1} (sun, ${config.planets} planets, ${n} ships, a projectile)`);
    if (entities.count !== 0) throw new EntityError("the game needs an empty entity table");
    if (config.planets > 16 - PLANET_BIT) throw new ConfigError(`config.planets must be at most ${16 - PLANET_BIT} for this game`);
    this.config = config;
    this.entities = entities;
    this.players = players;
    this.maxPlayers = n;
    this.shotCapacity = cap - fixed - n;
    this.bodies = fixed;
    this.planetBits = (1 << config.planets) - 1;
    let a = Arena.measuring();
    let rsqrtSeed;
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, memory);
      this.gravity = a.i32(GRAVITY_ENTRIES, TABLES);
      this.focusIndex = a.i32(n, PLAYERS);
      this.focusX = a.i32(n, PLAYERS);
      this.focusY = a.i32(n, PLAYERS);
      this.respawnStep = a.i32(n, PLAYERS);
      this.guardUntil = a.i32(n, PLAYERS);
      this.prevX = a.i32(n, PLAYERS);
      this.prevY = a.i32(n, PLAYERS);
      this.playerId = a.u32(n, PLAYERS);
      this.kills = a.u32(n, PLAYERS);
      this.deaths = a.u32(n, PLAYERS);
      this.killer = a.u32(n, PLAYERS);
      this.expires = a.i32(cap, ENTITIES);
      this.bodyIndex = a.i32(fixed, BODIES);
      this.orbitRadius = a.i32(fixed, BODIES);
      this.orbitOmega = a.i32(fixed, BODIES);
      this.orbitPhase = a.i32(fixed, BODIES);
      this.orbitR32 = a.i32(fixed, BODIES);
      this.orbitSpeed = a.i32(fixed, BODIES);
      this.bodyPull = a.i32(fixed, BODIES);
      this.contact = a.i32(SHIP_TYPES * fixed, BODIES);
      this.bodyPrevX = a.i32(fixed, BODIES);
      this.bodyPrevY = a.i32(fixed, BODIES);
      this.markX = a.i32(fixed, BODIES);
      this.markY = a.i32(fixed, BODIES);
      this.counters = a.u32(GAME_COUNTER_COUNT, "game counters");
      this.sine = a.i16(SINE_TABLE_LENGTH, TABLES);
      rsqrtSeed = a.u16(RSQRT_SEEDS, TABLES);
      this.hp = a.i16(n, PLAYERS);
      this.cooldown = a.u16(n, PLAYERS);
      this.shotList = a.u16(cap, ENTITIES);
      this.doomed = a.u16(cap, ENTITIES);
      this.present = a.u8(n, PLAYERS);
      this.shipType = a.u8(n, PLAYERS);
      this.weaponType = a.u8(n, PLAYERS);
      this.newcomer = a.u8(n, PLAYERS);
      this.radius = a.u8(cap, ENTITIES);
      this.steady = a.u8(cap, ENTITIES);
      this.killedWith = a.u8(n, PLAYERS);
    }
    a.done();
    this.rows = a.rows();
    this.focusIndex.fill(-1);
    this.respawnStep.fill(-1);
    buildSineTable(this.sine);
    this.geometry = createGeometry(rsqrtSeed);
    this.rng = new Random(seed >>> 0);
    this.grid = new ReachGrid(GRID_HALF, GRID_SHIFT, memory);
    const sunReach = (SUN_RADIUS + MAX_SHOT_RADIUS) * POS_ONE;
    this.grid.setFixed(SUN_ZONE, (x0, y0, x1, y1) => {
      const nx = x0 > 0 ? x0 : x1 < 0 ? x1 : 0;
      const ny = y0 > 0 ? y0 : y1 < 0 ? y1 : 0;
      return nx * nx + ny * ny < sunReach * sunReach;
    });
    this.grid.setFixed(EDGE_ZONE, (x0, y0, x1, y1) => {
      const fx = Math.max(-x0, x1);
      const fy = Math.max(-y0, y1);
      return fx * fx + fy * fy >= ARENA * ARENA;
    });
  }
};
function worldRecount(w) {
  const e = w.entities;
  let shots = 0;
  for (let i = 0; i < e.capacity; i++)
    if (e.alive[i] !== 0 && e.type[i] >= SHOT_BASE && e.type[i] < SHOT_BASE + SHOT_TYPES) w.shotList[shots++] = i;
  let ships = 0;
  for (let s = 0; s < w.maxPlayers; s++) if (w.focusIndex[s] >= 0) ships++;
  w.ships = ships;
  w.others = e.count - w.bodies - ships - shots;
  return shots;
}
function worldHash(w) {
  const e = w.entities;
  let h = mix(2166136261, w.steps);
  h = mix(h, w.rng.state);
  for (let i = 0; i < e.capacity; i++) {
    h = mix(h, e.alive[i] | e.type[i] << 8 | e.health[i] << 16);
    h = mix(h, e.generation[i]);
    if (e.alive[i] === 0) continue;
    h = mix(h, e.owner[i]);
    h = mix(h, e.x[i]);
    h = mix(h, e.y[i]);
    h = mix(h, e.vx[i]);
    h = mix(h, e.vy[i]);
    h = mix(h, e.rot[i]);
    h = mix(h, w.expires[i]);
  }
  for (let s = 0; s < w.maxPlayers; s++) {
    h = mix(h, w.present[s]);
    if (w.present[s] === 0) continue;
    h = mix(h, w.playerId[s]);
    h = mix(h, w.focusIndex[s]);
    h = mix(h, w.respawnStep[s]);
    h = mix(h, w.newcomer[s]);
    h = mix(h, w.cooldown[s] | w.shipType[s] << 16 | w.weaponType[s] << 24);
    h = mix(h, w.hp[s]);
    h = mix(h, w.guardUntil[s]);
    h = mix(h, w.players.scores[s]);
  }
  return h >>> 0;
}
function mix(h, v) {
  h = Math.imul(h ^ (v | 0), 1540483477);
  return h ^ h >> 15 & 131071;
}

// modules/game/spawn.ts
var SPAWN_SHOT_CLEARANCE = 120;
var SPAWN_SUN_CLEARANCE = SPAWN_MIN >> 1;
var WIDE_OPEN = 1 << 30;
var ENEMY_FAR2 = SPAWN_ENEMY_CLEARANCE * SPAWN_ENEMY_CLEARANCE;
var SPAWN_REACH_WU = Math.max(...TEMPLATE_RADIUS) + Math.max(SPAWN_CLEARANCE, SPAWN_SUN_CLEARANCE, SPAWN_SHOT_CLEARANCE);
function spawnJoin(w, slot, playerId) {
  w.present[slot] = 1;
  w.playerId[slot] = playerId;
  w.focusIndex[slot] = -1;
  w.focusX[slot] = 0;
  w.focusY[slot] = 0;
  w.respawnStep[slot] = w.steps + JOIN_SPAWN_STEPS;
  w.newcomer[slot] = 1;
  w.guardUntil[slot] = 0;
  w.cooldown[slot] = 0;
  w.hp[slot] = 0;
  w.kills[slot] = 0;
  w.deaths[slot] = 0;
}
function spawnAfterDeath(w, slot) {
  w.respawnStep[slot] = w.steps + RESPAWN_STEPS;
}
function spawnShip(w, slot, clear) {
  const e = w.entities;
  const rng = w.rng;
  const sine = w.sine;
  const st = w.players.ship[slot] < SHIP_TYPES ? w.players.ship[slot] : 0;
  const wt = w.players.weapon[slot] < SHOT_TYPES ? w.players.weapon[slot] : 0;
  let bx = 0;
  let by = 0;
  let ba = 0;
  let br = 0;
  let best = -WIDE_OPEN;
  for (let k = 0; k < SPAWN_ATTEMPTS; k++) {
    const a = rng.nextU32() >>> 22 << 2;
    const r = SPAWN_MIN + ((rng.nextU32() >>> 16) * (SPAWN_MAX - SPAWN_MIN) >>> 16);
    const x = r * 32 * cosQ(sine, a) >> 9;
    const y = r * 32 * sinQ(sine, a) >> 9;
    let c = clear.clearance(x, y);
    if (c >= 0) c = spawnEnemyDistance2(w, slot, x, y);
    if (c > best) {
      best = c;
      bx = x;
      by = y;
      ba = a;
      br = r;
    }
    if (c >= ENEMY_FAR2) break;
  }
  if (best < 0) w.counters[GameCounter.CrowdedSpawns]++;
  const i = e.add(SHIP_BASE + st, w.playerId[slot], bx, by);
  if (i < 0) throw new EntityError("no entity slot left for a ship");
  let v = Math.round(Math.sqrt(SUN_GM / br) * POS_ONE / STEP_HZ);
  if (v > SHIP_MAX_SPEED[st]) v = SHIP_MAX_SPEED[st];
  e.vx[i] = 0 - (sinQ(sine, ba) * v >> 14);
  e.vy[i] = cosQ(sine, ba) * v >> 14;
  e.rot[i] = ba + (ANGLE_TURN >> 2) & ANGLE_MASK;
  w.prevX[slot] = bx;
  w.prevY[slot] = by;
  w.steady[i] = 0;
  w.radius[i] = TEMPLATE_RADIUS[SHIP_BASE + st];
  w.hp[slot] = SHIP_HP[st];
  w.killer[slot] = NO_PLAYER;
  w.shipType[slot] = st;
  w.weaponType[slot] = wt;
  w.focusIndex[slot] = i;
  w.focusX[slot] = bx;
  w.focusY[slot] = by;
  w.respawnStep[slot] = -1;
  w.guardUntil[slot] = w.steps + SPAWN_GUARD_STEPS;
  w.newcomer[slot] = 0;
  w.cooldown[slot] = 0;
  w.ships++;
  w.counters[GameCounter.Spawns]++;
}
function spawnWant(t) {
  const kind = TEMPLATE_KIND[t];
  return kind === Kind.Ship || kind === Kind.Planet ? SPAWN_CLEARANCE : kind === Kind.Shot ? SPAWN_SHOT_CLEARANCE : SPAWN_SUN_CLEARANCE;
}
function spawnWantsRadius(t) {
  return TEMPLATE_KIND[t] !== Kind.Shot;
}
function spawnEnemyDistance2(w, slot, x, y) {
  const e = w.entities;
  let nearest = ENEMY_FAR2;
  for (let s = 0; s < w.maxPlayers; s++) {
    const i = w.focusIndex[s];
    if (s === slot || i < 0) continue;
    const dx = e.x[i] - x >> POS_SHIFT;
    const dy = e.y[i] - y >> POS_SHIFT;
    const d = dx * dx + dy * dy;
    if (d < nearest) nearest = d;
  }
  return nearest;
}

// modules/game/deaths.ts
var GENTLE = POS_ONE;
var HP_RECIPROCAL = Object.freeze(SHIP_HP.map((h) => Math.floor(65536 / h)));
function deathsDie(w, slot) {
  const e = w.entities;
  const i = w.focusIndex[slot];
  const owner = e.owner[i];
  const killer = w.killer[slot];
  e.health[i] = 0;
  e.remove(i);
  w.ships--;
  let by = -1;
  if (killer === owner) {
    w.counters[GameCounter.Suicides]++;
    by = slot;
  } else if (killer === NO_PLAYER) w.counters[GameCounter.EnvironmentDeaths]++;
  else {
    const ks = killer & 65535;
    if (ks < w.maxPlayers && w.present[ks] !== 0 && w.playerId[ks] === killer) {
      w.kills[ks]++;
      if (w.players.scores[ks] < 65535) w.players.scores[ks]++;
      by = ks;
    }
    w.counters[GameCounter.Kills]++;
  }
  if (w.onDeath !== null) w.onDeath(slot, by, w.killedWith[slot]);
  w.deaths[slot]++;
  w.focusIndex[slot] = -1;
  spawnAfterDeath(w, slot);
}

// modules/game/ships.ts
var EDGE_BOUNCE = Math.round((1 + BOUNDARY_RESTITUTION) * ONE);
var RAM_DAMAGE = Math.round(RAM_DAMAGE_FACTOR * STEP_HZ / POS_ONE * 65536);
var FAR_PULL = 2;
function shipsBounce(w, sa, sb) {
  const e = w.entities;
  const a = w.focusIndex[sa];
  const b = w.focusIndex[sb];
  const d0x = w.prevX[sb] - w.prevX[sa] >> 9;
  const d0y = w.prevY[sb] - w.prevY[sa] >> 9;
  const d1x = e.x[b] - e.x[a] >> 9;
  const d1y = e.y[b] - e.y[a] >> 9;
  const fx = d1x - d0x;
  const fy = d1y - d0y;
  const dot = d0x * fx + d0y * fy;
  const l = fx * fx + fy * fy;
  const t = dot >= 0 ? 0 : dot <= -l ? 1 : -dot / l;
  let nx = d0x + t * fx;
  let ny = d0y + t * fy;
  let d = Math.sqrt(nx * nx + ny * ny);
  if (d > 0) {
    nx /= d;
    ny /= d;
  } else {
    nx = 1;
    ny = 0;
  }
  const ia = 1 / SHIP_MASS[e.type[a] - SHIP_BASE];
  const ib = 1 / SHIP_MASS[e.type[b] - SHIP_BASE];
  const reach = (w.radius[a] + w.radius[b]) * POS_ONE;
  d = (e.x[b] - e.x[a]) * nx + (e.y[b] - e.y[a]) * ny;
  if (d < reach) {
    const push = (reach - d) / (ia + ib);
    e.x[a] = Math.round(e.x[a] - nx * push * ia);
    e.y[a] = Math.round(e.y[a] - ny * push * ia);
    e.x[b] = Math.round(e.x[b] + nx * push * ib);
    e.y[b] = Math.round(e.y[b] + ny * push * ib);
  }
  const vn = (e.vx[b] - e.vx[a]) * nx + (e.vy[b] - e.vy[a]) * ny;
  if (vn >= 0) return -1;
  const j = -(1 + SHIP_RESTITUTION) * vn / (ia + ib);
  e.vx[a] = Math.round(e.vx[a] - j * ia * nx);
  e.vy[a] = Math.round(e.vy[a] - j * ia * ny);
  e.vx[b] = Math.round(e.vx[b] + j * ib * nx);
  e.vy[b] = Math.round(e.vy[b] + j * ib * ny);
  if (vn > -GENTLE) return 0;
  return RAM_DAMAGE_BASE + (Math.floor(-vn) * RAM_DAMAGE >> 16);
}
function shipsForget(w, slot) {
  if (w.focusIndex[slot] >= 0) {
    w.ships--;
    w.others++;
  }
  w.present[slot] = 0;
  w.focusIndex[slot] = -1;
  w.respawnStep[slot] = -1;
  w.newcomer[slot] = 0;
  w.hp[slot] = 0;
}
function shipsMoved(w, i) {
  for (let s = 0; s < w.maxPlayers; s++) {
    if (w.focusIndex[s] !== i) continue;
    w.prevX[s] = w.entities.x[i];
    w.prevY[s] = w.entities.y[i];
  }
}

// modules/input.ts
var INPUT_FORWARD = 1;
var INPUT_BACKWARD = 2;
var INPUT_LEFT = 4;
var INPUT_RIGHT = 8;
var INPUT_SHOOTING = 16;

// modules/game/motion.ts
var SHIP_HEADINGS = ANGLE_MASK & ~3;
var CLAMP_SCALE = Object.freeze(SHIP_MAX_SPEED.map((m) => Math.ceil(2 ** 42 / (m * m))));

// modules/game/ship-stepper.ts
function shipWords(words, at) {
  if (SHIP_TYPES > 4) throw new RangeError("the native ship loop knows 4 ship types");
  words[at + 0 /* ShipBase */] = SHIP_BASE;
  words[at + 1 /* Headings */] = SHIP_HEADINGS;
  words[at + 2 /* Forward */] = INPUT_FORWARD;
  words[at + 3 /* Backward */] = INPUT_BACKWARD;
  words[at + 4 /* Left */] = INPUT_LEFT;
  words[at + 5 /* Right */] = INPUT_RIGHT;
  words[at + 6 /* Shooting */] = INPUT_SHOOTING;
  words[at + 10 /* OctMin */] = OCT_MIN;
  words[at + 11 /* TMask */] = T_MASK;
  words[at + 12 /* DShift */] = D_SHIFT;
  words[at + 13 /* SShift */] = S_SHIFT;
  for (let t = 0; t < SHIP_TYPES; t++) {
    words[at + 19 /* Turn */ + t] = SHIP_TURN[t];
    words[at + 23 /* Thrust */ + t] = SHIP_THRUST[t];
    words[at + 27 /* MaxSpeed */ + t] = SHIP_MAX_SPEED[t];
    words[at + 31 /* ClampScale */ + t] = CLAMP_SCALE[t];
  }
}
var NO_EDGE = 1 << 20;

// modules/game/step-native.ts
var NativeGameStep = class {
  #w;
  #kernels;
  #b;
  #words;
  #at;
  constructor(w, kernels, native) {
    if (SHOT_TYPES > 4) throw new RangeError("the native game step knows 4 weapons");
    const e = w.entities;
    const p = w.players;
    const b = new Binding(NATIVE_LAYOUT.game, {
      x: e.x,
      y: e.y,
      vx: e.vx,
      vy: e.vy,
      rot: e.rot,
      type: e.type,
      radius: w.radius,
      focusIndex: w.focusIndex,
      input: p.input,
      prevX: w.prevX,
      prevY: w.prevY,
      sine: w.sine,
      gravity: w.gravity,
      contact: w.contact,
      bodyIndex: w.bodyIndex,
      pull: w.bodyPull,
      mask: w.grid.mask,
      rsqrtSeed: w.geometry.rsqrtSeed,
      owner: e.owner,
      health: e.health,
      steady: w.steady,
      list: w.shotList,
      doomed: w.doomed,
      expires: w.expires,
      hp: w.hp,
      playerId: w.playerId,
      bodyPrevX: w.bodyPrevX,
      bodyPrevY: w.bodyPrevY,
      present: w.present,
      cooldown: w.cooldown,
      respawnStep: w.respawnStep,
      newcomer: w.newcomer,
      selected: p.selected,
      guardUntil: w.guardUntil,
      killer: w.killer,
      killedWith: w.killedWith,
      shipType: w.shipType,
      weaponType: w.weaponType,
      focusX: w.focusX,
      focusY: w.focusY,
      orbitPhase: w.orbitPhase,
      orbitOmega: w.orbitOmega,
      orbitR32: w.orbitR32,
      orbitSpeed: w.orbitSpeed,
      markX: w.markX,
      markY: w.markY,
      base: w.grid.base,
      counters: w.counters,
      alive: e.alive
    }, 0, native);
    const words = b.words;
    const at = b.scalars;
    shipWords(words, at);
    words[at + 7 /* GridHalf */] = GRID_HALF;
    words[at + 8 /* GridShift */] = GRID_SHIFT;
    words[at + 9 /* GridSide */] = GRID_SIDE;
    words[at + 14 /* PlanetBit */] = PLANET_BIT;
    words[at + 15 /* PlanetBits */] = w.planetBits;
    words[at + 16 /* Bodies */] = w.bodies;
    words[at + 17 /* FarPull */] = FAR_PULL;
    words[at + 18 /* ArenaRadius */] = ARENA_RADIUS;
    words[at + 40 /* MaxPlayers */] = w.maxPlayers;
    words[at + 41 /* DitherStep */] = DITHER_STEP;
    words[at + 42 /* Zones */] = ZONES;
    words[at + 43 /* ShipBit */] = SHIP_BIT;
    words[at + 44 /* SunRadius */] = SUN_RADIUS;
    words[at + 45 /* ArenaR2 */] = ARENA_R2;
    words[at + 46 /* PlanetNear */] = PLANET_NEAR;
    words[at + 47 /* Reach */] = REACH;
    words[at + 48 /* ArmSteps */] = SHOT_ARM_STEPS;
    words[at + 49 /* ShotBase */] = SHOT_BASE;
    words[at + 50 /* ShotCapacity */] = w.shotCapacity;
    words[at + 51 /* PosShift */] = POS_SHIFT;
    words[at + 52 /* OrbitFraction */] = ORBIT_FRACTION;
    words[at + 53 /* OrbitTurnMask */] = ORBIT_TURN_MASK;
    words[at + 54 /* MarkSteps */] = PLANET_MARK_STEPS;
    words[at + 55 /* PlanetMark */] = PLANET_MARK;
    words[at + 56 /* Gentle */] = GENTLE;
    words[at + 57 /* PlanetBounce */] = PLANET_BOUNCE;
    words[at + 58 /* PlanetDamage */] = PLANET_DAMAGE;
    words[at + 59 /* PlanetDamageBase */] = PLANET_DAMAGE_BASE;
    for (let t = 0; t < SHIP_TYPES; t++) {
      words[at + 60 /* ShipHp */ + t] = SHIP_HP[t];
      words[at + 64 /* HpReciprocal */ + t] = HP_RECIPROCAL[t];
    }
    for (let t = 0; t < SHOT_TYPES; t++) {
      words[at + 68 /* WeaponCooldown */ + t] = WEAPON_COOLDOWN[t];
      words[at + 72 /* WeaponVelocity */ + t] = WEAPON_VELOCITY[t];
      words[at + 76 /* WeaponLife */ + t] = WEAPON_LIFE[t];
      words[at + 80 /* WeaponDamage */ + t] = WEAPON_DAMAGE[t];
      words[at + 84 /* ShotRadius */ + t] = TEMPLATE_RADIUS[SHOT_BASE + t];
    }
    words[at + 108 /* SpawnReach */] = SPAWN_REACH_WU;
    for (let t = 0; t < TEMPLATE_COUNT; t++) {
      words[at + 109 /* SpawnWant */ + t] = spawnWant(t);
      words[at + 119 /* SpawnRadius */ + t] = spawnWantsRadius(t) ? 1 : 0;
    }
    this.#w = w;
    this.#kernels = kernels;
    this.#b = b;
    this.#words = words;
    this.#at = at;
  }
  /**
   * How far (wu) (x, y) is from being a fair spawn point (spawn.ts): the worst shortfall,
   * negative, or WIDE_OPEN when nothing is in the way. In C: a spawn tries up to
   * SPAWN_ATTEMPTS points, each a walk over the table.
   */
  clearance(x, y) {
    const b = this.#b;
    const words = this.#words;
    const at = this.#at;
    words[at + 105 /* End */] = this.#w.entities.end;
    words[at + 106 /* ClearX */] = x;
    words[at + 107 /* ClearY */] = y;
    return this.#kernels.game(b.layout, b.m0, b.m1, b.m2, b.m3, 3 /* Clear */);
  }
  /** Live projectiles now. */
  get shotCount() {
    return this.#words[this.#at + 93 /* Listed */];
  }
  /** Projectiles alive after the last step. */
  get shots() {
    return this.#words[this.#at + 96 /* Shots */];
  }
  /** Start-up: the planets where step `steps` has them, and their marks in the grid. */
  place() {
    const b = this.#b;
    this.#words[this.#at + 35 /* Steps */] = this.#w.steps;
    this.#kernels.game(b.layout, b.m0, b.m1, b.m2, b.m3, 2 /* Place */);
  }
  /** One step of the world, `w.steps` (counted by the caller). */
  run() {
    const w = this.#w;
    const e = w.entities;
    const b = this.#b;
    const k = this.#kernels;
    const words = this.#words;
    const at = this.#at;
    words[at + 35 /* Steps */] = w.steps;
    if (e.count !== w.bodies + w.ships + words[at + 93 /* Listed */] + w.others) words[at + 93 /* Listed */] = worldRecount(w);
    let why = k.game(b.layout, b.m0, b.m1, b.m2, b.m3, 0 /* Step */);
    while (why !== 0 /* Done */) {
      if (why === 2 /* Fire */) {
        words[at + 103 /* Added */] = e.add(words[at + 99 /* FireType */], words[at + 100 /* FireOwner */], words[at + 101 /* FireX */], words[at + 102 /* FireY */]);
      } else if (why === 4 /* Reap */) {
        const doomed = w.doomed;
        for (let j = 0, n = words[at + 94 /* Doomed */]; j < n; j++) e.remove(doomed[j]);
        if (words[at + 95 /* Dying */] === 0) break;
      } else if (why === 1 /* Spawn */) spawnShip(w, words[at + 97 /* Slot */], this);
      else if (why === 5 /* Die */) deathsDie(w, words[at + 97 /* Slot */]);
      else if (why === 3 /* Ram */) words[at + 104 /* RamDamage */] = shipsBounce(w, words[at + 97 /* Slot */], words[at + 98 /* Other */]);
      else throw new RangeError(`the native game step stopped for ${why}`);
      why = k.game(b.layout, b.m0, b.m1, b.m2, b.m3, 1 /* Resume */);
    }
  }
};

// modules/game/game.ts
var MAX_CATCH_UP = 4;
var STEP_GAP_0 = 34;
var STEP_GAP_1 = 33;
var Game = class {
  config;
  entities;
  players;
  seed;
  maxPlayers;
  /** Most projectiles alive at once: capacity less the sun, planets and one ship per player. */
  shotCapacity;
  counters;
  // The world's arrays the server's planner reads (Focus) and the radii tools set; world.ts
  // says what each holds, and the getters below give the rest.
  focusIndex;
  focusX;
  focusY;
  radius;
  steady;
  bodies;
  #world;
  /** The step, in C. */
  #step;
  /** Milliseconds (host clock) at which the next step is due, and where in the 34/33/33 cycle. */
  #nextStepAt = -1;
  #stepGap = 0;
  constructor(config, entities, players, seed, native = platformNative(config)) {
    const kernels = requireKernels(native, "the game");
    const w = new GameWorld(config, entities, players, seed, native?.memory ?? null);
    this.#world = w;
    this.config = config;
    this.entities = entities;
    this.players = players;
    this.seed = seed >>> 0;
    this.maxPlayers = w.maxPlayers;
    this.shotCapacity = w.shotCapacity;
    this.counters = w.counters;
    this.focusIndex = w.focusIndex;
    this.focusX = w.focusX;
    this.focusY = w.focusY;
    this.radius = w.radius;
    this.steady = w.steady;
    this.bodies = w.bodies;
    this.#step = new NativeGameStep(w, kernels, native);
    bodiesCreate(w);
    this.#step.place();
    gravityBuild(w.gravity);
  }
  // ---------------------------------------------------------------- hooks
  /** Steps simulated. */
  get steps() {
    return this.#world.steps;
  }
  /** Projectiles alive after the last step. */
  get shots() {
    return this.#step.shots;
  }
  /** Told of every ship destroyed; null: nobody listens. */
  get onDeath() {
    return this.#world.onDeath;
  }
  set onDeath(hook) {
    this.#world.onDeath = hook;
  }
  // The rest of the world's arrays, for tools and tests (world.ts says what each holds).
  get present() {
    return this.#world.present;
  }
  get playerId() {
    return this.#world.playerId;
  }
  get respawnStep() {
    return this.#world.respawnStep;
  }
  get cooldown() {
    return this.#world.cooldown;
  }
  get guardUntil() {
    return this.#world.guardUntil;
  }
  /** Whether the ship of `slot` is within its guard (spawn.ts): it takes no damage. */
  guarded(slot) {
    const w = this.#world;
    return w.focusIndex[slot] >= 0 && w.steps < w.guardUntil[slot];
  }
  get shipType() {
    return this.#world.shipType;
  }
  get weaponType() {
    return this.#world.weaponType;
  }
  get kills() {
    return this.#world.kills;
  }
  get deaths() {
    return this.#world.deaths;
  }
  get hp() {
    return this.#world.hp;
  }
  get killer() {
    return this.#world.killer;
  }
  get killedWith() {
    return this.#world.killedWith;
  }
  get prevX() {
    return this.#world.prevX;
  }
  get prevY() {
    return this.#world.prevY;
  }
  get expires() {
    return this.#world.expires;
  }
  get bodyIndex() {
    return this.#world.bodyIndex;
  }
  get orbitRadius() {
    return this.#world.orbitRadius;
  }
  get orbitOmega() {
    return this.#world.orbitOmega;
  }
  get orbitPhase() {
    return this.#world.orbitPhase;
  }
  get sine() {
    return this.#world.sine;
  }
  get grid() {
    return this.#world.grid;
  }
  /** Simulation: run the fixed steps due by `now` (at most MAX_CATCH_UP, then skip ahead). */
  tick(now) {
    if (this.#nextStepAt < 0) {
      const whole = now | 0;
      this.#nextStepAt = (whole === now ? whole : now) + STEP_GAP_0;
      this.#stepGap = 1;
    }
    if (now < this.#nextStepAt) return;
    let n = 0;
    while (now >= this.#nextStepAt) {
      if (n === MAX_CATCH_UP) {
        this.counters[GameCounter.StepsSkipped] += Math.floor((now - this.#nextStepAt) * STEP_HZ / 1e3) + 1;
        this.#nextStepAt = now + STEP_GAP_0;
        this.#stepGap = 1;
        break;
      }
      this.step();
      this.#nextStepAt += this.#stepGap === 0 ? STEP_GAP_0 : STEP_GAP_1;
      this.#stepGap = this.#stepGap === 2 ? 0 : this.#stepGap + 1;
      n++;
    }
  }
  playerJoined(slot, playerId) {
    spawnJoin(this.#world, slot, playerId);
  }
  /** Forget the ship; the server removes it and the player's projectiles right after this. */
  playerLeft(slot, _playerId) {
    shipsForget(this.#world, slot);
  }
  /**
   * Entity `i` was put where it is by hand (tests, tools): its swept path this step starts
   * there, as if it had been there since the last step.
   */
  moved(i) {
    shipsMoved(this.#world, i);
    bodiesMoved(this.#world, i);
  }
  // ---------------------------------------------------------------- step
  /** One fixed step of 1/30 s. */
  step() {
    const w = this.#world;
    const e = w.entities;
    w.steps++;
    this.#step.run();
    e.version = e.version + 1 & 1073741823;
  }
  /** How far (wu) (x, y) is from being a fair spawn point (spawn.ts spawnClearance), for tests and tools. */
  clearance(x, y) {
    return this.#step.clearance(x, y);
  }
  // ---------------------------------------------------------------- memory, hash
  /** [name, bytes] rows of the game's own arrays, for the memory budget. Allocates. */
  pools() {
    const rows = this.#world.rows.map(([name, bytes]) => [name, bytes]);
    rows.push(["game broad-phase grid", this.#world.grid.poolBytes()]);
    return rows;
  }
  /** A 32-bit hash of the whole world: entities, players, scores, step count and PRNG state. */
  hash() {
    return worldHash(this.#world);
  }
};

// modules/transport/channel.ts
var DEFAULT_MAX_PACKET = 512;
var RECEIVE_INDEX = /* @__PURE__ */ Object.freeze({ badAck: 0, duplicate: 1, outOfOrder: 2, received: 3, stale: 4, future: 5 });
var Channel = class {
  appId;
  queueBytes;
  resendMs;
  maxPacket;
  sizes;
  typeBase;
  textPrefix;
  textMax;
  /** The statistics sink, or null. */
  counters;
  sentIndex;
  resentIndex;
  /** The receive step's indices (EndpointConfig.receiveIndex), as numbers: one property read each. */
  badAckIndex;
  duplicateIndex;
  outOfOrderIndex;
  receivedIndex;
  staleIndex;
  futureIndex;
  /** The app id's two 16-bit halves: small integers (the id itself is a double on XS when ≥ 2^31). */
  idHigh;
  idLow;
  /** The app id as a signed 32-bit integer, as DataView.setInt32 takes it without a double. */
  idI32;
  constructor(config) {
    const maxPacket = config.maxPacket ?? DEFAULT_MAX_PACKET;
    const queueBytes = config.queueBytes;
    const appId = config.appId;
    const sizes = config.sizes;
    const textPrefix = config.textPrefix ?? -1;
    const textMax = config.textMax ?? -1;
    const counters = config.counters ?? null;
    const sentIndex = config.sentIndex ?? -1;
    const resentIndex = config.resentIndex ?? -1;
    const r = config.receiveIndex ?? RECEIVE_INDEX;
    if (!Number.isInteger(maxPacket) || maxPacket < HEADER_SIZE + RELIABLE_HEADER || maxPacket > 65535) throw new RangeError(`maxPacket of ${maxPacket} bytes`);
    if (!Number.isInteger(queueBytes) || queueBytes < maxPacket) throw new RangeError(`reliable queue must hold at least ${maxPacket} bytes`);
    if (!Number.isInteger(appId) || appId < 0 || appId > 4294967295) throw new RangeError(`app id ${appId} is not a 32-bit unsigned integer`);
    if (!(config.resendMs > 0)) throw new RangeError(`resendMs of ${config.resendMs}`);
    if (!(sizes instanceof Int16Array) || sizes.length === 0) throw new TypeError("sizes must be a non-empty Int16Array");
    if (sizes.some((n) => n < -1)) throw new RangeError("a payload size below -1 (-1 marks a text)");
    if (sizes.some((n) => n < 0) && !(Number.isInteger(textPrefix) && textPrefix >= 0 && Number.isInteger(textMax) && textMax > 0))
      throw new TypeError("a text type (size -1) needs textPrefix and textMax");
    if (counters !== null && !(counters instanceof Uint32Array && sentIndex >= 0 && resentIndex >= 0 && sentIndex < counters.length && resentIndex < counters.length))
      throw new RangeError("counters needs sentIndex and resentIndex within it");
    for (const i of [r.badAck, r.duplicate, r.outOfOrder, r.received, r.stale, r.future])
      if (!Number.isInteger(i) || i < 0) throw new RangeError(`receive counter index ${i}`);
    this.appId = appId;
    this.queueBytes = queueBytes;
    this.resendMs = config.resendMs;
    this.maxPacket = maxPacket;
    this.sizes = sizes;
    this.typeBase = config.typeBase ?? 0;
    this.textPrefix = textPrefix;
    this.textMax = textMax;
    this.counters = counters;
    this.sentIndex = counters !== null ? sentIndex : -1;
    this.resentIndex = counters !== null ? resentIndex : -1;
    this.badAckIndex = r.badAck;
    this.duplicateIndex = r.duplicate;
    this.outOfOrderIndex = r.outOfOrder;
    this.receivedIndex = r.received;
    this.staleIndex = r.stale;
    this.futureIndex = r.future;
    this.idHigh = appId >>> 16 & 65535;
    this.idLow = appId & 65535;
    this.idI32 = appId | 0;
    Object.freeze(this);
  }
};

// modules/transport/verdicts.ts
var CURRENT = 0;
var STALE = 1;
var PROCESS = 0;
var OUT_OF_ORDER = 2;
var SHAPE_NONE = 1;
var SHAPE_ONE_UNRELIABLE = 2;
var SHAPE_ANY = 3;
var RECEIVE_BAD_ACK = 1;
var RECEIVE_STOPPED = 4;
var RECEIVE_CURRENT = 8;

// modules/transport/endpoint.ts
var FAILURES = ["cannot fit a packet", "is of no known type, or not of its type's size", "", "span", "first seqno", "type or size"];
var EndpointTable = class {
  channel;
  kernels;
  binding;
  /** The state words of every peer, and the same bytes as doubles (`srtt`). */
  words;
  doubles;
  queues;
  out;
  /** When each peer's queue front began to wait (EndpointPlace.front). */
  front;
  /** A packet buffer in `out`, for a fill into a buffer outside it (copied out after). */
  packet;
  /** Whether the owner placed the table (its packets and broadcasts come from `out`). */
  placed;
  /** Largest type byte and payload one message may have: what fits a packet after the headers. */
  maxMessage;
  endpoints = [];
  /**
   * `n` peers on `channel`: in `place` when given (`native` must then be the loops that
   * reach it), else in memory of their own from `native` (the platform's when absent).
   * Start-up only.
   */
  constructor(channel, n, native = null, place = null) {
    const ch = channel instanceof Channel ? channel : new Channel(channel);
    if (!(Number.isInteger(n) && n >= 1 && n <= 16)) throw new RangeError(`an endpoint table of ${n} peers (1..16)`);
    const q = ch.queueBytes;
    const stride = 22 /* Stride */;
    const maxPacket = ch.maxPacket;
    let opts = native;
    let state;
    let queues;
    let out;
    let packet;
    let front;
    let scratch = null;
    if (place !== null) {
      if (opts === null || opts.kernels == null) throw new RangeError("an endpoint table in its owner's memory needs the owner's native loops (NativeOptions.kernels)");
      state = place.state;
      queues = place.queues;
      out = place.out;
      front = place.front;
      if (front.length !== n || front.buffer !== queues.buffer) throw new RangeError(`endpoint table: a front of ${front.length} words for ${n} peers, or in another buffer`);
      if (state.length !== n * stride >> 1 || queues.length !== n * q || out.byteOffset !== 0 || out.buffer !== queues.buffer)
        throw new RangeError(`endpoint table: state of ${state.length} doubles and queues of ${queues.length} bytes for ${n} peers, out from byte 0 of their buffer`);
      packet = out.subarray(0, 0);
    } else {
      const bytes = 4 * n * stride + 4 * n + n * q + maxPacket + 8;
      if (opts === null) opts = platformMemory(bytes + 1024);
      if (opts === null || opts.kernels == null)
        throw new RangeError("an Endpoint needs the platform's native loops: on Node, installNodeKernels() (hosts/node/kernels.ts)");
      const memory2 = opts.memory ?? null;
      const buffer = memory2 !== null ? memory2.buffer : new ArrayBuffer(bytes);
      const at = memory2 !== null ? memory2.take(bytes) : 0;
      state = new Float64Array(buffer, at, n * stride >> 1);
      front = new Int32Array(buffer, at + 4 * n * stride, n);
      queues = new Uint8Array(buffer, at + 4 * n * stride + 4 * n, n * q);
      out = new Uint8Array(buffer);
      const p = at + 4 * n * stride + 4 * n + n * q;
      packet = new Uint8Array(buffer, p, maxPacket);
      scratch = new Uint32Array(buffer, p + maxPacket + 3 & ~3, 1);
    }
    const kernels = opts.kernels;
    const counters = ch.counters ?? scratch ?? new Uint32Array(front.buffer, front.byteOffset, 1);
    const memory = opts.memory ?? null;
    if (memory !== null && counters.buffer !== memory.buffer)
      throw new RangeError("the channel's counters must be in the native memory its endpoints are in (carve them from it)");
    this.channel = ch;
    this.kernels = kernels;
    this.words = new Int32Array(state.buffer, state.byteOffset, n * stride);
    this.doubles = state;
    this.queues = queues;
    this.out = out;
    this.packet = packet;
    this.front = front;
    this.placed = place !== null;
    this.maxMessage = maxPacket - HEADER_SIZE - RELIABLE_HEADER + 1;
    const sizes = ch.sizes;
    const b = new Binding(NATIVE_LAYOUT.transport, { state: this.words, queues, out, counters, front }, sizes.length, opts);
    const w = b.words;
    const s = b.scalars;
    w[s + 0 /* Endpoints */] = n;
    w[s + 1 /* QueueBytes */] = q;
    w[s + 2 /* MaxPacket */] = maxPacket;
    w[s + 3 /* TypeBase */] = ch.typeBase;
    w[s + 4 /* Types */] = sizes.length;
    w[s + 5 /* ResendMs */] = ch.resendMs;
    w[s + 6 /* AppId */] = ch.appId | 0;
    w[s + 7 /* SentIndex */] = ch.counters !== null ? ch.sentIndex : -1;
    w[s + 8 /* ResentIndex */] = ch.counters !== null ? ch.resentIndex : -1;
    w[s + 9 /* TextPrefix */] = ch.textPrefix;
    w[s + 10 /* TextMax */] = ch.textMax;
    for (let i = 0; i < sizes.length; i++) w[s + 11 /* Sizes */ + i] = sizes[i];
    this.binding = b;
    for (let i = 0; i < n; i++) this.endpoints.push(new Endpoint(ch, this, i));
  }
  /** The peers of `mask` (bit i: peer i) that are due a packet, and (<< 16) those of them owed one now (`due`, `owed`). */
  dueMask(mask, now) {
    const b = this.binding;
    return this.kernels.transport(b.layout, b.m0, b.m1, b.m2, b.m3, 14 /* DueMask */, mask, now | 0, 0, 0, 0);
  }
  /**
   * The message at `from` in `out` (its type byte and payload, `bytes` in all) queued for each
   * peer of `mask` that keeps `reserve` bytes free after it: returns those that took it, and
   * (<< 16) those of them whose queue was empty, whose `front` it stamps with `now`. The
   * owner's own messages only: the type and size are not checked against the channel's
   * table, only against a packet's room.
   */
  broadcast(mask, from, bytes, reserve, now) {
    if (!this.placed || bytes > this.maxMessage)
      throw new RangeError(`copy of ${bytes} bytes: the queues are not in their owner's memory, or it cannot fit a packet`);
    const b = this.binding;
    return this.kernels.transport(b.layout, b.m0, b.m1, b.m2, b.m3, 4 /* Broadcast */, mask, from, bytes, reserve, now | 0);
  }
  /**
   * Where `bytes` starts in `out`, when at least its first `need` bytes lie in it, else -1: a
   * packet the C may read or write in place. Once per owner buffer, not per packet.
   */
  offsetOf(bytes, need) {
    const out = this.out;
    const at = bytes.byteOffset - out.byteOffset;
    return bytes.buffer === out.buffer && at >= 0 && bytes.length >= need && at + need <= out.length ? at : -1;
  }
};
var Endpoint = class {
  // What every call passes, hottest first: XS finds a property by walking the object's list.
  k;
  layout;
  m0;
  m1;
  m2;
  m3;
  /** This peer's index in its table, and where its state words start. */
  i;
  o;
  w;
  /** The payload rules (shared, immutable). */
  channel;
  /** Encoded queued messages, each `seqno u32, type u8, payload`. */
  buf;
  /** A DataView on `buf`, for writing 32-bit fields into queued messages with one call. */
  view;
  /** Bytes of `buf`. */
  capacityBytes;
  table;
  /** The packet buffer fill() last wrote, and its offset in the table's `out`, -1 when it is outside it. */
  lastOut = null;
  lastBase = -1;
  /**
   * A peer of `table` at index `i`; with a channel or config alone, a table of one of its own
   * on the platform's native loops.
   */
  constructor(channel, table2 = null, i = 0) {
    const t = table2 ?? new EndpointTable(channel, 1);
    if (table2 === null) t.endpoints[0] = this;
    const ch = t.channel;
    const b = t.binding;
    this.k = t.kernels;
    this.layout = b.layout;
    this.m0 = b.m0;
    this.m1 = b.m1;
    this.m2 = b.m2;
    this.m3 = b.m3;
    this.i = i;
    this.o = i * 22 /* Stride */;
    this.w = t.words;
    this.channel = ch;
    this.capacityBytes = ch.queueBytes;
    this.buf = t.queues.subarray(i * ch.queueBytes, (i + 1) * ch.queueBytes);
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.table = t;
  }
  /** One native call on this peer. */
  run(what, a, b, c, d) {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, what, this.i, a, b, c, d);
  }
  // ---------------------------------------------------------------- the state, read
  /** Messages queued (unacknowledged). */
  get count() {
    return this.w[this.o + 2 /* Count */];
  }
  /** A reliable message was processed since our last packet: the peer wants an ack soon. */
  get ackDue() {
    return this.w[this.o + 3 /* AckDue */] !== 0;
  }
  /** The first `sentCount` queued messages have gone out at least once. */
  get sentCount() {
    return this.w[this.o + 4 /* SentCount */];
  }
  /** Bytes queued: the next message goes at this offset of `buf`. */
  get usedBytes() {
    return this.w[this.o + 6 /* UsedBytes */];
  }
  /** Seqno of the message at the front of the queue. */
  get firstSeq() {
    return this.w[this.o + 7 /* FirstSeq */] >>> 0;
  }
  /** Seqno of the next message queued. */
  get nextSeq() {
    return this.w[this.o + 8 /* NextSeq */] >>> 0;
  }
  /** Seqno of the last reliable message processed from the peer (our ack). */
  get lastProcessed() {
    return this.w[this.o + 9 /* LastProcessed */] >>> 0;
  }
  /** When the peer was last heard (the receive step, `heard`). */
  get lastHeard() {
    return this.w[this.o + 11 /* LastHeard */];
  }
  /** Statistics: messages sent for the first time and resent since `reset`. */
  get sent() {
    return this.w[this.o + 16 /* Sent */];
  }
  get resent() {
    return this.w[this.o + 17 /* Resent */];
  }
  /** Messages the last fill() put in its packet. */
  get filledMessages() {
    return this.w[this.o + 18 /* FilledMessages */];
  }
  /** Newest unreliable timestamp applied from the peer (signed 32-bit, as it came). */
  get newestTimestamp() {
    return this.w[this.o + 20 /* NewestTimestamp */];
  }
  /** Smoothed RTT in ms, 0 before the first sample. */
  get srtt() {
    return this.table.doubles[this.o + 0 /* Srtt */ >> 1];
  }
  /** Bytes of the preallocated buffers (for the memory budget). */
  poolBytes() {
    return this.buf.byteLength;
  }
  // ---------------------------------------------------------------- life cycle
  /** Forget everything; the next seqno sent is `initialSeq` and the peer's first is expected at `peerInitialSeq`. */
  reset(now, initialSeq = 0, peerInitialSeq = 0) {
    this.run(0 /* Reset */, now | 0, initialSeq | 0, peerInitialSeq | 0, 0);
  }
  /**
   * Forget what was received: the peer's next reliable message is expected at
   * `peerInitialSeq`, and any unreliable timestamp is current again. The queue stays.
   */
  resetReceive(peerInitialSeq) {
    this.run(1 /* ReceiveReset */, peerInitialSeq | 0, 0, 0, 0);
  }
  /** Start the RTT estimate at `ms` (from an earlier connection, say) instead of the first sample. */
  seedRtt(ms) {
    if (!(ms >= 0)) throw new RangeError(`RTT of ${ms} ms`);
    this.table.doubles[this.o + 0 /* Srtt */ >> 1] = ms;
  }
  /** The peer was heard from at `now` (the owner decides what counts: a valid packet, say). */
  heard(now) {
    this.w[this.o + 11 /* LastHeard */] = now;
  }
  // ---------------------------------------------------------------- queueing
  /** Free bytes in the queue. */
  room() {
    return this.capacityBytes - this.usedBytes;
  }
  /** Free bytes for one more message of `payload` bytes, or false. */
  canQueue(payload) {
    return this.usedBytes + RELIABLE_HEADER + payload <= this.capacityBytes;
  }
  /**
   * Append a reliable message: writes seqno and type, returns the payload's offset in
   * `buf` for the caller to fill with exactly `payload` bytes of a well-formed payload
   * (the queue finds message boundaries by reading them), or -1 when the queue is full
   * (the caller kicks). Throws for a message that could never fit a packet, and for a
   * fixed-size type given another size.
   */
  queue(type, payload) {
    const o = this.run(2 /* Queue */, type, payload, 0, 0);
    if (o < -1) throw new RangeError(`type ${type} with a payload of ${payload} bytes: ${FAILURES[-2 - o]}`);
    return o;
  }
  /**
   * Append a message copied from the owner's memory: its type byte and payload, `bytes`
   * bytes in all, lie at `from` in the table's `out`. Leaves at least `reserve` bytes free
   * after it; returns false, queueing nothing, when they do not fit. The owner's own
   * messages only (see `EndpointTable.broadcast`). Throws when the table is not the owner's.
   */
  queueCopy(from, bytes, reserve) {
    if (!this.table.placed || bytes > this.table.maxMessage)
      throw new RangeError(`copy of ${bytes} bytes: the queue is not in its owner's memory, or it cannot fit a packet`);
    return this.run(3 /* QueueCopy */, from, bytes, reserve, 0) !== 0;
  }
  /**
   * For a writer that appends messages itself: the offset in `buf` where it may write
   * `bytes` bytes of whole messages, or -1 when they do not fit. Nothing changes until
   * `commit`. Each message is `seqno u32, type u8, payload`, the seqnos `nextSeq`,
   * `nextSeq + 1`, ... in order.
   */
  reserve(bytes) {
    const used = this.usedBytes;
    return used + bytes <= this.capacityBytes ? used : -1;
  }
  /**
   * Take in `messages` messages a writer appended after `usedBytes` (see `reserve`), which
   * now end at offset `end`. Their seqnos must be the next ones; the next message queued
   * gets the seqno after them. The writer is trusted with their boundaries (the native
   * entity sync: what it writes is tested byte for byte); what is checked costs no walk:
   * the span, the first message's seqno, and a lone message's type and size.
   */
  commit(end, messages) {
    const r = this.run(5 /* Commit */, end, messages, 0, 0);
    if (r < 0) throw new RangeError(`commit of ${messages} messages ending at ${end}: a bad ${FAILURES[-2 - r]} (queue at ${this.usedBytes} of ${this.capacityBytes})`);
  }
  /**
   * Apply an ack from the peer. Messages up to and including `ack` leave the queue;
   * if the RTT probe is among them, it gives a sample. Returns false for an ack of
   * something never sent (the caller counts it).
   */
  acknowledge(ack, now) {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, 6 /* Acknowledge */, this.i, ack | 0, now | 0, 0, 0) !== 0;
  }
  /** Smoothed RTT, as an integer in 0..65535. */
  ping() {
    return this.run(17 /* Ping */, 0, 0, 0, 0);
  }
  // ---------------------------------------------------------------- receiving
  /**
   * Decide what to do with an incoming reliable seqno, and count it: PROCESS advances the
   * cursor (received); DUPLICATE and OUT_OF_ORDER are dropped.
   */
  acceptReliable(seq, counters) {
    const v = this.run(9 /* AcceptReliable */, seq | 0, 0, 0, 0);
    const ch = this.channel;
    counters[v === PROCESS ? ch.receivedIndex : v === OUT_OF_ORDER ? ch.outOfOrderIndex : ch.duplicateIndex]++;
    return v;
  }
  /**
   * Whether unreliable messages stamped `timestamp` are current: CURRENT (and it becomes the
   * newest), STALE (older than the newest applied), or FUTURE: further ahead of the newest
   * than our own clock has moved since it was applied, plus FUTURE_SLACK_MS. A peer's clock
   * runs at our pace; a stamp from the future is forged or corrupted, and believing it would
   * make every genuine packet stale for as long as the stamp is ahead. The owner drops the
   * messages of any other verdict than CURRENT through `dropUnreliable`.
   */
  acceptUnreliable(timestamp, now) {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, 10 /* AcceptUnreliable */, this.i, timestamp | 0, now | 0, 0, 0);
  }
  /** Count the `messages` unreliable messages of a datagram that acceptUnreliable found STALE (each) or FUTURE (once). */
  dropUnreliable(verdict, messages, counters) {
    if (verdict === STALE) counters[this.channel.staleIndex] += messages;
    else counters[this.channel.futureIndex]++;
  }
  // ---------------------------------------------------------------- sending
  /**
   * Whether a packet should go out now for the sake of reliable messages: one sent now
   * would carry a never-sent message, or unacked ones have waited `resendMs`.
   */
  wantsSend(now, resendMs) {
    return this.run(11 /* WantsSend */, now | 0, resendMs | 0, 0, 0) !== 0;
  }
  /**
   * Whether the peer is owed an ack, or messages sent and not acknowledged have waited the
   * channel's resend interval: the part of `due` that cannot wait for a packet soon to go
   * anyway (messages never sent can).
   */
  owed(now) {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, 12 /* Owed */, this.i, now | 0, 0, 0, 0) !== 0;
  }
  /**
   * Whether a packet should go out now: the peer is owed an ack, or `wantsSend` with the
   * channel's resend interval.
   */
  due(now) {
    return this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, 13 /* Due */, this.i, now | 0, 0, 0, 0) !== 0;
  }
  /**
   * Start a packet in `out`: header with our ack and `timestamp`, then every queued
   * message that fits, oldest first (from message `first`, for a final flush that must
   * carry the whole queue over several packets). Returns the offset after them; the caller
   * may add unreliable messages and must then call `finishPacket`. A packet in the table's
   * `out` is written in place; another is written in the table's own packet and copied.
   */
  fill(out, now, timestamp, first = 0) {
    if (out !== this.lastOut) this.look(out);
    const t = this.table;
    let base = this.lastBase;
    if (base < 0) {
      if (t.packet.length === 0) throw new RangeError("fill: a placed table writes packets in its own memory only (the owner's `out`)");
      base = t.packet.byteOffset - t.out.byteOffset;
    }
    const end = this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, 15 /* Fill */, this.i, base, now | 0, timestamp | 0, first);
    if (end < 0) throw new RangeError(`queued messages do not end where the queue does (${this.usedBytes}): a text without its NUL?`);
    if (this.lastBase < 0) {
      const packet = t.packet;
      if (out.length >= packet.length) out.set(packet);
      else for (let i = 0; i < end; i++) out[i] = packet[i];
    }
    return end;
  }
  /**
   * The messages the last fill() put in its packet went out once more, in another packet of
   * the same moment that begins with the same bytes (an update spread over several packets,
   * each carrying the queue's front so that any one of them is whole): they count as sent
   * again, and a probe among them is voided (Karn), as a second fill() would have it; the
   * caller keeps the first packet's start instead of writing it again.
   */
  repeat() {
    this.k.transport(this.layout, this.m0, this.m1, this.m2, this.m3, 16 /* Repeat */, this.i, 0, 0, 0, 0);
  }
  /** Remember `out` for fill(): whether it lies in the table's `out` (and where), else -1. Once per owner buffer. */
  look(out) {
    this.lastOut = out;
    this.lastBase = this.table.offsetOf(out, this.channel.maxPacket);
  }
};

// modules/transport/receive.ts
var ONE_UNRELIABLE_AT = HEADER_SIZE + UNRELIABLE_HEADER;
var ReceiveStep = class {
  view;
  packet;
  offsets;
  counters;
  owner;
  /** The table `out` whose offset of `packet` is `#base` (-1: not in it). */
  #out = null;
  #base = -1;
  constructor(view, packet, offsets, counters, owner) {
    this.view = view;
    this.packet = packet;
    this.offsets = offsets;
    this.counters = counters;
    this.owner = owner;
  }
  /**
   * Receive from `bytes` (viewed from its byte 0) instead: a new DataView only when `bytes`
   * is another array than the last (a host receives into one buffer), so a datagram
   * allocates nothing.
   */
  use(bytes) {
    if (bytes === this.packet) return;
    this.packet = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#out = null;
  }
  /** Where `packet` lies in the `out` of `ep`'s table, or -1: looked up when the table or the packet changes. */
  #place(ep) {
    this.#out = ep.table.out;
    this.#base = ep.table.offsetOf(this.packet, HEADER_SIZE);
  }
  /**
   * The step on the datagram in `packet`, validated by the owner as of `shape` (for
   * SHAPE_ANY with the offsets recorded, reliable messages first), from the peer of `ep`, at
   * `now`. `tag` goes back to the owner with each message. Returns RECEIVE_* bits.
   */
  run(ep, shape, now, tag) {
    const v = this.view;
    if (ep.table.out !== this.#out) this.#place(ep);
    const base = this.#base;
    const r = base >= 0 ? ep.k.transport(ep.layout, ep.m0, ep.m1, ep.m2, ep.m3, 8 /* ReceiveAt */, ep.i, base, now | 0, shape, 0) : ep.k.transport(
      ep.layout,
      ep.m0,
      ep.m1,
      ep.m2,
      ep.m3,
      7 /* Receive */,
      ep.i,
      v.getInt32(HEADER_ACK),
      shape === SHAPE_ONE_UNRELIABLE ? v.getInt32(HEADER_TIMESTAMP) : 0,
      now | 0,
      shape
    );
    if (r === RECEIVE_BAD_ACK) {
      this.counters[ep.channel.badAckIndex]++;
      return RECEIVE_BAD_ACK;
    }
    if (shape !== SHAPE_ANY) {
      if (r < 16) return r;
      ep.dropUnreliable(r >> 4, 1, this.counters);
      return r & 15;
    }
    const result = r;
    const packet = this.packet;
    const offsets = this.offsets;
    const counters = this.counters;
    const owner = this.owner;
    const rel = packet[HEADER_REL];
    const unrel = packet[HEADER_UNREL];
    let processed = 0;
    const ch = ep.channel;
    for (let m = 0; m < rel; m++) {
      const p = offsets[m];
      const seq = v.getUint32(p - RELIABLE_HEADER);
      const verdict2 = ep.k.transport(ep.layout, ep.m0, ep.m1, ep.m2, ep.m3, 9 /* AcceptReliable */, ep.i, seq | 0, 0, 0, 0);
      if (verdict2 !== PROCESS) {
        counters[verdict2 === OUT_OF_ORDER ? ch.outOfOrderIndex : ch.duplicateIndex]++;
        continue;
      }
      counters[ch.receivedIndex]++;
      processed++;
      if (!owner.reliable(tag, packet[p - 1], p, seq)) return result | RECEIVE_STOPPED;
    }
    if (unrel === 0 && processed === 0) return result;
    const timestamp = v.getInt32(HEADER_TIMESTAMP);
    const verdict = ep.k.transport(ep.layout, ep.m0, ep.m1, ep.m2, ep.m3, 10 /* AcceptUnreliable */, ep.i, timestamp, now | 0, 0, 0);
    if (unrel === 0) return result;
    if (verdict !== CURRENT) {
      ep.dropUnreliable(verdict, unrel, counters);
      return result;
    }
    for (let m = rel; m < rel + unrel; m++) {
      const p = offsets[m];
      owner.unreliable(tag, packet[p - 1], p, timestamp);
    }
    return result | RECEIVE_CURRENT;
  }
};

// modules/protocol/bytes.ts
function getU32(b, o) {
  return (b[o] << 24 | b[o + 1] << 16 | b[o + 2] << 8 | b[o + 3]) >>> 0;
}
function setU32(b, o, v) {
  b[o] = v >>> 24;
  b[o + 1] = v >>> 16;
  b[o + 2] = v >>> 8;
  b[o + 3] = v;
}

// modules/protocol/codec.ts
function writeHeader(b, ack, timestamp, rel, unrel) {
  setU32(b, HEADER_APP_ID, APP_ID);
  setU32(b, HEADER_ACK, ack);
  setU32(b, HEADER_TIMESTAMP, timestamp);
  b[HEADER_REL] = rel;
  b[HEADER_UNREL] = unrel;
  return HEADER_SIZE;
}
function payloadSize(b, o, type, end) {
  const fixed = typeTable().size[type - TYPE_BASE];
  if (fixed >= 0) {
    if (type === Msg.Name) return nameSize(b, null, o, end);
    return o + fixed > end ? -1 : fixed;
  }
  if (type === Msg.Update) {
    if (o + 1 > end) return -1;
    const size = 1 + b[o] * UPDATE_ENTRY;
    return o + size > end ? -1 : size;
  }
  return chatSize(b, null, o, end);
}
function chatSize(b, v, o, end) {
  if (o + 4 > end) return -1;
  const limit = o + 4 + CHAT_LENGTH;
  const at = nulAt(b, v, o + 4, end < limit ? end : limit);
  return at < 0 ? -2 : at + 1 - o;
}
function nameSize(b, v, o, end) {
  if (o + 4 + NAME_LENGTH > end) return -1;
  return nulAt(b, v, o + 4, o + 4 + NAME_LENGTH) < 0 ? -3 : 4 + NAME_LENGTH;
}
function nulAt(b, v, from, stop) {
  let i = from;
  if (i + 4 <= stop) {
    const view = v !== null ? v : new DataView(b.buffer, b.byteOffset, b.byteLength);
    for (; i + 4 <= stop; i += 4) {
      const w = view.getInt32(i, true);
      if ((w - ONES & ~w & TOP_BITS) !== 0) break;
    }
  }
  for (; i < stop; i++) if (b[i] === 0) return i;
  return -1;
}
function countBadSize(size, counters) {
  if (size === -2) counters[Counter.UnterminatedChat]++;
  else if (size === -3) counters[Counter.UnterminatedName]++;
  else counters[Counter.Truncated]++;
}
var MAX_MESSAGES = MAX_PACKET - HEADER_SIZE >> 1;
var APP_ID_I32 = APP_ID | 0;
var INPUT_SHAPE = 1 << 8 | Msg.Input;
var ACK_LENGTH = HEADER_SIZE;
var INPUT_AT = ONE_UNRELIABLE_AT;
var ACK_INPUT_LENGTH = INPUT_AT + 5;
var SHAPE_ACK = SHAPE_NONE;
var SHAPE_ACK_INPUT = SHAPE_ONE_UNRELIABLE;
var SHAPE_OTHER = SHAPE_ANY;
function shapeFromClient(v, length) {
  if ((length === ACK_LENGTH || length === ACK_INPUT_LENGTH) && v.getInt32(HEADER_APP_ID) === APP_ID_I32) {
    const shape = v.getInt32(HEADER_REL) >> 8;
    if (length === ACK_LENGTH) {
      if (shape >> 8 === 0) return SHAPE_ACK;
    } else if (shape === INPUT_SHAPE) return SHAPE_ACK_INPUT;
  }
  return SHAPE_OTHER;
}
function validatePacket(b, length, from, counters, offsets, view = null) {
  if (length < HEADER_SIZE) {
    counters[Counter.TooShort]++;
    return false;
  }
  if (length > MAX_PACKET) {
    counters[Counter.TooLong]++;
    return false;
  }
  const id = HEADER_APP_ID;
  if (b[id] !== 242 || b[id + 1] !== 112 || b[id + 2] !== 135 || b[id + 3] !== 197) {
    counters[Counter.BadAppId]++;
    return false;
  }
  const t = types !== null ? types : typeTable();
  const sizes = t.size;
  const senders = t.senders;
  const reliableRow = t.reliable;
  let o = HEADER_SIZE;
  const rel = b[HEADER_REL];
  const total = rel + b[HEADER_UNREL];
  for (let m = 0; m < total; m++) {
    const reliable = m < rel;
    const p = o + (reliable ? RELIABLE_HEADER : UNRELIABLE_HEADER);
    if (p > length) {
      counters[Counter.Truncated]++;
      return false;
    }
    const type = b[p - 1];
    const row = type - TYPE_BASE;
    const sender = row >= 0 && row < TYPE_ROWS ? senders[row] : 0;
    if (sender === 0) {
      counters[Counter.UnknownType]++;
      return false;
    }
    if (reliableRow[row] === 1 !== reliable) {
      counters[Counter.WrongChannel]++;
      return false;
    }
    if ((sender & from) === 0) {
      counters[Counter.WrongDirection]++;
      return false;
    }
    let size;
    if (type === Msg.Chat) size = chatSize(b, view, p, length);
    else if (type === Msg.Name) size = nameSize(b, view, p, length);
    else {
      size = sizes[row];
      if (size < 0) size = payloadSize(b, p, type, length);
      else if (p + size > length) size = -1;
    }
    if (size < 0) {
      countBadSize(size, counters);
      return false;
    }
    if (offsets !== void 0) offsets[m] = p;
    o = p + size;
  }
  for (; o < length; o++) {
    if (b[o] !== 0) {
      counters[Counter.TrailingBytes]++;
      return false;
    }
  }
  return true;
}
var PRINTABLE_FIRST = 32;
var PRINTABLE_LAST = 126;
var Fields = class {
  id = 0;
  other = 0;
  a = 0;
  b = 0;
  /** Offset and length of a byte string (chat text without NUL, name without padding). */
  textOffset = 0;
  textLength = 0;
  /** Non-zero when that string holds a byte outside printable ASCII (PRINTABLE_FIRST..PRINTABLE_LAST), found in the same walk. */
  unprintable = 0;
  /**
   * The bytes the text readers last read and a DataView of them, through which they read
   * four bytes at a time: made once for each buffer this Fields reads (an owner that reads
   * one buffer makes it once), or given with `use`.
   */
  bytes = null;
  view = null;
  /** The view's byteLength (on XS a getter costs about a call). */
  viewLength = 0;
  /** Read `bytes` through `view` (a DataView of the same bytes from the same offset 0), which the owner already has. */
  use(bytes, view) {
    this.bytes = bytes;
    this.view = view;
    this.viewLength = view.byteLength;
  }
  /** A DataView of `b` from its offset 0: the one made for it when `b` was the last buffer read, else a new one. */
  viewOf(b) {
    if (this.bytes !== b) this.use(b, new DataView(b.buffer, b.byteOffset, b.byteLength));
    return this.view;
  }
};
var TOP_BITS = 2155905152 | 0;
var ONES = 16843009;
var SPACES = 538976288;
function readText(v, from, max, f) {
  const stop = from + max;
  const length = f.viewLength;
  const last = length - 4;
  let bad = 0;
  let at = from;
  for (; at < stop; at += 4) {
    const w = at <= last ? v.getInt32(at, true) : at < length ? v.getInt32(last, true) >>> (at - last << 3) : 0;
    if (((w | w - SPACES | w + ONES) & TOP_BITS) === 0) continue;
    for (let k = 0; k < 32; k += 8) {
      const c = w >> k & 255;
      if (c === 0) {
        const n = at + (k >> 3) - from;
        f.textLength = n;
        f.unprintable = bad | (at + (k >> 3) >= length ? 1 : 0);
        return;
      }
      if (c < PRINTABLE_FIRST || c > PRINTABLE_LAST) bad = 1;
    }
  }
  f.textLength = max;
  f.unprintable = bad;
}
function writeId(b, o, id) {
  setU32(b, o, id);
  return o + 4;
}
function chatPayloadSize(textLength) {
  return 4 + textLength + 1;
}
function readChat(b, o, f) {
  const v = f.bytes === b ? f.view : f.viewOf(b);
  f.id = v.getUint32(o);
  f.textOffset = o + 4;
  readText(v, o + 4, CHAT_LENGTH, f);
}
function writeSelection(b, o, id, ship, weapon) {
  setU32(b, o, id);
  b[o + 4] = ship;
  b[o + 5] = weapon;
  return o + 6;
}
function readSelection(b, o, f) {
  f.id = getU32(b, o);
  f.a = b[o + 4];
  f.b = b[o + 5];
}
function readName(b, o, f) {
  const v = f.bytes === b ? f.view : f.viewOf(b);
  f.id = v.getUint32(o);
  f.textOffset = o + 4;
  readText(v, o + 4, NAME_LENGTH, f);
}
function readInputView(v, b, o) {
  const w = v.getInt32(o);
  return (w >> 24 !== 0 ? INPUT_FORWARD : 0) | ((w & 16711680) !== 0 ? INPUT_BACKWARD : 0) | ((w & 65280) !== 0 ? INPUT_LEFT : 0) | ((w & 255) !== 0 ? INPUT_RIGHT : 0) | (b[o + 4] !== 0 ? INPUT_SHOOTING : 0);
}
function writeReject(b, o, reason) {
  b[o] = reason;
  return o + 1;
}

// modules/protocol/channel.ts
var LWAR_RECEIVE_INDEX = Object.freeze({
  badAck: Counter.BadAck,
  duplicate: Counter.DuplicateReliable,
  outOfOrder: Counter.OutOfOrderReliable,
  received: Counter.ReliableReceived,
  stale: Counter.StaleUnreliable,
  future: Counter.FutureTimestamp
});
function lwarChannel(queueBytes, resendMs, counters = null) {
  return new Channel({
    appId: APP_ID,
    maxPacket: MAX_PACKET,
    sizes: typeTable().size,
    typeBase: TYPE_BASE,
    textPrefix: 4,
    textMax: CHAT_LENGTH,
    queueBytes,
    resendMs,
    counters,
    sentIndex: Counter.ReliableSent,
    resentIndex: Counter.ReliableResent,
    receiveIndex: LWAR_RECEIVE_INDEX
  });
}

// modules/server/events.ts
var LogEvent = Object.freeze({
  /** value: player id */
  Join: 1,
  /** value: player id (the client sent Disconnect) */
  Leave: 2,
  /** value: KickReason */
  Kick: 3,
  /** slot is -1; value: RejectReason */
  Reject: 4,
  /** value: player id */
  Timeout: 5,
  /** value: player id; the name is in `server.names` */
  Rename: 6,
  /** value: player id; the text is in `server.lastChat` */
  Chat: 7,
  /**
   * A ship was destroyed (the game's death hook, not the server): slot is the victim;
   * value: `deathValue(killerSlot, cause)`.
   */
  Death: 8
});
function deathValue(killerSlot, cause) {
  return killerSlot + 1 << 8 | cause & 255;
}
function deathKiller(value) {
  return (value >> 8) - 1;
}
function deathCause(value) {
  return value & 255;
}
var KickReason = Object.freeze({
  QueueOverflow: 1,
  Misbehaviour: 2,
  Shutdown: 3
});
var eventNames = Object.freeze(["", "join", "leave", "kick", "reject", "timeout", "rename", "chat", "death"]);
var kickNames = Object.freeze(["", "reliable queue overflow", "misbehaviour", "shutdown"]);
function describeKick(reason) {
  return kickNames[reason] ?? `reason ${reason}`;
}
var KICK_LABELS = Object.freeze(["", "queue_overflow", "misbehaviour", "shutdown"]);

// modules/server/updates.ts
var RoundRobinPlanner = class {
  #entities;
  #cursor;
  /** The server's [slot × capacity + index] generations each client knows (0: none). */
  #known;
  /** Most entries one plan lists: what the server's packets per update can carry. */
  limit;
  constructor(entities, maxPlayers, known, limit = entities.capacity) {
    this.#entities = entities;
    this.#cursor = new Uint16Array(maxPlayers);
    this.#known = known;
    this.limit = limit;
  }
  plan(slot, list, _now) {
    const known = this.#known;
    const end = this.#entities.end;
    const base = slot * this.#entities.capacity;
    const start2 = this.#cursor[slot] < end ? this.#cursor[slot] : 0;
    const limit = this.limit;
    let n = 0;
    for (let i = start2; i < end && n < limit; i++) if (known[base + i] !== 0) list[n++] = i;
    for (let i = 0; i < start2 && n < limit; i++) if (known[base + i] !== 0) list[n++] = i;
    return n;
  }
  commit(slot, list, sent, _now) {
    if (sent > 0) this.#cursor[slot] = list[sent - 1] + 1;
  }
  resetSlot(slot) {
    this.#cursor[slot] = 0;
  }
  added(_slot, _index) {
  }
  removed(_slot, _index) {
  }
  applyActions(_slot, _actions, _n) {
  }
  poolBytes() {
    return this.#cursor.byteLength;
  }
};
var WHEEL = 8;
var SETS = 2 + 2 * WHEEL;
var PriorityPlanner = class {
  #cap;
  #words;
  focus;
  near;
  mid;
  far;
  limit;
  /** The one list every plan fills and every commit reads, and the one action list `applyActions` takes. */
  list;
  actions;
  /** Update ticks planned, per slot. */
  #tick;
  /** Per slot: the index the next scan of the carried-over set starts at. */
  #carryCursor;
  /** [(slot × SETS + set) × words + word]. */
  #sets;
  /** [slot × capacity + index]: 1 while the client knows the entity (its Add was queued). */
  #known;
  #bytes;
  #kernels;
  #b;
  #plannedSlot = -1;
  syncArrays;
  /**
   * `native`: the platform's loops (plan, commit and notify run in C) and where to carve the
   * planner's state from. `list` and `actions`: the server's plan list and its entity sync's
   * action list, which the binding takes; absent, the planner carves its own.
   */
  constructor(entities, maxPlayers, focus, options, native, list = null, actions = null) {
    const e = entities;
    const cap = e.capacity;
    this.#cap = cap;
    this.#words = cap + 31 >> 5;
    this.focus = focus;
    this.near = options?.near ?? 700;
    this.mid = options?.mid ?? 1400;
    this.far = options?.far ?? 2400;
    this.limit = options?.limit ?? cap;
    this.#kernels = requireKernels(native, "the priority planner");
    const n = maxPlayers;
    let a = Arena.measuring();
    let ownList = null;
    let ownActions = null;
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, native?.memory ?? null);
      this.#tick = a.i32(n);
      this.#carryCursor = a.i32(n);
      this.#sets = a.i32(n * SETS * this.#words);
      if (actions === null) ownActions = a.i32(cap);
      if (list === null) ownList = a.u16(cap);
      this.#known = a.u8(n * cap);
    }
    a.done();
    this.#bytes = a.bytes;
    this.list = list ?? ownList;
    this.actions = actions ?? ownActions;
    const f = focus;
    const tick = this.#tick;
    const steady = f !== null && f.steady !== void 0 ? f.steady : null;
    const b = new Binding(
      NATIVE_LAYOUT.plan,
      {
        x: e.x,
        y: e.y,
        vx: e.vx,
        vy: e.vy,
        owner: e.owner,
        steady: steady ?? tick,
        focusX: f !== null ? f.focusX : tick,
        focusY: f !== null ? f.focusY : tick,
        focusIndex: f !== null ? f.focusIndex : tick,
        sets: this.#sets,
        tick,
        cursor: this.#carryCursor,
        known: this.#known,
        list: this.list,
        actions: this.actions
      },
      0,
      native
    );
    const w = b.words;
    const at = b.scalars;
    w[at + 0 /* Capacity */] = cap;
    w[at + 1 /* Words */] = this.#words;
    w[at + 2 /* Limit */] = this.limit;
    w[at + 3 /* Near */] = this.near;
    w[at + 4 /* Mid */] = this.mid;
    w[at + 5 /* Far */] = this.far;
    w[at + 6 /* HasFocus */] = f !== null ? 1 : 0;
    w[at + 7 /* HasSteady */] = steady !== null ? 1 : 0;
    w[at + 8 /* PosShift */] = POS_SHIFT;
    this.#b = b;
    this.syncArrays = { sets: this.#sets, seen: this.#known };
  }
  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot) {
    const perSlot = SETS * this.#words;
    this.#sets.fill(0, slot * perSlot, (slot + 1) * perSlot);
    this.#known.fill(0, slot * this.#cap, (slot + 1) * this.#cap);
    this.#carryCursor[slot] = 0;
  }
  added(slot, index) {
    this.actions[0] = index;
    this.#notify(slot, 1);
  }
  removed(slot, index) {
    this.actions[0] = ~index;
    this.#notify(slot, 1);
  }
  applyActions(slot, actions, n) {
    if (actions !== this.actions) for (let j = 0; j < n; j++) this.actions[j] = actions[j];
    this.#notify(slot, n);
  }
  #notify(slot, n) {
    const b = this.#b;
    this.#kernels.notify(b.layout, b.m0, b.m1, b.m2, b.m3, slot, n);
  }
  plan(slot, list, _now) {
    if (list !== this.list) throw new RangeError("PriorityPlanner: plan with a list other than its own (planner.list)");
    const b = this.#b;
    this.#plannedSlot = slot;
    return this.#kernels.plan(b.layout, b.m0, b.m1, b.m2, b.m3, slot);
  }
  commit(slot, _list, sent, _now) {
    if (slot !== this.#plannedSlot) throw new RangeError(`commit for slot ${slot} after a plan for slot ${this.#plannedSlot}`);
    this.#plannedSlot = -1;
    const b = this.#b;
    this.#kernels.commit(b.layout, b.m0, b.m1, b.m2, b.m3, slot, sent);
  }
  poolBytes() {
    return this.#bytes;
  }
};

// modules/server/entity-sync.ts
var NativeEntitySync = class {
  #planner;
  #m;
  #kernels;
  #b;
  #words;
  #at = 0;
  /** The C tells the planner of its actions itself (the planner's syncArrays are bound). */
  #notifies = false;
  /** The Adds and Removes the C queued (~index: a Remove), for the planner. */
  #actions;
  #arena;
  #queues;
  #native;
  /**
   * `arena` is the buffer the queues live in, `queues` their views; `actions` is room for
   * a capacity's worth of actions, in a buffer of the same four as the rest.
   */
  constructor(m, arena, queues, actions, planner, kernels, native) {
    this.#m = m;
    this.#kernels = kernels;
    this.#actions = actions;
    this.#arena = arena;
    this.#queues = queues;
    this.#native = native;
    this.#planner = planner;
    this.#b = this.#bind(planner);
    this.#words = this.#b.words;
  }
  get planner() {
    return this.#planner;
  }
  /** A planner that takes the actions in C (the game's) gets a binding with its arrays: start-up only, it allocates. */
  set planner(planner) {
    const had = this.#planner.syncArrays;
    this.#planner = planner;
    if (planner.syncArrays !== had) {
      this.#b = this.#bind(planner);
      this.#words = this.#b.words;
    }
  }
  #bind(planner) {
    const m = this.#m;
    const e = m.entities;
    const queues = this.#queues;
    const arena = this.#arena;
    const n = queues.length;
    const own = planner.syncArrays ?? null;
    const b = new Binding(
      NATIVE_LAYOUT.sync,
      {
        dirty: m.dirty,
        alive: e.alive,
        generation: e.generation,
        known: m.known,
        owner: e.owner,
        type: e.type,
        arena,
        actions: this.#actions,
        sets: own !== null ? own.sets : m.dirty,
        seen: own !== null ? own.seen : e.type
      },
      n,
      this.#native
    );
    const w = b.words;
    const at = b.scalars;
    w[at + 0 /* Capacity */] = e.capacity;
    w[at + 1 /* Words */] = e.capacity + 31 >> 5;
    w[at + 2 /* ActionRoom */] = this.#actions.length;
    w[at + 3 /* QueueBytes */] = m.endpoints[0].capacityBytes;
    w[at + 4 /* Keep */] = m.keep;
    w[at + 5 /* Notify */] = own !== null ? 1 : 0;
    for (let i = 0; i < n; i++) w[at + 10 /* Queue */ + i] = queues[i].byteOffset - arena.byteOffset;
    this.#at = at;
    this.#notifies = own !== null;
    return b;
  }
  slot(s, now) {
    const b = this.#b;
    const w = this.#words;
    const at = this.#at;
    const ep = this.#m.endpoints[s];
    let state = 2 /* Actions */;
    while (state === 2 /* Actions */) {
      w[at + 6 /* Used */] = ep.usedBytes;
      w[at + 7 /* Seq */] = ep.nextSeq;
      const n = this.#kernels.sync(b.layout, b.m0, b.m1, b.m2, b.m3, s);
      if (ep.count === 0) this.#m.frontSince[s] = now;
      ep.commit(w[at + 6 /* Used */], w[at + 8 /* Messages */]);
      state = w[at + 9 /* State */];
      if (n !== 0 && !this.#notifies) this.#planner.applyActions(s, this.#actions, n);
    }
    return state === 0 /* Done */;
  }
};
var EntityReconciler = class {
  #state;
  #entities;
  #sync;
  /** Int32 words of dirty bits per player. */
  #words;
  /** Bit s set while slot s has dirty bits. */
  #dirtyMask = 0;
  /** Some index is pending (state.pending): marked, not yet every player's dirty bit. */
  #pending = false;
  #kernels;
  /** The marking's binding: dirty and pending. */
  #mark;
  #planner;
  /**
   * `arena` is the buffer the queues live in, `queues` their views (the native sync writes
   * into them). The state's tables must be carved.
   */
  constructor(state, arena, queues, planner, native) {
    const e = state.entities;
    this.#state = state;
    this.#entities = e;
    this.#words = e.capacity + 31 >> 5;
    this.#planner = planner;
    const memory = {
      entities: e,
      dirty: state.dirty,
      known: state.known,
      endpoints: state.endpoints,
      keep: MAX_PACKET + state.leaveReserve,
      frontSince: state.frontSince
    };
    const kernels = requireKernels(native, "the entity sync");
    this.#sync = new NativeEntitySync(memory, arena, queues, state.actions, planner, kernels, native);
    this.#kernels = kernels;
    this.#mark = new Binding(NATIVE_LAYOUT.mark, { dirty: state.dirty, pending: state.pending }, 0, native);
    this.#mark.words[this.#mark.scalars + 0 /* Words */] = this.#words;
  }
  /** The planner that hears of each Add and Remove (the game installs its own). */
  get planner() {
    return this.#planner;
  }
  set planner(planner) {
    this.#planner = planner;
    this.#sync.planner = planner;
  }
  /** A newcomer in `slot` knows nothing: every index is to be looked at (a bot's none: it reads the game's tables). */
  joined(slot) {
    const t = this.#state;
    const cap = this.#entities.capacity;
    t.known.fill(0, slot * cap, (slot + 1) * cap);
    if ((t.botMask >> slot & 1) !== 0) this.#dirtyMask &= ~(1 << slot);
    else this.#markAll(slot);
  }
  /**
   * The entity at `index` was added or removed: every player reconciles it at its next
   * chance. It is pending until then (one bit, where every player's would cost a typed-array
   * write each: a game step adds and removes many); `reconcile` makes it each player's.
   */
  markIndex(index) {
    this.#state.pending[index >> 5] |= 1 << (index & 31);
    this.#pending = true;
  }
  /** Mark every index up to the pool's high-water mark dirty for `slot`. */
  #markAll(slot) {
    const dirty = this.#state.dirty;
    const words = this.#words;
    const end = this.#entities.end;
    const base = slot * words;
    dirty.fill(0, base, base + words);
    for (let w = 0; w < words && w << 5 < end; w++) dirty[base + w] = -1;
    this.#dirtyMask |= 1 << slot;
  }
  /**
   * Reconcile each player's dirty indices while its queue keeps a packet's worth of room
   * (the rest of the queue is for player events and the final Leave): Remove what it knows
   * that is gone or replaced, Add what lives that it does not know.
   */
  reconcile(now) {
    const t = this.#state;
    if (this.#pending) {
      this.#pending = false;
      const peers = t.activeMask & ~t.botMask;
      const b = this.#mark;
      this.#kernels.mark(b.layout, b.m0, b.m1, b.m2, b.m3, peers);
      this.#dirtyMask |= peers;
    }
    const dirty = this.#dirtyMask;
    if (dirty === 0) return;
    const sync = this.#sync;
    const pendingKick = t.pendingKick;
    let left = dirty & t.activeMask & ~t.botMask;
    for (let s = 0; left >> s !== 0; s++) {
      const bit = 1 << s;
      if ((left & bit) === 0) continue;
      if (pendingKick[s] !== 0 || sync.slot(s, now)) left &= ~bit;
    }
    this.#dirtyMask = left;
  }
};

// modules/pilot.ts
var ALIGNED = 0.05;
var SUN_DANGER = 520;
var EDGE_DANGER = ARENA_RADIUS - 350;
var TWO_PI2 = 2 * Math.PI;
function wrapAngle(a) {
  while (a > Math.PI) a -= TWO_PI2;
  while (a <= -Math.PI) a += TWO_PI2;
  return a;
}
function steer(heading, target) {
  const d = wrapAngle(target - heading);
  return d > ALIGNED ? INPUT_LEFT : d < -ALIGNED ? INPUT_RIGHT : 0;
}
function avoid(x, y, heading) {
  const r = Math.hypot(x, y);
  if (r < SUN_DANGER) return steer(heading, Math.atan2(y, x)) | INPUT_FORWARD;
  if (r > EDGE_DANGER) return steer(heading, Math.atan2(-y, -x) + 0.6) | INPUT_FORWARD;
  return -1;
}
function scramble(a, b) {
  let h = Math.imul(a ^ 2654435769, 2246822507) ^ Math.imul(b + 1663821227, 3266489909);
  h ^= h >>> 13;
  h = Math.imul(h, 668265263);
  return (h ^ h >>> 16) >>> 0;
}
function cruise(slot, now, x, y, vx, vy, heading) {
  const away = avoid(x, y, heading);
  if (away >= 0) return away;
  const h = scramble(slot, Math.floor(now / 2e3));
  const target = (h & 65535) / 65536 * TWO_PI2;
  let bits = steer(heading, target);
  if (Math.abs(wrapAngle(target - heading)) < 1 && Math.hypot(vx, vy) < 220) bits |= INPUT_FORWARD;
  if ((h >>> 16) % 3 === 0) bits |= INPUT_SHOOTING;
  return bits;
}
function attack(x, y, vx, vy, heading, weapon, tx, ty, tvx, tvy, aim = 0.15, reach = 0.7, lead = 1, error = 0, fire = true) {
  const away = avoid(x, y, heading);
  if (away >= 0) return away;
  const w = weapon % WEAPON_SPEED.length;
  const speed = WEAPON_SPEED[w];
  const range = speed * WEAPON_LIFE[w] * DT * reach;
  const d = Math.hypot(tx - x, ty - y);
  const t = d / speed * lead;
  const lx = tx + (tvx - vx) * t;
  const ly = ty + (tvy - vy) * t;
  const target = Math.atan2(ly - y, lx - x) + error;
  const off = Math.abs(wrapAngle(target - heading));
  let bits = steer(heading, target);
  if (d > 300 && off < 0.8) bits |= INPUT_FORWARD;
  else if (d < 140) bits |= INPUT_BACKWARD;
  if (fire && off < aim && d < range) bits |= INPUT_SHOOTING;
  return bits;
}

// modules/server/pilots.ts
var DECIDE_MS = Math.floor(1e3 / STEP_HZ);
var GUARD_MS = Math.floor(SPAWN_GUARD_STEPS * 1e3 / STEP_HZ);
var WOBBLE_MS = 600;
var SIGHT = Object.freeze([6e3, 6e3, 6e3]);
var REACT_MS = Object.freeze([1e3, 600, 150]);
var AIM = Object.freeze([0.08, 0.1, 0.15]);
var REACH2 = Object.freeze([0.45, 0.55, 0.7]);
var LEAD = Object.freeze([0, 0.6, 1]);
var ERROR = Object.freeze([0.16, 0.1, 0]);
var QUIET = Object.freeze([4, 4, 1]);
var QUIET_MS = 3e3;
var WU = 1 / POS_ONE;
var WU_PER_S = STEP_HZ / POS_ONE;
var RADIANS = 2 * Math.PI / ANGLE_TURN;
var Pilots = class {
  /** 1 for a slot flown by the server. */
  bot;
  /** Index into BOT_SKILLS (config.botSkill). */
  skill;
  /** When the pilots decide next (ms, wrap-safe). */
  #nextAt = 0;
  /** By slot: the ship entity seen last (-1 none), and when it was first seen (ms). */
  #ship;
  #bornAt;
  /** By slot: the slot a bot hunts (-1 none), and since when (ms). */
  #target;
  #since;
  /** By slot: when its input last held the trigger (ms). */
  #firedAt;
  constructor(maxPlayers, skill = 1) {
    this.bot = new Uint8Array(maxPlayers);
    this.skill = skill < 0 ? 0 : skill > 2 ? 2 : skill | 0;
    this.#ship = new Int32Array(maxPlayers).fill(-1);
    this.#bornAt = new Int32Array(maxPlayers);
    this.#target = new Int32Array(maxPlayers).fill(-1);
    this.#since = new Int32Array(maxPlayers);
    this.#firedAt = new Int32Array(maxPlayers);
  }
  /** How many slots the server flies now. */
  count() {
    let n = 0;
    for (let s = 0; s < this.bot.length; s++) n += this.bot[s];
    return n;
  }
  /**
   * Write each bot's INPUT_* bits into `input`, at most once every DECIDE_MS. `ship` is each slot's ship entity index (-1
   * while it has none), `weapon` each slot's weapon, `now` the server's clock (ms).
   */
  fly(now, entities, ship, weapon, input) {
    if ((now - this.#nextAt | 0) < 0) return;
    this.#nextAt = now + DECIDE_MS | 0;
    const bot = this.bot;
    const n = bot.length;
    const ex = entities.x;
    const ey = entities.y;
    const evx = entities.vx;
    const evy = entities.vy;
    const seen = this.#ship;
    const bornAt = this.#bornAt;
    const skill = this.skill;
    const sight = SIGHT[skill] * SIGHT[skill];
    const firedAt = this.#firedAt;
    for (let t = 0; t < n; t++) {
      if (ship[t] !== seen[t] && ship[t] >= 0) {
        bornAt[t] = now;
        firedAt[t] = now - QUIET_MS - 1 | 0;
      }
      seen[t] = ship[t];
      if ((input[t] & INPUT_SHOOTING) !== 0) firedAt[t] = now;
    }
    for (let s = 0; s < n; s++) {
      if (bot[s] === 0) continue;
      const i = ship[s];
      if (i < 0) {
        input[s] = 0;
        this.#target[s] = -1;
        continue;
      }
      const x = ex[i] * WU;
      const y = ey[i] * WU;
      const vx = evx[i] * WU_PER_S;
      const vy = evy[i] * WU_PER_S;
      const heading = entities.rot[i] * RADIANS;
      let best = -1;
      let bestSlot = -1;
      let bestD = sight;
      for (let t = 0; t < n; t++) {
        const j = ship[t];
        if (t === s || j < 0 || (now - bornAt[t] | 0) < GUARD_MS) continue;
        const dx = ex[j] * WU - x;
        const dy = ey[j] * WU - y;
        let d = dx * dx + dy * dy;
        if ((now - firedAt[t] | 0) > QUIET_MS) d *= QUIET[skill];
        if (d < bestD) {
          bestD = d;
          best = j;
          bestSlot = t;
        }
      }
      if (bestSlot !== this.#target[s]) {
        this.#target[s] = bestSlot;
        this.#since[s] = now;
      }
      if (best < 0) {
        input[s] = cruise(s, now, x, y, vx, vy, heading);
        continue;
      }
      const wobble = scramble(s, Math.floor(now / WOBBLE_MS));
      const error = ERROR[skill] * (((wobble & 65535) - 32768) / 32768);
      const fire = (now - this.#since[s] | 0) >= REACT_MS[skill];
      input[s] = attack(
        x,
        y,
        vx,
        vy,
        heading,
        weapon[s],
        ex[best] * WU,
        ey[best] * WU,
        evx[best] * WU_PER_S,
        evy[best] * WU_PER_S,
        AIM[skill],
        REACH2[skill],
        LEAD[skill],
        error,
        fire
      );
    }
  }
};
var BOT_NAMES = Object.freeze(["Vega", "Rigel", "Deneb", "Altair", "Mira", "Spica", "Atria", "Naos"]);

// modules/server/admission.ts
var ADMISSION_REFILL_MS = 250;
var HANDSHAKE_PENALTY_MS = 1e4;
var HANDSHAKE_MEMORY = 8;
var LEFT_MEMORY_MS = 5e3;
var LEFT_MEMORY = 8;
var BOT_PORT = -2;
var PORT_HINT_MASK = 63;
var Admission = class {
  #state;
  #session;
  #tokens;
  #nextToken = 0;
  #penaltyNext = 0;
  #leftNext = 0;
  /**
   * The state's tables find() reads, held here: they are carved once, before the rooms are
   * made, and never replaced. On XS a private name is found in a short list of its own,
   * while `state.slotByPort` walks most of the state's ~60 properties; find() runs for
   * every datagram.
   */
  #slotByPort;
  #port;
  #address;
  constructor(state, session) {
    this.#state = state;
    this.#session = session;
    this.#tokens = state.config.maxPlayers;
    this.#slotByPort = state.slotByPort;
    this.#port = state.port;
    this.#address = state.address;
  }
  /** The slot of the player at `address` and `port`, or -1. */
  find(address, port) {
    const ports = this.#port;
    const hint = this.#slotByPort[port & PORT_HINT_MASK] - 1;
    if (hint >= 0 && ports[hint] === port && this.#address[hint] === address) return hint;
    const addresses = this.#address;
    const n = ports.length;
    for (let s = 0; s < n; s++) if (ports[s] === port && addresses[s] === address) return s;
    return -1;
  }
  /**
   * A validated packet (in `state.rx`) from an unknown address: admit it if its first
   * reliable message is Connect #0. Returns the new slot, or -1 (dropped and counted, or
   * rejected). The caller starts the slot's entity sync.
   */
  admit(length, address, port, now) {
    const t = this.#state;
    const rx = t.rx;
    if (headerRel(rx) === 0 || length < HEADER_SIZE + RELIABLE_HEADER || getU32(rx, HEADER_SIZE) !== 0 || rx[HEADER_SIZE + 4] !== Msg.Connect) {
      t.counters[this.#leftRecently(address, port, now) ? Counter.AfterLeave : Counter.UnknownPeer]++;
      return -1;
    }
    let slot = -1;
    for (let s = 0; s < t.config.maxPlayers; s++) {
      if (t.active[s] === 0) {
        slot = s;
        break;
      }
    }
    for (let s = t.config.maxPlayers - 1; s >= 0 && slot < 0 && t.bots !== 0; s--) if (t.bot[s] !== 0) slot = s;
    if (slot < 0) {
      this.#reject(address, port, RejectReason.ServerFull);
      return -1;
    }
    if (this.#tokens === 0) {
      t.counters[Counter.AdmissionsDeferred]++;
      return -1;
    }
    for (let k = 0; k < HANDSHAKE_MEMORY; k++) {
      if (t.penaltyPort[k] === port && t.penaltyAddress[k] === address && (now - t.penaltyUntil[k] | 0) < 0) {
        t.counters[Counter.AdmissionsDeferred]++;
        return -1;
      }
    }
    this.#tokens--;
    if (t.bot[slot] !== 0) {
      t.counters[Counter.BotsReplaced]++;
      t.counters[Counter.Leaves]++;
      t.host.log(LogEvent.Leave, slot, t.playerId(slot));
      this.remove(slot);
    }
    t.generation[slot] = t.generation[slot] + 1 & 65535 || 1;
    this.#occupy(slot, address, port, 0, 0, now);
    t.slotByPort[port & PORT_HINT_MASK] = slot + 1;
    const id = t.playerId(slot);
    t.counters[Counter.Joins]++;
    t.host.log(LogEvent.Join, slot, id);
    this.#session.sendRoster(slot);
    return slot;
  }
  /**
   * A bot takes the free `slot`: a player like any other to everyone else (Join, Name,
   * Selection, its ship, its score), with no address, no queue and no Updates; its pilot
   * (pilots.ts) steers it. Announced at once. The caller starts its game.
   */
  admitBot(slot, now) {
    const t = this.#state;
    t.generation[slot] = t.generation[slot] + 1 & 65535 || 1;
    t.bot[slot] = 1;
    t.botMask |= 1 << slot;
    t.bots++;
    this.#occupy(slot, "", BOT_PORT, slot % t.config.shipTypes, (slot >> 1) % t.config.weaponTypes, now);
    t.selected[slot] = 1;
    this.#session.nameBot(slot, BOT_NAMES[slot % BOT_NAMES.length]);
    t.counters[Counter.Joins]++;
    t.counters[Counter.BotJoins]++;
    t.host.log(LogEvent.Join, slot, t.playerId(slot));
    this.#session.announce(slot);
  }
  /**
   * `slot` now holds a player at `address`, `port` with that selection: a fresh endpoint and
   * slot tables, full flood buckets, the ring read from here on, and a default name
   * (session.join). Its generation is already bumped.
   */
  #occupy(slot, address, port, ship, weapon, now) {
    const t = this.#state;
    t.active[slot] = 1;
    t.activeMask |= 1 << slot;
    t.address[slot] = address;
    t.port[slot] = port;
    t.endpoints[slot].reset(now);
    t.ship[slot] = ship;
    t.weapon[slot] = weapon;
    t.selected[slot] = 0;
    t.input[slot] = 0;
    t.misbehaviour[slot] = 0;
    t.scores[slot] = 0;
    t.pings[slot] = 0;
    t.pendingKick[slot] = 0;
    t.announced[slot] = 0;
    t.unannounced++;
    t.joinedAt[slot] = now;
    t.inputAt[slot] = now;
    t.frontSince[slot] = now;
    t.players++;
    this.#session.join(slot, now);
  }
  #reject(address, port, reason) {
    const t = this.#state;
    const tx = t.tx;
    let o = writeHeader(tx, NO_ACK, t.host.now() >>> 0, 0, 1);
    tx[o++] = Msg.Reject;
    o = writeReject(tx, o, reason);
    t.counters[Counter.Rejects]++;
    t.host.log(LogEvent.Reject, -1, reason);
    t.send(o, address, port);
  }
  /** A token back every ADMISSION_REFILL_MS (the schedule calls this every TIMEOUT_CHECK_MS). */
  refill(now) {
    if (now < this.#nextToken) return;
    this.#nextToken = now + ADMISSION_REFILL_MS;
    if (this.#tokens < this.#state.config.maxPlayers) this.#tokens++;
  }
  /** The player in `slot` did not complete its handshake: not admitted again for HANDSHAKE_PENALTY_MS. */
  penalize(slot, now) {
    const t = this.#state;
    const k = this.#penaltyNext;
    this.#penaltyNext = (k + 1) % HANDSHAKE_MEMORY;
    t.penaltyAddress[k] = t.address[slot];
    t.penaltyPort[k] = t.port[slot];
    t.penaltyUntil[k] = now + HANDSHAKE_PENALTY_MS;
  }
  #leftRecently(address, port, now) {
    const t = this.#state;
    for (let k = 0; k < LEFT_MEMORY; k++)
      if (t.leftPort[k] === port && t.leftAddress[k] === address && (now - t.leftUntil[k] | 0) < 0) return true;
    return false;
  }
  /** The player sent Disconnect: one last packet acknowledges it, then the slot is freed. */
  disconnect(slot) {
    const t = this.#state;
    const id = t.playerId(slot);
    const o = writeHeader(t.tx, t.endpoints[slot].lastProcessed, t.host.now() >>> 0, 0, 0);
    t.send(o, t.address[slot], t.port[slot]);
    t.counters[Counter.Leaves]++;
    t.host.log(LogEvent.Leave, slot, id);
    this.remove(slot);
  }
  /** Free the slot; the others get Leave, then Remove for the player's entities. */
  remove(slot) {
    const t = this.#state;
    const id = t.playerId(slot);
    const k = this.#leftNext;
    this.#leftNext = (k + 1) % LEFT_MEMORY;
    t.leftAddress[k] = t.address[slot];
    t.leftPort[k] = t.port[slot];
    t.leftUntil[k] = t.now + LEFT_MEMORY_MS;
    t.active[slot] = 0;
    t.activeMask &= ~(1 << slot);
    t.port[slot] = -1;
    t.players--;
    if (t.bot[slot] !== 0) {
      t.bot[slot] = 0;
      t.botMask &= ~(1 << slot);
      t.bots--;
    }
    t.pendingKick[slot] = 0;
    t.input[slot] = 0;
    t.scores[slot] = 0;
    t.pings[slot] = 0;
    this.#session.leave(slot, id);
    if (t.announced[slot] === 0) t.unannounced--;
    t.announced[slot] = 0;
    if (t.sim !== null) t.sim.playerLeft(slot, id);
    t.entities.removeOwnedBy(id);
  }
};

// modules/server/receive.ts
var CHAT = Msg.Chat;
var NAME = Msg.Name;
var SELECTION = Msg.Selection;
var DISCONNECT = Msg.Disconnect;
var INPUT = Msg.Input;
var Receiver = class {
  #state;
  #admission;
  #session;
  #step;
  /**
   * The state's tables handle() reads for every datagram, held here: they are carved once,
   * before the rooms are made, and never replaced. On XS a private name is found in a short
   * list of its own, while `state.inputAt` walks much of the state's ~60 properties.
   */
  #endpoints;
  #inputAt;
  #input;
  #rxView;
  #rx;
  #announced;
  constructor(state, admission, session) {
    this.#state = state;
    this.#admission = admission;
    this.#session = session;
    this.#step = new ReceiveStep(state.rxView, state.rx, state.offsets, state.counters, this);
    this.#endpoints = state.endpoints;
    this.#inputAt = state.inputAt;
    this.#input = state.input;
    this.#rxView = state.rxView;
    this.#rx = state.rx;
    this.#announced = state.announced;
  }
  /**
   * Act on the validated datagram in `state.rx` from `slot`, of the `shape` shapeFromClient
   * found (its SHAPE_ACK and SHAPE_ACK_INPUT are the transport's SHAPE_NONE and
   * SHAPE_ONE_UNRELIABLE): the transport's receive step, with the header read through
   * `state.rxView`, calls `reliable` and `unreliable` below for what it accepts.
   */
  handle(slot, now, shape) {
    const ep = this.#endpoints[slot];
    const r = this.#step.run(ep, shape, now, slot);
    if (r === RECEIVE_BAD_ACK) {
      this.#session.misbehave(slot);
      return;
    }
    if (shape === SHAPE_ACK_INPUT && (r & RECEIVE_CURRENT) !== 0) {
      this.#inputAt[slot] = now;
      this.#input[slot] = readInputView(this.#rxView, this.#rx, INPUT_AT);
    }
    if ((r & RECEIVE_STOPPED) === 0 && this.#state.unannounced !== 0 && this.#announced[slot] === 0) this.#announceAcknowledged(slot, ep);
  }
  /** Receiving: one reliable message from `slot`, its payload at `p` in `state.rx`, in order. False: the player is leaving. */
  reliable(slot, type, p) {
    const t = this.#state;
    switch (type) {
      case CHAT:
        this.#announceAcknowledged(slot, this.#endpoints[slot]);
        this.#session.chat(slot, t.playerId(slot), p);
        break;
      case NAME:
        this.#session.rename(slot, t.playerId(slot), p);
        break;
      case SELECTION:
        this.#session.select(slot, t.playerId(slot), p);
        break;
      case DISCONNECT:
        this.#admission.disconnect(slot);
        break;
    }
    return (t.activeMask >> slot & 1) !== 0 && (!t.kickPending || t.pendingKick[slot] === 0);
  }
  /** Receiving: a current unreliable message from `slot`: an Input steers its ship from now. */
  unreliable(slot, type, p) {
    if (type !== INPUT) return;
    const t = this.#state;
    t.inputAt[slot] = t.now;
    t.input[slot] = readInputView(t.rxView, t.rx, p);
  }
  /** Announce the newcomer in `slot` if its Join (seqno 0) is acknowledged and it is not announced yet. */
  #announceAcknowledged(slot, ep) {
    if (this.#announced[slot] === 0 && ep.firstSeq !== 0) this.#session.announce(slot);
  }
};

// modules/server/state.ts
var LEAVE_SIZE = RELIABLE_HEADER + 4;
function leaveReserve(maxPlayers) {
  return (maxPlayers + 1) * LEAVE_SIZE;
}
var ServerState = class {
  config;
  host;
  counters;
  entities;
  /** The hosted simulation, or null (`Server.attach`). */
  sim = null;
  /** Now, ms: set by each tick and each datagram that passed validation. */
  now = 0;
  /** Some slot has a kick pending in `pendingKick`: the server runs them at the end of its step. */
  kickPending = false;
  /** Players connected now, bots included. */
  players = 0;
  /** Active players not yet announced (announced[slot] 0): while none, a datagram need not look. */
  unannounced = 0;
  /** 1 for a slot the server flies itself (config.bots; modules/server/pilots.ts), and how many. */
  bot;
  bots = 0;
  /**
   * Bit s set while `active[s]` (activeMask) or `bot[s]` (botMask) is 1: a loop over the
   * players a tick serves walks these bits instead of reading two typed arrays per slot (on
   * XS each element read costs hundreds of instructions, a bit test a few). admission.ts
   * writes both with the tables.
   */
  activeMask = 0;
  botMask = 0;
  /** Bytes every queue keeps free for Leaves (leaveReserve()). */
  leaveReserve;
  /** The length of the last chat line accepted, in `lastChat` (for the host's log). */
  lastChatLength = 0;
  // ---- packet buffers: the datagram being handled, the packet being built. First among
  // the tables: XS finds a property by walking the object's list of them, and these are
  // read for every datagram.
  /** The datagram being handled, copied in with one native call, and a DataView on it. */
  rx;
  rxView;
  /** Payload offsets of the datagram's messages, recorded by validatePacket. */
  offsets;
  tx;
  /**
   * Views of the whole arena the buffers, the ring and the queues are carved from: blocks
   * move between them with copyWithin, and a packet's header words go in through the
   * DataView. One of each, shared by the endpoints and the session (each view costs slots).
   */
  whole;
  wholeView;
  // ---- per slot: who is there
  active;
  generation;
  address;
  port;
  endpoints;
  /** The endpoints' table: which players are due a packet, and a broadcast's copies, in one call each. */
  endpointTable;
  /** The reason of a kick decided for the slot (KickReason), 0 for none. */
  pendingKick;
  /** 1 once the player acknowledged its Join; then (and only then) the others are told of it. */
  announced;
  /** When the slot was admitted. */
  joinedAt;
  /**
   * Liveness is acknowledgement: since when the message at the front of the player's queue
   * has waited (queued into an empty queue, or the last acknowledgement that moved it).
   */
  frontSince;
  // ---- per slot: what the player is
  names;
  nameLength;
  ship;
  weapon;
  /** 1 once a Selection from the player was accepted since it joined (bots: at once); the game reads it (Players). */
  selected;
  /** Newest Input of each player as INPUT_* bits, and when it came. */
  input;
  inputAt;
  /** Strikes (session.ts, misbehave), and when the last one counted. */
  misbehaviour;
  strikeAt;
  /** Scores are written by the game; pings by the server. Both sent in Stats (MAX_PLAYERS long). */
  scores;
  pings;
  // ---- session.ts: the broadcast ring, each player's place in it, flood control
  ring;
  cursor;
  /** A message's payload is built here before it goes into the ring. */
  scratch;
  nameScratch;
  /** The last chat line accepted. */
  lastChat;
  /** Tokens left in each player's chat, rename and selection buckets, and their last refills. */
  chatTokens;
  nameTokens;
  selectTokens;
  chatAt;
  nameAt;
  selectAt;
  // ---- admission.ts: finding a peer's slot, who may not come back yet, who just left
  /** [port & PORT_HINT_MASK]: 1 + the slot last admitted from such a port (0: none). */
  slotByPort;
  /** Peers recently dropped at the handshake: a ring of address, port and until when. */
  penaltyAddress;
  penaltyPort;
  penaltyUntil;
  /** Players who left recently: a ring of address, port and until when. */
  leftAddress;
  leftPort;
  leftUntil;
  // ---- entity-sync.ts: what each player knows of the entities, and what to look at again
  /**
   * [slot × capacity + index]: the generation of the entity at that index that the player
   * knows (its Add was queued and no Remove since), 0 for none. Generations are never 0.
   */
  known;
  /** [slot × words + word]: the entity indices to reconcile for the player. */
  dirty;
  /** The indices added or removed since the last reconciliation, before they are made every player's dirty bits. */
  pending;
  /** The Adds and Removes a native sync queued, for the planner (~index: a Remove); empty without one. */
  actions;
  // ---- update-writer.ts: the plan being sent, the entry cache's flags, the update cycle
  /** The entity indices of the plan being sent. */
  list;
  /** Per entity: 1 once its entry is encoded in the current update tick. */
  encoded;
  constructor(config, host, counters, entities, penalties, leavers, bot) {
    this.bot = bot;
    this.config = config;
    this.host = host;
    this.counters = counters;
    this.entities = entities;
    this.leaveReserve = leaveReserve(config.maxPlayers);
    this.address = new Array(config.maxPlayers).fill("");
    this.penaltyAddress = new Array(penalties).fill("");
    this.penaltyPort = new Int32Array(penalties).fill(-1);
    this.leftAddress = new Array(leavers).fill("");
    this.leftPort = new Int32Array(leavers).fill(-1);
  }
  /** The generational id of the player in `slot` (valid while active). */
  playerId(slot) {
    return (this.generation[slot] << 16 | slot) >>> 0;
  }
  /** Reserve a reliable message for `to`; -1 (and a pending kick) when its queue is full. */
  reserve(to, type, payload) {
    if (this.pendingKick[to] !== 0) return -1;
    const ep = this.endpoints[to];
    if (ep.count === 0) this.frontSince[to] = this.now;
    const o = ep.canQueue(payload + (type === Msg.Leave ? LEAVE_SIZE : this.leaveReserve)) ? ep.queue(type, payload) : -1;
    if (o < 0) {
      this.counters[Counter.QueueOverflows]++;
      this.pendingKick[to] = KickReason.QueueOverflow;
      this.kickPending = true;
    }
    return o;
  }
  /** Send the first `length` bytes of `tx`. */
  send(length, address, port) {
    this.counters[Counter.PacketsOut]++;
    this.counters[Counter.BytesOut] += length;
    this.host.send(this.tx, length, address, port);
  }
};

// modules/server/session.ts
var CHAT_BURST = 4;
var CHAT_REFILL_MS = 250;
var CHANGE_BURST = 2;
var CHANGE_REFILL_MS = 500;
var STRIKE_WINDOW_MS = 250;
var BROADCAST_BYTES = 2048;
var ENTRY_HEADER = 3;
var EVERYONE = 255;
var EXCEPT = 128;
var BOT_SUFFIX = " [bot]";
function recipients(target) {
  return target === EVERYONE ? -1 : target >= EXCEPT ? ~(1 << (target & 127)) : 1 << target;
}
var MSG_LEAVE = Msg.Leave;
var MSG_JOIN = Msg.Join;
var MSG_NAME = Msg.Name;
var MSG_SELECTION = Msg.Selection;
var MSG_CHAT = Msg.Chat;
var Session = class {
  #state;
  /** Set once at start-up (bind): a player the ring laps leaves through it. */
  #admission = null;
  #fields = new Fields();
  #ringHead = 0;
  /**
   * Players that have taken every ring entry (bit per slot): their cursor is the ring's
   * head, whatever `cursor` holds, and a new entry goes straight into their queue; `cursor`
   * is written when a player falls behind. A typed-array element costs hundreds of
   * instructions on XS, a bit a few.
   */
  #current = 0;
  /** Some player's queue had no room for its next ring entry: pump again next tick. */
  #ringWaiting = false;
  /**
   * A view of the whole arena the ring, `scratch`, `rx`, the names and the queues are carved
   * from, and where each starts in it: bytes move between them with native copyWithin calls,
   * not loops over bytes (on XS each typed-array element access is a host call).
   */
  #whole;
  /** The same bytes as a DataView: a name's id in one call, a name's words for its hash. */
  #wholeView;
  #ringAt;
  #scratchAt;
  #rxAt;
  #namesAt;
  #lastChatAt;
  #queueAt;
  /** The name store's native call (modules/kernels/session.c) and its binding. */
  #kernels;
  #nameBinding;
  /**
   * The state's tables a chat, a rename or a selection reads, held here: carved once, before
   * the rooms are made, and never replaced. On XS a private name is found in a short list of
   * its own, where these lie past most of the state's ~60 properties.
   */
  #announced;
  #chatTokens;
  #chatAt;
  #nameTokens;
  #nameAt;
  #selectTokens;
  #selectAt;
  constructor(state, native) {
    this.#state = state;
    this.#fields.use(state.rx, state.rxView);
    const ring = state.ring;
    const n = state.config.maxPlayers;
    this.#whole = state.whole !== void 0 && state.whole.buffer === ring.buffer && state.whole.byteOffset === 0 ? state.whole : new Uint8Array(ring.buffer);
    this.#wholeView = state.wholeView !== void 0 && state.wholeView.buffer === ring.buffer && state.wholeView.byteOffset === 0 ? state.wholeView : new DataView(ring.buffer);
    this.#ringAt = ring.byteOffset;
    this.#scratchAt = state.scratch.byteOffset;
    this.#rxAt = state.rx.byteOffset;
    this.#namesAt = state.names.byteOffset;
    this.#lastChatAt = state.lastChat.byteOffset;
    const shared = state.scratch.buffer === ring.buffer && state.rx.buffer === ring.buffer && state.names.buffer === ring.buffer && state.nameScratch.buffer === ring.buffer && state.lastChat.buffer === ring.buffer;
    this.#queueAt = new Array(n);
    this.#kernels = requireKernels(native, "the session's names");
    this.#nameBinding = new Binding(NATIVE_LAYOUT.name, { names: state.names, nameLength: state.nameLength, arena: this.#whole }, 0, native);
    this.#nameBinding.words[this.#nameBinding.scalars + 0 /* Players */] = n;
    this.#announced = state.announced;
    this.#chatTokens = state.chatTokens;
    this.#chatAt = state.chatAt;
    this.#nameTokens = state.nameTokens;
    this.#nameAt = state.nameAt;
    this.#selectTokens = state.selectTokens;
    this.#selectAt = state.selectAt;
    for (let s = 0; s < n; s++) {
      const q = state.endpoints[s].buf;
      if (!shared || q.buffer !== ring.buffer) throw new RangeError("the ring, the session's buffers and the queues must share one arena");
      this.#queueAt[s] = q.byteOffset;
    }
  }
  /** Start-up only: where a lapped player is removed. */
  bind(admission) {
    this.#admission = admission;
  }
  /** A newcomer in `slot`: full flood buckets, no strike, the ring read from its head on, a default name. */
  join(slot, now) {
    const t = this.#state;
    t.strikeAt[slot] = now - STRIKE_WINDOW_MS;
    t.chatTokens[slot] = CHAT_BURST;
    t.nameTokens[slot] = CHANGE_BURST;
    t.selectTokens[slot] = CHANGE_BURST;
    t.chatAt[slot] = now;
    t.nameAt[slot] = now;
    t.selectAt[slot] = now;
    t.cursor[slot] = this.#ringHead;
    this.#current |= 1 << slot;
    this.#defaultName(slot);
  }
  /** Queue for the newcomer in `slot` its own Join, Name and Selection, then every announced player's. */
  sendRoster(slot) {
    const t = this.#state;
    this.#sendJoin(slot, slot);
    this.#sendName(slot, slot);
    this.#sendSelection(slot, slot);
    for (let s = 0; s < t.config.maxPlayers; s++) {
      if (s === slot || t.active[s] === 0 || t.announced[s] === 0) continue;
      this.#sendJoin(slot, s);
      this.#sendName(slot, s);
      this.#sendSelection(slot, s);
    }
  }
  /** The player `id` in `slot` is leaving: those told of it hear Leave. */
  leave(slot, id) {
    if (this.#state.announced[slot] === 0) return;
    const b = this.#state.scratch;
    b[0] = MSG_LEAVE;
    this.#broadcast(MSG_LEAVE, EVERYONE, this.#scratchAt + 1, writeId(b, 1, id) - 1);
  }
  /**
   * The player acknowledged its Join: tell everyone else of it at once (nobody's queue
   * holds it back: each takes the announcement from the ring as it has room).
   */
  announce(slot) {
    const t = this.#state;
    if (t.announced[slot] === 0) t.unannounced--;
    t.announced[slot] = 1;
    const target = EXCEPT | slot;
    this.#broadcastAbout(MSG_JOIN, target, slot);
    this.#broadcastAbout(MSG_NAME, target, slot);
    this.#broadcastAbout(MSG_SELECTION, target, slot);
  }
  /** Chat from `slot` (player `id`) at `p` in `state.rx`: checked, flood-limited, then to everyone. */
  chat(slot, id, p) {
    const t = this.#state;
    const rx = t.rx;
    const f = this.#fields;
    readChat(rx, p, f);
    if (f.id !== id) return this.#spoofed(slot);
    const n = f.textLength;
    if (n === 0 || f.unprintable !== 0) {
      t.counters[Counter.BadChat]++;
      return this.misbehave(slot);
    }
    if (this.#announced[slot] === 0 || !this.#take(this.#chatTokens, this.#chatAt, slot, CHAT_BURST, CHAT_REFILL_MS)) {
      t.counters[Counter.Refused]++;
      return;
    }
    const rxAt = this.#rxAt;
    const text = rxAt + f.textOffset;
    this.#whole.copyWithin(this.#lastChatAt, text, text + n);
    t.lastChatLength = n;
    this.#broadcast(MSG_CHAT, EVERYONE, rxAt + p, chatPayloadSize(n));
    t.host.log(LogEvent.Chat, slot, id);
  }
  /** Name from `slot`: checked, flood-limited, made unique, then to the player and (once announced) everyone. */
  rename(slot, id, p) {
    const t = this.#state;
    const rx = t.rx;
    const f = this.#fields;
    readName(rx, p, f);
    if (f.id !== id) return this.#spoofed(slot);
    if (f.textLength === 0 || f.unprintable !== 0) {
      t.counters[Counter.BadName]++;
      return this.misbehave(slot);
    }
    if (!this.#take(this.#nameTokens, this.#nameAt, slot, CHANGE_BURST, CHANGE_REFILL_MS)) {
      t.counters[Counter.Refused]++;
      return;
    }
    this.#setName(slot, rx, f.textOffset, f.textLength);
    this.#broadcastAbout(MSG_NAME, this.#announced[slot] !== 0 ? EVERYONE : slot, slot, id);
    t.host.log(LogEvent.Rename, slot, id);
  }
  /** Selection from `slot`: checked, flood-limited, then to the player and (once announced) everyone. */
  select(slot, id, p) {
    const t = this.#state;
    const f = this.#fields;
    readSelection(t.rx, p, f);
    if (f.id !== id) return this.#spoofed(slot);
    if (f.a >= t.config.shipTypes || f.b >= t.config.weaponTypes) {
      t.counters[Counter.BadSelection]++;
      return this.misbehave(slot);
    }
    if (!this.#take(this.#selectTokens, this.#selectAt, slot, CHANGE_BURST, CHANGE_REFILL_MS)) {
      t.counters[Counter.Refused]++;
      return;
    }
    t.ship[slot] = f.a;
    t.weapon[slot] = f.b;
    t.selected[slot] = 1;
    this.#broadcastAbout(MSG_SELECTION, this.#announced[slot] !== 0 ? EVERYONE : slot, slot, id);
  }
  /**
   * A strike. At most one counts per STRIKE_WINDOW_MS and one decays every STRIKE_DECAY_MS,
   * so a kick takes a sustained pattern (misbehaviourLimit strikes net), not a burst.
   */
  misbehave(slot) {
    const t = this.#state;
    t.counters[Counter.Misbehaviour]++;
    const now = t.now;
    if ((now - t.strikeAt[slot] | 0) < STRIKE_WINDOW_MS) return;
    t.strikeAt[slot] = now;
    if (++t.misbehaviour[slot] >= t.config.misbehaviourLimit && t.pendingKick[slot] === 0) {
      t.pendingKick[slot] = KickReason.Misbehaviour;
      t.kickPending = true;
    }
  }
  #spoofed(slot) {
    this.#state.counters[Counter.SpoofedId]++;
    this.misbehave(slot);
  }
  /**
   * Takes a token from `slot`'s bucket (`tokens`, refilled one every `refillMs` since
   * `at`, up to `burst`): false when it is empty.
   */
  #take(tokens, at, slot, burst, refillMs) {
    const now = this.#state.now;
    let t = tokens[slot];
    if (t < burst) {
      let since = at[slot];
      while (t < burst && (now - since | 0) >= refillMs) {
        t++;
        since += refillMs;
      }
      at[slot] = since;
      if (t === 0) return false;
    }
    if (t === burst) at[slot] = now;
    tokens[slot] = t - 1;
    return true;
  }
  // ---------------------------------------------------------------- the ring
  /**
   * Name, Selection or Join of player `who`, to `target` (EVERYONE, EXCEPT | slot or a slot):
   * a new Name or Selection goes to the player itself and, once it is announced, to everyone.
   */
  #broadcastAbout(type, target, who, id = this.#state.playerId(who)) {
    const t = this.#state;
    const at = this.#scratchAt;
    const v = this.#wholeView;
    v.setUint8(at, type);
    v.setUint32(at + 1, id);
    let n = 4;
    if (type === MSG_NAME) {
      this.#copyName(at + 5, who);
      n = 4 + NAME_LENGTH;
    } else if (type === MSG_SELECTION) {
      v.setUint16(at + 5, t.ship[who] << 8 | t.weapon[who]);
      n = 6;
    }
    this.#broadcast(type, target, at + 1, n);
  }
  /**
   * Puts the message of `type` whose `length`-byte payload is at `from` (an offset in the
   * arena: `scratch` or `rx`), its type byte just before it, into the ring for `target`,
   * then lets every player take what it has room for. A player the new
   * entry would lap (it has not taken an entry that the ring must now overwrite) has failed
   * to keep up: it is dropped, as one that timed out.
   *
   * A player that had taken every earlier entry (the usual case) takes this one here, from
   * `from`, with one copyWithin and no read of the ring; any other goes through #pump. The
   * entry's bytes go into the ring only when some player will read them there: one that
   * is behind, or one that does not take it here.
   */
  #broadcast(type, target, from, length) {
    const t = this.#state;
    const head = this.#ringHead;
    const end = head + ENTRY_HEADER + length | 0;
    const source = from - 1;
    const bytes = length + 1;
    this.#ringHead = end;
    const active = t.activeMask;
    let lapped = 0;
    const behind = active & ~this.#current;
    if (behind !== 0) {
      this.#write(head, target, source, bytes);
      for (let s = 0; behind >> s !== 0; s++)
        if ((behind >> s & 1) !== 0 && (head - t.cursor[s] | 0) + ENTRY_HEADER + length > BROADCAST_BYTES) lapped |= 1 << s;
      if (lapped !== 0) this.#fallBehind(active & this.#current, head);
    }
    let direct = active & this.#current;
    const others = active & ~direct;
    for (let s = 0; others >> s !== 0; s++) {
      if ((others >> s & 1) === 0) continue;
      if ((lapped >> s & 1) !== 0) {
        t.counters[Counter.Timeouts]++;
        t.counters[Counter.Laggards]++;
        t.host.log(LogEvent.Timeout, s, t.playerId(s));
        this.#admission.remove(s);
      } else this.#pump(s);
    }
    if (t.kickPending && direct !== 0) {
      const pendingKick = t.pendingKick;
      let kicked = 0;
      for (let s = 0; direct >> s !== 0; s++) if ((direct >> s & 1) !== 0 && pendingKick[s] !== 0) kicked |= 1 << s;
      this.#fallBehind(kicked, head);
      direct &= ~kicked;
    }
    direct &= ~t.botMask & recipients(target);
    if (direct !== 0) {
      const reserve = type === MSG_LEAVE ? LEAVE_SIZE : t.leaveReserve;
      const full = direct & ~t.endpointTable.broadcast(direct, source, bytes, reserve, t.now);
      if (full !== 0) {
        this.#ringWaiting = true;
        this.#fallBehind(full, head);
      }
    }
    if (behind === 0 && (active & ~this.#current) !== 0) this.#write(head, target, source, bytes);
  }
  /** The ring entry at `head`: its length and target, then the type and payload from `source`, in one piece or, across the ring's end, two. */
  #write(head, target, source, bytes) {
    const b = this.#state.ring;
    const m = BROADCAST_BYTES - 1;
    b[head & m] = bytes - 1;
    b[head + 1 & m] = target;
    const whole = this.#whole;
    const ring = this.#ringAt;
    const at = head + 2 & m;
    const first = BROADCAST_BYTES - at;
    if (bytes <= first) whole.copyWithin(ring + at, source, source + bytes);
    else {
      whole.copyWithin(ring + at, source, source + first);
      whole.copyWithin(ring, source + first, source + bytes);
    }
  }
  /** The players in `mask`, current until now, read the ring from `at` on. */
  #fallBehind(mask, at) {
    const cursor = this.#state.cursor;
    for (let s = 0; mask >> s !== 0; s++) if ((mask >> s & 1) !== 0) cursor[s] = at;
    this.#current &= ~mask;
  }
  /** Each tick: players whose queues were full when an entry came take it now, if they have room. */
  pumpWaiting() {
    if (!this.#ringWaiting) return;
    this.#ringWaiting = false;
    const t = this.#state;
    for (let s = 0; s < t.config.maxPlayers; s++) if (t.active[s] !== 0 && (this.#current >> s & 1) === 0) this.#pump(s);
  }
  /**
   * Moves ring entries for `slot`, a player that is behind, into its queue, in order, while
   * it has room (a Leave may use the reserve). An entry is `length, type, target, payload`;
   * target EVERYONE, EXCEPT | slot, or a slot. A player that takes them all is current again.
   */
  #pump(slot) {
    const t = this.#state;
    const head = this.#ringHead;
    let c = t.cursor[slot];
    if (t.pendingKick[slot] !== 0) return;
    if (c === head || t.bot[slot] !== 0) {
      this.#current |= 1 << slot;
      return;
    }
    const ep = t.endpoints[slot];
    const reserve = t.leaveReserve;
    const b = t.ring;
    const m = BROADCAST_BYTES - 1;
    const whole = this.#whole;
    const ring = this.#ringAt;
    const queue = this.#queueAt[slot];
    while ((head - c | 0) > 0) {
      const n = b[c & m];
      const target = b[c + 1 & m];
      if ((recipients(target) >> slot & 1) !== 0) {
        const type = b[c + 2 & m];
        if (!ep.canQueue(n + (type === MSG_LEAVE ? LEAVE_SIZE : reserve))) {
          this.#ringWaiting = true;
          break;
        }
        if (ep.count === 0) t.frontSince[slot] = t.now;
        const to = queue + ep.queue(type, n);
        const at = c + ENTRY_HEADER & m;
        const first = BROADCAST_BYTES - at;
        if (n <= first) whole.copyWithin(to, ring + at, ring + at + n);
        else {
          whole.copyWithin(to, ring + at, ring + BROADCAST_BYTES);
          whole.copyWithin(to + first, ring, ring + n - first);
        }
      }
      c = c + ENTRY_HEADER + n | 0;
    }
    t.cursor[slot] = c;
    if (c === head) this.#current |= 1 << slot;
  }
  // ---------------------------------------------------------------- queued to one player
  #sendJoin(to, who) {
    const t = this.#state;
    const o = t.reserve(to, MSG_JOIN, 4);
    if (o >= 0) writeId(t.endpoints[to].buf, o, t.playerId(who));
  }
  #sendName(to, who) {
    const o = this.#state.reserve(to, MSG_NAME, 4 + NAME_LENGTH);
    if (o >= 0) this.#putName(this.#queueAt[to] + o, who);
  }
  /**
   * A Name's payload for `who` at `at` in the arena: its id, then its stored name, which is
   * NUL-padded to NAME_LENGTH (#setName), copied whole: what writeName writes, in two calls.
   */
  #putName(at, who) {
    this.#wholeView.setUint32(at, this.#state.playerId(who));
    this.#copyName(at + 4, who);
  }
  /** The stored name of `who`, NUL-padded to NAME_LENGTH, copied whole to `at` in the arena. */
  #copyName(at, who) {
    const from = this.#namesAt + who * NAME_LENGTH;
    this.#whole.copyWithin(at, from, from + NAME_LENGTH);
  }
  #sendSelection(to, who) {
    const t = this.#state;
    const o = t.reserve(to, MSG_SELECTION, 6);
    if (o >= 0) writeSelection(t.endpoints[to].buf, o, t.playerId(who), t.ship[who], t.weapon[who]);
  }
  // ---------------------------------------------------------------- names
  #defaultName(slot) {
    const s = this.#state.nameScratch;
    s[0] = 80;
    s[1] = 108;
    s[2] = 97;
    s[3] = 121;
    s[4] = 101;
    s[5] = 114;
    s[6] = 32;
    s[7] = 49 + slot;
    this.#setName(slot, s, 0, 8);
  }
  /** A bot's name: `star` and " [bot]", made unique like any name. Allocates nothing. */
  nameBot(slot, star) {
    const b = this.#state.nameScratch;
    let n = 0;
    for (let i = 0; i < star.length; i++) b[n++] = star.charCodeAt(i);
    for (let i = 0; i < BOT_SUFFIX.length; i++) b[n++] = BOT_SUFFIX.charCodeAt(i);
    this.#setName(slot, b, 0, n);
  }
  /**
   * Store a name for `slot`, made unique among players with a "-N" suffix. `src` is one of
   * the arena's buffers (`rx`, `nameScratch`): the name moves with copyWithin.
   */
  #setName(slot, src, from, length) {
    const b = this.#nameBinding;
    this.#kernels.name(b.layout, b.m0, b.m1, b.m2, b.m3, slot, src.byteOffset + from, length, this.#state.activeMask);
  }
};

// modules/server/schedule.ts
var TIMEOUT_CHECK_MS = 100;
var HANDSHAKE_MS = 3e3;
var INPUT_STALE_MS = 500;
var STRIKE_DECAY_MS = 1e3;
var ACK_CHECK_MS = 50;
var Schedule = class {
  #state;
  #admission;
  #session;
  #nextTimeoutCheck = 0;
  #nextDecay = 0;
  #nextAckCheck = 0;
  constructor(state, admission, session) {
    this.#state = state;
    this.#admission = admission;
    this.#session = session;
  }
  /**
   * Timeouts are seconds long: looking every TIMEOUT_CHECK_MS is enough. A player silent
   * for timeoutMs is dropped; one whose Join (seqno 0) is not acknowledged within
   * HANDSHAKE_MS is dropped and kept out for a while; one whose Join was just acknowledged
   * is announced; Input older than INPUT_STALE_MS is cleared; a strike decays.
   */
  checkTimeouts(now) {
    if (now < this.#nextTimeoutCheck) return;
    this.#nextTimeoutCheck = now + TIMEOUT_CHECK_MS;
    const t = this.#state;
    const admission = this.#admission;
    admission.refill(now);
    const decay = now >= this.#nextDecay;
    if (decay) this.#nextDecay = now + STRIKE_DECAY_MS;
    const timeout = t.config.timeoutMs;
    const peers = t.activeMask & ~t.botMask;
    for (let s = 0; peers >> s !== 0; s++) {
      if ((peers >> s & 1) === 0 || (t.activeMask >> s & 1) === 0) continue;
      const ep = t.endpoints[s];
      if (now - ep.lastHeard > timeout) {
        t.counters[Counter.Timeouts]++;
        t.host.log(LogEvent.Timeout, s, t.playerId(s));
        admission.remove(s);
        continue;
      }
      if (ep.firstSeq === 0) {
        if ((now - t.joinedAt[s] | 0) > HANDSHAKE_MS) {
          t.counters[Counter.HandshakeTimeouts]++;
          t.host.log(LogEvent.Timeout, s, t.playerId(s));
          admission.penalize(s, now);
          admission.remove(s);
          continue;
        }
      } else if (t.announced[s] === 0) this.#session.announce(s);
      if (t.input[s] !== 0 && (now - t.inputAt[s] | 0) > INPUT_STALE_MS) {
        t.input[s] = 0;
        t.counters[Counter.StaleInputs]++;
      }
      if (decay && t.misbehaviour[s] > 0) t.misbehaviour[s]--;
    }
  }
  /**
   * Liveness is acknowledgement: a player whose oldest unacknowledged reliable message has
   * waited longer than timeoutMs is dropped as timed out, whatever else it sends. The wait
   * starts when a message goes into an empty queue (state.reserve, the ring's pump, the
   * entity sync) or when an acknowledgement moves the queue (the server's receive); it is
   * looked at every ACK_CHECK_MS.
   */
  checkAcks(now) {
    if (now < this.#nextAckCheck) return;
    this.#nextAckCheck = now + ACK_CHECK_MS;
    const t = this.#state;
    const limit = t.config.timeoutMs;
    for (let s = 0; t.activeMask >> s !== 0; s++) {
      if ((t.activeMask >> s & 1) === 0) continue;
      if (t.endpoints[s].count !== 0 && (now - t.frontSince[s] | 0) > limit) {
        t.counters[Counter.Timeouts]++;
        t.counters[Counter.AckStalls]++;
        t.host.log(LogEvent.Timeout, s, t.playerId(s));
        this.#admission.remove(s);
      }
    }
  }
};

// modules/server/entries.ts
var NativeEntryPacker = class {
  o = 0;
  k = 0;
  #kernels;
  #b;
  #words;
  #at;
  constructor(m, kernels, native) {
    const e = m.entities;
    const b = new Binding(
      NATIVE_LAYOUT.pack,
      {
        entries: m.all,
        encoded: m.encoded,
        generation: e.generation,
        x: e.x,
        y: e.y,
        vx: e.vx,
        vy: e.vy,
        rot: e.rot,
        health: e.health,
        list: m.list,
        scores: m.scores,
        pings: m.pings,
        counters: m.counters
      },
      0,
      native
    );
    const w = b.words;
    w[b.scalars + 0 /* MaxPacket */] = MAX_PACKET;
    w[b.scalars + 1 /* StepHz */] = STEP_HZ;
    w[b.scalars + 2 /* PosShift */] = POS_SHIFT;
    w[b.scalars + 3 /* AngleBits */] = ANGLE_BITS;
    w[b.scalars + 4 /* Centidegrees */] = CENTIDEGREES;
    this.#kernels = kernels;
    this.#b = b;
    this.#words = w;
    this.#at = b.scalars;
  }
  pack(pos, n, o, stats) {
    const b = this.#b;
    const next = this.#kernels.pack(b.layout, b.m0, b.m1, b.m2, b.m3, pos, n, o, stats ? 1 : 0);
    this.o = this.#words[this.#at + 5 /* O */];
    this.k = this.#words[this.#at + 6 /* K */];
    return next;
  }
};

// modules/server/update-writer.ts
var UpdateWriter = class {
  /** Chooses each player's Update entries (the game installs its own). */
  planner;
  #state;
  /** The packet being built, then the entry cache: one view over both. */
  #txAndEntries;
  /** The Update entry loop: the JavaScript or the native kernel's, chosen at start-up. */
  #packer;
  /** Each player's offset into the update cycle, ms (a plain array keeps them integers on XS). */
  #offset;
  #cycleStart;
  #nextStats;
  /** The entity table's version when the cached entries were encoded. */
  #encodedVersion = -1;
  /** Bit s: the player had its Update in the current update cycle; a Stats is due in its next Update. */
  #updated = 0;
  #statsDue = 0;
  /** The last tick's time, for the gap to the next (-1 before the first). */
  #lastTick = -1;
  /** The state's tables must be carved, its `tx` followed by capacity × UPDATE_ENTRY bytes of cache. */
  constructor(state, planner, native) {
    const cfg = state.config;
    const n = cfg.maxPlayers;
    const tx = state.tx;
    this.#state = state;
    this.planner = planner;
    this.#txAndEntries = new Uint8Array(tx.buffer, tx.byteOffset, MAX_PACKET + state.entities.capacity * UPDATE_ENTRY);
    this.#offset = new Array(n).fill(0);
    for (let s = 0; s < n; s++) this.#offset[s] = Math.floor(s * cfg.updateIntervalMs / n);
    const entries = {
      all: this.#txAndEntries,
      encoded: state.encoded,
      entities: state.entities,
      list: state.list,
      scores: state.scores,
      pings: state.pings,
      counters: state.counters
    };
    this.#packer = new NativeEntryPacker(entries, requireKernels(native, "the Update writer"), native);
    this.#cycleStart = state.now;
    this.#nextStats = state.now;
  }
  /** A newcomer in `slot`: its Update cycle starts afresh. */
  joined(slot) {
    this.#updated &= ~(1 << slot);
    this.#statsDue &= ~(1 << slot);
  }
  /** The entity at `index` is new: its entry (its id among the rest) is encoded afresh when next sent. */
  entityAdded(index) {
    this.#state.encoded[index] = 0;
  }
  /**
   * Each player's packets on this tick: its update tick when its offset into the cycle has
   * come, else its reliables when due; on a tick on which the world `stepped`, nothing (a
   * game step is never two ticks in a row: nothing waits more than one tick).
   */
  tick(now, stepped) {
    const t = this.#state;
    const cfg = t.config;
    const endpoints = t.endpoints;
    const peers = t.activeMask & ~t.botMask;
    if (now >= this.#nextStats) {
      this.#nextStats += cfg.statsIntervalMs;
      if (this.#nextStats <= now) this.#nextStats = now + cfg.statsIntervalMs;
      const pings = t.pings;
      const active = t.activeMask;
      for (let s = 0; s < MAX_PLAYERS; s++) pings[s] = (active >> s & 1) !== 0 ? endpoints[s].ping() : 0;
      this.#statsDue = -1;
    }
    if (now - this.#cycleStart >= cfg.updateIntervalMs) {
      const late = peers & ~this.#updated;
      for (let s = 0; late >> s !== 0; s++) {
        if ((late >> s & 1) === 0) continue;
        this.#update(s, now, (this.#statsDue >> s & 1) !== 0);
        this.#statsDue &= ~(1 << s);
      }
      this.#cycleStart += cfg.updateIntervalMs;
      if (now - this.#cycleStart >= cfg.updateIntervalMs) this.#cycleStart = now;
      this.#updated = 0;
    }
    const into = now - this.#cycleStart;
    const offset = this.#offset;
    const next = this.#lastTick < 0 ? into : into + now - this.#lastTick;
    this.#lastTick = now;
    const interval = cfg.updateIntervalMs;
    const due = stepped || peers === 0 ? 0 : t.endpointTable.dueMask(peers, now);
    for (let s = 0; peers >> s !== 0; s++) {
      const bit = 1 << s;
      if ((peers & bit) === 0) continue;
      if ((this.#updated & bit) === 0 && into >= offset[s] && !stepped) {
        this.#updated |= bit;
        this.#update(s, now, (this.#statsDue & bit) !== 0);
        this.#statsDue &= ~bit;
        continue;
      }
      if ((due & bit) === 0) continue;
      const soon = (this.#updated & bit) === 0 ? next >= offset[s] || next >= interval : next - interval >= offset[s];
      if (soon && (due >> 16 & bit) === 0) continue;
      const o = this.fill(endpoints[s], now);
      t.send(o, t.address[s], t.port[s]);
    }
  }
  /** One update tick for one player: reliables first, then Stats (if due) and Update. */
  #update(slot, now, stats) {
    const t = this.#state;
    const ep = t.endpoints[slot];
    const list = t.list;
    const packer = this.#packer;
    const planner = this.planner;
    const version2 = t.entities.version;
    if (version2 !== this.#encodedVersion) {
      t.encoded.fill(0);
      this.#encodedVersion = version2;
    }
    const n = planner.plan(slot, list, now);
    const maxPackets = t.config.maxUpdatePacketsPerTick;
    let pos = 0;
    const start2 = this.fill(ep, now);
    for (let packets = 0; packets < maxPackets; packets++) {
      if (packets !== 0) ep.repeat();
      pos = packer.pack(pos, n, start2, stats && packets === 0);
      t.host.send(t.tx, packer.o, t.address[slot], t.port[slot]);
      if (pos >= n || packer.k === 0) break;
    }
    planner.commit(slot, list, pos, now);
  }
  /**
   * Start a packet in `state.tx` with the peer's reliables, from its `first` queued message
   * on. Returns the packet's length so far. The endpoint counts first sends and resends
   * (the counters sink of lwarChannel).
   */
  fill(ep, now, first = 0) {
    return ep.fill(this.#state.tx, now, now, first);
  }
};

// modules/server/server.ts
var BOT_FILL_MS = 1e3;
var ANNOUNCE_SIZE = 3 * RELIABLE_HEADER + 4 + (4 + NAME_LENGTH) + 6;
var Server = class {
  config;
  host;
  counters;
  entities;
  #planner;
  /** What the rooms share (state.ts), and the rooms. */
  #state;
  #admission;
  #session;
  #schedule;
  #receiver;
  #reconciler;
  #writer;
  // Player slots (struct of arrays, indexed by slot): the state's tables, named here for
  // the hosts, the game (Players) and the tests.
  active;
  generation;
  address;
  port;
  endpoints;
  names;
  nameLength;
  ship;
  weapon;
  selected;
  /** Newest Input of each player as INPUT_* bits. */
  input;
  misbehaviour;
  /**
   * [slot × capacity + index]: the generation of the entity at that index that the player
   * knows (its Add was queued and no Remove since), 0 for none. Generations are never 0.
   */
  known;
  /** Scores are written by the game; pings by the server. Both sent in Stats. */
  scores;
  pings;
  /** The last chat line accepted (for the host's log); its length is lastChatLength. */
  lastChat;
  /** Where the tables come from (its rows are the memory budget's). */
  #arena;
  #closed = false;
  /** The native loops this server was given (modules/native.ts), or null. */
  #native;
  /** The server's own bots (config.bots): which slots they fly, and their pilots. */
  pilots;
  #nextBotFill = 0;
  /** Each player's ship (the game's focus), for the pilots; null without a game. */
  #focus = null;
  constructor(config, host, native = platformNative(config)) {
    const n = config.maxPlayers;
    this.config = config;
    this.host = host;
    const memory = native?.memory ?? null;
    this.counters = memory !== null ? new Uint32Array(memory.buffer, memory.take(4 * COUNTER_COUNT), COUNTER_COUNT) : createCounters();
    this.entities = new EntityTable(config.maxEntities, memory);
    this.entities.listener = this;
    this.pilots = new Pilots(config.maxPlayers, config.botSkill);
    const t = new ServerState(config, host, this.counters, this.entities, HANDSHAKE_MEMORY, LEFT_MEMORY, this.pilots.bot);
    this.#state = t;
    const q = config.reliableQueueBytes;
    const cap = config.maxEntities;
    if (q < MAX_PACKET + ANNOUNCE_SIZE + t.leaveReserve)
      throw new ConfigError(`config.reliableQueueBytes must be at least ${MAX_PACKET + ANNOUNCE_SIZE + t.leaveReserve} for ${n} players`);
    const queues = [];
    let allQueues = new Uint8Array(0);
    let endpointState = new Float64Array(0);
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, memory);
      endpointState = a.f64(n * 22 /* Stride */ >> 1, `reliable queues (${n} × ${q} B)`);
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
      t.dirty = a.i32(n * (cap + 31 >> 5), "entity sync (known, dirty)");
      t.pending = a.i32(cap + 31 >> 5, "entity sync (known, dirty)");
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
    const whole = new Uint8Array(a.buffer);
    const wholeView = new DataView(a.buffer);
    t.whole = whole;
    t.wholeView = wholeView;
    const channel = lwarChannel(q, config.resendIntervalMs, this.counters);
    const table2 = new EndpointTable(channel, n, native ?? { kernels: null }, { state: endpointState, queues: allQueues, out: whole, front: t.frontSince });
    this.endpoints = table2.endpoints;
    t.endpoints = this.endpoints;
    t.endpointTable = table2;
    this.port.fill(-1);
    typeTable();
    t.now = host.now();
    this.#session = new Session(t, native);
    this.#admission = new Admission(t, this.#session);
    this.#session.bind(this.#admission);
    this.#schedule = new Schedule(t, this.#admission, this.#session);
    this.#receiver = new Receiver(t, this.#admission, this.#session);
    this.#planner = new RoundRobinPlanner(this.entities, n, this.known, this.#updateLimit());
    this.#native = native;
    this.#reconciler = new EntityReconciler(t, whole, queues, this.#planner, native);
    this.#writer = new UpdateWriter(t, this.#planner, native);
  }
  /**
   * Every pool the server allocated, as [name, bytes] rows, for the memory budget.
   * Allocates; never called on a hot path.
   */
  pools() {
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
  attach(sim, focus) {
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
  #updateLimit() {
    return this.config.maxUpdatePacketsPerTick * Math.floor((MAX_PACKET - HEADER_SIZE - 2) / UPDATE_ENTRY);
  }
  /** The hosted simulation, or null. */
  get simulation() {
    return this.#state.sim;
  }
  /** The native loops this server was made with (the game shares them and their memory). */
  get native() {
    return this.#native;
  }
  /** The update planner in use. */
  get planner() {
    return this.#planner;
  }
  /** The length of the last chat line accepted, in `lastChat`. */
  get lastChatLength() {
    return this.#state.lastChatLength;
  }
  /** Players connected now. */
  playerCount() {
    return this.#state.players;
  }
  /** The generational id of the player in `slot` (valid while active). */
  playerId(slot) {
    return (this.generation[slot] << 16 | slot) >>> 0;
  }
  // ---------------------------------------------------------------- receive
  receive(bytes, length, address, port) {
    if (length <= MAX_PACKET && !this.#closed) {
      const rx = this.#state.rx;
      if (bytes.length === length) rx.set(bytes);
      else for (let i = 0; i < length; i++) rx[i] = bytes[i];
    }
    this.received(length, address, port, this.host.now());
  }
  /** The receive buffer a host may write a datagram into before `received` (DirectCore): MAX_PACKET bytes. */
  get rxBuffer() {
    return this.#state.rx;
  }
  /** A datagram the host wrote into `rxBuffer` (the board's host: no copy at all), taken at `now` (DirectCore). */
  received(length, address, port, now) {
    const counters = this.counters;
    counters[Counter.PacketsIn]++;
    counters[Counter.BytesIn] += length;
    if (this.#closed) return;
    if (length > MAX_PACKET) {
      counters[Counter.TooLong]++;
      return;
    }
    const t = this.#state;
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
  #joined(slot) {
    this.#reconciler.joined(slot);
    this.#writer.joined(slot);
    this.#planner.resetSlot(slot);
    const sim = this.#state.sim;
    if (sim !== null) sim.playerJoined(slot, this.playerId(slot));
  }
  /** EntityListener: the entry cache learns the new id, and every player reconciles this index at its next chance. */
  entityAdded(index) {
    this.#writer.entityAdded(index);
    this.#reconciler.markIndex(index);
  }
  entityRemoved(index, _id) {
    this.#reconciler.markIndex(index);
  }
  // ---------------------------------------------------------------- leaving
  /**
   * The host's transport lost the peer for good (a WebSocket closed): a Disconnect with
   * nothing sent back. Returns whether a player was there.
   */
  disconnectPeer(address, port) {
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
  botCount() {
    return this.#state.bots;
  }
  /** Put bots into empty slots until config.bots of them fly. */
  #fillBots(now) {
    const t = this.#state;
    for (let s = 0; s < this.config.maxPlayers && t.bots < this.config.bots; s++) {
      if (this.active[s] !== 0) continue;
      this.#admission.admitBot(s, now);
      this.#joined(s);
    }
  }
  /**
   * Queue `Leave(own id)` and flush the whole queue once, in as many packets as it
   * takes, so the player can process Leave wherever its receive cursor stands. A byte
   * budget of one Leave is kept free in every queue for this (state.ts, leaveReserve).
   */
  #kick(slot, reason) {
    if (this.#state.bot[slot] !== 0) {
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
  #processKicks() {
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
  shutdown() {
    if (this.#closed) return;
    this.#state.now = this.host.now();
    for (let s = 0; s < this.config.maxPlayers; s++) if (this.active[s] !== 0) this.#kick(s, KickReason.Shutdown);
    this.#closed = true;
  }
  // ---------------------------------------------------------------- tick
  tick(now) {
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
    const version2 = this.entities.version;
    const sim = t.sim;
    if (sim !== null) sim.tick(now);
    const stepped = this.entities.version !== version2;
    if (t.kickPending) this.#processKicks();
    this.#session.pumpWaiting();
    if (!stepped) this.#reconciler.reconcile(now);
    if (t.kickPending) this.#processKicks();
    this.#schedule.checkAcks(now);
    this.#writer.tick(now, stepped);
  }
};
function createServer(config, host, native = platformNative(config)) {
  return new Server(config, host, native);
}

// modules/match.ts
function createGame(config, server, seed, native = server.native) {
  const game = new Game(config, server.entities, server, seed, native);
  server.attach(game, game);
  return game;
}
function createMatch(config, host, seed, native = platformNative(config)) {
  const server = createServer(config, host, native);
  const game = seed === null ? null : createGame(config, server, seed, native);
  return { server, game };
}

// modules/text.ts
function bytesToAscii(b, offset, length) {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(b[offset + i]);
  return s;
}

// modules/report.ts
var DROP_COUNTERS = Object.freeze([
  Counter.TooShort,
  Counter.TooLong,
  Counter.BadAppId,
  Counter.UnknownType,
  Counter.WrongChannel,
  Counter.WrongDirection,
  Counter.Truncated,
  Counter.UnterminatedChat,
  Counter.UnterminatedName,
  Counter.TrailingBytes,
  Counter.BadAck,
  Counter.SpoofedId,
  Counter.BadName,
  Counter.BadSelection,
  Counter.BadChat,
  Counter.FutureTimestamp
]);
var HARMLESS_COUNTERS = Object.freeze([
  Counter.UnknownPeer,
  Counter.AfterLeave,
  Counter.DuplicateReliable,
  Counter.OutOfOrderReliable,
  Counter.StaleUnreliable
]);
function causeName(cause) {
  if (TEMPLATE_KIND[cause] === Kind.Ship) return "ram";
  return TEMPLATE_NAME[cause] ?? `template ${cause}`;
}
function percent(share) {
  const p = share * 100;
  return `${p < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}
function quote(name) {
  return `'${name}'`;
}
function seconds(us) {
  return String(us / 1e6);
}
function label(value) {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    out += c === "\\" ? "\\\\" : c === '"' ? '\\"' : c === "\n" ? "\\n" : c;
  }
  return out;
}
function snake(name) {
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    out += c >= "A" && c <= "Z" ? `_${c.toLowerCase()}` : c;
  }
  return out;
}
function templateName(names2, i) {
  return names2[i] ?? `#${i}`;
}
var Reporter = class {
  #o;
  /** Kicks by KickReason (counted from the log events). */
  kicks = new Uint32Array(KICK_LABELS.length);
  #startedAt;
  #last;
  #lastAt;
  #lastTicks = null;
  constructor(options) {
    this.#o = options;
    this.#startedAt = options.now();
    this.#lastAt = this.#startedAt;
    this.#last = new Uint32Array(options.server.counters.length);
  }
  playerName(slot) {
    const s = this.#o.server;
    return bytesToAscii(s.names, slot * NAME_LENGTH, s.nameLength[slot]);
  }
  /** Where the player in `slot` plays from, as log lines show it; "bot" for the server's own. */
  peer(slot) {
    const s = this.#o.server;
    return s.pilots.bot[slot] !== 0 ? "bot" : this.#o.describePeer(s.address[slot], s.port[slot]);
  }
  /** Every player now in the match, by slot. */
  players() {
    const { server, game } = this.#o;
    const rows = [];
    for (let s = 0; s < server.config.maxPlayers; s++) {
      if (server.active[s] === 0) continue;
      rows.push({
        slot: s,
        id: server.playerId(s),
        name: this.playerName(s),
        peer: this.peer(s),
        score: server.scores[s],
        kills: game !== null ? game.kills[s] : 0,
        deaths: game !== null ? game.deaths[s] : 0,
        pingMs: server.pings[s],
        ship: templateName(SHIP_NAME, server.ship[s]),
        weapon: templateName(WEAPON_NAME, server.weapon[s]),
        flying: game !== null && game.focusIndex[s] >= 0 ? templateName(SHIP_NAME, game.shipType[s]) : null,
        bot: server.pilots.bot[s] !== 0
      });
    }
    return rows;
  }
  /** Count what the report keeps of a log event (kicks by reason); the host calls it for every event. */
  count(event, value) {
    if (event === LogEvent.Kick && value > 0 && value < this.kicks.length) this.kicks[value]++;
  }
  /** The line for a log event, seen while the slot still holds its player; null for an event this report does not know. */
  event(event, slot, value) {
    const server = this.#o.server;
    const name = slot >= 0 ? this.playerName(slot) : "";
    const peer = slot >= 0 ? this.peer(slot) : "";
    const who = `slot ${slot} ${quote(name)} ${peer}`;
    switch (event) {
      case LogEvent.Join:
        return { event: "join", text: `join    ${who} id 0x${value.toString(16)}`, fields: { slot, name, peer, id: value } };
      case LogEvent.Leave:
        return { event: "leave", text: `leave   ${who} id 0x${value.toString(16)}`, fields: { slot, name, peer, id: value } };
      case LogEvent.Timeout:
        return { event: "timeout", text: `timeout ${who} id 0x${value.toString(16)}`, fields: { slot, name, peer, id: value } };
      case LogEvent.Kick: {
        const reason = describeKick(value);
        return { event: "kick", text: `kick    ${who}: ${reason}`, fields: { slot, name, peer, reason: KICK_LABELS[value] ?? String(value) } };
      }
      case LogEvent.Reject:
        return { event: "reject", text: "reject  a client: server full", fields: { reason: "server_full" } };
      case LogEvent.Rename:
        return { event: "rename", text: `name    slot ${slot} is now ${quote(name)}`, fields: { slot, name } };
      case LogEvent.Chat: {
        const text = bytesToAscii(server.lastChat, 0, server.lastChatLength);
        return { event: "chat", text: `chat    ${quote(name)}: ${text}`, fields: { slot, name, text } };
      }
      case LogEvent.Death: {
        const killer = deathKiller(value);
        const cause = causeName(deathCause(value));
        if (killer >= 0 && killer !== slot) {
          const killerName = this.playerName(killer);
          return {
            event: "kill",
            text: `kill    ${quote(killerName)} → ${quote(name)} (${cause})`,
            fields: { killer: killerName, killerSlot: killer, victim: name, victimSlot: slot, cause }
          };
        }
        const suicide = killer === slot;
        return {
          event: "death",
          text: `death   ${quote(name)} (${suicide ? `own ${cause}` : cause})`,
          fields: { victim: name, victimSlot: slot, cause, suicide }
        };
      }
    }
    return null;
  }
  /** Mean, p99 and share of the period of the ticks since the last status line (or since start). */
  #tickSince() {
    const cost = this.#o.tickCost;
    if (cost === null) return null;
    const summary = summarize(cost, this.#lastTicks);
    this.#lastTicks = { buckets: cost.buckets.slice(), count: cost.count, sumUs: cost.sumUs };
    return summary;
  }
  /** The periodic status line: rates since the last one, tick cost since the last one, drop totals. */
  status() {
    const { server, web } = this.#o;
    const c = server.counters;
    const now = this.#o.now();
    const dt = (now - this.#lastAt) / 1e3;
    const rate = (i) => dt > 0 ? Math.round((c[i] - this.#last[i]) / dt) : 0;
    const rates = { packetsIn: rate(Counter.PacketsIn), bytesIn: rate(Counter.BytesIn), packetsOut: rate(Counter.PacketsOut), bytesOut: rate(Counter.BytesOut) };
    this.#last.set(c);
    this.#lastAt = now;
    const tick = this.#tickSince();
    const drops = this.drops();
    const players = server.playerCount();
    const max = server.config.maxPlayers;
    let dropText = "";
    for (const d of drops) dropText += ` ${d.reason}=${d.total}`;
    let text = `status  players ${players}/${max}, entities ${server.entities.count} | rate in ${rates.packetsIn} pkt/s ${rates.bytesIn} B/s, out ${rates.packetsOut} pkt/s ${rates.bytesOut} B/s`;
    if (tick !== null && this.#o.tickCost !== null)
      text += ` | tick mean ${Math.round(tick.meanUs)} µs, p99 ${tick.p99Us} µs, ${percent(tick.share)} of ${this.#o.tickCost.periodMs} ms`;
    if (web) text += ` | ws ${web.open()} open`;
    const sendErrors = this.#o.sendErrors ? this.#o.sendErrors() : 0;
    if (sendErrors !== 0) text += ` | total send errors ${sendErrors}`;
    text += ` | total drops${dropText === "" ? " none" : dropText}`;
    const fields = { players, maxPlayers: max, entities: server.entities.count, rates };
    if (tick !== null) fields.tick = { meanUs: Math.round(tick.meanUs), p99Us: tick.p99Us, share: round4(tick.share), ticks: tick.ticks };
    if (web) fields.wsOpen = web.open();
    fields.sendErrors = sendErrors;
    fields.drops = drops;
    return { event: "status", text, fields };
  }
  /** Totals of every drop that is not harmless, zeros left out (the web transport's reasons prefixed "ws."). */
  drops() {
    const { server, web } = this.#o;
    const out = [];
    for (const i of DROP_COUNTERS) if (server.counters[i] !== 0) out.push({ reason: COUNTER_NAMES[i], total: server.counters[i] });
    if (web) {
      for (const i of web.drops) if (web.counters[i] !== 0) out.push({ reason: `ws.${web.names[i]}`, total: web.counters[i] });
    }
    const board = this.#o.board;
    if (board) {
      board.refresh();
      for (const i of board.drops) if (board.counters[i] !== 0) out.push({ reason: `board.${board.names[i]}`, total: board.counters[i] });
    }
    return out;
  }
  /** The final scoreboard, best first: take it before the shutdown kicks everyone. */
  scoreboard() {
    const rows = this.players().sort((a, b) => b.score - a.score || b.kills - a.kills || a.deaths - b.deaths || a.slot - b.slot);
    let text = `scoreboard (${rows.length} player${rows.length === 1 ? "" : "s"})`;
    let rank = 0;
    for (const r of rows) {
      rank++;
      text += `
  ${String(rank).padStart(2)}. ${quote(r.name).padEnd(NAME_LENGTH + 2)} score ${String(r.score).padStart(4)}  kills ${String(r.kills).padStart(4)}  deaths ${String(r.deaths).padStart(4)}`;
    }
    return {
      event: "scoreboard",
      text,
      fields: { players: rows.map((r, i) => ({ rank: i + 1, name: r.name, score: r.score, kills: r.kills, deaths: r.deaths })) }
    };
  }
  /** Shutdown totals (after the shutdown, whose kicks are counted). */
  totals(signal, players) {
    const { server, web } = this.#o;
    const c = server.counters;
    const fields = {
      signal,
      players,
      joins: c[Counter.Joins],
      leaves: c[Counter.Leaves],
      timeouts: c[Counter.Timeouts],
      kicks: c[Counter.Kicks],
      rejects: c[Counter.Rejects],
      packetsIn: c[Counter.PacketsIn],
      packetsOut: c[Counter.PacketsOut]
    };
    let text = `${signal}: shut down, ${players} player(s) sent Leave; totals: joins ${c[Counter.Joins]}, leaves ${c[Counter.Leaves]}, timeouts ${c[Counter.Timeouts]}, kicks ${c[Counter.Kicks]}, rejects ${c[Counter.Rejects]}, packets in ${c[Counter.PacketsIn]} out ${c[Counter.PacketsOut]}`;
    if (web) {
      const connections = web.counters[web.names.indexOf("connections")];
      const requests = web.counters[web.names.indexOf("httpRequests")];
      text += `, ws connections ${connections}, page requests ${requests}`;
      fields.wsConnections = connections;
      fields.httpRequests = requests;
    }
    return { event: "shutdown", text, fields };
  }
  /** `/status`: the match now, as JSON text. Tick cost is over the whole run. */
  statusJson() {
    const { server, game, web, tickCost } = this.#o;
    const c = server.counters;
    let json = `{"host":${JSON.stringify(this.#o.host)},"uptimeS":${Math.round((this.#o.now() - this.#startedAt) / 1e3)},"seed":${JSON.stringify(this.#o.seed)},"maxPlayers":${server.config.maxPlayers},"players":${JSON.stringify(this.players())},"entities":${server.entities.count}`;
    if (tickCost !== null) {
      const t = summarize(tickCost, null);
      json += `,"tick":${JSON.stringify({
        periodMs: tickCost.periodMs,
        clock: tickCost.clock,
        ticks: t.ticks,
        meanUs: Math.round(t.meanUs),
        p99Us: t.p99Us,
        maxUs: tickCost.maxUs,
        share: round4(t.share)
      })}`;
    }
    json += `,"packets":{"in":${c[Counter.PacketsIn]},"out":${c[Counter.PacketsOut]}},"bytes":{"in":${c[Counter.BytesIn]},"out":${c[Counter.BytesOut]}}`;
    let drops = "";
    for (const d of this.drops()) drops += `${drops === "" ? "" : ","}${JSON.stringify(d.reason)}:${d.total}`;
    json += `,"drops":{${drops}},"harmless":${jsonMap(COUNTER_NAMES, c, HARMLESS_COUNTERS)}`;
    json += `,"kicks":${jsonMap(KICK_LABELS, this.kicks, [KickReason.QueueOverflow, KickReason.Misbehaviour, KickReason.Shutdown])}`;
    if (game !== null) json += `,"game":${jsonMap(GAME_COUNTER_NAMES, game.counters, null)}`;
    if (web) json += `,"web":{"open":${web.open()},${jsonMap(web.names, web.counters, null).slice(1)}`;
    const board = this.#o.board;
    if (board) {
      board.refresh();
      let facts = "";
      for (const [name, value] of board.facts) facts += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
      json += `,"board":{"counters":${jsonMap(board.names, board.counters, null)}${facts}}`;
    }
    json += `,"sendErrors":${this.#o.sendErrors ? this.#o.sendErrors() : 0},"counters":${jsonMap(COUNTER_NAMES, c, null)}}`;
    return json;
  }
  /** `/metrics`: the Prometheus text exposition format (version 0.0.4). */
  metrics() {
    const { server, game, web, tickCost } = this.#o;
    const c = server.counters;
    const lines = [];
    const family = (name, type, help) => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    };
    family("lwar_players", "gauge", "Players in the match.");
    lines.push(`lwar_players ${server.playerCount()}`);
    family("lwar_max_players", "gauge", "Player slots.");
    lines.push(`lwar_max_players ${server.config.maxPlayers}`);
    family("lwar_entities", "gauge", "Live entities: sun, planets, ships, projectiles.");
    lines.push(`lwar_entities ${server.entities.count}`);
    family("lwar_uptime_seconds", "gauge", "Seconds since the server started.");
    lines.push(`lwar_uptime_seconds ${Math.round((this.#o.now() - this.#startedAt) / 1e3)}`);
    family("lwar_packets_total", "counter", "Packets, by direction.");
    lines.push(`lwar_packets_total{direction="in"} ${c[Counter.PacketsIn]}`, `lwar_packets_total{direction="out"} ${c[Counter.PacketsOut]}`);
    family("lwar_bytes_total", "counter", "Bytes of packets, by direction.");
    lines.push(`lwar_bytes_total{direction="in"} ${c[Counter.BytesIn]}`, `lwar_bytes_total{direction="out"} ${c[Counter.BytesOut]}`);
    family("lwar_drops_total", "counter", "Packets and messages dropped as malformed, misdirected or not believed, by reason.");
    for (const i of DROP_COUNTERS) lines.push(`lwar_drops_total{reason="${COUNTER_NAMES[i]}"} ${c[i]}`);
    family("lwar_harmless_total", "counter", "Packets and messages set aside in the normal run of things (late, repeated or stale), by reason.");
    for (const i of HARMLESS_COUNTERS) lines.push(`lwar_harmless_total{reason="${COUNTER_NAMES[i]}"} ${c[i]}`);
    family("lwar_kicks_total", "counter", "Players kicked, by reason.");
    for (let r = KickReason.QueueOverflow; r <= KickReason.Shutdown; r++) lines.push(`lwar_kicks_total{reason="${KICK_LABELS[r]}"} ${this.kicks[r]}`);
    family("lwar_server_events_total", "counter", "Every counter of the server core, by name (docs/operating.md).");
    for (let i = 0; i < COUNTER_NAMES.length; i++) lines.push(`lwar_server_events_total{counter="${COUNTER_NAMES[i]}"} ${c[i]}`);
    if (tickCost !== null) {
      family("lwar_tick_seconds", "histogram", "What each server tick took.");
      let cumulative = 0;
      for (let b = 0; b < TICK_BUCKETS; b++) {
        cumulative += tickCost.buckets[b];
        if ((b & 3) === 3 && b < TICK_BUCKETS - 1) lines.push(`lwar_tick_seconds_bucket{le="${seconds(tickBucketLower(b + 1))}"} ${cumulative}`);
      }
      lines.push(`lwar_tick_seconds_bucket{le="+Inf"} ${tickCost.count}`);
      lines.push(`lwar_tick_seconds_sum ${seconds(tickCost.sumUs)}`, `lwar_tick_seconds_count ${tickCost.count}`);
      family("lwar_tick_max_seconds", "gauge", "The longest tick so far.");
      lines.push(`lwar_tick_max_seconds ${seconds(tickCost.maxUs)}`);
      family("lwar_tick_period_seconds", "gauge", "How often the host ticks.");
      lines.push(`lwar_tick_period_seconds ${tickCost.periodMs / 1e3}`);
    }
    if (game !== null) {
      for (let i = 0; i < GAME_COUNTER_NAMES.length; i++) {
        const name = `lwar_game_${snake(GAME_COUNTER_NAMES[i])}_total`;
        family(name, "counter", `Game counter ${GAME_COUNTER_NAMES[i]}.`);
        lines.push(`${name} ${game.counters[i]}`);
      }
    }
    const players = this.players();
    family("lwar_player_score", "gauge", "Each player's score.");
    for (const p of players) lines.push(`lwar_player_score{slot="${p.slot}",name="${label(p.name)}"} ${p.score}`);
    family("lwar_player_kills", "gauge", "Each player's kills since joining.");
    for (const p of players) lines.push(`lwar_player_kills{slot="${p.slot}",name="${label(p.name)}"} ${p.kills}`);
    family("lwar_player_deaths", "gauge", "Each player's deaths since joining.");
    for (const p of players) lines.push(`lwar_player_deaths{slot="${p.slot}",name="${label(p.name)}"} ${p.deaths}`);
    family("lwar_send_errors_total", "counter", "Sends the host's socket refused.");
    lines.push(`lwar_send_errors_total ${this.#o.sendErrors ? this.#o.sendErrors() : 0}`);
    if (web) {
      family("lwar_ws_open", "gauge", "Open WebSocket connections.");
      lines.push(`lwar_ws_open ${web.open()}`);
      family("lwar_web_events_total", "counter", "Every counter of the HTTP and WebSocket transport, by name.");
      for (let i = 0; i < web.names.length; i++) lines.push(`lwar_web_events_total{counter="${web.names[i]}"} ${web.counters[i]}`);
    }
    const board = this.#o.board;
    if (board) {
      board.refresh();
      family("lwar_board_events_total", "counter", "Every counter of the board's network path (UDP ring, TCP slots), by name.");
      for (let i = 0; i < board.names.length; i++) lines.push(`lwar_board_events_total{counter="${board.names[i]}"} ${board.counters[i]}`);
    }
    return lines.join("\n") + "\n";
  }
};
function jsonMap(names2, values, indices) {
  let out = "";
  const n = indices === null ? names2.length : indices.length;
  for (let k = 0; k < n; k++) {
    const i = indices === null ? k : indices[k];
    out += `${k === 0 ? "" : ","}${JSON.stringify(names2[i])}:${values[i]}`;
  }
  return `{${out}}`;
}
function round4(x) {
  return Math.round(x * 1e4) / 1e4;
}

// modules/watch.ts
var POS_HALF = 1 << POS_SHIFT - 1;
var ANGLE_HALF = 1 << ANGLE_BITS - 1;
var WATCH_PATH = "/watch";
var WATCH_WS_PATH = "/watch/ws";
var WATCH_INTERVAL_MS = 100;
var WATCH_KIND = 87;
var WATCH_VERSION = 1;
var WATCH_EVENTS = 16;
var WATCH_HEADER = 10;
var WATCH_PLAYER = 13;
var WATCH_ENTITY = 2 + UPDATE_ENTRY;
var WATCH_EVENT = 6;
function watchFrameBytes(config) {
  return WATCH_HEADER + config.maxPlayers * (WATCH_PLAYER + NAME_LENGTH) + config.maxEntities * WATCH_ENTITY + WATCH_EVENTS * (WATCH_EVENT + 1 + CHAT_LENGTH);
}
var WatchFeed = class {
  /** The frame, written by `write`. */
  frame;
  #kind = new Uint8Array(WATCH_EVENTS);
  #slot = new Uint8Array(WATCH_EVENTS);
  #value = new Uint32Array(WATCH_EVENTS);
  #chat = new Uint8Array(WATCH_EVENTS * CHAT_LENGTH);
  #chatLength = new Uint8Array(WATCH_EVENTS);
  #events = 0;
  #server;
  /** The entity table's owners as signed 32-bit integers (NO_PLAYER is -1): a Uint32Array read past 2^31 is a double on XS. */
  #owners;
  /** Events dropped because a frame's ring was full. */
  dropped = 0;
  /** Frames written. */
  frames = 0;
  /** A feed of `server`'s match: its frame buffer sized from the server's config, made once. */
  constructor(server) {
    this.#server = server;
    this.frame = new Uint8Array(watchFrameBytes(server.config));
    const owner = server.entities.owner;
    this.#owners = new Int32Array(owner.buffer, owner.byteOffset, owner.length);
  }
  /**
   * A server log event (Host.log): deaths and chat lines go into the next frame. The server
   * holds the chat text (lastChat) while its Chat event is logged.
   */
  note(event, slot, value) {
    const server = this.#server;
    if (event !== LogEvent.Death && event !== LogEvent.Chat) return;
    if (slot < 0 || slot > 255) return;
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
  skip() {
    this.#events = 0;
  }
  /** Write the frame at `now` (the server's clock, ms) into `frame`; returns its length. The events go with it. */
  write(now) {
    const server = this.#server;
    const b = this.frame;
    const e = server.entities;
    const n = server.config.maxPlayers;
    b[0] = WATCH_KIND;
    b[1] = WATCH_VERSION;
    b[2] = now >> 24 & 255;
    b[3] = now >> 16 & 255;
    b[4] = now >> 8 & 255;
    b[5] = now & 255;
    let o = WATCH_HEADER;
    let players = 0;
    for (let s = 0; s < n; s++) {
      if (server.active[s] === 0) continue;
      const id = server.playerId(s);
      b[o] = s;
      b[o + 1] = id >> 24 & 255;
      b[o + 2] = id >> 16 & 255;
      b[o + 3] = id >> 8 & 255;
      b[o + 4] = id & 255;
      b[o + 5] = server.scores[s] >>> 8 & 255;
      b[o + 6] = server.scores[s] & 255;
      b[o + 7] = server.pings[s] >>> 8 & 255;
      b[o + 8] = server.pings[s] & 255;
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
    let owner, g, x, y, vx, vy, rot, h;
    for (let i = 0; i < cap; i++) {
      if (alive[i] === 0) continue;
      owner = owners[i];
      g = gen[i];
      x = ex[i] + POS_HALF >> POS_SHIFT;
      y = ey[i] + POS_HALF >> POS_SHIFT;
      vx = evx[i] * STEP_HZ + POS_HALF >> POS_SHIFT;
      vy = evy[i] * STEP_HZ + POS_HALF >> POS_SHIFT;
      x = x < -32768 ? -32768 : x > 32767 ? 32767 : x;
      y = y < -32768 ? -32768 : y > 32767 ? 32767 : y;
      vx = vx < -32768 ? -32768 : vx > 32767 ? 32767 : vx;
      vy = vy < -32768 ? -32768 : vy > 32767 ? 32767 : vy;
      rot = (erot[i] & ANGLE_MASK) * CENTIDEGREES + ANGLE_HALF >> ANGLE_BITS;
      h = health[i];
      b[o] = type[i];
      b[o + 1] = owner === -1 ? 255 : owner & 255;
      b[o + 2] = g >> 8 & 255;
      b[o + 3] = g & 255;
      b[o + 4] = i >> 8 & 255;
      b[o + 5] = i & 255;
      b[o + 6] = x >> 8 & 255;
      b[o + 7] = x & 255;
      b[o + 8] = y >> 8 & 255;
      b[o + 9] = y & 255;
      b[o + 10] = vx >> 8 & 255;
      b[o + 11] = vx & 255;
      b[o + 12] = vy >> 8 & 255;
      b[o + 13] = vy & 255;
      b[o + 14] = rot >> 8 & 255;
      b[o + 15] = rot & 255;
      b[o + 16] = h > 100 ? 100 : h;
      o += WATCH_ENTITY;
      entities++;
    }
    b[7] = entities >> 8 & 255;
    b[8] = entities & 255;
    b[9] = this.#events;
    for (let k = 0; k < this.#events; k++) {
      b[o] = this.#kind[k];
      b[o + 1] = this.#slot[k];
      const v = this.#value[k];
      b[o + 2] = v >> 24 & 255;
      b[o + 3] = v >> 16 & 255;
      b[o + 4] = v >> 8 & 255;
      b[o + 5] = v & 255;
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
};

// web/page.ts
import { readFileSync as readFileSync2 } from "node:fs";
import { gzipSync } from "node:zlib";
var PAGE_FILES = Object.freeze([
  Object.freeze({ path: "/", name: "index.html", type: "text/html; charset=utf-8" }),
  Object.freeze({ path: "/app.js", name: "app.js", type: "text/javascript; charset=utf-8" }),
  // The game's hot loops as WebAssembly (npm run build:wasm): the server runs them on Node,
  // and the page its own ship's prediction.
  Object.freeze({ path: "/kernels.wasm", name: "kernels.wasm", type: "application/wasm" })
]);
function pageFile(path, body) {
  const entry = PAGE_FILES.find((f) => f.path === path);
  if (entry === void 0) throw new Error(`${path} is not a file of the page`);
  return { path, type: entry.type, body, gzip: new Uint8Array(gzipSync(body, { level: 9 })) };
}
var PageError = class extends Error {
  name = "PageError";
};
function readPage(dir) {
  return PAGE_FILES.map((f) => {
    const url = new URL(f.name, dir);
    let body;
    try {
      body = new Uint8Array(readFileSync2(url));
    } catch (err) {
      throw new PageError(`the game page is not built (${err.message}): run \`npm run build:web\`, or start with --http-port 0`);
    }
    return pageFile(f.path, body);
  });
}

// hosts/node/web.ts
import http from "node:http";
import { WebSocketServer, WebSocket } from "ws";

// hosts/node/frames.ts
var FrameTracker = class {
  #head = new Uint8Array(14);
  #headLength = 0;
  /** Header bytes wanted: 2 until byte 1 tells the rest. */
  #headWanted = 2;
  /** Payload bytes of the current frame still to pass over. */
  #skip = 0;
  #fragmented = false;
  /** One entry per complete data message: true if it was fragmented. */
  #done = [];
  /** Bytes as they arrive on the socket. */
  feed(chunk) {
    const head = this.#head;
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.#skip > 0) {
        const step = Math.min(this.#skip, n - i);
        this.#skip -= step;
        i += step;
        continue;
      }
      head[this.#headLength++] = chunk[i++];
      if (this.#headLength === 2) {
        const len7 = head[1] & 127;
        this.#headWanted = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (head[1] & 128 ? 4 : 0);
      }
      if (this.#headLength === this.#headWanted) {
        this.#frame();
        this.#headLength = 0;
        this.#headWanted = 2;
      }
    }
  }
  #frame() {
    const head = this.#head;
    const len7 = head[1] & 127;
    let length = len7;
    if (len7 === 126) length = head[2] << 8 | head[3];
    else if (len7 === 127) {
      length = 0;
      for (let k = 2; k < 10; k++) length = length * 256 + head[k];
    }
    this.#skip = length;
    const fin = (head[0] & 128) !== 0;
    const opcode = head[0] & 15;
    if (opcode >= 8) return;
    if (opcode !== 0) this.#fragmented = !fin;
    if (fin) {
      this.#done.push(opcode === 0 || this.#fragmented);
      this.#fragmented = false;
    }
  }
  /** Whether the oldest message not yet taken came in fragments (false if none is known). */
  take() {
    return this.#done.length > 0 ? this.#done.shift() : false;
  }
  /** Messages seen but not yet taken. */
  get pending() {
    return this.#done.length;
  }
};

// hosts/node/web.ts
var SWEEP_MS = 1e3;
var WebTransport = class {
  counters = new Uint32Array(WEB_COUNTER_NAMES.length);
  http;
  #wss;
  #files = /* @__PURE__ */ new Map();
  #routes = /* @__PURE__ */ new Map();
  #peers = /* @__PURE__ */ new Map();
  #maxConnections;
  #idleMs;
  #maxBuffered;
  #core = null;
  /** Watchers: sockets that take no slot and get a watch frame every WATCH_INTERVAL_MS. */
  #watchers = /* @__PURE__ */ new Set();
  #maxWatchers;
  #frame = null;
  #skipFrame = null;
  #watchTimer = null;
  /** Watch frames sent, and not sent to a watcher that had no room. */
  watchFramesSent = 0;
  watchFramesDropped = 0;
  #nextPort = WS_PORT_BASE + 1;
  #sweep = null;
  #closed = false;
  constructor(options) {
    for (const f of options.files) this.#files.set(f.path, f);
    this.#maxConnections = options.maxConnections ?? 128;
    this.#idleMs = options.idleMs ?? 15e3;
    this.#maxBuffered = options.maxBufferedBytes ?? 65536;
    this.#maxWatchers = options.maxWatchers ?? 8;
    this.#wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: options.maxMessageBytes ?? 65536,
      maxFragments: 64
    });
    this.http = http.createServer((req, res) => this.#request(req, res));
    this.http.on("upgrade", (req, socket, head) => this.#upgrade(req, socket, head));
    this.http.on("clientError", (_err, socket) => socket.destroy());
  }
  /** Bind the HTTP port and resolve with the bound address and port. */
  listen(port, address) {
    return new Promise((resolve, reject) => {
      const onError = (err) => reject(err);
      this.http.once("error", onError);
      this.http.listen(port, address, () => {
        this.http.off("error", onError);
        const a = this.http.address();
        if (a === null || typeof a === "string") throw new Error("HTTP server has no port");
        resolve({ address: a.address, port: a.port });
      });
    });
  }
  /** Answer GET and HEAD of `path` with what `handler` makes, each time. */
  route(path, handler) {
    this.#routes.set(path, handler);
  }
  /** Deliver messages to `core` and disconnect its peers when their sockets close. */
  attach(core) {
    this.#core = core;
    if (this.#sweep === null) this.#sweep = setInterval(() => this.#idleSweep(), SWEEP_MS);
  }
  /** Open WebSocket connections (players and would-be players; watchers apart). */
  get open() {
    return this.#peers.size;
  }
  /** Watchers connected. */
  get watchers() {
    return this.#watchers.size;
  }
  /**
   * Feed watchers: every WATCH_INTERVAL_MS while any is connected, `frame()` writes a watch
   * frame (the same bytes for all); while none is, `skip()` drops what would have gone.
   */
  watch(frame, skip) {
    this.#frame = frame;
    this.#skipFrame = skip;
    if (this.#watchTimer === null) this.#watchTimer = setInterval(() => this.#sendWatch(), WATCH_INTERVAL_MS);
  }
  #sendWatch() {
    if (this.#watchers.size === 0) {
      if (this.#skipFrame !== null) this.#skipFrame();
      return;
    }
    if (this.#frame === null) return;
    const bytes = Buffer.from(this.#frame());
    for (const ws of this.#watchers) {
      if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > this.#maxBuffered) {
        this.watchFramesDropped++;
        continue;
      }
      ws.send(bytes, { binary: true, compress: false });
      this.watchFramesSent++;
    }
  }
  /** One packet to the connection numbered `port`. */
  send(bytes, length, port) {
    const peer = this.#peers.get(port);
    if (peer === void 0 || peer.closing || peer.socket.readyState !== WebSocket.OPEN || peer.socket.bufferedAmount > this.#maxBuffered) {
      this.counters[WebCounter.SendDropped]++;
      return;
    }
    peer.socket.send(Buffer.from(bytes.subarray(0, length)), { binary: true, compress: false });
    if (length === HEADER_SIZE + 2 && headerRel(bytes) === 0 && headerUnrel(bytes) === 1 && bytes[HEADER_SIZE] === Msg.Reject) {
      this.counters[WebCounter.RejectCloses]++;
      const reason = bytes[HEADER_SIZE + UNRELIABLE_HEADER];
      this.#close(peer, CloseCode.Rejected + reason, reason === RejectReason.ServerFull ? "server full" : `rejected (${reason})`);
    }
  }
  /** The server's log events, seen before the slot is freed: close the connections it dropped. */
  event(event, slot, value) {
    const core = this.#core;
    if (core === null || slot < 0) return;
    const peer = this.#peers.get(core.port[slot]);
    if (peer === void 0) return;
    if (event === LogEvent.Kick) this.#closePlayer(peer, CloseCode.Kicked + value, `kicked: ${describeKick(value)}`);
    else if (event === LogEvent.Timeout) this.#closePlayer(peer, CloseCode.TimedOut, "timed out");
    else if (event === LogEvent.Leave) this.#closePlayer(peer, CloseCode.Left, "left");
  }
  /** Close every connection and the HTTP server. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sweep !== null) clearInterval(this.#sweep);
    this.#sweep = null;
    if (this.#watchTimer !== null) clearInterval(this.#watchTimer);
    this.#watchTimer = null;
    for (const ws of this.#watchers) ws.close(CloseCode.GoingAway, "server shutting down");
    for (const peer of this.#peers.values()) this.#close(peer, CloseCode.GoingAway, "server shutting down");
    await new Promise((r) => setTimeout(r, 100));
    for (const peer of this.#peers.values()) peer.socket.terminate();
    for (const ws of this.#watchers) ws.terminate();
    this.#core = null;
    this.http.closeAllConnections();
    await new Promise((resolve) => this.http.close(() => resolve()));
  }
  // ---------------------------------------------------------------- HTTP
  #request(req, res) {
    this.counters[WebCounter.HttpRequests]++;
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    const file = this.#files.get(path === "/index.html" || path === WATCH_PATH ? "/" : path);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Length": 0 });
      res.end();
      return;
    }
    const route = this.#routes.get(path);
    if (route !== void 0) {
      const r = route();
      const body2 = Buffer.from(r.body, "utf8");
      res.writeHead(200, { "Content-Type": r.type, "Content-Length": body2.length, "Cache-Control": "no-store" });
      res.end(req.method === "HEAD" ? void 0 : body2);
      return;
    }
    if (file === void 0) {
      this.counters[WebCounter.HttpNotFound]++;
      res.writeHead(404, { "Content-Type": "text/plain", "Content-Length": 10 });
      res.end(req.method === "HEAD" ? void 0 : "not found\n");
      return;
    }
    const gzip = file.gzip !== null && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    const body = gzip ? file.gzip : file.body;
    const headers = {
      "Content-Type": file.type,
      "Content-Length": body.length,
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      Vary: "Accept-Encoding"
    };
    if (gzip) headers["Content-Encoding"] = "gzip";
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? void 0 : body);
  }
  #upgrade(req, socket, head) {
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (path === WATCH_WS_PATH) {
      this.#upgradeWatcher(req, socket, head);
      return;
    }
    if (path !== WS_PATH || this.#closed || this.#peers.size >= this.#maxConnections) {
      this.counters[WebCounter.UpgradesRefused]++;
      const status = path !== WS_PATH ? "404 Not Found" : "503 Service Unavailable";
      socket.end(`HTTP/1.1 ${status}\r
Connection: close\r
Content-Length: 0\r
\r
`);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#open(ws, req, socket));
  }
  /** A watcher: no peer of the server, no slot; what it sends is ignored. */
  #upgradeWatcher(req, socket, head) {
    if (this.#closed || this.#frame === null || this.#watchers.size >= this.#maxWatchers) {
      this.counters[WebCounter.UpgradesRefused]++;
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#watchers.add(ws);
      ws.on("message", () => this.counters[WebCounter.TextDropped]++);
      ws.on("error", () => this.counters[WebCounter.ProtocolErrors]++);
      ws.on("close", () => this.#watchers.delete(ws));
    });
  }
  // ---------------------------------------------------------------- WebSocket peers
  #open(socket, req, raw) {
    let remote = req.socket.remoteAddress ?? "?";
    if (remote.startsWith("::ffff:")) remote = remote.slice(7);
    const peer = {
      socket,
      address: `ws:${remote}`,
      port: this.#nextPort++,
      frames: new FrameTracker(),
      lastPlayer: performance.now(),
      closing: false
    };
    this.#peers.set(peer.port, peer);
    this.counters[WebCounter.Connections]++;
    raw.prependListener("data", (chunk) => peer.frames.feed(chunk));
    socket.on("message", (data, isBinary) => this.#message(peer, data, isBinary));
    socket.on("error", () => this.counters[WebCounter.ProtocolErrors]++);
    socket.on("close", () => {
      this.#peers.delete(peer.port);
      const core = this.#core;
      if (core !== null) core.disconnectPeer(peer.address, peer.port);
    });
  }
  #message(peer, data, isBinary) {
    const fragmented = peer.frames.take();
    if (peer.closing || this.#core === null) return;
    if (!isBinary) {
      this.counters[WebCounter.TextDropped]++;
      return;
    }
    if (fragmented) {
      this.counters[WebCounter.FragmentedDropped]++;
      return;
    }
    this.#core.receive(data, data.length, peer.address, peer.port);
  }
  #closePlayer(peer, code, reason) {
    if (peer.closing) return;
    this.counters[WebCounter.PlayerCloses]++;
    this.#close(peer, code, reason);
  }
  #close(peer, code, reason) {
    if (peer.closing) return;
    peer.closing = true;
    peer.socket.close(code, reason);
  }
  #idleSweep() {
    const core = this.#core;
    if (core === null) return;
    const now = performance.now();
    const ports = core.port;
    for (const peer of this.#peers.values()) {
      if (peer.closing) continue;
      let player = false;
      for (let s = 0; s < ports.length; s++) if (ports[s] === peer.port) player = true;
      if (player) peer.lastPlayer = now;
      else if (now - peer.lastPlayer > this.#idleMs) {
        this.counters[WebCounter.IdleCloses]++;
        this.#close(peer, CloseCode.Idle, "not a player");
      }
    }
  }
};

// hosts/node/serve.ts
var PAGE_DIR = new URL(import.meta.url.endsWith(".ts") ? "../../dist/web/" : "./web/", import.meta.url);
var ListenError = class extends Error {
  constructor(what, address, port, cause) {
    super(`cannot listen on ${what} ${address.includes(":") ? `[${address}]` : address}:${port}: ${cause.message}`);
    this.what = what;
  }
  what;
  name = "ListenError";
};
async function serve(o) {
  let report = null;
  const sink = o.log ?? null;
  let feed = null;
  const host = new NodeHost({
    log(event, slot, value) {
      if (report !== null) report.count(event, value);
      if (feed !== null) feed.note(event, slot, value);
      if (sink !== null) sink(event, slot, value);
    }
  });
  const { server, game } = createMatch(o.config, o.tap ? o.tap.host(host) : host, o.seed, nodeNative(o.config));
  const watchFeed = o.httpPort === null ? null : new WatchFeed(server);
  feed = watchFeed;
  if (game !== null) game.onDeath = (slot, killer, cause) => host.log(LogEvent.Death, slot, deathValue(killer, cause));
  const files = o.httpPort === null ? null : o.files ?? readPage(PAGE_DIR);
  let udp;
  let address = o.address;
  try {
    udp = await host.listen(o.udpPort, address);
  } catch (err) {
    const code = err.code;
    if (address !== "::" || code !== "EAFNOSUPPORT" && code !== "EADDRNOTAVAIL") throw new ListenError("udp", address, o.udpPort, err);
    address = "0.0.0.0";
    try {
      udp = await host.listen(o.udpPort, address);
    } catch (err2) {
      throw new ListenError("udp", address, o.udpPort, err2);
    }
  }
  let web = null;
  let http2 = null;
  if (files !== null && o.httpPort !== null) {
    web = new WebTransport({ idleMs: o.config.timeoutMs, ...o.web, files });
    try {
      http2 = await web.listen(o.httpPort, address);
    } catch (err) {
      await host.close();
      throw new ListenError("http", address, o.httpPort, err);
    }
    host.addPeers(web);
    if (watchFeed !== null) web.watch(() => watchFeed.frame.subarray(0, watchFeed.write(host.now() >>> 0)), () => watchFeed.skip());
  }
  const core = o.tap ? o.tap.core(server, game, o.seed, udp) : server;
  if (web !== null) web.attach(core);
  const transport = web;
  report = new Reporter({
    server,
    game,
    seed: o.seed,
    host: "node",
    describePeer,
    tickCost: host.tickCost,
    now: () => host.now(),
    sendErrors: () => host.sendErrors,
    web: transport === null ? null : { counters: transport.counters, names: WEB_COUNTER_NAMES, drops: WEB_DROPS, open: () => transport.open }
  });
  const r = report;
  if (web !== null) {
    web.route("/status", () => ({ type: "application/json", body: r.statusJson() + "\n" }));
    web.route("/metrics", () => ({ type: "text/plain; version=0.0.4; charset=utf-8", body: r.metrics() }));
  }
  host.attach(core);
  return {
    server,
    game,
    host,
    web,
    udp,
    http: http2,
    report,
    async close() {
      server.shutdown();
      await host.close();
    }
  };
}
function pageUrls(address, port) {
  const suffix = port === 80 ? "/" : `:${port}/`;
  if (address !== "0.0.0.0" && address !== "::") return [`http://${address.includes(":") ? `[${address}]` : address}${suffix}`];
  const urls = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4") urls.push(`http://${a.address}${suffix}`);
  }
  if (urls.length === 0) urls.push(`http://127.0.0.1${suffix}`);
  return urls;
}

// hosts/node/recorder.ts
import { closeSync, openSync, writeSync } from "node:fs";

// modules/recording/format.ts
var RECORDING_VERSION = 1;
var MAGIC = Object.freeze([76, 87, 82, 67]);
var PREFIX_BYTES = 12;
var Rec = Object.freeze({ Tick: 1, Datagram: 2, Peer: 3, Hash: 4, Gone: 5, Mark: 6, End: 7 });
var KIND_NAMES = Object.freeze(["?", "tick", "datagram", "peer", "hash", "gone", "mark", "end"]);
var EndReason = Object.freeze({
  /** The server shut down. */
  Shutdown: 0,
  /** The file reached its size limit; the match went on unrecorded. */
  SizeLimit: 1,
  /** The recording program stopped (the bench, a test). */
  Finished: 2
});
var REASON_NAMES = Object.freeze(["shutdown", "size limit", "finished"]);
function describeEndReason(reason) {
  return REASON_NAMES[reason] ?? `reason ${reason}`;
}
var TIME_UNITS = 1024;
var HASH_EVERY_MS = 1e3;
var MAX_DATAGRAM = 65535;
var END_BYTES = 1 + 1 + 9 + 12;
var RECORD_OVERHEAD = 1 + 9 + 4 + 4;
var PEER_BYTES = 1 + 4 + 4 + 1 + 255;
var DELTA_LIMIT = 1 << 27;
function encodeHeader(header) {
  const json = JSON.stringify(header);
  let ascii = "";
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    ascii += c < 127 ? json[i] : "\\u" + (65536 + c).toString(16).slice(1);
  }
  const h = ascii.length;
  const out = new Uint8Array(PREFIX_BYTES + h);
  for (let i = 0; i < 4; i++) out[i] = MAGIC[i];
  out[4] = RECORDING_VERSION;
  out[8] = h & 255;
  out[9] = h >> 8 & 255;
  out[10] = h >> 16 & 255;
  out[11] = h >>> 24 & 255;
  for (let i = 0; i < h; i++) out[PREFIX_BYTES + i] = ascii.charCodeAt(i);
  return out;
}
var RecordWriter = class {
  /** Bytes handed to the sink or buffered: the file's size once flushed. */
  written = 0;
  /** Set when a record did not fit under the limit. */
  full = false;
  /** Set once End is written: nothing more is. */
  ended = false;
  limit;
  /** The peer table: address and port of each peer id. */
  address = [];
  port = [];
  #buf;
  #n = 0;
  /** Offset in the buffer where the record being written began. */
  #start = 0;
  #sink;
  /** Peer ids by port. */
  #byPort = /* @__PURE__ */ new Map();
  #last;
  #units;
  #onGrid;
  #f64 = new Float64Array(1);
  #b64 = new Uint8Array(this.#f64.buffer);
  constructor(o) {
    this.#sink = o.sink;
    this.limit = o.limitBytes ?? Number.MAX_SAFE_INTEGER;
    if (this.limit < o.header.length + END_BYTES) throw new RangeError(`a ${this.limit}-byte limit leaves no room for the records`);
    this.#buf = new Uint8Array(Math.max(o.bufferBytes ?? 65536, MAX_DATAGRAM + RECORD_OVERHEAD + PEER_BYTES, o.header.length));
    this.#buf.set(o.header);
    this.#n = o.header.length;
    this.#start = this.#n;
    this.written = o.header.length;
    this.#last = o.start;
    this.#units = o.start * TIME_UNITS;
    this.#onGrid = Number.isInteger(this.#units);
  }
  /** server.tick(time). */
  tick(time) {
    if (!this.#room(1 + 9)) return false;
    this.#buf[this.#n++] = Rec.Tick;
    this.#time(time);
    this.#done();
    return true;
  }
  /** server.receive(bytes, length, address, port) at `time`. */
  datagram(time, bytes, length, address, port) {
    if (length > MAX_DATAGRAM) throw new RangeError(`a ${length}-byte datagram: at most ${MAX_DATAGRAM}`);
    const peer = this.#peer(address, port);
    if (peer < 0 || !this.#room(RECORD_OVERHEAD + length)) return false;
    const b = this.#buf;
    b[this.#n++] = Rec.Datagram;
    this.#time(time);
    this.#vu(peer);
    this.#vu(length);
    if (bytes.length === length) b.set(bytes, this.#n);
    else for (let i = 0; i < length; i++) b[this.#n + i] = bytes[i];
    this.#n += length;
    this.#done();
    return true;
  }
  /** server.disconnectPeer(address, port) at `time`. */
  gone(time, address, port) {
    const peer = this.#peer(address, port);
    if (peer < 0 || !this.#room(1 + 9 + 4)) return false;
    this.#buf[this.#n++] = Rec.Gone;
    this.#time(time);
    this.#vu(peer);
    this.#done();
    return true;
  }
  /** The world's hash, after the last Tick. */
  hash(hash) {
    if (!this.#room(5)) return false;
    this.#buf[this.#n++] = Rec.Hash;
    this.#u32(hash);
    this.#done();
    return true;
  }
  /** The bench's window starts here. */
  mark() {
    if (!this.#room(1)) return false;
    this.#buf[this.#n++] = Rec.Mark;
    this.#done();
    return true;
  }
  /** The last record: why, when, and the world's hash and the server's totals then. Flushes. */
  end(reason, time, hash, packetsOut, bytesOut) {
    if (this.ended) return;
    if (this.#n + END_BYTES > this.#buf.length) this.flush();
    this.#buf[this.#n++] = Rec.End;
    this.#buf[this.#n++] = reason;
    this.#time(time);
    this.#u32(hash);
    this.#u32(packetsOut);
    this.#u32(bytesOut);
    this.#done();
    this.ended = true;
    this.flush();
  }
  /** Hand what is buffered to the sink. */
  flush() {
    if (this.#n === 0) return;
    this.#sink(this.#buf, this.#n);
    this.#n = 0;
    this.#start = 0;
  }
  /** Room for `n` more bytes under the limit (End's kept aside), flushing if the buffer lacks it. */
  #room(n) {
    if (this.ended || this.full) return false;
    if (this.written + n + END_BYTES > this.limit) {
      this.full = true;
      return false;
    }
    if (this.#n + n > this.#buf.length) this.flush();
    return true;
  }
  #done() {
    this.written += this.#n - this.#start;
    this.#start = this.#n;
  }
  #peer(address, port) {
    const ids = this.#byPort.get(port);
    if (ids !== void 0) {
      for (let i = 0; i < ids.length; i++) if (this.address[ids[i]] === address) return ids[i];
    }
    if (address.length > 255) throw new RangeError(`a peer address of ${address.length} characters: at most 255`);
    if (!this.#room(1 + 4 + 4 + 1 + address.length)) return -1;
    const id = this.address.length;
    this.address.push(address);
    this.port.push(port);
    if (ids !== void 0) ids.push(id);
    else this.#byPort.set(port, [id]);
    const b = this.#buf;
    b[this.#n++] = Rec.Peer;
    this.#vu(id);
    this.#u32(port);
    b[this.#n++] = address.length;
    for (let i = 0; i < address.length; i++) {
      const c = address.charCodeAt(i);
      b[this.#n++] = c < 128 ? c : 63;
    }
    this.#done();
    return id;
  }
  #time(t) {
    if (!(t >= this.#last)) throw new RangeError(`a record's time went backwards: ${t} after ${this.#last}`);
    const u = t * TIME_UNITS;
    const whole = Number.isInteger(u);
    if (this.#onGrid && whole && u - this.#units < DELTA_LIMIT) {
      this.#vu((u - this.#units) * 2);
    } else {
      this.#buf[this.#n++] = 1;
      this.#f64[0] = t;
      for (let i = 0; i < 8; i++) this.#buf[this.#n++] = this.#b64[i];
      this.#onGrid = whole && Math.abs(u) <= Number.MAX_SAFE_INTEGER;
    }
    this.#units = u;
    this.#last = t;
  }
  #vu(v) {
    const b = this.#buf;
    while (v >= 128) {
      b[this.#n++] = v & 127 | 128;
      v = Math.floor(v / 128);
    }
    b[this.#n++] = v;
  }
  #u32(v) {
    const b = this.#buf;
    b[this.#n++] = v & 255;
    b[this.#n++] = v >>> 8 & 255;
    b[this.#n++] = v >>> 16 & 255;
    b[this.#n++] = v >>> 24;
  }
};

// modules/recording/replay.ts
function stateHash(game) {
  return game === null ? 0 : game.hash();
}
function hex(h) {
  return "0x" + (h >>> 0).toString(16).padStart(8, "0");
}

// hosts/node/recorder.ts
var DEFAULT_RECORD_MAX_MB = 64;
var MB = 1024 * 1024;
function quantize(t) {
  return Math.round(t * TIME_UNITS) / TIME_UNITS;
}
var Recorder = class {
  file;
  maxBytes;
  #fd;
  #say;
  #inner = null;
  #server = null;
  #game = null;
  #writer = null;
  /** The time the server sees. */
  #time = 0;
  #start = 0;
  #nextHash = 0;
  #ticks = 0;
  /** Recording stopped (limit, error, shutdown): calls go straight through. */
  #stopped = false;
  #ended = "";
  #error = null;
  /** Opens (creates or truncates) the file: a bad path throws here, before anything runs. */
  constructor(o) {
    this.file = o.file;
    this.maxBytes = o.maxBytes ?? DEFAULT_RECORD_MAX_MB * MB;
    this.#say = o.say ?? (() => {
    });
    this.#fd = openSync(o.file, "w");
  }
  // ---------------------------------------------------------------- MatchTap
  host(inner) {
    this.#inner = inner;
    this.#time = quantize(inner.now());
    this.#start = this.#time;
    this.#nextHash = this.#start + HASH_EVERY_MS;
    return this;
  }
  core(server, game, seed, udp) {
    this.#server = server;
    this.#game = game;
    const inner = this.#inner;
    const header = {
      config: server.config,
      seed,
      start: this.#start,
      hashEveryMs: HASH_EVERY_MS,
      startedAt: new Date(Date.now() - (inner.now() - this.#start)).toISOString(),
      source: "lwar-xs server (Node)",
      server: udp
    };
    this.#writer = new RecordWriter({
      header: encodeHeader(header),
      start: this.#start,
      limitBytes: this.maxBytes,
      sink: (bytes, length) => this.#write(bytes, length)
    });
    return this;
  }
  // ---------------------------------------------------------------- Host, for the server
  send(bytes, length, address, port) {
    this.#inner.send(bytes, length, address, port);
  }
  now() {
    return this.#time;
  }
  log(event, slot, value) {
    this.#inner.log(event, slot, value);
  }
  // ---------------------------------------------------------------- PeerCore, for the sockets
  get port() {
    return this.#server.port;
  }
  receive(bytes, length, address, port) {
    const t = this.#advance(this.#inner.now());
    if (!this.#stopped && !this.#writer.datagram(t, bytes, length, address, port)) this.#check();
    this.#server.receive(bytes, length, address, port);
  }
  tick(now) {
    const t = this.#advance(now);
    if (!this.#stopped) {
      if (this.#writer.tick(t)) this.#ticks++;
      else this.#check();
    }
    this.#server.tick(t);
    if (t >= this.#nextHash) {
      while (this.#nextHash <= t) this.#nextHash += HASH_EVERY_MS;
      if (!this.#stopped) {
        if (this.#writer.hash(stateHash(this.#game))) this.#writer.flush();
        this.#check();
      }
    }
  }
  disconnectPeer(address, port) {
    const t = this.#advance(this.#inner.now());
    if (!this.#stopped && !this.#writer.gone(t, address, port)) this.#check();
    return this.#server.disconnectPeer(address, port);
  }
  // ---------------------------------------------------------------- the end
  /**
   * Write End (the world's hash and the server's totals now) and close the file, before
   * the server shuts down. Returns what the file holds; again later, the same.
   */
  finish() {
    if (!this.#stopped) {
      this.#advance(this.#inner !== null ? this.#inner.now() : this.#time);
      this.#end(EndReason.Shutdown);
    }
    return this.summary();
  }
  summary() {
    const w = this.#writer;
    return {
      file: this.file,
      bytes: w === null ? 0 : w.written,
      ticks: this.#ticks,
      seconds: (this.#time - this.#start) / 1e3,
      hash: stateHash(this.#game),
      ended: this.#ended
    };
  }
  /** The server's time for a call at `now`: rounded, and never before the last. */
  #advance(now) {
    const t = quantize(now);
    if (t > this.#time) this.#time = t;
    return this.#time;
  }
  /** A record was refused or a write failed: stop, and say why. */
  #check() {
    const w = this.#writer;
    if (this.#stopped) return;
    if (this.#error !== null) {
      this.#stop(`write error: ${this.#error.message}`);
      this.#say({
        event: "recording",
        text: `lwar-xs: recording to ${this.file} stopped: ${this.#error.message}; the match goes on unrecorded`,
        fields: { file: this.file, stopped: "write error", error: this.#error.message }
      });
      return;
    }
    if (!w.full) return;
    this.#end(EndReason.SizeLimit);
    const s = this.summary();
    this.#say({
      event: "recording",
      text: `lwar-xs: recording to ${this.file} stopped at its ${(this.maxBytes / MB).toFixed(this.maxBytes % MB === 0 ? 0 : 2)} MB limit (${s.bytes} bytes, ${s.seconds.toFixed(1)} s of play); the match goes on unrecorded`,
      fields: { file: this.file, stopped: "size limit", bytes: s.bytes, seconds: s.seconds, limit: this.maxBytes }
    });
  }
  #end(reason) {
    const w = this.#writer;
    if (w !== null && this.#error === null) {
      const c = this.#server.counters;
      w.end(reason, this.#time, stateHash(this.#game), c[Counter.PacketsOut], c[Counter.BytesOut]);
    }
    this.#stop(this.#error !== null ? `write error: ${this.#error.message}` : describeEndReason(reason));
  }
  #stop(why) {
    this.#stopped = true;
    this.#ended = why;
    if (this.#fd >= 0) {
      try {
        closeSync(this.#fd);
      } catch {
      }
      this.#fd = -1;
    }
  }
  #write(bytes, length) {
    if (this.#error !== null || this.#fd < 0) return;
    try {
      let done = 0;
      while (done < length) done += writeSync(this.#fd, bytes, done, length - done);
    } catch (err) {
      this.#error = err;
    }
  }
};
function stateHashRecord(game, recorder) {
  const hash = stateHash(game);
  if (recorder === null) return { event: "state", text: `state hash ${hex(hash)}`, fields: { hash: hex(hash) } };
  const s = recorder.finish();
  return {
    event: "state",
    text: `state hash ${hex(hash)}; recorded ${s.ticks} ticks, ${s.seconds.toFixed(1)} s, ${s.bytes} bytes to ${s.file} (ended: ${s.ended})`,
    fields: { hash: hex(hash), file: s.file, ticks: s.ticks, seconds: s.seconds, bytes: s.bytes, ended: s.ended }
  };
}

// cli/index.ts
import { readFileSync as readFileSync3 } from "node:fs";
var EXIT_OK = 0;
var EXIT_FAILURE = 1;
var EXIT_USAGE = 2;
var UsageError = class extends Error {
  name = "UsageError";
};
var version;
function packageVersion() {
  if (version === void 0) {
    const pkg = JSON.parse(readFileSync3(new URL("../package.json", import.meta.url), "utf8"));
    version = pkg.version ?? "0.0.0";
  }
  return version;
}
function defineCommand(spec) {
  for (const [name, o] of Object.entries(spec.options)) {
    if (name === "help" || name === "version") throw new Error(`option --${name} is built in`);
    if ((o.type === "int" || o.type === "number") && o.default !== void 0 && (o.default < o.min || o.default > o.max))
      throw new Error(`--${name}: default ${o.default} is outside ${o.min}..${o.max}`);
  }
  const hint = `Try '${spec.script} -- --help'.`;
  const command2 = {
    spec,
    help: () => formatHelp(spec),
    tryParse: (argv) => parseArgv(spec.options, argv),
    usage(message) {
      process.stderr.write(`${spec.name}: ${message}
${hint}
`);
      process.exit(EXIT_USAGE);
    },
    fail(message) {
      process.stderr.write(`${spec.name}: ${message}
`);
      process.exit(EXIT_FAILURE);
    },
    parse(argv = process.argv.slice(2)) {
      let r;
      try {
        r = parseArgv(spec.options, argv);
      } catch (err) {
        if (err instanceof UsageError) command2.usage(err.message);
        throw err;
      }
      if (r === "help") {
        process.stdout.write(formatHelp(spec));
        process.exit(EXIT_OK);
      }
      if (r === "version") {
        process.stdout.write(`${packageVersion()}
`);
        process.exit(EXIT_OK);
      }
      return r;
    }
  };
  return command2;
}
function findOption(table2, token) {
  if (token.startsWith("--")) {
    const name = token.slice(2);
    return Object.hasOwn(table2, name) ? [name, table2[name]] : null;
  }
  for (const [name, o] of Object.entries(table2)) if (o.short !== void 0 && `-${o.short}` === token) return [name, o];
  return null;
}
function parseArgv(table2, argv) {
  const out = {};
  for (const [name, o] of Object.entries(table2)) {
    if (o.type === "flag") out[name] = false;
    else if (o.type === "strings") out[name] = [];
    else out[name] = o.default;
  }
  const seen = /* @__PURE__ */ new Set();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h" || arg === "--help") return "help";
    if (arg === "-V" || arg === "--version") return "version";
    if (!arg.startsWith("-") || arg === "-" || arg === "--") throw new UsageError(`unexpected argument '${arg}'`);
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const token = eq > 0 ? arg.slice(0, eq) : arg;
    const found = findOption(table2, token);
    if (found === null) throw new UsageError(`unknown option '${token}'`);
    const [name, o] = found;
    if (o.type !== "strings" && seen.has(name)) throw new UsageError(`--${name} given twice`);
    seen.add(name);
    if (o.type === "flag") {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      out[name] = true;
      continue;
    }
    let text;
    if (eq > 0) text = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value (${o.arg ?? defaultArg(o)})`);
      text = argv[++i];
    }
    if (o.type === "strings") out[name].push(text);
    else out[name] = convert(name, o, text);
  }
  return out;
}
function convert(name, o, text) {
  switch (o.type) {
    case "int":
      if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${name} wants a whole number in ${o.min}..${o.max}, got '${text}'`);
      return checkRange(name, o.min, o.max, Number(text));
    case "number": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n)) throw new UsageError(`--${name} wants a number in ${o.min}..${o.max}, got '${text}'`);
      return checkRange(name, o.min, o.max, n);
    }
    case "choice":
      if (!o.choices.includes(text)) throw new UsageError(`--${name} must be one of ${o.choices.join(", ")}, got '${text}'`);
      return text;
    default:
      return text;
  }
}
function checkRange(name, min, max, n) {
  if (n < min || n > max) throw new UsageError(`--${name} must be in ${min}..${max}, got ${n}`);
  return n;
}
function defaultArg(o) {
  if (o.type === "int" || o.type === "number") return "N";
  if (o.type === "choice") return "NAME";
  return "TEXT";
}
function describeOption(o) {
  const parts = [];
  if (o.type === "int" || o.type === "number") parts.push(`${o.min}..${o.max}`);
  if (o.type === "choice") parts.push(`one of ${o.choices.join(", ")}`);
  if (o.type === "strings") parts.push("repeatable");
  if (o.type !== "flag" && o.type !== "strings") {
    const d = o.defaultText ?? (o.default === void 0 ? void 0 : String(o.default));
    if (d !== void 0) parts.push(`default ${d}`);
  }
  return parts.join("; ");
}
var WIDTH = 80;
function wrap(text, indent, first) {
  const lines = [];
  let line = "";
  let room = WIDTH - first;
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = WIDTH - indent;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}
function formatHelp(spec) {
  const rows = [];
  for (const [name, o] of Object.entries(spec.options)) {
    const flag = `${o.short !== void 0 ? `-${o.short}, ` : ""}--${name}`;
    const left = o.type === "flag" ? flag : `${flag} ${o.arg ?? defaultArg(o)}`;
    const range = describeOption(o);
    rows.push([left, range === "" ? o.help : `${o.help} (${range})`]);
  }
  rows.push(["-h, --help", "show this help and exit"]);
  rows.push(["-V, --version", `print the version (${packageVersion()}) and exit`]);
  const col = Math.min(26, Math.max(...rows.map(([l]) => l.length)) + 4);
  const out = [...wrap(`${spec.name}: ${spec.summary}`, 0, 0), "", `Usage: ${spec.script} -- ${spec.usage ?? "[options]"}`, "", "Options:"];
  for (const [left, right] of rows) {
    const pad = left.length + 2 < col ? `  ${left}`.padEnd(col) : null;
    const body = wrap(right, col, col);
    if (pad === null) out.push(`  ${left}`);
    out.push(`${pad ?? " ".repeat(col)}${body[0]}`);
    for (const more of body.slice(1)) out.push(`${" ".repeat(col)}${more}`);
  }
  if (spec.notes !== void 0) for (const p of spec.notes.trim().split(/\n\s*\n/)) out.push("", ...wrap(p, 0, 0));
  out.push("", "Exit codes:", "  0  ok");
  out.push(...wrap(spec.failure ?? "failure", 5, 5).map((l, i) => `${i === 0 ? "  1  " : "     "}${l}`));
  out.push("  2  bad usage (an unknown option, a value out of range)");
  return `${out.join("\n")}
`;
}

// hosts/node/main.ts
var HTTP_PORT = 8080;
var OPTIONS = {
  config: { type: "string", arg: "FILE", help: "read options from a JSON object whose keys are the names of these flags (without --); flags given as well win" },
  port: { type: "int", min: 0, max: 65535, defaultText: String(DEFAULT_PORT), help: "UDP port to listen on" },
  "http-port": {
    type: "int",
    min: 0,
    max: 65535,
    defaultText: String(HTTP_PORT),
    help: "HTTP port for the game page (/), its WebSocket (/ws), /status (JSON) and /metrics (Prometheus); 0 = none"
  },
  host: {
    type: "string",
    arg: "ADDR",
    defaultText: "::",
    help: "address to bind, UDP and HTTP (:: is IPv6 and IPv4; 0.0.0.0 or 127.0.0.1 for IPv4 alone, ::1 for IPv6 loopback)"
  },
  "timeout-ms": { type: "int", min: 100, max: 36e5, defaultText: "15000", help: "drop a client silent this long" },
  "max-players": { type: "int", min: 1, max: 8, defaultText: "8", help: "player slots" },
  bots: {
    type: "int",
    min: 0,
    max: 8,
    defaultText: "0",
    help: 'fill up to N empty slots with bots the server flies ("Vega [bot]"); a bot gives its slot up when a human needs it'
  },
  "bot-skill": {
    type: "choice",
    choices: BOT_SKILLS,
    defaultText: BOT_SKILLS[defaultConfig.botSkill],
    help: 'how well the bots fly: easy, normal or hard (docs/game.md, "Bots")'
  },
  "max-entities": {
    type: "int",
    // The game's least: the sun, the planets, a ship per player and a projectile (one player here).
    min: 1 + defaultConfig.planets + 1 + 1,
    max: 65535,
    defaultText: String(defaultConfig.maxEntities),
    help: `entity pool: sun, planets, ships, projectiles; at least ${2 + defaultConfig.planets} + --max-players`
  },
  "queue-bytes": {
    type: "int",
    min: 512,
    max: 65535,
    defaultText: String(defaultConfig.reliableQueueBytes),
    help: "unacknowledged reliable bytes per player before a queue-overflow kick"
  },
  "status-s": { type: "int", min: 0, max: 3600, defaultText: "10", help: "seconds between status lines, 0 = none" },
  seed: { type: "int", min: 0, max: 4294967295, defaultText: "from the clock", help: "world seed" },
  log: { type: "choice", choices: ["text", "json"], defaultText: "text", help: "log format: text lines, or one JSON object per line" },
  record: { type: "string", arg: "FILE", defaultText: "none", help: "record the match to FILE, for `npm run replay` (docs/recorder.md)" },
  "record-max-mb": { type: "int", min: 1, max: 1048576, defaultText: String(DEFAULT_RECORD_MAX_MB), help: "stop recording when the file reaches this many MiB" }
};
var command = defineCommand({
  name: "lwar-xs",
  script: "npm start",
  summary: "hosts an lwar Rev 1 match over UDP, and serves the browser game, whose players join over a WebSocket, on an HTTP port.",
  options: OPTIONS,
  notes: `A --config file holds the same settings as the flags, e.g. {"port": 32422, "max-players": 4, "log": "json"}. Unknown keys and bad values stop the server with exit code 2.

The operator's guide is docs/operating.md.`
});
function readConfigFile(path) {
  let text;
  try {
    text = readFileSync4(path, "utf8");
  } catch (err) {
    throw new UsageError(`--config ${path}: ${err.message}`);
  }
  let data;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config ${path}: not JSON: ${err.message}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new UsageError(`--config ${path}: wants a JSON object of options`);
  const known = Object.keys(OPTIONS).filter((k) => k !== "config");
  const out = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === "config" || !Object.hasOwn(OPTIONS, key)) throw new UsageError(`--config ${path}: unknown key "${key}" (known: ${known.join(", ")})`);
    const spec = OPTIONS[key];
    const want = spec.type === "int" ? "number" : "string";
    if (typeof value !== want) throw new UsageError(`--config ${path}: "${key}" wants a ${want === "number" ? "whole number" : "string"}, got ${JSON.stringify(value)}`);
    try {
      const parsed = parseArgv({ [key]: spec }, [`--${key}`, String(value)]);
      out[key] = parsed[key];
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(`--config ${path}: ${err.message.replace(`--${key}`, `"${key}"`)}`);
      throw err;
    }
  }
  return out;
}
function settle(flags, file) {
  const pick = (key) => flags[key] !== void 0 ? flags[key] : file[key];
  let config;
  try {
    config = makeConfig({
      timeoutMs: pick("timeout-ms") ?? 15e3,
      maxPlayers: pick("max-players") ?? 8,
      bots: pick("bots") ?? 0,
      botSkill: BOT_SKILLS.indexOf(pick("bot-skill") ?? BOT_SKILLS[defaultConfig.botSkill]),
      maxEntities: pick("max-entities") ?? defaultConfig.maxEntities,
      reliableQueueBytes: pick("queue-bytes") ?? defaultConfig.reliableQueueBytes
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  return {
    port: pick("port") ?? DEFAULT_PORT,
    httpPort: pick("http-port") ?? HTTP_PORT,
    address: pick("host") ?? "::",
    statusS: pick("status-s") ?? 10,
    seed: pick("seed") ?? Date.now() % 4294967295,
    log: pick("log") ?? "text",
    record: pick("record") ?? null,
    recordMaxMb: pick("record-max-mb") ?? DEFAULT_RECORD_MAX_MB,
    config
  };
}
function readSettings() {
  const flags = command.parse();
  try {
    return settle(flags, flags.config === void 0 ? {} : readConfigFile(flags.config));
  } catch (err) {
    if (err instanceof UsageError) command.usage(err.message);
    throw err;
  }
}
var Output = class {
  constructor(json) {
    this.json = json;
  }
  json;
  /** One record; `stamp` false for the banner's lines, in text. */
  write(record, stamp = true) {
    if (this.json) {
      process.stdout.write(JSON.stringify({ time: (/* @__PURE__ */ new Date()).toISOString(), event: record.event, ...record.fields }) + "\n");
      return;
    }
    process.stdout.write(stamp ? `${(/* @__PURE__ */ new Date()).toISOString().slice(11, 19)} ${record.text}
` : `${record.text}
`);
  }
};
function openRecorder(settings, out) {
  if (settings.record === null) return null;
  try {
    return new Recorder({ file: settings.record, maxBytes: settings.recordMaxMb * 1024 * 1024, say: (r) => out.write(r) });
  } catch (err) {
    return command.usage(`--record ${settings.record}: ${err.message}`);
  }
}
async function start(settings, out, recorder = null) {
  let report = null;
  try {
    const served = await serve({
      config: settings.config,
      seed: settings.seed,
      address: settings.address,
      udpPort: settings.port,
      httpPort: settings.httpPort === 0 ? null : settings.httpPort,
      tap: recorder ?? void 0,
      log(event, slot, value) {
        const record = report === null ? null : report.event(event, slot, value);
        if (record !== null) out.write(record);
      }
    });
    report = served.report;
    return served;
  } catch (err) {
    if (err instanceof ConfigError) command.usage(err.message);
    if (err instanceof ListenError) command.usage(err.what === "http" ? `${err.message} (--http-port 0 serves no page)` : err.message);
    if (err instanceof PageError) {
      process.stderr.write(`lwar-xs: ${err.message}
`);
      process.exit(1);
    }
    throw err;
  }
}
function bracket(address, port) {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}
function printBanner(served, settings, out) {
  const { udp, http: http2 } = served;
  const { config, seed } = settings;
  const family = udp.address === "::" ? "IPv6 and IPv4" : udp.address.includes(":") ? "IPv6" : "IPv4";
  out.write({
    event: "listening",
    text: `lwar-xs listening on udp ${bracket(udp.address, udp.port)}, ${family} (max ${config.maxPlayers} players, timeout ${config.timeoutMs} ms, seed ${seed})`,
    fields: { udp: bracket(udp.address, udp.port), family, maxPlayers: config.maxPlayers, timeoutMs: config.timeoutMs, seed }
  }, false);
  if (udp.receiveBuffer < RECEIVE_BUFFER_BYTES / 2)
    out.write({
      event: "warning",
      text: `lwar-xs: the kernel granted a ${udp.receiveBuffer}-byte receive buffer of the ${RECEIVE_BUFFER_BYTES} asked; a burst from 8 players may be dropped (raise net.core.rmem_max)`,
      fields: { receiveBuffer: udp.receiveBuffer, asked: RECEIVE_BUFFER_BYTES }
    }, false);
  if (http2 !== null) {
    const urls = pageUrls(http2.address, http2.port);
    out.write({
      event: "serving",
      text: `lwar-xs serving the game on http ${bracket(http2.address, http2.port)}, WebSocket at /ws, /status and /metrics; play in a browser at:
` + urls.map((u) => `  ${u}`).join("\n"),
      fields: { http: bracket(http2.address, http2.port), urls }
    }, false);
  }
}
function startStatus(report, seconds2, out) {
  return seconds2 > 0 ? setInterval(() => out.write(report.status()), seconds2 * 1e3) : null;
}
function stopOnSignals(served, statusTimer, out, recorder = null) {
  let stopping = false;
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    if (statusTimer !== null) clearInterval(statusTimer);
    const { server, report } = served;
    const players = server.playerCount();
    out.write(report.scoreboard());
    out.write(stateHashRecord(served.game, recorder));
    void served.close().then(() => {
      out.write(report.totals(signal, players));
      process.exit(0);
    });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}
async function main() {
  const settings = readSettings();
  const out = new Output(settings.log === "json");
  const recorder = openRecorder(settings, out);
  const served = await start(settings, out, recorder);
  printBanner(served, settings, out);
  const statusTimer = startStatus(served.report, settings.statusS, out);
  stopOnSignals(served, statusTimer, out, recorder);
}
void main();
