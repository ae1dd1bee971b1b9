/**
 * What the server's rooms share: the player slots as a struct of arrays (indexed by slot),
 * the buffers each room works in, and the few scalars more than one room reads or writes.
 * As ENet's host and peer structs are to its protocol.c, this is the memory and the rooms
 * are the code: admission.ts (who gets a slot, who leaves), session.ts (what players say to
 * each other), schedule.ts (what the clock decides), receive.ts (what a player's datagram
 * says), entity-sync.ts (the Adds and Removes each player is owed), update-writer.ts (what
 * each player is sent on a tick), server.ts (receive, tick and kicks, composing the others).
 *
 * The tables are carved by `Server`'s constructor from its one arena (the fields marked
 * `!`), so that every pool stays in one place and one `ArrayBuffer`; nothing here allocates
 * after that. Times are ms modulo 2^32, compared wrap-safe: `((now - t) | 0) > limit`.
 */
import type { Config } from "../config";
import type { Host } from "../host";
import { Counter } from "../protocol/counters";
import { Msg, RELIABLE_HEADER } from "../protocol/constants";
import type { EntityTable } from "../game/entities";
import type { Endpoint, EndpointTable } from "../transport/endpoint";
import type { Simulation } from "../sim";
import { KickReason } from "./events";

/** Bytes a queued Leave takes; kept free in every queue for a kick. */
export const LEAVE_SIZE = RELIABLE_HEADER + 4;

/**
 * Every queue keeps this much free for Leaves: one for each other player it may be told
 * about and the final one of its own kick. Player events other than Leave, and entity
 * traffic, may only use the rest, so no queue overflows because of what others do.
 */
export function leaveReserve(maxPlayers: number): number {
  return (maxPlayers + 1) * LEAVE_SIZE;
}

export class ServerState {
  readonly config: Config;
  readonly host: Host;
  readonly counters: Uint32Array;
  readonly entities: EntityTable;
  /** The hosted simulation, or null (`Server.attach`). */
  sim: Simulation | null = null;
  /** Now, ms: set by each tick and each datagram that passed validation. */
  now = 0;
  /** Some slot has a kick pending in `pendingKick`: the server runs them at the end of its step. */
  kickPending = false;
  /** Players connected now, bots included. */
  players = 0;
  /** Active players not yet announced (announced[slot] 0): while none, a datagram need not look. */
  unannounced = 0;
  /** 1 for a slot the server flies itself (config.bots; modules/server/pilots.ts), and how many. */
  readonly bot: Uint8Array;
  bots = 0;
  /**
   * Bit s set while `active[s]` (activeMask) or `bot[s]` (botMask) is 1: a loop over the
   * players a tick serves walks these bits instead of reading two typed arrays per slot (on
   * XS each element read costs hundreds of instructions, a bit test a few). admission.ts
   * writes both with the tables.
   */
  activeMask = 0;
  botMask = 0;
  /** Bytes every queue keeps free for Leaves (leaveReserve()). */
  readonly leaveReserve: number;
  /** The length of the last chat line accepted, in `lastChat` (for the host's log). */
  lastChatLength = 0;

  // ---- packet buffers: the datagram being handled, the packet being built. First among
  // the tables: XS finds a property by walking the object's list of them, and these are
  // read for every datagram.
  /** The datagram being handled, copied in with one native call, and a DataView on it. */
  rx!: Uint8Array;
  rxView!: DataView;
  /** Payload offsets of the datagram's messages, recorded by validatePacket. */
  offsets!: Uint16Array;
  tx!: Uint8Array;
  /**
   * Views of the whole arena the buffers, the ring and the queues are carved from: blocks
   * move between them with copyWithin, and a packet's header words go in through the
   * DataView. One of each, shared by the endpoints and the session (each view costs slots).
   */
  whole!: Uint8Array;
  wholeView!: DataView;

  // ---- per slot: who is there
  active!: Uint8Array;
  generation!: Uint16Array;
  readonly address: string[];
  port!: Int32Array;
  endpoints!: Endpoint[];
  /** The endpoints' table: which players are due a packet, and a broadcast's copies, in one call each. */
  endpointTable!: EndpointTable;
  /** The reason of a kick decided for the slot (KickReason), 0 for none. */
  pendingKick!: Uint8Array;
  /** 1 once the player acknowledged its Join; then (and only then) the others are told of it. */
  announced!: Uint8Array;
  /** When the slot was admitted. */
  joinedAt!: Int32Array;
  /**
   * Liveness is acknowledgement: since when the message at the front of the player's queue
   * has waited (queued into an empty queue, or the last acknowledgement that moved it).
   */
  frontSince!: Int32Array;

  // ---- per slot: what the player is
  names!: Uint8Array;
  nameLength!: Uint8Array;
  ship!: Uint8Array;
  weapon!: Uint8Array;
  /** 1 once a Selection from the player was accepted since it joined (bots: at once); the game reads it (Players). */
  selected!: Uint8Array;
  /** Newest Input of each player as INPUT_* bits, and when it came. */
  input!: Uint8Array;
  inputAt!: Int32Array;
  /** Strikes (session.ts, misbehave), and when the last one counted. */
  misbehaviour!: Uint16Array;
  strikeAt!: Int32Array;
  /** Scores are written by the game; pings by the server. Both sent in Stats (MAX_PLAYERS long). */
  scores!: Uint16Array;
  pings!: Uint16Array;

  // ---- session.ts: the broadcast ring, each player's place in it, flood control
  ring!: Uint8Array;
  cursor!: Int32Array;
  /** A message's payload is built here before it goes into the ring. */
  scratch!: Uint8Array;
  nameScratch!: Uint8Array;
  /** The last chat line accepted. */
  lastChat!: Uint8Array;
  /** Tokens left in each player's chat, rename and selection buckets, and their last refills. */
  chatTokens!: Uint8Array;
  nameTokens!: Uint8Array;
  selectTokens!: Uint8Array;
  chatAt!: Int32Array;
  nameAt!: Int32Array;
  selectAt!: Int32Array;

  // ---- admission.ts: finding a peer's slot, who may not come back yet, who just left
  /** [port & PORT_HINT_MASK]: 1 + the slot last admitted from such a port (0: none). */
  slotByPort!: Uint8Array;
  /** Peers recently dropped at the handshake: a ring of address, port and until when. */
  readonly penaltyAddress: string[];
  readonly penaltyPort: Int32Array;
  penaltyUntil!: Int32Array;
  /** Players who left recently: a ring of address, port and until when. */
  readonly leftAddress: string[];
  readonly leftPort: Int32Array;
  leftUntil!: Int32Array;

  // ---- entity-sync.ts: what each player knows of the entities, and what to look at again
  /**
   * [slot × capacity + index]: the generation of the entity at that index that the player
   * knows (its Add was queued and no Remove since), 0 for none. Generations are never 0.
   */
  known!: Uint16Array;
  /** [slot × words + word]: the entity indices to reconcile for the player. */
  dirty!: Int32Array;
  /** The indices added or removed since the last reconciliation, before they are made every player's dirty bits. */
  pending!: Int32Array;
  /** The Adds and Removes a native sync queued, for the planner (~index: a Remove); empty without one. */
  actions!: Int32Array;

  // ---- update-writer.ts: the plan being sent, the entry cache's flags, the update cycle
  /** The entity indices of the plan being sent. */
  list!: Uint16Array;
  /** Per entity: 1 once its entry is encoded in the current update tick. */
  encoded!: Uint8Array;

  constructor(
    config: Config, host: Host, counters: Uint32Array, entities: EntityTable, penalties: number, leavers: number, bot: Uint8Array,
  ) {
    this.bot = bot;
    this.config = config;
    this.host = host;
    this.counters = counters;
    this.entities = entities;
    this.leaveReserve = leaveReserve(config.maxPlayers);
    this.address = new Array<string>(config.maxPlayers).fill("");
    this.penaltyAddress = new Array<string>(penalties).fill("");
    this.penaltyPort = new Int32Array(penalties).fill(-1);
    this.leftAddress = new Array<string>(leavers).fill("");
    this.leftPort = new Int32Array(leavers).fill(-1);
  }

  /** The generational id of the player in `slot` (valid while active). */
  playerId(slot: number): number {
    return ((this.generation[slot] << 16) | slot) >>> 0;
  }

  /** Reserve a reliable message for `to`; -1 (and a pending kick) when its queue is full. */
  reserve(to: number, type: number, payload: number): number {
    if (this.pendingKick[to] !== 0) return -1;
    const ep = this.endpoints[to];
    // A Leave may use the reserve; everything else must leave it free.
    if (ep.count === 0) this.frontSince[to] = this.now;
    const o = ep.canQueue(payload + (type === Msg.Leave ? LEAVE_SIZE : this.leaveReserve)) ? ep.queue(type, payload) : -1;
    if (o < 0) {
      this.counters[Counter.QueueOverflows]++;
      this.pendingKick[to] = KickReason.QueueOverflow;
      this.kickPending = true;
    }
    return o;
  }

  /** Send the first `length` bytes of `tx`. */
  send(length: number, address: string, port: number): void {
    this.counters[Counter.PacketsOut]++;
    this.counters[Counter.BytesOut] += length;
    this.host.send(this.tx, length, address, port);
  }
}
