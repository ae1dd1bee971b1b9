/**
 * Chooses, per client and update tick, which entities go into its Update messages and
 * in what order. This default plan is a fair round robin over the entities the client
 * has been sent an Add for; the server sends as many as fit under its packet cap and
 * reports back how many went out. The game installs PriorityPlanner (below) instead.
 */
import { Arena } from "../arena";
import { NO_PLAYER, type EntityTable } from "../game/entities";
import type { Focus } from "../sim";
import { POS_SHIFT } from "../units";

export interface UpdatePlanner {
  /**
   * Write candidate entity indices for `slot` into `list`, best first; return the count.
   * `synced` is the client's sync cursor: only indices below it may be sent.
   */
  plan(slot: number, synced: number, list: Uint16Array, now: number): number;
  /** The server queued an Add of entity `index` to `slot`. */
  added(slot: number, index: number): void;
  /** The server queued a Remove of entity `index` to `slot` (or the entity died unannounced). */
  removed(slot: number, index: number): void;
  /** The first `sent` entries of the last plan for `slot` went out. */
  commit(slot: number, list: Uint16Array, sent: number, now: number): void;
  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot: number): void;
  /** Bytes of the planner's preallocated state, for the memory budget. */
  poolBytes?(): number;
}

export class RoundRobinPlanner implements UpdatePlanner {
  readonly #entities: EntityTable;
  readonly #cursor: Uint16Array;
  /** Most entries one plan lists: what the server's packets per update can carry. */
  readonly limit: number;

  constructor(entities: EntityTable, maxPlayers: number, limit = entities.capacity) {
    this.#entities = entities;
    this.#cursor = new Uint16Array(maxPlayers);
    this.limit = limit;
  }

  plan(slot: number, synced: number, list: Uint16Array, _now: number): number {
    const alive = this.#entities.alive;
    const end = synced < this.#entities.capacity ? synced : this.#entities.capacity;
    const start = this.#cursor[slot] < end ? this.#cursor[slot] : 0;
    const limit = this.limit;
    let n = 0;
    // From the cursor to the end, then from 0 up to the cursor, until the packets are full.
    for (let i = start; i < end && n < limit; i++) if (alive[i] !== 0) list[n++] = i;
    for (let i = 0; i < start && n < limit; i++) if (alive[i] !== 0) list[n++] = i;
    return n;
  }

  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    if (sent > 0) this.#cursor[slot] = list[sent - 1] + 1;
  }

  resetSlot(slot: number): void {
    this.#cursor[slot] = 0;
  }

  added(_slot: number, _index: number): void {}

  removed(_slot: number, _index: number): void {}

  poolBytes(): number {
    return this.#cursor.byteLength;
  }
}

/** Where each player's view is centred; the game implements it (modules/sim.ts). */
export type PlannerFocus = Focus;

/** Longest gap, in update ticks, between two Updates of one entity to one client. */
export const MAX_UPDATE_GAP = 4;
/** Due-tick wheel: a power of two above MAX_UPDATE_GAP. */
const WHEEL = 8;
/** `#where` values besides 1..WHEEL (wheel position + 1). */
const UNKNOWN = 0;
const FRESH = 255;

export interface PriorityOptions {
  /** Entities nearer than these distances (wu) are due every 1, 2 and 3 update ticks; the rest every 4. */
  near?: number;
  mid?: number;
  far?: number;
  /** Most entities one plan lists: what the server's packets per tick can carry (default: all). */
  limit?: number;
}

/**
 * The game's plan: each client's own ship every update tick, then the entities it has
 * never had an Update for, then those due, nearer ones more often: within `near` every
 * tick, `mid` every 2, `far` every 3, beyond that every MAX_UPDATE_GAP. Steady entities
 * (projectiles, whose paths clients extrapolate well) go at most every 2nd tick; bodies
 * without an owner (sun, planets: on known paths) and entities at rest every
 * MAX_UPDATE_GAP ticks.
 *
 * Nothing walks the whole pool. Per client, each entity it knows (its Add was queued) sits
 * in exactly one place: a "fresh" bit set, or the bit set of the update tick it is due in,
 * on a wheel of WHEEL ticks. A plan reads the fresh set and this tick's set; a commit moves
 * each entity sent to the set of the tick its distance makes it due in next, and carries
 * the ones that did not fit over to the next tick, where they go first after the fresh. An
 * entity that is not due costs nothing. Distances are octagonal and integer (no square
 * root, no floating point). Bits are scanned with Math.clz32, one native call per entity.
 *
 * State per client: (1 + WHEEL + 1) bit sets of ceil(capacity / 32) words, and one byte per
 * entity for where it sits. Nothing allocates after construction.
 */
export class PriorityPlanner implements UpdatePlanner {
  readonly #entities: EntityTable;
  readonly #cap: number;
  readonly #words: number;
  focus: PlannerFocus | null;
  readonly near: number;
  readonly mid: number;
  readonly far: number;
  readonly limit: number;
  /** Update ticks planned, per slot. */
  readonly #tick: Int32Array;
  /** Per slot: the index the next scan of the carried-over set starts at. */
  readonly #carryCursor: Int32Array;
  /** Bit sets, per slot: [0] fresh, [1] carried over (due since an earlier tick), [2 + w] due in wheel tick w. */
  readonly #sets: Int32Array;
  /** [slot × capacity + index]: UNKNOWN, FRESH, or CARRIED + 1, or wheel position + 2. */
  readonly #where: Uint8Array;
  /** Entries listed by the last plan, and how many of them came from the fresh set. */
  #planned = 0;
  #plannedSlot = -1;

  constructor(entities: EntityTable, maxPlayers: number, focus: PlannerFocus | null, options?: PriorityOptions) {
    this.#entities = entities;
    this.#cap = entities.capacity;
    this.#words = (this.#cap + 31) >> 5;
    this.focus = focus;
    this.near = options?.near ?? 700;
    this.mid = options?.mid ?? 1400;
    this.far = options?.far ?? 2400;
    this.limit = options?.limit ?? this.#cap;
    const n = maxPlayers;
    const perSlot = (2 + WHEEL) * this.#words;
    const a = new Arena(4 * (2 * n + n * perSlot) + n * this.#cap);
    this.#tick = a.i32(n);
    this.#carryCursor = a.i32(n);
    this.#sets = a.i32(n * perSlot);
    this.#where = a.u8(n * this.#cap);
    a.done();
  }

  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot: number): void {
    const perSlot = (2 + WHEEL) * this.#words;
    this.#sets.fill(0, slot * perSlot, (slot + 1) * perSlot);
    this.#where.fill(UNKNOWN, slot * this.#cap, (slot + 1) * this.#cap);
    this.#carryCursor[slot] = 0;
  }

  added(slot: number, index: number): void {
    const k = slot * this.#cap + index;
    if (this.#where[k] !== UNKNOWN) this.#unset(slot, index, this.#where[k]);
    this.#where[k] = FRESH;
    const w = slot * (2 + WHEEL) * this.#words + (index >> 5);
    this.#sets[w] |= 1 << (index & 31);
  }

  removed(slot: number, index: number): void {
    const k = slot * this.#cap + index;
    const where = this.#where[k];
    if (where === UNKNOWN) return;
    this.#unset(slot, index, where);
    this.#where[k] = UNKNOWN;
  }

  /** Clear `index` from the set that `where` names. */
  #unset(slot: number, index: number, where: number): void {
    const set = where === FRESH ? 0 : where;
    const w = (slot * (2 + WHEEL) + set) * this.#words + (index >> 5);
    this.#sets[w] &= ~(1 << (index & 31));
  }

  /** Where in `#where` terms an entity due in wheel tick `tick` sits. */
  static #wheel(tick: number): number {
    return 2 + (tick & (WHEEL - 1));
  }

  plan(slot: number, _synced: number, list: Uint16Array, _now: number): number {
    const tick = this.#tick[slot] + 1;
    this.#tick[slot] = tick;
    const words = this.#words;
    const sets = this.#sets;
    const base = slot * (2 + WHEEL) * words;
    const own = this.focus !== null ? this.focus.focusIndex[slot] : -1;
    const limit = this.limit;
    const clz = Math.clz32;
    let n = 0;
    if (own >= 0 && this.#where[slot * this.#cap + own] !== UNKNOWN) list[n++] = own;
    // Fresh, then carried over (round robin from where the last plan stopped, so that a
    // budget too small for what is due starves nobody), then due this tick.
    for (let set = 0; set < 3; set++) {
      const from = base + (set < 2 ? set : PriorityPlanner.#wheel(tick)) * words;
      const start = set === 1 ? this.#carryCursor[slot] : 0;
      const j0 = start >> 5;
      for (let c = 0; c <= words && n < limit; c++) {
        let j = j0 + c;
        if (j >= words) j -= words;
        let bits = sets[from + j];
        // The first word from the start bit on; its lower bits come last, after the wrap.
        if (c === 0) bits &= -1 << (start & 31);
        else if (c === words) bits &= ~(-1 << (start & 31));
        while (bits !== 0 && n < limit) {
          const low = bits & -bits;
          bits ^= low;
          const i = (j << 5) + 31 - clz(low);
          if (i !== own) list[n++] = i;
        }
      }
    }
    this.#planned = n;
    this.#plannedSlot = slot;
    return n;
  }

  /** The first `sent` entries went out: each is due again after the interval its distance calls for now. */
  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    if (slot !== this.#plannedSlot) throw new RangeError(`commit for slot ${slot} after a plan for slot ${this.#plannedSlot}`);
    const e = this.#entities;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const owner = e.owner;
    const words = this.#words;
    const sets = this.#sets;
    const where = this.#where;
    const tick = this.#tick[slot];
    const base = slot * (2 + WHEEL) * words;
    const wbase = slot * this.#cap;
    const focus = this.focus;
    const fx = focus !== null ? focus.focusX[slot] : 0;
    const fy = focus !== null ? focus.focusY[slot] : 0;
    const steady = focus !== null && focus.steady !== undefined ? focus.steady : null;
    // Distances in wu (position units >> POS_SHIFT), so every product stays an int32.
    const near = this.near;
    const mid = this.mid;
    const far = this.far;
    const n = this.#planned;
    for (let k = 0; k < n; k++) {
      const i = list[k];
      const at = wbase + i;
      const from = where[at];
      if (from === UNKNOWN) continue;
      const bit = 1 << (i & 31);
      const word = i >> 5;
      let to: number;
      if (k >= sent) {
        // Not sent: fresh ones stay fresh, the rest wait in the carried-over set.
        if (from === FRESH || from === 1) continue;
        to = 1;
      } else {
        let by: number;
        if (owner[i] === NO_PLAYER || (evx[i] === 0 && evy[i] === 0)) by = MAX_UPDATE_GAP;
        else {
          let dx = (ex[i] - fx) >> POS_SHIFT;
          let dy = (ey[i] - fy) >> POS_SHIFT;
          if (dx < 0) dx = -dx;
          if (dy < 0) dy = -dy;
          // Octagonal distance, within 8% of the true one: max + 13/32 min.
          const d = dx > dy ? dx + ((dy * 13) >> 5) : dy + ((dx * 13) >> 5);
          by = d < near ? 1 : d < mid ? 2 : d < far ? 3 : MAX_UPDATE_GAP;
          if (by < 2 && steady !== null && steady[i] !== 0) by = 2;
        }
        to = 2 + ((tick + by) & (WHEEL - 1));
        // The carried-over set's next scan starts after the last one of it sent.
        if (from === 1) this.#carryCursor[slot] = i + 1 < this.#cap ? i + 1 : 0;
      }
      sets[base + (from === FRESH ? 0 : from) * words + word] &= ~bit;
      sets[base + to * words + word] |= bit;
      where[at] = to;
    }
    // Due this tick and not listed (the limit cut them): carried over too.
    const due = base + PriorityPlanner.#wheel(tick) * words;
    const carried = base + words;
    for (let j = 0; j < words; j++) {
      const bits = sets[due + j];
      if (bits === 0) continue;
      sets[carried + j] |= bits;
      sets[due + j] = 0;
      for (let b = bits; b !== 0; ) {
        const low = b & -b;
        b ^= low;
        where[wbase + (j << 5) + 31 - Math.clz32(low)] = 1;
      }
    }
    this.#plannedSlot = -1;
  }

  poolBytes(): number {
    return this.#tick.byteLength + this.#carryCursor.byteLength + this.#sets.byteLength + this.#where.byteLength;
  }
}
