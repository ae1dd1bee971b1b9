/**
 * Every drop and event the core counts, as indices into one Uint32Array.
 * A status line or a test reads them all from there.
 */
export const Counter = Object.freeze({
  PacketsIn: 0,
  BytesIn: 1,
  PacketsOut: 2,
  BytesOut: 3,
  // Whole packets dropped by validation, by reason.
  TooShort: 4,
  TooLong: 5,
  BadAppId: 6,
  UnknownType: 7,
  WrongChannel: 8,
  WrongDirection: 9,
  Truncated: 10,
  UnterminatedChat: 11,
  UnterminatedName: 12,
  TrailingBytes: 13,
  // Packets that validate but are not acted on.
  UnknownPeer: 14,
  BadAck: 15,
  // Single messages dropped.
  DuplicateReliable: 16,
  OutOfOrderReliable: 17,
  StaleUnreliable: 18,
  SpoofedId: 19,
  BadName: 20,
  BadSelection: 21,
  BadChat: 22,
  // Life cycle.
  Joins: 23,
  Leaves: 24,
  Timeouts: 25,
  Kicks: 26,
  Rejects: 27,
  QueueOverflows: 28,
  Misbehaviour: 29,
  ReliableSent: 30,
  ReliableResent: 31,
  ReliableReceived: 32,
  UpdatesSent: 33,
  StatsSent: 34,
  UpdateEntitiesSent: 35,
  SendErrors: 36,
  /** Players dropped for not acknowledging their Join within the handshake time. */
  HandshakeTimeouts: 37,
  /** Chats, renames and selections refused at their source: the sender's flood bucket was empty, or it is not announced yet. */
  Refused: 38,
  /** Inputs cleared because none arrived for INPUT_STALE_MS. */
  StaleInputs: 39,
  /** Packets whose timestamp ran further ahead than the receiver's clock: not believed, their unreliable messages dropped. */
  FutureTimestamp: 40,
  /** Connects from new peers dropped because admissions ran ahead of the admission rate (they are resent). */
  AdmissionsDeferred: 41,
  /**
   * Packets from a player that just left (its Disconnect, kick or timeout), within
   * LEFT_MEMORY_MS: its last packets in flight, not a stranger's (those are UnknownPeer).
   */
  AfterLeave: 42,
  /**
   * Players dropped because the oldest reliable message they had not acknowledged waited
   * longer than timeoutMs, however many packets they sent (also counted in Timeouts).
   */
  AckStalls: 43,
  /** Players dropped for falling a whole broadcast ring behind (also counted in Timeouts). */
  Laggards: 44,
  /** Bots the server put into empty slots (config.bots). */
  BotJoins: 45,
  /** Bots that gave their slot up to a human who found the server full. */
  BotsReplaced: 46,
} as const);

/** Names for status lines and tests, in index order: each key of Counter with a lower-case first letter. */
export const COUNTER_NAMES: readonly string[] = Object.freeze(counterNames(Counter));

export const COUNTER_COUNT = COUNTER_NAMES.length;

/**
 * The names of a counter declaration (`{ Name: index }`), checking that the indices run
 * 0..n-1 without gaps. Start-up only.
 */
export function counterNames(declaration: Readonly<Record<string, number>>): string[] {
  const names: string[] = [];
  for (const key of Object.keys(declaration)) {
    const index = declaration[key];
    if (names[index] !== undefined) throw new RangeError(`counter index ${index} used twice`);
    names[index] = key[0].toLowerCase() + key.slice(1);
  }
  for (let i = 0; i < names.length; i++) if (names[i] === undefined) throw new RangeError(`no counter has index ${i}`);
  return names;
}

/** The counters that mean "a whole packet was dropped" (for status lines). */
export const DROP_FIRST = Counter.TooShort;
export const DROP_LAST = Counter.BadAck;

export function createCounters(): Uint32Array {
  return new Uint32Array(COUNTER_COUNT);
}
