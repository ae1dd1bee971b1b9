/** Numbers the server passes to `Host.log(event, slot, value)`. The host makes the text. */
export const LogEvent = Object.freeze({
  /** value: player id */
  Join: 1,
  /** value: player id (the client sent Disconnect) */
  Leave: 2,
  /** value: KickReason */
  Kick: 3,
  /** slot is -1; value: RejectReason */
  Reject: 4,
  /** value: player id */
  Timeout: 5,
  /** value: player id; the name is in `server.names` */
  Rename: 6,
  /** value: player id; the text is in `server.lastChat` */
  Chat: 7,
} as const);

export const KickReason = Object.freeze({
  QueueOverflow: 1,
  Misbehaviour: 2,
  Shutdown: 3,
} as const);

const eventNames: readonly string[] = Object.freeze(["", "join", "leave", "kick", "reject", "timeout", "rename", "chat"]);
const kickNames: readonly string[] = Object.freeze(["", "reliable queue overflow", "misbehaviour", "shutdown"]);

export function describeEvent(event: number): string {
  return eventNames[event] ?? `event ${event}`;
}
export function describeKick(reason: number): string {
  return kickNames[reason] ?? `reason ${reason}`;
}
