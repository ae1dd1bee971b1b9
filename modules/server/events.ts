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
  /**
   * A ship was destroyed (the game's death hook, not the server): slot is the victim;
   * value: `deathValue(killerSlot, cause)`.
   */
  Death: 8,
} as const);

/**
 * A Death event's value: the template id of what dealt the last blow in the low byte, and
 * the killer's slot + 1 above it (0: nobody, the environment or a player gone since).
 */
export function deathValue(killerSlot: number, cause: number): number {
  return ((killerSlot + 1) << 8) | (cause & 0xff);
}
/** The killer's slot in a Death event's value, or -1. */
export function deathKiller(value: number): number {
  return (value >> 8) - 1;
}
/** The template id of what dealt the last blow, from a Death event's value. */
export function deathCause(value: number): number {
  return value & 0xff;
}

export const KickReason = Object.freeze({
  QueueOverflow: 1,
  Misbehaviour: 2,
  Shutdown: 3,
} as const);

const eventNames: readonly string[] = Object.freeze(["", "join", "leave", "kick", "reject", "timeout", "rename", "chat", "death"]);
const kickNames: readonly string[] = Object.freeze(["", "reliable queue overflow", "misbehaviour", "shutdown"]);

export function describeEvent(event: number): string {
  return eventNames[event] ?? `event ${event}`;
}
export function describeKick(reason: number): string {
  return kickNames[reason] ?? `reason ${reason}`;
}
/** Kick reasons as /metrics labels them, by KickReason. */
export const KICK_LABELS: readonly string[] = Object.freeze(["", "queue_overflow", "misbehaviour", "shutdown"]);
