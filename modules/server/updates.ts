/**
 * Chooses, per client and update tick, which entities go into its Update messages and
 * in what order. This default plan is a fair round robin over the entities the client
 * has been sent an Add for; the server sends as many as fit under its packet cap and
 * reports back how many went out. The game installs PriorityPlanner (below) instead.
 */
import { Arena, type FixedMemory } from "../arena";
import { NO_PLAYER, type EntityTable } from "../game/entities";
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { PlanWord } from "../native-words";
import type { Focus } from "../sim";
import { POS_SHIFT } from "../units";

export interface UpdatePlanner {
  /**
   * Write candidate entity indices for `slot` into `list`, best first; return the count.
   * Only entities the client knows (their Add was queued: `added`) may be listed.
   */
  plan(slot: number, list: Uint16Array, now: number): number;
  /** The server queued an Add of entity `index` to `slot`. */
  added(slot: number, index: number): void;
  /** The server queued a Remove of entity `index` to `slot` (or the entity died unannounced). */
  removed(slot: number, index: number): void;
  /** The first `n` of `actions` for `slot`, in order: an index was added, ~index removed. */
  applyActions(slot: number, actions: Int32Array, n: number): void;
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
  /** The server's [slot × capacity + index] generations each client knows (0: none). */
  readonly #known: Uint16Array;
  /** Most entries one plan lists: what the server's packets per update can carry. */
  readonly limit: number;

  constructor(entities: EntityTable, maxPlayers: number, known: Uint16Array, limit = entities.capacity) {
    this.#entities = entities;
    this.#cursor = new Uint16Array(maxPlayers);
    this.#known = known;
    this.limit = limit;
  }

  plan(slot: number, list: Uint16Array, _now: number): number {
    const known = this.#known;
    const end = this.#entities.end;
    const base = slot * this.#entities.capacity;
    const start = this.#cursor[slot] < end ? this.#cursor[slot] : 0;
    const limit = this.limit;
    let n = 0;
    // From the cursor to the end, then from 0 up to the cursor, until the packets are full.
    // What the client knows is alive (a Remove clears it).
    for (let i = start; i < end && n < limit; i++) if (known[base + i] !== 0) list[n++] = i;
    for (let i = 0; i < start && n < limit; i++) if (known[base + i] !== 0) list[n++] = i;
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

  applyActions(_slot: number, _actions: Int32Array, _n: number): void {}

  poolBytes(): number {
    return this.#cursor.byteLength;
  }
}

/** Where each player's view is centred; the game implements it (modules/sim.ts). */
export type PlannerFocus = Focus;

/** Longest gap, in update ticks, between two Updates of one entity to one client. */
export const MAX_UPDATE_GAP = 4;
/** Due-tick wheel: a power of two above MAX_UPDATE_GAP. */
export const WHEEL = 8;
/**
 * Bit sets per slot: new, carried over, then two per wheel tick: those that reach the
 * MAX_UPDATE_GAP guard at that tick (they go first) and those due earlier by their distance.
 * The planner's kernels (modules/kernels/loops.c) take these from layout.h, generated
 * from here (npm run build:native-header).
 */
export const FRESH = 0;
export const CARRIED = 1;
export const SETS = 2 + 2 * WHEEL;

export interface PriorityOptions {
  /** Entities nearer than these distances (wu) are due every 1, 2 and 3 update ticks; the rest every 4. */
  near?: number;
  mid?: number;
  far?: number;
  /** Most entities one plan lists: what the server's packets per tick can carry (default: all). */
  limit?: number;
  /** Where to carve the planner's state from (modules/arena.ts); absent, a buffer of its own. */
  memory?: FixedMemory | null;
}

/**
 * The game's plan: each client's own ship every update tick, then the entities it has
 * never had an Update for, then those due, nearer ones more often: within `near` every
 * tick, `mid` every 2, `far` every 3, beyond that every MAX_UPDATE_GAP. Steady entities
 * (projectiles, whose paths clients extrapolate well) go at most every 2nd tick; bodies
 * without an owner (sun, planets: on known paths) and entities at rest every
 * MAX_UPDATE_GAP ticks.
 *
 * Nothing walks the pool. Per client, each entity it knows (its Add was queued) sits in
 * one bit set: "new", "carried over" (due, but the last plan had no room for it), or the
 * set of the update tick it is due in, on a wheel of WHEEL ticks. A plan takes the new
 * set, then the carried-over set (round robin from where the last one stopped, so a budget
 * too small for what is due starves nobody), then this tick's sets (those at the guard
 * before those due early by their distance), and empties what it
 * took word by word; a commit puts each entity sent into the set of the tick its distance
 * makes it due in, and what was listed but not sent, or not listed, back into the new or
 * carried-over set. An entity that is not due costs nothing. Distances are octagonal and
 * integer (no square root, no floating point); bits are found with Math.clz32.
 *
 * State per client: SETS bit sets of ceil(capacity / 32) words, and a byte per entity
 * (known or not). Nothing allocates after construction.
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
  readonly #tick!: Int32Array;
  /** Per slot: the index the next scan of the carried-over set starts at. */
  readonly #carryCursor!: Int32Array;
  /** [(slot × SETS + set) × words + word]. */
  readonly #sets!: Int32Array;
  /** [slot × capacity + index]: 1 while the client knows the entity (its Add was queued). */
  readonly #known!: Uint8Array;
  readonly #bytes: number;
  /** The last plan: its slot, entries, and where its new and carried-over entries end. */
  #plannedSlot = -1;
  #planned = 0;
  #ownEnd = 0;
  #freshEnd = 0;
  #carriedEnd = 0;

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
    // Measured, then carved (see Arena); the fields marked `!` are assigned in this loop.
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, options?.memory ?? null);
      this.#tick = a.i32(n);
      this.#carryCursor = a.i32(n);
      this.#sets = a.i32(n * SETS * this.#words);
      this.#known = a.u8(n * this.#cap);
    }
    a.done();
    this.#bytes = a.bytes;
  }

  /** The planner's state arrays, for a native planner's binding. */
  protected state(): { tick: Int32Array; cursor: Int32Array; sets: Int32Array; known: Uint8Array } {
    return { tick: this.#tick, cursor: this.#carryCursor, sets: this.#sets, known: this.#known };
  }

  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot: number): void {
    const perSlot = SETS * this.#words;
    this.#sets.fill(0, slot * perSlot, (slot + 1) * perSlot);
    this.#known.fill(0, slot * this.#cap, (slot + 1) * this.#cap);
    this.#carryCursor[slot] = 0;
  }

  added(slot: number, index: number): void {
    const k = slot * this.#cap + index;
    if (this.#known[k] !== 0) this.#forget(slot, index);
    this.#known[k] = 1;
    this.#sets[slot * SETS * this.#words + (index >> 5)] |= 1 << (index & 31);
  }

  removed(slot: number, index: number): void {
    const k = slot * this.#cap + index;
    if (this.#known[k] === 0) return;
    this.#forget(slot, index);
    this.#known[k] = 0;
  }

  applyActions(slot: number, actions: Int32Array, n: number): void {
    for (let j = 0; j < n; j++) {
      const i = actions[j];
      if (i < 0) this.removed(slot, ~i);
      else this.added(slot, i);
    }
  }

  /** Clear `index` from every set of `slot` (removals are rare; sets are not tracked per entity). */
  #forget(slot: number, index: number): void {
    const words = this.#words;
    const mask = ~(1 << (index & 31));
    for (let w = slot * SETS * words + (index >> 5), end = w + SETS * words; w < end; w += words) this.#sets[w] &= mask;
  }

  plan(slot: number, list: Uint16Array, _now: number): number {
    const tick = this.#tick[slot] + 1;
    this.#tick[slot] = tick;
    const words = this.#words;
    const sets = this.#sets;
    const base = slot * SETS * words;
    const own = this.focus !== null ? this.focus.focusIndex[slot] : -1;
    const limit = this.limit;
    const clz = Math.clz32;
    let n = 0;
    if (own >= 0 && this.#known[slot * this.#cap + own] !== 0) list[n++] = own;
    this.#ownEnd = n;
    const wheel = 2 + 2 * (tick & (WHEEL - 1));
    for (let set = 0; set < 4; set++) {
      const from = base + (set < 2 ? set : wheel + set - 2) * words;
      const start = set === CARRIED ? this.#carryCursor[slot] : 0;
      const j0 = start >> 5;
      const cut = -1 << (start & 31);
      for (let c = 0; c <= words && n < limit; c++) {
        let j = j0 + c;
        if (j >= words) j -= words;
        // With a start bit, its word is taken in two parts: from the bit on first, the lower bits last.
        const part = c === 0 ? cut : c === words ? ~cut : -1;
        if (part === 0) continue;
        const all = sets[from + j];
        let bits = all & part;
        if (bits === 0) continue;
        while (bits !== 0 && n < limit) {
          const low = bits & -bits;
          bits ^= low;
          const i = (j << 5) + 31 - clz(low);
          if (i !== own) list[n++] = i;
        }
        // Take out what was listed (and the own ship, listed first); `bits` is what is left.
        sets[from + j] = (all & ~part) | bits;
      }
      if (set === FRESH) this.#freshEnd = n;
      else if (set === CARRIED) this.#carriedEnd = n;
    }
    this.#planned = n;
    this.#plannedSlot = slot;
    return n;
  }

  /** The first `sent` entries went out: each is due again after the interval its distance calls for now. */
  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    if (slot !== this.#plannedSlot) throw new RangeError(`commit for slot ${slot} after a plan for slot ${this.#plannedSlot}`);
    this.#plannedSlot = -1;
    const e = this.#entities;
    const ex = e.x;
    const ey = e.y;
    const evx = e.vx;
    const evy = e.vy;
    const owner = e.owner;
    const words = this.#words;
    const sets = this.#sets;
    const tick = this.#tick[slot];
    const base = slot * SETS * words;
    const focus = this.focus;
    const fx = focus !== null ? focus.focusX[slot] : 0;
    const fy = focus !== null ? focus.focusY[slot] : 0;
    const steady = focus !== null && focus.steady !== undefined ? focus.steady : null;
    const near = this.near;
    const mid = this.mid;
    const far = this.far;
    const n = this.#planned;
    const ownEnd = this.#ownEnd;
    const freshEnd = this.#freshEnd;
    const carriedEnd = this.#carriedEnd;
    let cursor = -1;
    for (let k = 0; k < n; k++) {
      const i = list[k];
      let set: number;
      if (k >= sent) set = k >= ownEnd && k < freshEnd ? FRESH : CARRIED;
      else {
        let by: number;
        if (owner[i] === NO_PLAYER || (evx[i] === 0 && evy[i] === 0)) by = MAX_UPDATE_GAP;
        else {
          // Distances in wu (position units >> POS_SHIFT), so every product stays an int32.
          let dx = (ex[i] - fx) >> POS_SHIFT;
          let dy = (ey[i] - fy) >> POS_SHIFT;
          if (dx < 0) dx = -dx;
          if (dy < 0) dy = -dy;
          // Octagonal distance, within 8% of the true one: max + 13/32 min.
          const d = dx > dy ? dx + ((dy * 13) >> 5) : dy + ((dx * 13) >> 5);
          by = d < near ? 1 : d < mid ? 2 : d < far ? 3 : MAX_UPDATE_GAP;
          if (by < 2 && steady !== null && steady[i] !== 0) by = 2;
        }
        set = 2 + 2 * ((tick + by) & (WHEEL - 1)) + (by === MAX_UPDATE_GAP ? 0 : 1);
        if (k >= freshEnd && k < carriedEnd) cursor = i + 1;
      }
      sets[base + set * words + (i >> 5)] |= 1 << (i & 31);
    }
    if (cursor >= 0) this.#carryCursor[slot] = cursor < this.#cap ? cursor : 0;
    // Due this tick and not listed (the limit cut them): carried over.
    const due = base + (2 + 2 * (tick & (WHEEL - 1))) * words;
    const carried = base + CARRIED * words;
    for (let j = 0; j < 2 * words; j++) {
      const bits = sets[due + j];
      if (bits === 0) continue;
      sets[carried + (j < words ? j : j - words)] |= bits;
      sets[due + j] = 0;
    }
  }

  poolBytes(): number {
    return this.#bytes;
  }
}

/**
 * PriorityPlanner with plan, commit and applyActions in C (hosts/moddable/kernels.c:
 * xs_lwar_plan, xs_lwar_commit, xs_lwar_notify), bound to the one list every plan and
 * commit is given and the one action list the server's sync fills; the rest is the
 * JavaScript above, on the same state.
 */
export class NativePriorityPlanner extends PriorityPlanner {
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #list: Uint16Array;
  readonly #actions: Int32Array;
  #plannedSlot = -1;

  constructor(
    entities: EntityTable, maxPlayers: number, focus: PlannerFocus | null, options: PriorityOptions, kernels: Kernels,
    list: Uint16Array, actions: Int32Array, native: NativeOptions | null,
  ) {
    super(entities, maxPlayers, focus, native?.memory != null ? { ...options, memory: native.memory } : options);
    const e = entities;
    const f = focus;
    const st = this.state();
    const steady = f !== null && f.steady !== undefined ? f.steady : null;
    // Absent focus or steady: any aligned array stands in; the flags say not to read it.
    const b = new Binding(
      NATIVE_LAYOUT.plan,
      {
        x: e.x, y: e.y, vx: e.vx, vy: e.vy, owner: e.owner, steady: steady ?? st.tick,
        focusX: f !== null ? f.focusX : st.tick, focusY: f !== null ? f.focusY : st.tick, focusIndex: f !== null ? f.focusIndex : st.tick,
        sets: st.sets, tick: st.tick, cursor: st.cursor, known: st.known, list, actions,
      },
      0, native,
    );
    const w = b.words;
    const at = b.scalars;
    w[at + PlanWord.Capacity] = e.capacity;
    w[at + PlanWord.Words] = (e.capacity + 31) >> 5;
    w[at + PlanWord.Limit] = this.limit;
    w[at + PlanWord.Near] = this.near;
    w[at + PlanWord.Mid] = this.mid;
    w[at + PlanWord.Far] = this.far;
    w[at + PlanWord.HasFocus] = f !== null ? 1 : 0;
    w[at + PlanWord.HasSteady] = steady !== null ? 1 : 0;
    w[at + PlanWord.PosShift] = POS_SHIFT;
    this.#kernels = kernels;
    this.#b = b;
    this.#list = list;
    this.#actions = actions;
  }

  override applyActions(slot: number, actions: Int32Array, n: number): void {
    if (actions !== this.#actions) {
      super.applyActions(slot, actions, n);
      return;
    }
    const b = this.#b;
    this.#kernels.notify(b.layout, b.m0, b.m1, b.m2, b.m3, slot, n);
  }

  override plan(slot: number, list: Uint16Array, _now: number): number {
    if (list !== this.#list) throw new RangeError("NativePriorityPlanner: plan with a list other than the bound one");
    const b = this.#b;
    this.#plannedSlot = slot;
    return this.#kernels.plan(b.layout, b.m0, b.m1, b.m2, b.m3, slot);
  }

  override commit(slot: number, _list: Uint16Array, sent: number, _now: number): void {
    if (slot !== this.#plannedSlot) throw new RangeError(`commit for slot ${slot} after a plan for slot ${this.#plannedSlot}`);
    this.#plannedSlot = -1;
    const b = this.#b;
    this.#kernels.commit(b.layout, b.m0, b.m1, b.m2, b.m3, slot, sent);
  }
}
