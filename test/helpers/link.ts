/**
 * A seeded in-memory network for tests: loss, duplication, reordering and jitter,
 * on a virtual clock. Packets sit in a preallocated pool, so a run through it
 * allocates nothing per packet (the XS memory proof uses it too).
 */
import type { Core, Host } from "../../modules/host";
import { Random } from "../../modules/random";

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
}

export class MemHost implements Host {
  readonly net: Network;
  readonly address: string;
  readonly port: number;
  readonly index: number;
  core: Core | null = null;
  /** log(event, slot, value) calls, for assertions. Off unless `recordLog` is set. */
  recordLog = false;
  readonly logEvents: number[] = [];
  /** Packets and bytes this host sent, and the raw bytes of the last one. */
  sentPackets = 0;
  constructor(net: Network, index: number, address: string, port: number) {
    this.net = net;
    this.index = index;
    this.address = address;
    this.port = port;
  }
  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.sentPackets++;
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
  readonly #deliver = new Uint8Array(512);
  #serial = 0;
  /** Counters: sent, delivered, lost, duplicated, reordered, overflowed, undeliverable. */
  sent = 0;
  delivered = 0;
  lost = 0;
  duplicated = 0;
  reordered = 0;
  overflowed = 0;
  undeliverable = 0;
  /** Set to false to cut all traffic (both ways). */
  up = true;

  constructor(options: LinkOptions = {}) {
    this.#rng = new Random(options.seed ?? 1);
    this.#loss = options.loss ?? 0;
    this.#dup = options.duplicate ?? 0;
    this.#reorder = options.reorder ?? 0;
    this.#delay = options.delayMs ?? 1;
    this.#jitter = options.jitterMs ?? 0;
    this.#reorderMs = options.reorderMs ?? 15;
    const cap = options.capacity ?? 4096;
    this.#cap = cap;
    this.#data = new Uint8Array(cap * 512);
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

  enqueue(from: MemHost, bytes: Uint8Array, length: number, address: string, port: number): void {
    this.sent++;
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
      const base = slot * 512;
      for (let i = 0; i < length; i++) this.#data[base + i] = bytes[i];
      this.#len[slot] = length;
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
      if (best < 0) break;
      this.#active[at] = this.#active[--this.#activeCount];
      if (this.#due[best] > this.now) this.now = this.#due[best];
      const len = this.#len[best];
      this.#len[best] = 0;
      this.#free[this.#freeTop++] = best;
      const from = this.hosts[this.#from[best]];
      const to = this.hosts[this.#to[best]];
      this.delivered++;
      const d = this.#deliver;
      const base = best * 512;
      for (let i = 0; i < len; i++) d[i] = this.#data[base + i];
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
