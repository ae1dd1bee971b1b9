/**
 * Stand-in for `embedded:io/socket/udp` (ECMA-419, as in the Moddable SDK 8.2) for running
 * hosts/moddable/host.ts in lwxs (test/xs/moddable-host.ts). No network: `wire` holds
 * what the test queues for the socket to receive and what the socket last sent.
 *
 * As on the device:
 *   - `read()` returns a new ArrayBuffer per datagram with `address` (a new string each
 *     time) and `port` properties attached, or undefined when nothing waits. That is the
 *     platform's allocation; the stand-in measures its own with lwxs's exact heap readings
 *     (`wire.readSlots`, `wire.readChunks`) so that a test can take it out.
 *   - `write(buffer, address, port)` sends all of `buffer`: for a view, its current
 *     byteLength, which for a length-tracking view on a resizable ArrayBuffer follows the
 *     buffer (xsmcGetBufferReadable). The stand-in takes 1-byte views only (the host passes
 *     nothing else) and copies the bytes into `wire.sent`; it allocates nothing, and
 *     measures that too. `wire.failWrites` makes the next writes throw, as lwIP's ERR_MEM
 *     does ("UDP send failed"); with `wire.collectOnFail` a full collection runs first, as
 *     the allocation of the error could cause.
 *   - `onReadable(count)` is called with the socket as `this`; `target` is copied onto
 *     the socket.
 */
declare const xs: { gc(): void; slotsUsed(): number; chunksUsed(): number };

type Datagram = ArrayBuffer & { address: string; port: number };

interface UDPOptions {
  port?: number;
  target?: unknown;
  onReadable?: (this: UDP, count: number) => void;
  format?: "buffer";
}

const QUEUE = 64;
const MAX_DATAGRAM = 1500;

class Wire {
  /** The socket made last. */
  socket: UDP | null = null;
  boundPort = -1;

  // Receiving: a ring of queued datagrams.
  readonly #payload = new Uint8Array(QUEUE * MAX_DATAGRAM);
  readonly #length = new Uint16Array(QUEUE);
  readonly #port = new Uint16Array(QUEUE);
  readonly #host = new Uint8Array(QUEUE);
  #head = 0;
  queued = 0;
  reads = 0;
  readSlots = 0;
  readChunks = 0;

  // Sending.
  readonly sent = new Uint8Array(MAX_DATAGRAM);
  writes = 0;
  writeSlots = 0;
  writeChunks = 0;
  lastLength = -1;
  lastAddress = "";
  lastPort = -1;
  failWrites = 0;
  collectOnFail = false;

  /** Queue `length` bytes of `bytes` from 10.0.0.`host`:`port` for the socket to read. */
  queue(bytes: Uint8Array, length: number, host: number, port: number): void {
    if (this.queued === QUEUE) throw new RangeError("stand-in udp: queue full");
    if (length > MAX_DATAGRAM) throw new RangeError("stand-in udp: datagram too long");
    const i = (this.#head + this.queued) % QUEUE;
    const base = i * MAX_DATAGRAM;
    for (let k = 0; k < length; k++) this.#payload[base + k] = bytes[k];
    this.#length[i] = length;
    this.#port[i] = port;
    this.#host[i] = host;
    this.queued++;
  }

  /** Tell the socket that `count` datagrams wait (at most the queued ones), as lwIP's callback does. */
  deliver(count: number): void {
    const socket = this.socket;
    if (socket === null || socket.onReadable === null) throw new Error("stand-in udp: no socket to deliver to");
    socket.onReadable.call(socket, count < this.queued ? count : this.queued);
  }

  /** The next queued datagram as the device's read() returns it. */
  read(): Datagram | undefined {
    if (this.queued === 0) return undefined;
    const slots = xs.slotsUsed();
    const chunks = xs.chunksUsed();
    const i = this.#head;
    const base = i * MAX_DATAGRAM;
    const length = this.#length[i];
    const datagram = new ArrayBuffer(length) as Datagram;
    const bytes = new Uint8Array(datagram);
    for (let k = 0; k < length; k++) bytes[k] = this.#payload[base + k];
    datagram.address = "10.0.0." + this.#host[i];
    datagram.port = this.#port[i];
    this.#head = (i + 1) % QUEUE;
    this.queued--;
    this.reads++;
    this.readSlots += xs.slotsUsed() - slots;
    this.readChunks += xs.chunksUsed() - chunks;
    return datagram;
  }

  write(buffer: ArrayBuffer | Uint8Array | DataView, address: string, port: number): void {
    const slots = xs.slotsUsed();
    const chunks = xs.chunksUsed();
    if (!(buffer instanceof Uint8Array)) throw new TypeError("stand-in udp: write takes a Uint8Array here");
    if (this.failWrites > 0) {
      this.failWrites--;
      if (this.collectOnFail) xs.gc();
      throw new Error("UDP send failed");
    }
    const length = buffer.byteLength;
    if (length > MAX_DATAGRAM) throw new RangeError("stand-in udp: datagram too long");
    this.sent.set(buffer);
    this.lastLength = length;
    this.lastAddress = address;
    this.lastPort = port;
    this.writes++;
    this.writeSlots += xs.slotsUsed() - slots;
    this.writeChunks += xs.chunksUsed() - chunks;
  }
}

export const wire = new Wire();

export default class UDP {
  target: unknown;
  readonly onReadable: ((this: UDP, count: number) => void) | null;

  constructor(options: UDPOptions) {
    if (options.format !== undefined && options.format !== "buffer") throw new RangeError("invalid format");
    this.target = options.target;
    this.onReadable = options.onReadable ?? null;
    wire.socket = this;
    wire.boundPort = options.port ?? 0;
  }

  read(): Datagram | undefined {
    return wire.read();
  }

  write(buffer: ArrayBuffer | Uint8Array | DataView, address: string, port: number): void {
    wire.write(buffer, address, port);
  }

  get format(): "buffer" {
    return "buffer";
  }
}
