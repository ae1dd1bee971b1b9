/**
 * Stand-in for the UDP half of hosts/moddable/net.js (the bindings of net.c) for running
 * hosts/moddable/host.ts in lwxs (test/xs/moddable-host.ts; test/xs/zero-alloc.test.ts maps
 * the host's `./net` here). No network: `wire` holds what the test queues for the host to
 * receive and what the host last sent. Everything is allocated once, when this module
 * loads; none of the functions allocates.
 *
 * As net.c does (its ESP32 branch, with the POSIX branch's argument checks):
 *   - `wire.queue(...)` is lwIP's receive callback: a datagram goes into a fixed ring of
 *     the `slots` that udpOpen asked for, or is dropped and counted (ringFull, tooLong).
 *   - `udpNext(buffer, from)` copies the next datagram into `buffer` (a view: at its
 *     offset; at least 512 bytes, else a RangeError) and its sender's address into the 4
 *     bytes of `from`: the IPv4 address in network byte order as a little-endian uint32 (so
 *     that a Uint32Array over those bytes reads it as net.c writes it on ESP32 and x86). Its
 *     length | port << 10, or -1 when nothing waits.
 *   - `udpSend(bytes, length, address, port)` copies `length` bytes of `bytes` (a view: from
 *     its offset) into `wire.sent` and records the length, address and port; 0. A length
 *     below 0, beyond the view or above 512 is a RangeError. While `wire.failWrites` is
 *     above 0 it sends nothing, counts a send error and returns -1, as when lwIP refuses.
 *     The address is not parsed (reading a primitive string's characters allocates on
 *     XS); the test compares it.
 *   - `udpStats(out)` copies the five counters into `out` (at least 20 bytes).
 * udpOpen may run again (each host the test makes opens the port): it empties the ring
 * and keeps the counters, which net.c never resets.
 */
const MAX_DATAGRAM = 512;
const MAX_SLOTS = 256;
const COUNTERS = 5;
const RECEIVED = 0;
const RING_FULL = 1;
const TOO_LONG = 2;
const SEND_ERRORS = 3;
const HIGH_WATER = 4;

class Wire {
  boundPort = -1;
  opens = 0;
  /** Datagram slots, as udpOpen asked. */
  slots = 0;

  // The ring, for the most slots udpOpen takes.
  readonly #data = new Uint8Array(MAX_SLOTS * MAX_DATAGRAM);
  readonly #length = new Uint16Array(MAX_SLOTS);
  readonly #ip = new Uint32Array(MAX_SLOTS);
  readonly #port = new Uint16Array(MAX_SLOTS);
  #in = 0;
  #out = 0;
  /** udpNext calls, and those that found a datagram. */
  nexts = 0;
  taken = 0;

  readonly counters = new Uint32Array(COUNTERS);
  readonly #counterBytes = new Uint8Array(this.counters.buffer);

  // Sending.
  readonly sent = new Uint8Array(MAX_DATAGRAM);
  sends = 0;
  lastLength = -1;
  lastAddress = "";
  lastPort = -1;
  failWrites = 0;

  open(port: number, slots: number): void {
    if (slots < 1 || slots > MAX_SLOTS) throw new RangeError(`udpOpen: slots ${slots} (1 to ${MAX_SLOTS})`);
    this.boundPort = port;
    this.slots = slots;
    this.#in = 0;
    this.#out = 0;
    this.opens++;
  }

  /** Datagrams waiting in the ring. */
  get waiting(): number {
    return this.#in - this.#out;
  }

  /**
   * A datagram arrives: `length` bytes of `bytes` from `ip` (network byte order, as net.c
   * keeps it: the first octet in the low byte), `port`. False when the ring drops it.
   */
  queue(bytes: Uint8Array, length: number, ip: number, port: number): boolean {
    const counters = this.counters;
    const used = this.#in - this.#out;
    if (this.slots === 0) throw new Error("stand-in net: udpOpen first");
    if (length > MAX_DATAGRAM) {
      counters[TOO_LONG]++;
      return false;
    }
    if (used >= this.slots) {
      counters[RING_FULL]++;
      return false;
    }
    const i = this.#in % this.slots;
    const base = i * MAX_DATAGRAM;
    const data = this.#data;
    for (let k = 0; k < length; k++) data[base + k] = bytes[k];
    this.#length[i] = length;
    this.#ip[i] = ip;
    this.#port[i] = port;
    this.#in++;
    counters[RECEIVED]++;
    if (used + 1 > counters[HIGH_WATER]) counters[HIGH_WATER] = used + 1;
    return true;
  }

  next(buffer: Uint8Array, from: Uint8Array): number {
    if (buffer.byteLength < MAX_DATAGRAM || from.byteLength < 4) throw new RangeError("udpNext: buffer or address too small");
    this.nexts++;
    if (this.#in === this.#out) return -1;
    const i = this.#out % this.slots;
    const base = i * MAX_DATAGRAM;
    const length = this.#length[i];
    const data = this.#data;
    for (let k = 0; k < length; k++) buffer[k] = data[base + k];
    const ip = this.#ip[i];
    const port = this.#port[i];
    from[0] = ip & 0xff;
    from[1] = (ip >>> 8) & 0xff;
    from[2] = (ip >>> 16) & 0xff;
    from[3] = ip >>> 24;
    this.#out++;
    this.taken++;
    // As net.c: the length and the port in one number.
    return length | (port << 10);
  }

  send(bytes: Uint8Array, length: number, address: string, port: number): number {
    if (length < 0 || length > bytes.byteLength || length > MAX_DATAGRAM) throw new RangeError(`udpSend: length ${length}`);
    if (typeof address !== "string") throw new TypeError("udpSend: address");
    if (this.failWrites > 0) {
      this.failWrites--;
      this.counters[SEND_ERRORS]++;
      return -1;
    }
    const sent = this.sent;
    for (let k = 0; k < length; k++) sent[k] = bytes[k];
    this.lastLength = length;
    this.lastAddress = address;
    this.lastPort = port;
    this.sends++;
    return 0;
  }

  stats(out: Uint8Array): void {
    if (out.byteLength < COUNTERS * 4) throw new RangeError(`stats: a Uint32Array of ${COUNTERS} is needed`);
    const bytes = this.#counterBytes;
    for (let k = 0; k < COUNTERS * 4; k++) out[k] = bytes[k];
  }
}

export const wire = new Wire();

export function udpOpen(port: number, slots: number): void {
  wire.open(port, slots);
}

export function udpNext(buffer: Uint8Array, from: Uint8Array): number {
  return wire.next(buffer, from);
}

export function udpSend(bytes: Uint8Array, length: number, address: string, port: number): number {
  return wire.send(bytes, length, address, port);
}

export function udpStats(out: Uint8Array): void {
  wire.stats(out);
}

/** A dotted IPv4 address in network byte order, as net.c gives it (the first octet in the low byte). */
export function ipOf(a: number, b: number, c: number, d: number): number {
  return (a | (b << 8) | (c << 16) | (d << 24)) >>> 0;
}
