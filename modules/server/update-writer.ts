/**
 * What each player is sent on a tick (server.ts calls `tick` last in its own): a packet of
 * its reliable messages when they are due, and once per update cycle its update tick:
 * reliables first, then Stats when due, then Update packets for as much of its plan as
 * config.maxUpdatePacketsPerTick of them carry. Also the packets of a kick's flush (`fill`).
 *
 * Update cycle: every `updateIntervalMs`, each player gets its Update at its own offset
 * into the cycle (slot × interval / maxPlayers), so the work of one update round is spread
 * over the ticks of the cycle instead of landing on one.
 *
 * Entry cache: the packet buffer (`state.tx`, MAX_PACKET bytes) is followed in the arena by
 * each entity's Update entry as encoded since the world last changed. An entry is encoded
 * once per change, for the first player whose plan has it, and copied into every packet
 * that carries it (entries.ts: the native `pack` writes a packet's Stats, Update and entries
 * in one call). The tables are in state.ts.
 */
import { MAX_PACKET, MAX_PLAYERS, UPDATE_ENTRY } from "../protocol/constants";
import type { Endpoint } from "../transport/endpoint";
import { type NativeOptions, requireKernels } from "../native";
import { type EntryPacker, NativeEntryPacker } from "./entries";
import type { ServerState } from "./state";
import type { UpdatePlanner } from "./updates";


export class UpdateWriter {
  /** Chooses each player's Update entries (the game installs its own). */
  planner: UpdatePlanner;
  readonly #state: ServerState;
  /** The packet being built, then the entry cache: one view over both. */
  readonly #txAndEntries: Uint8Array;
  /** The Update entry loop: the JavaScript or the native kernel's, chosen at start-up. */
  readonly #packer: EntryPacker;
  /** Each player's offset into the update cycle, ms (a plain array keeps them integers on XS). */
  readonly #offset: number[];
  #cycleStart: number;
  #nextStats: number;
  /** The entity table's version when the cached entries were encoded. */
  #encodedVersion = -1;
  /** Bit s: the player had its Update in the current update cycle; a Stats is due in its next Update. */
  #updated = 0;
  #statsDue = 0;
  /** The last tick's time, for the gap to the next (-1 before the first). */
  #lastTick = -1;

  /** The state's tables must be carved, its `tx` followed by capacity × UPDATE_ENTRY bytes of cache. */
  constructor(state: ServerState, planner: UpdatePlanner, native: NativeOptions | null) {
    const cfg = state.config;
    const n = cfg.maxPlayers;
    const tx = state.tx;
    this.#state = state;
    this.planner = planner;
    this.#txAndEntries = new Uint8Array(tx.buffer, tx.byteOffset, MAX_PACKET + state.entities.capacity * UPDATE_ENTRY);
    this.#offset = new Array<number>(n).fill(0);
    for (let s = 0; s < n; s++) this.#offset[s] = Math.floor((s * cfg.updateIntervalMs) / n);
    const entries = {
      all: this.#txAndEntries, encoded: state.encoded, entities: state.entities, list: state.list, scores: state.scores, pings: state.pings,
      counters: state.counters,
    };
    this.#packer = new NativeEntryPacker(entries, requireKernels(native, "the Update writer"), native);
    this.#cycleStart = state.now;
    this.#nextStats = state.now;
  }

  /** A newcomer in `slot`: its Update cycle starts afresh. */
  joined(slot: number): void {
    this.#updated &= ~(1 << slot);
    this.#statsDue &= ~(1 << slot);
  }

  /** The entity at `index` is new: its entry (its id among the rest) is encoded afresh when next sent. */
  entityAdded(index: number): void {
    this.#state.encoded[index] = 0;
  }

  /**
   * Each player's packets on this tick: its update tick when its offset into the cycle has
   * come, else its reliables when due; on a tick on which the world `stepped`, nothing (a
   * game step is never two ticks in a row: nothing waits more than one tick).
   */
  tick(now: number, stepped: boolean): void {
    const t = this.#state;
    const cfg = t.config;
    const endpoints = t.endpoints;
    // The players with a peer: active, not bots (they are sent nothing).
    const peers = t.activeMask & ~t.botMask;
    if (now >= this.#nextStats) {
      this.#nextStats += cfg.statsIntervalMs;
      if (this.#nextStats <= now) this.#nextStats = now + cfg.statsIntervalMs;
      const pings = t.pings;
      const active = t.activeMask;
      for (let s = 0; s < MAX_PLAYERS; s++) pings[s] = ((active >> s) & 1) !== 0 ? endpoints[s].ping() : 0;
      this.#statsDue = -1;
    }
    if (now - this.#cycleStart >= cfg.updateIntervalMs) {
      // A player whose offset fell between two ticks of the ending cycle gets its turn now,
      // so every cycle carries one Update for every player, whatever the tick period.
      const late = peers & ~this.#updated;
      for (let s = 0; late >> s !== 0; s++) {
        if (((late >> s) & 1) === 0) continue;
        this.#update(s, now, ((this.#statsDue >> s) & 1) !== 0);
        this.#statsDue &= ~(1 << s);
      }
      this.#cycleStart += cfg.updateIntervalMs;
      if (now - this.#cycleStart >= cfg.updateIntervalMs) this.#cycleStart = now;
      this.#updated = 0;
    }
    const into = now - this.#cycleStart;
    const offset = this.#offset;
    // Where the cycle will be at the next tick, if ticks keep their pace.
    const next = this.#lastTick < 0 ? into : into + now - this.#lastTick;
    this.#lastTick = now;
    const interval = cfg.updateIntervalMs;
    // Who is due a packet for its reliables, and who of them is owed one now (an ack, a
    // resend): one native call for every player (modules/kernels/transport.c).
    const due = stepped || peers === 0 ? 0 : t.endpointTable.dueMask(peers, now);
    for (let s = 0; peers >> s !== 0; s++) {
      const bit = 1 << s;
      if ((peers & bit) === 0) continue;
      if ((this.#updated & bit) === 0 && into >= offset[s] && !stepped) {
        this.#updated |= bit;
        this.#update(s, now, (this.#statsDue & bit) !== 0);
        this.#statsDue &= ~bit;
        continue;
      }
      // A step's Adds and Removes, and any ack or resend due, wait for the next tick too:
      // there they ride in the player's Update packet when its turn comes, and the step's
      // tick, the heaviest, sends nothing.
      if ((due & bit) === 0) continue;
      // Messages never sent, with no ack owed and no resend due, wait for the player's Update
      // packet when its turn comes on the next tick (its offset in this cycle, the cycle's
      // end, or its offset in the next): one packet instead of two, 10 ms later.
      const soon = (this.#updated & bit) === 0 ? next >= offset[s] || next >= interval : next - interval >= offset[s];
      if (soon && ((due >> 16) & bit) === 0) continue;
      const o = this.fill(endpoints[s], now);
      t.send(o, t.address[s], t.port[s]);
    }
  }

  /** One update tick for one player: reliables first, then Stats (if due) and Update. */
  #update(slot: number, now: number, stats: boolean): void {
    const t = this.#state;
    const ep = t.endpoints[slot];
    const list = t.list;
    const packer = this.#packer;
    const planner = this.planner;
    // Entries stay valid until the entities change in place (a game step bumps the
    // version); an entity added at a reused index is re-encoded (entityAdded).
    const version = t.entities.version;
    if (version !== this.#encodedVersion) {
      t.encoded.fill(0);
      this.#encodedVersion = version;
    }
    const n = planner.plan(slot, list, now);
    const maxPackets = t.config.maxUpdatePacketsPerTick;
    let pos = 0;
    // The header and the reliable messages, written once: every packet of the turn starts
    // with them (each is whole without the others), and `pack` writes only what follows.
    const start = this.fill(ep, now);
    for (let packets = 0; packets < maxPackets; packets++) {
      if (packets !== 0) ep.repeat();
      // Then (in C) Stats when due and room, the Update and its entries while they fit, and
      // the header's count of unreliable messages; the packer counts them and the packet
      // (on XS a counter's increment costs as much as a call), which goes out as it is.
      pos = packer.pack(pos, n, start, stats && packets === 0);
      t.host.send(t.tx, packer.o, t.address[slot], t.port[slot]);
      if (pos >= n || packer.k === 0) break;
    }
    planner.commit(slot, list, pos, now);
  }

  /**
   * Start a packet in `state.tx` with the peer's reliables, from its `first` queued message
   * on. Returns the packet's length so far. The endpoint counts first sends and resends
   * (the counters sink of lwarChannel).
   */
  fill(ep: Endpoint, now: number, first = 0): number {
    return ep.fill(this.#state.tx, now, now, first);
  }
}
