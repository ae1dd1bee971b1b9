/**
 * The Moddable adapter: an ECMA-419 UDP socket, a repeating Timer for the tick, and a
 * monotonic clock built from Time.ticks. Same file on ESP32 (lwIP) and the simulator.
 */
import UDP from "embedded:io/socket/udp";
import Timer from "timer";
import Time from "time";
import type { Core, Host } from "../../modules/host";

export type LogSink = (event: number, slot: number, value: number) => void;

export interface ModdableHostOptions {
  port: number;
  /** Tick period in ms. */
  tickMs?: number;
  log?: LogSink;
}

// write() takes no length, so sends need a view of exactly `length` bytes. Views are
// cached by length (direct-mapped) so the steady state allocates nothing per send.
const VIEW_SLOTS = 32;

export class ModdableHost implements Host {
  #udp: UDP;
  #tickMs: number;
  #log: LogSink | null;
  #core: Core | null = null;
  #timer: Timer | null = null;
  #lastTicks: number;
  #now = 0;
  #views: (Uint8Array | null)[];
  #viewSources: (Uint8Array | null)[];
  /** write() threw: lwIP out of buffers (ERR_MEM), no route, and the like. */
  sendErrors = 0;

  constructor(options: ModdableHostOptions) {
    this.#tickMs = options.tickMs ?? 10;
    this.#log = options.log ?? null;
    this.#views = new Array(VIEW_SLOTS).fill(null);
    this.#viewSources = new Array(VIEW_SLOTS).fill(null);
    this.#lastTicks = Time.ticks;
    this.#udp = new UDP({ port: options.port, target: this, onReadable: this.#onReadable });
  }

  /** Start feeding `core`: datagrams as they come, ticks every tickMs. */
  attach(core: Core): void {
    this.#core = core;
    if (this.#timer === null) this.#timer = Timer.repeat(() => core.tick(this.now()), this.#tickMs);
  }

  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    let view = bytes;
    if (length !== bytes.length) {
      const i = length & (VIEW_SLOTS - 1);
      const cached = this.#views[i];
      if (cached !== null && cached.length === length && this.#viewSources[i] === bytes) view = cached;
      else {
        view = bytes.subarray(0, length);
        this.#views[i] = view;
        this.#viewSources[i] = bytes;
      }
    }
    try {
      this.#udp.write(view, address, port);
    } catch {
      this.sendErrors++;
    }
  }

  // Time.ticks is a signed 32-bit ms count on ESP32 (it wraps after ~24.8 days) and the
  // wall clock on Linux; Time.delta handles the wrap, and a step back is ignored.
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

  // Called with the socket as `this`; `target` is this host.
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
