/**
 * A Host over one WebSocket: the page's client (and the Node tests' WebSocket players)
 * send each packet as one binary message and hand each message received to the client.
 * It works with the browser's WebSocket and with the `ws` client alike; the caller wires
 * the socket's events to `deliver` and `closed`.
 */
import type { Core, Host } from "../modules/host";

/** The client has one peer, its server: these name it in `Client` and `receive`. */
export const SERVER_ADDRESS = "ws";
export const SERVER_PORT = 0;

/** What the host needs of a WebSocket (the browser's or ws's). */
export interface SocketLike {
  readonly readyState: number;
  send(data: Uint8Array<ArrayBuffer>): void;
}

const OPEN = 1;

export class SocketHost implements Host {
  readonly socket: SocketLike;
  #core: Core | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  /** Packets not sent because the socket was not open. */
  sendErrors = 0;
  packetsIn = 0;
  packetsOut = 0;

  constructor(socket: SocketLike) {
    this.socket = socket;
  }

  /** Start ticking `core` every `tickMs` and deliver messages to it. */
  attach(core: Core, tickMs = 10): void {
    this.#core = core;
    if (this.#timer === null) this.#timer = setInterval(() => core.tick(this.now()), tickMs);
  }

  /**
   * One binary message from the server. The core also ticks here: a hidden browser tab
   * runs timers rarely, but still gets messages, so Input and acks keep going out.
   */
  deliver(data: ArrayBuffer | Uint8Array): void {
    const core = this.#core;
    if (core === null) return;
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    this.packetsIn++;
    core.receive(bytes, bytes.length, SERVER_ADDRESS, SERVER_PORT);
    core.tick(this.now());
  }

  /** Stop ticking. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#core = null;
  }

  send(bytes: Uint8Array, length: number): void {
    if (this.socket.readyState !== OPEN) {
      this.sendErrors++;
      return;
    }
    this.packetsOut++;
    // The client reuses its buffer at once: the socket gets its own copy.
    this.socket.send(bytes.slice(0, length));
  }

  now(): number {
    return performance.now();
  }

  log(): void {}
}
