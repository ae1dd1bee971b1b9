/**
 * The Node adapter: one UDP socket (node:dgram), a periodic tick, a monotonic clock.
 * It serves the server and the client library alike.
 */
import dgram from "node:dgram";
import { performance } from "node:perf_hooks";
import type { Core, Host } from "../../modules/host";

export type LogSink = (event: number, slot: number, value: number) => void;

export interface NodeHostOptions {
  /** Local port; 0 picks a free one. */
  port?: number;
  /** Local address to bind. */
  address?: string;
  /** Tick period in ms. */
  tickMs?: number;
  log?: LogSink;
}

export class NodeHost implements Host {
  readonly socket: dgram.Socket;
  readonly #tickMs: number;
  readonly #log: LogSink | null;
  #core: Core | null = null;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;
  /** Sends that failed synchronously or asynchronously. */
  sendErrors = 0;

  constructor(options: NodeHostOptions = {}) {
    this.#tickMs = options.tickMs ?? 10;
    this.#log = options.log ?? null;
    this.socket = dgram.createSocket({ type: "udp4", reuseAddr: false });
    this.socket.on("message", (msg, rinfo) => {
      if (this.#core !== null) this.#core.receive(msg, msg.length, rinfo.address, rinfo.port);
    });
  }

  /** Bind and resolve with the bound address and port. */
  listen(port: number, address: string): Promise<{ address: string; port: number }> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.socket.once("error", onError);
      this.socket.bind(port, address, () => {
        this.socket.off("error", onError);
        this.socket.on("error", () => this.sendErrors++);
        const a = this.socket.address();
        resolve({ address: a.address, port: a.port });
      });
    });
  }

  /** Start feeding `core`: datagrams as they come, ticks every tickMs. */
  attach(core: Core): void {
    this.#core = core;
    if (this.#timer === null) this.#timer = setInterval(() => core.tick(this.now()), this.#tickMs);
  }

  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    if (this.#closed) return;
    // The core reuses its buffer right away; dgram may send later, so hand it a copy.
    const copy = Buffer.from(bytes.subarray(0, length));
    this.socket.send(copy, port, address, (err) => {
      if (err) this.sendErrors++;
    });
  }

  now(): number {
    return performance.now();
  }

  log(event: number, slot: number, value: number): void {
    if (this.#log !== null) this.#log(event, slot, value);
  }

  /** Stop ticking and close the socket once pending sends have gone out. */
  close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#core = null;
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    return new Promise((resolve) => {
      // Give sends already handed to dgram a moment to leave.
      setTimeout(() => this.socket.close(() => resolve()), 20);
    });
  }
}
