/**
 * The one boundary between the host-free core and a platform.
 *
 * A host owns the socket and the timer. It calls `core.receive(...)` for each
 * datagram and `core.tick(now)` periodically (every 5–20 ms), and gives the core
 * this object. The core never allocates to talk to it: the address string it
 * hands back to `send` is the very string the host passed into `receive`.
 */
export interface Host {
  /** Send `length` bytes from the start of `bytes` to address:port. */
  send(bytes: Uint8Array, length: number, address: string, port: number): void;
  /** Monotonic milliseconds. Never goes backwards, never wraps. */
  now(): number;
  /**
   * Log sink for rare events (join, leave, kick, reject). The core passes numbers
   * only; the host turns them into text (see `LogEvent` in modules/server/events.ts).
   */
  log(event: number, slot: number, value: number): void;
}

/** What a host drives. Both the server and the client library implement it. */
export interface Core {
  receive(bytes: Uint8Array, length: number, address: string, port: number): void;
  tick(now: number): void;
}

/**
 * A core that lends the host its receive buffer (MAX_PACKET bytes): the host writes a
 * datagram straight into it and calls `received`, and the core copies nothing. The server
 * does; the board's host (hosts/moddable/host.ts) uses it where the core offers it.
 */
export interface DirectCore extends Core {
  readonly rxBuffer: Uint8Array;
  /**
   * The datagram is in `rxBuffer[0 .. length)`; `now` is the host's clock (Host.now) when it
   * took it. One reading may serve every datagram the host takes at once: they all came
   * before it, and it saves a clock read per datagram on the board.
   */
  received(length: number, address: string, port: number, now: number): void;
}
