/**
 * The Node adapter: one UDP socket (node:dgram), a periodic tick, a monotonic clock.
 * It serves the server and the client library alike. With `addPeers`, a second carriage
 * (the WebSocket transport in hosts/node/web.ts) takes the peers whose port is above
 * 65535, a number no UDP port can be.
 */
import dgram from "node:dgram";
import { performance } from "node:perf_hooks";
import type { PeerCarriage } from "../../modules/carriage";
import type { Core, Host } from "../../modules/host";
import { TickCost } from "../../modules/tickcost";

export type LogSink = (event: number, slot: number, value: number) => void;

/** The WebSocket transport as the host holds it: a carriage (modules/carriage.ts) that closes. */
interface ClosingCarriage extends PeerCarriage {
  close(): Promise<void>;
}

export interface NodeHostOptions {
  /** Local port; 0 picks a free one. */
  port?: number;
  /** Local address to bind. */
  address?: string;
  /** Tick period in ms. */
  tickMs?: number;
  log?: LogSink;
}

/**
 * Receive buffer asked of the kernel: a burst of 64 packets from each of 8 players, at
 * up to 1 KiB each as the kernel accounts for a datagram of up to 512 bytes.
 */
export const RECEIVE_BUFFER_BYTES = 8 * 64 * 1024;

export class NodeHost implements Host {
  #socket: dgram.Socket | null = null;
  readonly #tickMs: number;
  readonly #log: LogSink | null;
  #core: Core | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  #peers: ClosingCarriage | null = null;
  /** Sends that failed synchronously or asynchronously. */
  sendErrors = 0;
  /** What each `core.tick` took. */
  readonly tickCost: TickCost;

  constructor(options: NodeHostOptions = {}) {
    this.#tickMs = options.tickMs ?? 10;
    this.#log = options.log ?? null;
    this.tickCost = new TickCost(this.#tickMs, "performance.now");
  }

  /** The UDP socket (made by listen()). */
  get socket(): dgram.Socket {
    if (this.#socket === null) throw new Error("the host is not listening: call listen() first");
    return this.#socket;
  }

  /**
   * Bind and resolve with the bound address and port, and the receive buffer the kernel
   * granted. An IPv6 address binds an IPv6 socket; `::` is dual stack (IPv4 too).
   */
  listen(port: number, address: string): Promise<{ address: string; port: number; receiveBuffer: number }> {
    const v6 = address.includes(":");
    const socket = dgram.createSocket({ type: v6 ? "udp6" : "udp4", reuseAddr: false, ipv6Only: false, recvBufferSize: RECEIVE_BUFFER_BYTES });
    this.#socket = socket;
    socket.on("message", (msg, rinfo) => {
      if (this.#core !== null) this.#core.receive(msg, msg.length, rinfo.address, rinfo.port);
    });
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
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
  attach(core: Core): void {
    this.#core = core;
    if (this.#timer === null) this.#timer = setInterval(() => this.#tick(core), this.#tickMs);
  }

  #tick(core: Core): void {
    const start = performance.now();
    core.tick(start);
    this.tickCost.record((performance.now() - start) * 1000);
  }

  /** Route the peers numbered above 65535 to `carriage`; it closes with the host. */
  addPeers(carriage: ClosingCarriage): void {
    this.#peers = carriage;
  }

  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    if (this.#closed) return;
    if (port > 0xffff) {
      if (this.#peers !== null) this.#peers.send(bytes, length, port);
      else this.sendErrors++;
      return;
    }
    // The core reuses its buffer right away; dgram may send later, so hand it a copy.
    const copy = Buffer.from(bytes.subarray(0, length));
    if (this.#socket === null) {
      this.sendErrors++;
      return;
    }
    this.#socket.send(copy, port, address, (err) => {
      if (err) this.sendErrors++;
    });
  }

  now(): number {
    return performance.now();
  }

  log(event: number, slot: number, value: number): void {
    if (this.#peers !== null) this.#peers.event(event, slot, value);
    if (this.#log !== null) this.#log(event, slot, value);
  }

  /** Stop ticking and close the socket (and the other carriage) once pending sends have gone out. */
  close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#core = null;
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    const udp = new Promise<void>((resolve) => {
      // Give sends already handed to dgram a moment to leave.
      const socket = this.#socket;
      if (socket === null) resolve();
      else setTimeout(() => socket.close(() => resolve()), 20);
    });
    return this.#peers === null ? udp : Promise.all([udp, this.#peers.close()]).then(() => undefined);
  }
}
