/**
 * A seeded in-memory network for tests: loss, duplication, reordering and jitter,
 * on a virtual clock; optionally corruption (bits flipped, packets cut short or
 * extended) and a stream of garbage datagrams, some naming real hosts' addresses. Packets
 * sit in a preallocated pool, so a run through it allocates nothing per packet (the XS
 * memory proof uses it too).
 *
 * Every corrupted or garbage datagram is classified as it is delivered, with the receiving
 * side's own validation (`MemHost.receives`): invalid ones by the counter they must bump
 * there (`MemHost.injected`), and those that still validate, by chance, as `slipped`. A
 * test can then check the receiver's drop counters against exactly what was injected.
 */
import type { Core, Host } from "../modules/host";
import { Random } from "../modules/random";
import { createCounters } from "../modules/protocol/counters";
import { validatePacket } from "../modules/protocol/codec";
import { APP_ID, MAX_PACKET } from "../modules/protocol/constants";

export interface LinkOptions {
  seed?: number;
  /** Probabilities, 0..1. */
  loss?: number;
  duplicate?: number;
  reorder?: number;
  /** Base one-way delay and extra uniform jitter, ms. */
  delayMs?: number;
  jitterMs?: number;
  /** Extra delay of a reordered packet, ms. */
  reorderMs?: number;
  /** Packets in flight at most; more are dropped and counted. */
  capacity?: number;
  /**
   * Probability that a copy is corrupted on its way: a third of them get 1..3 bits
   * flipped, a third are cut short, a third get 1..64 random bytes appended (which can
   * take them past 512 bytes). Drawn from a generator of its own, so a link without
   * corruption sees the same losses, duplicates and delays as before.
   */
  corrupt?: number;
}

/** Most bytes an extension appends. */
const EXTEND_MAX = 64;
/** Largest garbage datagram. */
const GARBAGE_MAX = 1400;

export class MemHost implements Host {
  readonly net: Network;
  readonly address: string;
  /** May change: a peer that starts over from a new port (packets already in flight still reach it). */
  port: number;
  readonly index: number;
  core: Core | null = null;
  /** log(event, slot, value) calls, for assertions. Off unless `recordLog` is set. */
  recordLog = false;
  readonly logEvents: number[] = [];
  /** Packets this host sent. */
  sentPackets = 0;
  /** Its sends vanish (a client gone silent). */
  muted = false;
  /** Packets to it vanish. */
  deaf = false;
  /**
   * Which side's packets it receives (FROM_CLIENT for a server, FROM_SERVER for a client),
   * so that corrupted and garbage datagrams can be classified as it would; 0: not classified.
   */
  receives = 0;
  /** Corrupted and garbage datagrams delivered to it that fail validation, by the counter they bump. */
  readonly injected: Uint32Array = createCounters();
  /** Corrupted and garbage datagrams delivered to it, and those that still validated. */
  corruptedIn = 0;
  garbageIn = 0;
  slipped = 0;
  /** Called with each corrupted datagram that still validates, before the core gets it. */
  onSlip: ((bytes: Uint8Array, length: number, garbage: boolean) => void) | null = null;
  /** The last packet it sent (kept only while the network makes garbage from real packets). */
  readonly last = new Uint8Array(MAX_PACKET);
  lastLength = 0;
  constructor(net: Network, index: number, address: string, port: number) {
    this.net = net;
    this.index = index;
    this.address = address;
    this.port = port;
  }
  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.sentPackets++;
    if (this.net.keepsLast) {
      for (let i = 0; i < length; i++) this.last[i] = bytes[i];
      this.lastLength = length;
    }
    this.net.enqueue(this, bytes, length, address, port);
  }
  now(): number {
    return this.net.now;
  }
  log(event: number, slot: number, value: number): void {
    if (this.recordLog) this.logEvents.push(event, slot, value);
  }
}

export class Network {
  now = 0;
  readonly hosts: MemHost[] = [];
  readonly #rng: Random;
  readonly #loss: number;
  readonly #dup: number;
  readonly #reorder: number;
  readonly #delay: number;
  readonly #jitter: number;
  readonly #reorderMs: number;
  readonly #cap: number;
  /** Bytes per pooled packet: 512, or more when extension can grow packets past it. */
  readonly #stride: number;
  /** Corruption and garbage draw from their own generator. */
  readonly #badRng: Random;
  /** 1 for a pooled copy that was corrupted. */
  readonly #bad: Uint8Array;
  readonly #junk = new Uint8Array(GARBAGE_MAX);
  readonly #junkCounters = createCounters();
  #garbageTo: MemHost | null = null;
  #garbageFrom: MemHost[] = [];
  #garbageSpoof = 0;
  #garbagePeriod = 0;
  #nextGarbage = Infinity;
  readonly #data: Uint8Array;
  readonly #len: Int16Array;
  readonly #due: Float64Array;
  readonly #seq: Float64Array;
  readonly #from: Int16Array;
  readonly #to: Int16Array;
  readonly #free: Int32Array;
  #freeTop: number;
  /** Slots in flight, unordered. */
  readonly #active: Int32Array;
  #activeCount = 0;
  readonly #deliver = new Uint8Array(MAX_PACKET + EXTEND_MAX);
  #serial = 0;
  /** Counters: sent, delivered, lost, duplicated, reordered, overflowed, undeliverable. */
  sent = 0;
  delivered = 0;
  lost = 0;
  duplicated = 0;
  reordered = 0;
  overflowed = 0;
  undeliverable = 0;
  /** Copies corrupted (by kind), garbage datagrams delivered, and sends or deliveries cut (muted, deaf). */
  corrupted = 0;
  flipped = 0;
  truncated = 0;
  extended = 0;
  garbage = 0;
  cut = 0;
  /** Probability of corruption; may be changed while running (0 stops it). */
  corrupt: number;
  /** Set to false to cut all traffic (both ways). */
  up = true;
  /** Hosts keep a copy of their last packet (garbage is made from them). */
  keepsLast = false;

  constructor(options: LinkOptions = {}) {
    this.#rng = new Random(options.seed ?? 1);
    this.#loss = options.loss ?? 0;
    this.#dup = options.duplicate ?? 0;
    this.#reorder = options.reorder ?? 0;
    this.#delay = options.delayMs ?? 1;
    this.#jitter = options.jitterMs ?? 0;
    this.#reorderMs = options.reorderMs ?? 15;
    this.corrupt = options.corrupt ?? 0;
    this.#badRng = new Random(((options.seed ?? 1) ^ 0x2545f491) >>> 0);
    const cap = options.capacity ?? 4096;
    this.#cap = cap;
    this.#stride = this.corrupt > 0 ? MAX_PACKET + EXTEND_MAX : MAX_PACKET;
    this.#bad = new Uint8Array(cap);
    this.#data = new Uint8Array(cap * this.#stride);
    this.#len = new Int16Array(cap);
    this.#due = new Float64Array(cap);
    this.#seq = new Float64Array(cap);
    this.#from = new Int16Array(cap);
    this.#to = new Int16Array(cap);
    this.#free = new Int32Array(cap);
    for (let i = 0; i < cap; i++) this.#free[i] = cap - 1 - i;
    this.#freeTop = cap;
    this.#active = new Int32Array(cap);
  }

  /** A new endpoint on this network. */
  host(address: string, port: number): MemHost {
    const h = new MemHost(this, this.hosts.length, address, port);
    this.hosts.push(h);
    return h;
  }

  #find(address: string, port: number): number {
    for (let i = 0; i < this.hosts.length; i++) {
      const h = this.hosts[i];
      if (h.port === port && h.address === address) return i;
    }
    return -1;
  }

  /**
   * From now on, `perSecond` garbage datagrams a second go to `to`. A share `spoof` of them
   * name the address and port of one of `from` (real hosts); the rest come from addresses
   * no host has. Garbage is invalid by construction: random bytes, short or overlong
   * datagrams, or a host's last real packet corrupted; a mutant that happens to validate
   * gets a non-zero byte appended. `perSecond` 0 stops it.
   */
  garbageTo(to: MemHost, perSecond: number, from: MemHost[] = [], spoof = 0): void {
    this.#garbageTo = perSecond > 0 ? to : null;
    this.#garbageFrom = from;
    this.#garbageSpoof = spoof;
    this.#garbagePeriod = perSecond > 0 ? 1000 / perSecond : 0;
    this.#nextGarbage = perSecond > 0 ? this.now + this.#garbagePeriod : Infinity;
    this.keepsLast = perSecond > 0 || this.keepsLast;
  }

  enqueue(from: MemHost, bytes: Uint8Array, length: number, address: string, port: number): void {
    this.sent++;
    if (from.muted) {
      this.cut++;
      return;
    }
    const to = this.#find(address, port);
    if (to < 0 || !this.up) {
      this.undeliverable++;
      return;
    }
    if (this.#rng.next() < this.#loss) {
      this.lost++;
      return;
    }
    const copies = this.#rng.next() < this.#dup ? 2 : 1;
    if (copies === 2) this.duplicated++;
    for (let c = 0; c < copies; c++) {
      if (this.#freeTop === 0) {
        this.overflowed++;
        return;
      }
      const slot = this.#free[--this.#freeTop];
      const base = slot * this.#stride;
      for (let i = 0; i < length; i++) this.#data[base + i] = bytes[i];
      this.#len[slot] = length;
      this.#bad[slot] = 0;
      if (this.corrupt > 0 && this.#badRng.next() < this.corrupt) {
        this.#len[slot] = this.#mangle(this.#data, base, length, this.#stride);
        this.#bad[slot] = 1;
        this.corrupted++;
      }
      let delay = this.#delay + this.#rng.next() * this.#jitter;
      if (this.#rng.next() < this.#reorder) {
        delay += this.#reorderMs;
        this.reordered++;
      }
      this.#due[slot] = this.now + delay;
      this.#seq[slot] = this.#serial++;
      this.#from[slot] = from.index;
      this.#to[slot] = to;
      this.#active[this.#activeCount++] = slot;
    }
  }

  /** Corrupt `length` bytes at `base` of `b` in place (at most `room` bytes); returns the new length. */
  #mangle(b: Uint8Array, base: number, length: number, room: number): number {
    const rng = this.#badRng;
    const kind = rng.below(3);
    if (kind === 0 && length > 0) {
      this.flipped++;
      for (let n = 1 + rng.below(3); n > 0; n--) {
        const bit = rng.below(length * 8);
        b[base + (bit >> 3)] ^= 1 << (bit & 7);
      }
      return length;
    }
    if (kind === 1 && length > 0) {
      this.truncated++;
      return rng.below(length);
    }
    this.extended++;
    let n = 1 + rng.below(EXTEND_MAX);
    if (length + n > room) n = room - length;
    for (let i = 0; i < n; i++) b[base + length + i] = rng.below(256);
    return length + n;
  }

  /** One garbage datagram into #junk, invalid for `receives`; returns its length. */
  #makeGarbage(receives: number, source: MemHost | null): number {
    const rng = this.#badRng;
    const j = this.#junk;
    const kind = rng.below(5);
    let n: number;
    if (kind === 0) {
      // Shorter than a header.
      n = rng.below(14);
      for (let i = 0; i < n; i++) j[i] = rng.below(256);
    } else if (kind === 1) {
      // Longer than a packet, with a plausible header.
      n = MAX_PACKET + 1 + rng.below(GARBAGE_MAX - MAX_PACKET);
      for (let i = 0; i < n; i++) j[i] = rng.below(256);
      j[0] = APP_ID >>> 24;
      j[1] = (APP_ID >>> 16) & 0xff;
      j[2] = (APP_ID >>> 8) & 0xff;
      j[3] = APP_ID & 0xff;
    } else if (kind === 2 || source === null || source.lastLength === 0) {
      // Random bytes of any length; half of them after a correct app id.
      n = rng.below(200);
      for (let i = 0; i < n; i++) j[i] = rng.below(256);
      if (n >= 4 && rng.next() < 0.5) {
        j[0] = APP_ID >>> 24;
        j[1] = (APP_ID >>> 16) & 0xff;
        j[2] = (APP_ID >>> 8) & 0xff;
        j[3] = APP_ID & 0xff;
      }
    } else {
      // A real packet of a real host, corrupted.
      n = source.lastLength;
      for (let i = 0; i < n; i++) j[i] = source.last[i];
      n = this.#mangle(j, 0, n, GARBAGE_MAX);
    }
    if (receives !== 0 && n <= MAX_PACKET && validatePacket(j, n, receives, this.#junkCounters)) j[n++] = 1 + rng.below(255);
    return n;
  }

  #sendGarbage(): void {
    const to = this.#garbageTo!;
    const rng = this.#badRng;
    const from = this.#garbageFrom;
    const real = from.length > 0 ? from[rng.below(from.length)] : null;
    const spoofed = real !== null && rng.next() < this.#garbageSpoof;
    const n = this.#makeGarbage(to.receives, real);
    const address = spoofed ? real.address : "mem:garbage";
    const port = spoofed ? real.port : 1 + rng.below(65535);
    this.garbage++;
    to.garbageIn++;
    this.#classify(to, this.#junk, n, true);
    if (to.core !== null && !to.deaf) to.core.receive(this.#junk, n, address, port);
  }

  /** Count a corrupted or garbage datagram as its receiver's validation would. */
  #classify(to: MemHost, b: Uint8Array, n: number, garbage: boolean): void {
    if (to.receives === 0) return;
    if (validatePacket(b, n, to.receives, to.injected)) {
      to.slipped++;
      if (to.onSlip !== null) to.onSlip(b, n, garbage);
    }
  }

  /** Packets in flight. */
  inFlight(): number {
    return this.#cap - this.#freeTop;
  }

  /** Deliver everything due at or before `time`, in due order, and set the clock. */
  advance(time: number): void {
    for (;;) {
      let best = -1;
      let at = -1;
      for (let k = 0; k < this.#activeCount; k++) {
        const s = this.#active[k];
        if (this.#due[s] > time) continue;
        if (best < 0 || this.#due[s] < this.#due[best] || (this.#due[s] === this.#due[best] && this.#seq[s] < this.#seq[best])) {
          best = s;
          at = k;
        }
      }
      if (this.#nextGarbage <= time && (best < 0 || this.#nextGarbage < this.#due[best])) {
        if (this.#nextGarbage > this.now) this.now = this.#nextGarbage;
        this.#nextGarbage += this.#garbagePeriod;
        this.#sendGarbage();
        continue;
      }
      if (best < 0) break;
      this.#active[at] = this.#active[--this.#activeCount];
      if (this.#due[best] > this.now) this.now = this.#due[best];
      const len = this.#len[best];
      this.#len[best] = 0;
      this.#free[this.#freeTop++] = best;
      const from = this.hosts[this.#from[best]];
      const to = this.hosts[this.#to[best]];
      if (to.deaf) {
        this.cut++;
        continue;
      }
      this.delivered++;
      const d = this.#deliver;
      const base = best * this.#stride;
      for (let i = 0; i < len; i++) d[i] = this.#data[base + i];
      if (this.#bad[best] !== 0) {
        to.corruptedIn++;
        this.#classify(to, d, len, false);
      }
      if (to.core !== null) to.core.receive(d, len, from.address, from.port);
    }
    if (time > this.now) this.now = time;
  }

  /**
   * Run the clock forward `ms` in steps of `stepMs`, ticking every attached core at
   * each step and delivering packets as they fall due.
   */
  run(ms: number, stepMs = 10): void {
    const end = this.now + ms;
    while (this.now < end) {
      const next = this.now + stepMs < end ? this.now + stepMs : end;
      this.advance(next);
      for (let i = 0; i < this.hosts.length; i++) {
        const c = this.hosts[i].core;
        if (c !== null) c.tick(this.now);
      }
    }
  }
}
