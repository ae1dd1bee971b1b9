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
