/**
 * The Moddable adapter: an ECMA-419 UDP socket, a repeating Timer for the tick, and a
 * monotonic clock built from Time.ticks. Same file on ESP32 (lwIP) and the simulator.
 * Each tick is timed with Time.microseconds where the SDK has it, else with Time.ticks
 * (whole milliseconds).
 */
import UDP from "embedded:io/socket/udp";
import Timer from "timer";
import Time from "time";
import type { PeerCarriage } from "../../modules/carriage";
import type { Core, Host } from "../../modules/host";
import { MAX_PACKET } from "../../modules/protocol/constants";
import { TickCost } from "../../modules/tickcost";

export type LogSink = (event: number, slot: number, value: number) => void;

export interface ModdableHostOptions {
  port: number;
  /** Tick period in ms. */
  tickMs?: number;
  log?: LogSink;
}

/**
 * Sends allocate nothing. write() sends the whole buffer it is given and takes no length,
 * so a send of `length` bytes needs a view of exactly that many. The host owns one
 * resizable ArrayBuffer of SEND_CAPACITY bytes with a length-tracking Uint8Array on it,
 * both made once, in the constructor. A send shorter than the core's buffer copies that
 * buffer in (one memcpy), shrinks the ArrayBuffer to `length`, writes the view (whose
 * length follows the buffer; xsmcGetBufferReadable reads it so), and grows it back. XS
 * renews the chunk in place while the size stays within what it was allocated with.
 * It grows back before send() returns because a compacting collection trims every chunk
 * to its size at that moment: left shrunk, it would need a new chunk to grow. (A write()
 * that throws, and whose error brings on a collection, costs that one new chunk.)
 * test/xs/zero-alloc.test.ts proves all this on XS; docs/moddable.md has the details.
 */
const SEND_CAPACITY = MAX_PACKET;

export class ModdableHost implements Host {
  #udp: UDP;
  #tickMs: number;
  #log: LogSink | null;
  #core: Core | null = null;
  #timer: Timer | null = null;
  #lastTicks: number;
  #now = 0;
  #peers: PeerCarriage | null = null;
  readonly #sendBuffer: ArrayBuffer;
  readonly #sendView: Uint8Array;
  /** write() threw: lwIP out of buffers (ERR_MEM), no route, and the like. */
  sendErrors = 0;
  /** What each `core.tick` took. */
  readonly tickCost: TickCost;
  readonly #micro: boolean;

  constructor(options: ModdableHostOptions) {
    this.#tickMs = options.tickMs ?? 10;
    this.#log = options.log ?? null;
    this.#sendBuffer = new ArrayBuffer(SEND_CAPACITY, { maxByteLength: SEND_CAPACITY });
    this.#sendView = new Uint8Array(this.#sendBuffer);
    this.#lastTicks = Time.ticks;
    this.#micro = typeof Time.microseconds === "number";
    this.tickCost = new TickCost(this.#tickMs, this.#micro ? "Time.microseconds" : "Time.ticks");
    this.#udp = new UDP({ port: options.port, target: this, onReadable: this.#onReadable });
  }

  /** Start feeding `core`: datagrams as they come, ticks every tickMs. */
  attach(core: Core): void {
    this.#core = core;
    if (this.#timer === null) this.#timer = Timer.repeat(() => this.#tick(core), this.#tickMs);
  }

  #tick(core: Core): void {
    if (this.#micro) {
      const start = Time.microseconds as number;
      core.tick(this.now());
      this.tickCost.record((Time.microseconds as number) - start);
    } else {
      const start = Time.ticks;
      core.tick(this.now());
      this.tickCost.record(Time.delta(start, Time.ticks) * 1000);
    }
  }

  /** Send to ports above 65535 through `carriage` (no UDP port is that high). */
  addPeers(carriage: PeerCarriage): void {
    this.#peers = carriage;
  }

  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    if (port > 0xffff) {
      if (this.#peers !== null) this.#peers.send(bytes, length, port);
    } else if (length >= bytes.length) this.#write(bytes, address, port);
    else if (bytes.length <= SEND_CAPACITY) {
      const buffer = this.#sendBuffer;
      this.#sendView.set(bytes);
      buffer.resize(length);
      this.#write(this.#sendView, address, port);
      buffer.resize(SEND_CAPACITY);
    } else {
      // Only for a caller whose buffer is longer than any lwar packet (the server's and
      // the client's are MAX_PACKET bytes): a new view per send.
      this.#write(bytes.subarray(0, length), address, port);
    }
  }

  #write(view: Uint8Array, address: string, port: number): void {
    try {
      this.#udp.write(view, address, port);
    } catch {
      this.sendErrors++;
    }
  }

  // Time.ticks is a signed 32-bit ms count on ESP32 (it wraps after ~24.8 days) and the
  // wall clock on Linux; Time.delta(start, end) handles the wrap (on ESP32 it is the
  // difference as unsigned 32-bit numbers, read as signed). A step back is ignored: the
  // clock holds still and counts on from the new reading. Always pass `end`: the SDK's
  // Time.delta hands an omitted `end` to its native as undefined, which reads as 0.
  now(): number {
    const ticks = Time.ticks;
    const delta = Time.delta(this.#lastTicks, ticks);
    this.#lastTicks = ticks;
    if (delta > 0) this.#now += delta;
    return this.#now;
  }

  log(event: number, slot: number, value: number): void {
    if (this.#log !== null) this.#log(event, slot, value);
  }

  /** Stop ticking and delivering; the socket stays bound. */
  detach(): void {
    if (this.#timer !== null) Timer.clear(this.#timer);
    this.#timer = null;
    this.#core = null;
  }

  // Called with the socket as `this`; `target` is this host. read() returns a new
  // ArrayBuffer with `address` and `port` for every datagram (the platform's allocation),
  // and the core reads bytes through a Uint8Array, so each datagram also costs one view
  // here: JavaScript has no way to read an ArrayBuffer's bytes without one.
  #onReadable(this: unknown, count: number): void {
    const socket = this as UDP & { target: ModdableHost };
    const core = socket.target.#core;
    while (count--) {
      const packet = socket.read();
      if (packet === undefined) break;
      if (core !== null) core.receive(new Uint8Array(packet), packet.byteLength, packet.address, packet.port);
    }
  }
}
