/**
 * Who holds a player slot: finding a datagram's slot by address and port, admitting a
 * stranger whose first reliable message is Connect #0 (or rejecting it when the server is
 * full), pacing admissions with a token bucket, keeping peers that failed their handshake
 * out for a while, remembering who just left, and freeing a slot when a player goes.
 * The tables are in state.ts; the Join's roster and the newcomer's default name come from
 * session.ts; the server (server.ts) then starts the newcomer's entity sync (entity-sync.ts).
 */
import { Counter } from "../protocol/counters";
import { HEADER_SIZE, Msg, NO_ACK, RejectReason, RELIABLE_HEADER } from "../protocol/constants";
import { getU32 } from "../protocol/bytes";
import { headerRel, writeHeader, writeReject } from "../protocol/codec";
import { LogEvent } from "./events";
import { BOT_NAMES } from "./pilots";
import type { Session } from "./session";
import type { ServerState } from "./state";

/**
 * Admissions: a bucket of `maxPlayers` tokens, one back every ADMISSION_REFILL_MS. A server
 * can fill up at once, but peers that join and leave again cannot make the others' queues
 * carry more than a few announcements a second. A Connect that finds the bucket empty is
 * dropped and counted; the client resends it and gets in when a token is back.
 */
export const ADMISSION_REFILL_MS = 250;
/**
 * A peer dropped for not completing its handshake is not admitted again for this long, ms:
 * a connector that resends Connect but never acknowledges cannot hold a slot by coming back.
 * The last HANDSHAKE_MEMORY such peers are remembered (a fixed table).
 */
export const HANDSHAKE_PENALTY_MS = 10000;
export const HANDSHAKE_MEMORY = 8;
/**
 * Packets from a player that left this recently, ms, are counted as AfterLeave, not as a
 * stranger's (UnknownPeer): a client's packets still in flight after its Disconnect, or a
 * kicked client that has not noticed yet. The last LEFT_MEMORY who left are remembered.
 */
export const LEFT_MEMORY_MS = 5000;
export const LEFT_MEMORY = 8;
/** A bot's port: no datagram has it, so find() never matches a bot. */
const BOT_PORT = -2;

/** find()'s hint table: a slot per port's low bits (a hint only: a clash falls back to the search). */
export const PORT_HINT_MASK = 63;

export class Admission {
  readonly #state: ServerState;
  readonly #session: Session;
  #tokens: number;
  #nextToken = 0;
  #penaltyNext = 0;
  #leftNext = 0;
  /**
   * The state's tables find() reads, held here: they are carved once, before the rooms are
   * made, and never replaced. On XS a private name is found in a short list of its own,
   * while `state.slotByPort` walks most of the state's ~60 properties; find() runs for
   * every datagram.
   */
  readonly #slotByPort: Uint8Array;
  readonly #port: Int32Array;
  readonly #address: string[];

  constructor(state: ServerState, session: Session) {
    this.#state = state;
    this.#session = session;
    this.#tokens = state.config.maxPlayers;
    this.#slotByPort = state.slotByPort;
    this.#port = state.port;
    this.#address = state.address;
  }

  /** The slot of the player at `address` and `port`, or -1. */
  find(address: string, port: number): number {
    const ports = this.#port;
    // The slot last admitted from a port with these low bits, if it is still that peer.
    const hint = this.#slotByPort[port & PORT_HINT_MASK] - 1;
    if (hint >= 0 && ports[hint] === port && this.#address[hint] === address) return hint;
    // Else every slot: a free slot's port is -1, which no datagram has.
    const addresses = this.#address;
    const n = ports.length;
    for (let s = 0; s < n; s++) if (ports[s] === port && addresses[s] === address) return s;
    return -1;
  }

  /**
   * A validated packet (in `state.rx`) from an unknown address: admit it if its first
   * reliable message is Connect #0. Returns the new slot, or -1 (dropped and counted, or
   * rejected). The caller starts the slot's entity sync.
   */
  admit(length: number, address: string, port: number, now: number): number {
    const t = this.#state;
    const rx = t.rx;
    if (headerRel(rx) === 0 || length < HEADER_SIZE + RELIABLE_HEADER || getU32(rx, HEADER_SIZE) !== 0 || rx[HEADER_SIZE + 4] !== Msg.Connect) {
      t.counters[this.#leftRecently(address, port, now) ? Counter.AfterLeave : Counter.UnknownPeer]++;
      return -1;
    }
    let slot = -1;
    for (let s = 0; s < t.config.maxPlayers; s++) {
      if (t.active[s] === 0) {
        slot = s;
        break;
      }
    }
    // A human who finds the server full takes the last bot's slot (once admitted).
    for (let s = t.config.maxPlayers - 1; s >= 0 && slot < 0 && t.bots !== 0; s--) if (t.bot[s] !== 0) slot = s;
    if (slot < 0) {
      this.#reject(address, port, RejectReason.ServerFull);
      return -1;
    }
    if (this.#tokens === 0) {
      t.counters[Counter.AdmissionsDeferred]++;
      return -1;
    }
    for (let k = 0; k < HANDSHAKE_MEMORY; k++) {
      if (t.penaltyPort[k] === port && t.penaltyAddress[k] === address && ((now - t.penaltyUntil[k]) | 0) < 0) {
        t.counters[Counter.AdmissionsDeferred]++;
        return -1;
      }
    }
    this.#tokens--;
    if (t.bot[slot] !== 0) {
      t.counters[Counter.BotsReplaced]++;
      t.counters[Counter.Leaves]++;
      t.host.log(LogEvent.Leave, slot, t.playerId(slot));
      this.remove(slot);
    }
    t.generation[slot] = (t.generation[slot] + 1) & 0xffff || 1;
    this.#occupy(slot, address, port, 0, 0, now);
    t.slotByPort[port & PORT_HINT_MASK] = slot + 1;
    const id = t.playerId(slot);
    t.counters[Counter.Joins]++;
    t.host.log(LogEvent.Join, slot, id);
    // The newcomer learns itself first, then every announced player. The others learn of
    // it once it acknowledges its Join (session.announce): a Connect that goes no further
    // costs them nothing.
    this.#session.sendRoster(slot);
    return slot;
  }

  /**
   * A bot takes the free `slot`: a player like any other to everyone else (Join, Name,
   * Selection, its ship, its score), with no address, no queue and no Updates; its pilot
   * (pilots.ts) steers it. Announced at once. The caller starts its game.
   */
  admitBot(slot: number, now: number): void {
    const t = this.#state;
    t.generation[slot] = (t.generation[slot] + 1) & 0xffff || 1;
    t.bot[slot] = 1;
    t.botMask |= 1 << slot;
    t.bots++;
    // Each bot flies its own ship and weapon, varied by slot, selected from the start.
    this.#occupy(slot, "", BOT_PORT, slot % t.config.shipTypes, (slot >> 1) % t.config.weaponTypes, now);
    t.selected[slot] = 1;
    // "Vega [bot]": a star's name by slot, then the suffix; made unique like any name.
    this.#session.nameBot(slot, BOT_NAMES[slot % BOT_NAMES.length]);
    t.counters[Counter.Joins]++;
    t.counters[Counter.BotJoins]++;
    t.host.log(LogEvent.Join, slot, t.playerId(slot));
    this.#session.announce(slot);
  }

  /**
   * `slot` now holds a player at `address`, `port` with that selection: a fresh endpoint and
   * slot tables, full flood buckets, the ring read from here on, and a default name
   * (session.join). Its generation is already bumped.
   */
  #occupy(slot: number, address: string, port: number, ship: number, weapon: number, now: number): void {
    const t = this.#state;
    t.active[slot] = 1;
    t.activeMask |= 1 << slot;
    t.address[slot] = address;
    t.port[slot] = port;
    t.endpoints[slot].reset(now);
    t.ship[slot] = ship;
    t.weapon[slot] = weapon;
    t.selected[slot] = 0;
    t.input[slot] = 0;
    t.misbehaviour[slot] = 0;
    t.scores[slot] = 0;
    t.pings[slot] = 0;
    t.pendingKick[slot] = 0;
    t.announced[slot] = 0;
    t.unannounced++;
    t.joinedAt[slot] = now;
    t.inputAt[slot] = now;
    t.frontSince[slot] = now;
    t.players++;
    this.#session.join(slot, now);
  }

  #reject(address: string, port: number, reason: number): void {
    const t = this.#state;
    const tx = t.tx;
    let o = writeHeader(tx, NO_ACK, t.host.now() >>> 0, 0, 1);
    tx[o++] = Msg.Reject;
    o = writeReject(tx, o, reason);
    t.counters[Counter.Rejects]++;
    t.host.log(LogEvent.Reject, -1, reason);
    t.send(o, address, port);
  }

  /** A token back every ADMISSION_REFILL_MS (the schedule calls this every TIMEOUT_CHECK_MS). */
  refill(now: number): void {
    if (now < this.#nextToken) return;
    this.#nextToken = now + ADMISSION_REFILL_MS;
    if (this.#tokens < this.#state.config.maxPlayers) this.#tokens++;
  }

  /** The player in `slot` did not complete its handshake: not admitted again for HANDSHAKE_PENALTY_MS. */
  penalize(slot: number, now: number): void {
    const t = this.#state;
    const k = this.#penaltyNext;
    this.#penaltyNext = (k + 1) % HANDSHAKE_MEMORY;
    t.penaltyAddress[k] = t.address[slot];
    t.penaltyPort[k] = t.port[slot];
    t.penaltyUntil[k] = now + HANDSHAKE_PENALTY_MS;
  }

  #leftRecently(address: string, port: number, now: number): boolean {
    const t = this.#state;
    for (let k = 0; k < LEFT_MEMORY; k++)
      if (t.leftPort[k] === port && t.leftAddress[k] === address && ((now - t.leftUntil[k]) | 0) < 0) return true;
    return false;
  }

  /** The player sent Disconnect: one last packet acknowledges it, then the slot is freed. */
  disconnect(slot: number): void {
    const t = this.#state;
    const id = t.playerId(slot);
    // One last packet that acknowledges the Disconnect, so the client can stop resending.
    const o = writeHeader(t.tx, t.endpoints[slot].lastProcessed, t.host.now() >>> 0, 0, 0);
    t.send(o, t.address[slot], t.port[slot]);
    t.counters[Counter.Leaves]++;
    t.host.log(LogEvent.Leave, slot, id);
    this.remove(slot);
  }

  /** Free the slot; the others get Leave, then Remove for the player's entities. */
  remove(slot: number): void {
    const t = this.#state;
    const id = t.playerId(slot);
    const k = this.#leftNext;
    this.#leftNext = (k + 1) % LEFT_MEMORY;
    t.leftAddress[k] = t.address[slot];
    t.leftPort[k] = t.port[slot];
    t.leftUntil[k] = t.now + LEFT_MEMORY_MS;
    t.active[slot] = 0;
    t.activeMask &= ~(1 << slot);
    t.port[slot] = -1;
    t.players--;
    if (t.bot[slot] !== 0) {
      t.bot[slot] = 0;
      t.botMask &= ~(1 << slot);
      t.bots--;
    }
    t.pendingKick[slot] = 0;
    t.input[slot] = 0;
    t.scores[slot] = 0;
    t.pings[slot] = 0;
    // Only those told of the player hear that it left.
    this.#session.leave(slot, id);
    if (t.announced[slot] === 0) t.unannounced--;
    t.announced[slot] = 0;
    if (t.sim !== null) t.sim.playerLeft(slot, id);
    t.entities.removeOwnedBy(id);
  }
}
