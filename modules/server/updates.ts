/**
 * Chooses, per client and update tick, which entities go into its Update messages and
 * in what order. This default plan is a fair round robin over the entities the client
 * has been sent an Add for; the server sends as many as fit under its packet cap and
 * reports back how many went out. The game installs PriorityPlanner (below) instead.
 */
import { Arena } from "../arena";
import type { EntityTable } from "../game/entities";
import { Binding, type Kernels, type NativeOptions, requireKernels } from "../native";
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
  /**
   * What the native entity sync needs to tell the planner of its actions itself (the bit sets
   * and what each player knows, as notify takes them), or absent: it calls applyActions.
   */
  readonly syncArrays?: { readonly sets: Int32Array; readonly seen: Uint8Array };
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
 * integer (no square root, no floating point); bits are found by counting leading zeros.
 *
 * The plan, the commit and the bookkeeping of Adds and Removes are the native kernels
 * `plan`, `commit` and `notify` (modules/kernels/loops.c), over the state carved here.
 *
 * State per client: SETS bit sets of ceil(capacity / 32) words, and a byte per entity
 * (known or not). Nothing allocates after construction.
 */
export class PriorityPlanner implements UpdatePlanner {
  readonly #cap: number;
  readonly #words: number;
  readonly focus: PlannerFocus | null;
  readonly near: number;
  readonly mid: number;
  readonly far: number;
  readonly limit: number;
  /** The one list every plan fills and every commit reads, and the one action list `applyActions` takes. */
  readonly list: Uint16Array;
  readonly actions: Int32Array;
  /** Update ticks planned, per slot. */
  readonly #tick!: Int32Array;
  /** Per slot: the index the next scan of the carried-over set starts at. */
  readonly #carryCursor!: Int32Array;
  /** [(slot × SETS + set) × words + word]. */
  readonly #sets!: Int32Array;
  /** [slot × capacity + index]: 1 while the client knows the entity (its Add was queued). */
  readonly #known!: Uint8Array;
  readonly #bytes: number;
  readonly #kernels: Kernels;
  readonly #b: Binding;
  #plannedSlot = -1;
  readonly syncArrays: { readonly sets: Int32Array; readonly seen: Uint8Array };

  /**
   * `native`: the platform's loops (plan, commit and notify run in C) and where to carve the
   * planner's state from. `list` and `actions`: the server's plan list and its entity sync's
   * action list, which the binding takes; absent, the planner carves its own.
   */
  constructor(
    entities: EntityTable, maxPlayers: number, focus: PlannerFocus | null, options: PriorityOptions | null, native: NativeOptions | null,
    list: Uint16Array | null = null, actions: Int32Array | null = null,
  ) {
    const e = entities;
    const cap = e.capacity;
    this.#cap = cap;
    this.#words = (cap + 31) >> 5;
    this.focus = focus;
    this.near = options?.near ?? 700;
    this.mid = options?.mid ?? 1400;
    this.far = options?.far ?? 2400;
    this.limit = options?.limit ?? cap;
    this.#kernels = requireKernels(native, "the priority planner");
    const n = maxPlayers;
    // Measured, then carved (see Arena); the fields marked `!` are assigned in this loop.
    let a = Arena.measuring();
    let ownList: Uint16Array | null = null;
    let ownActions: Int32Array | null = null;
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, native?.memory ?? null);
      this.#tick = a.i32(n);
      this.#carryCursor = a.i32(n);
      this.#sets = a.i32(n * SETS * this.#words);
      if (actions === null) ownActions = a.i32(cap);
      if (list === null) ownList = a.u16(cap);
      this.#known = a.u8(n * cap);
    }
    a.done();
    this.#bytes = a.bytes;
    this.list = list ?? (ownList as Uint16Array);
    this.actions = actions ?? (ownActions as Int32Array);
    const f = focus;
    const tick = this.#tick;
    const steady = f !== null && f.steady !== undefined ? f.steady : null;
    // Absent focus or steady: any aligned array stands in; the flags say not to read it.
    const b = new Binding(
      NATIVE_LAYOUT.plan,
      {
        x: e.x, y: e.y, vx: e.vx, vy: e.vy, owner: e.owner, steady: steady ?? tick,
        focusX: f !== null ? f.focusX : tick, focusY: f !== null ? f.focusY : tick, focusIndex: f !== null ? f.focusIndex : tick,
        sets: this.#sets, tick, cursor: this.#carryCursor, known: this.#known, list: this.list, actions: this.actions,
      },
      0, native,
    );
    const w = b.words;
    const at = b.scalars;
    w[at + PlanWord.Capacity] = cap;
    w[at + PlanWord.Words] = this.#words;
    w[at + PlanWord.Limit] = this.limit;
    w[at + PlanWord.Near] = this.near;
    w[at + PlanWord.Mid] = this.mid;
    w[at + PlanWord.Far] = this.far;
    w[at + PlanWord.HasFocus] = f !== null ? 1 : 0;
    w[at + PlanWord.HasSteady] = steady !== null ? 1 : 0;
    w[at + PlanWord.PosShift] = POS_SHIFT;
    this.#b = b;
    this.syncArrays = { sets: this.#sets, seen: this.#known };
  }

  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot: number): void {
    const perSlot = SETS * this.#words;
    this.#sets.fill(0, slot * perSlot, (slot + 1) * perSlot);
    this.#known.fill(0, slot * this.#cap, (slot + 1) * this.#cap);
    this.#carryCursor[slot] = 0;
  }

  added(slot: number, index: number): void {
    this.actions[0] = index;
    this.#notify(slot, 1);
  }

  removed(slot: number, index: number): void {
    this.actions[0] = ~index;
    this.#notify(slot, 1);
  }

  applyActions(slot: number, actions: Int32Array, n: number): void {
    if (actions !== this.actions) for (let j = 0; j < n; j++) this.actions[j] = actions[j];
    this.#notify(slot, n);
  }

  #notify(slot: number, n: number): void {
    const b = this.#b;
    this.#kernels.notify(b.layout, b.m0, b.m1, b.m2, b.m3, slot, n);
  }

  plan(slot: number, list: Uint16Array, _now: number): number {
    if (list !== this.list) throw new RangeError("PriorityPlanner: plan with a list other than its own (planner.list)");
    const b = this.#b;
    this.#plannedSlot = slot;
    return this.#kernels.plan(b.layout, b.m0, b.m1, b.m2, b.m3, slot);
  }

  commit(slot: number, _list: Uint16Array, sent: number, _now: number): void {
    if (slot !== this.#plannedSlot) throw new RangeError(`commit for slot ${slot} after a plan for slot ${this.#plannedSlot}`);
    this.#plannedSlot = -1;
    const b = this.#b;
    this.#kernels.commit(b.layout, b.m0, b.m1, b.m2, b.m3, slot, sent);
  }

  poolBytes(): number {
    return this.#bytes;
  }
}
