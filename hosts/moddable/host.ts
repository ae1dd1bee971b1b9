/**
 * The Moddable adapter: the board's own UDP socket (net.c: a fixed ring of datagram slots
 * filled by lwIP's thread on ESP32; the kernel's socket on the simulator), a repeating Timer
 * for the tick, and a monotonic clock built from Time.ticks. Same file on ESP32 and the
 * simulator. Each tick is timed with Time.microseconds where the SDK has it, else with
 * Time.ticks (whole milliseconds).
 *
 * Each tick first drains the ring: every waiting datagram is copied once, by net.c, into
 * the server's receive buffer (or the host's own for another core), and handed on. Nothing
 * is allocated per datagram: a sender's address string is made once and kept in a small
 * table, so the core gets back the same string for the same sender. Sends go from the
 * core's packet buffer, its length given.
 */
import Timer from "timer";
import Time from "time";
import type { PeerCarriage } from "../../modules/carriage";
import type { Core, Host } from "../../modules/host";
import { TickCost } from "../../modules/tickcost";
import { BoardDrain } from "./drain";
import { udpOpen, udpSend, udpStats } from "./net";

export { ipText } from "./drain";

export type LogSink = (event: number, slot: number, value: number) => void;

export interface ModdableHostOptions {
  port: number;
  /** Tick period in ms. */
  tickMs?: number;
  /** Datagrams the ring holds (default 16); more arriving between two ticks are dropped and counted. */
  udpSlots?: number;
  log?: LogSink;
}

/** net.c's UDP counters (udpStats), in its order. */
export const UdpStat = Object.freeze({ Received: 0, RingFull: 1, TooLong: 2, SendErrors: 3, HighWater: 4 } as const);
export const UDP_STAT_NAMES: readonly string[] = Object.freeze(["received", "ringFull", "tooLong", "sendErrors", "highWater"]);

export class ModdableHost implements Host {
  #tickMs: number;
  #log: LogSink | null;
  #timer: Timer | null = null;
  #lastTicks: number;
  #now = 0;
  #peers: PeerCarriage | null = null;
  /** The datagrams from net.c's ring into the core (drain.ts). */
  readonly #drain = new BoardDrain();
  /** net.c's UDP counters, as of the last `udpCounters()`. */
  readonly udp: Uint32Array;
  readonly #udpBytes: Uint8Array;
  /** What each `core.tick` took. */
  readonly tickCost: TickCost;
  readonly #micro: boolean;

  constructor(options: ModdableHostOptions) {
    this.#tickMs = options.tickMs ?? 10;
    this.#log = options.log ?? null;
    this.udp = new Uint32Array(UDP_STAT_NAMES.length);
    this.#udpBytes = new Uint8Array(this.udp.buffer);
    this.#lastTicks = Time.ticks;
    this.#micro = typeof Time.microseconds === "number";
    this.tickCost = new TickCost(this.#tickMs, this.#micro ? "Time.microseconds" : "Time.ticks");
    udpOpen(options.port, options.udpSlots ?? 16);
  }

  /** Failed sends: lwIP out of buffers (ERR_MEM), no route, and the like. */
  get sendErrors(): number {
    return this.udpCounters()[UdpStat.SendErrors];
  }

  /** net.c's UDP counters, brought up to date. */
  udpCounters(): Uint32Array {
    udpStats(this.#udpBytes);
    return this.udp;
  }

  /** Start feeding `core`: every tick, the datagrams that came since the last, then the tick itself. */
  attach(core: Core): void {
    if (this.#timer === null) this.#timer = Timer.repeat(() => this.#tick(core), this.#tickMs);
  }

  #tick(core: Core): void {
    this.#drain.drain(core, this.now());
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
    } else udpSend(bytes, length, address, port);
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
  }
}
