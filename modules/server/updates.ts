/**
 * Chooses, per client and update tick, which entities go into its Update messages and
 * in what order. This default plan is a fair round robin over the entities the client
 * has been sent an Add for; the server sends as many as fit under its packet cap and
 * reports back how many went out. The game installs PriorityPlanner (below) instead.
 */
import { Arena } from "../arena";
import { NO_PLAYER, type EntityTable } from "../game/entities";

export interface UpdatePlanner {
  /**
   * Write candidate entity indices for `slot` into `list`, best first; return the count.
   * `synced` is the client's sync cursor: only indices below it may be sent.
   */
  plan(slot: number, synced: number, list: Uint16Array, now: number): number;
  /** The first `sent` entries of the last plan for `slot` went out. */
  commit(slot: number, list: Uint16Array, sent: number, now: number): void;
  /** Bytes of the planner's preallocated state, for the memory budget. */
  poolBytes?(): number;
}

export class RoundRobinPlanner implements UpdatePlanner {
  readonly #entities: EntityTable;
  readonly #cursor: Uint16Array;

  constructor(entities: EntityTable, maxPlayers: number) {
    this.#entities = entities;
    this.#cursor = new Uint16Array(maxPlayers);
  }

  plan(slot: number, synced: number, list: Uint16Array, _now: number): number {
    const e = this.#entities;
    const cap = e.capacity;
    const start = this.#cursor[slot] < cap ? this.#cursor[slot] : 0;
    let n = 0;
    for (let k = 0; k < cap; k++) {
      let i = start + k;
      if (i >= cap) i -= cap;
      if (i < synced && e.alive[i] !== 0) list[n++] = i;
    }
    return n;
  }

  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    if (sent > 0) this.#cursor[slot] = list[sent - 1] + 1;
  }

  poolBytes(): number {
    return this.#cursor.byteLength;
  }
}

/** Where each player's view is centred; the game implements it. */
export interface PlannerFocus {
  /** Entity index of the player's own ship, or -1 while it has none. */
  readonly focusIndex: Int32Array;
  /** The own ship's position, kept while the player waits to respawn. */
  readonly focusX: Float32Array;
  readonly focusY: Float32Array;
  /**
   * By entity index, 1 for an entity whose path a client can extrapolate from its last
   * Update (a projectile: no thrust, no turns). It needs no more than every 2nd tick.
   */
  readonly steady?: Uint8Array;
}

/** Longest gap, in update ticks, between two Updates of one entity to one client. */
export const MAX_UPDATE_GAP = 4;
/** Distance buckets of the sort, and their width in world units. */
const DISTANCE_BUCKETS = 32;
const PER_BUCKET = 1 / 200;
/** Sort buckets: own ship, never sent, then overdue and due entities, each by distance. */
const OWN = 0;
const FRESH = 1;
const OVERDUE = 2;
const DUE = OVERDUE + DISTANCE_BUCKETS;
const BUCKETS = DUE + DISTANCE_BUCKETS;

export interface PriorityOptions {
  /** Entities nearer than these distances are due every 1, 2 and 3 update ticks; the rest every 4. */
  near?: number;
  mid?: number;
  far?: number;
  /** Most entities one plan lists: what the server's packets per tick can carry (default: all). */
  limit?: number;
}

/** End of a bucket's list (capacity is at most 65535, so no index is 0xFFFF). */
const NONE = 0xffff;

/**
 * The game's plan: each client's own ship every tick, then entities by distance from
 * its ship, nearer ones more often: within `near` every tick, `mid` every 2, `far`
 * every 3, beyond that every MAX_UPDATE_GAP. Steady entities (projectiles, whose paths
 * clients extrapolate well) go at most every 2nd tick. Bodies without an owner (sun,
 * planets: on known paths) and entities at rest go every MAX_UPDATE_GAP ticks. Entities the
 * client has never had an Update for come right after its own ship. An entity whose gap
 * has reached MAX_UPDATE_GAP is overdue and goes before every merely due one, so the
 * guard holds as long as one tick's packets can carry a quarter of the entities.
 *
 * State per client and entity: the update tick it was last sent in, and the tick it is
 * due again (by the distance it had then; 0: never sent). An entity that is not due costs
 * two reads. What all clients share (which indices hold a new entity, each entity's
 * shortest interval) is worked out once per update tick: the server plans every client at
 * the same `now`, with no change to the entities in between. Distances are octagonal (no
 * square root). Candidates go into a linked list per sort bucket, and the plan walks the
 * buckets in order until `limit` entries: nothing is spent on what cannot be sent. On XS
 * every typed-array access is a call, so the loops keep them few; nothing allocates after
 * construction.
 */
export class PriorityPlanner implements UpdatePlanner {
  readonly #entities: EntityTable;
  readonly #cap: number;
  focus: PlannerFocus | null;
  readonly near: number;
  readonly mid: number;
  readonly far: number;
  readonly limit: number;
  /** Update ticks planned, per slot; they count from 1. */
  readonly #tick: Uint32Array;
  readonly #synced: Int32Array;
  /**
   * [slot × capacity + index]: the tick of the last send (mod 2^16), and the interval in ticks
   * before it is due again (0: never sent). Ages are taken mod 2^16: the starvation guard
   * keeps every age far below the wrap.
   */
  readonly #sent: Uint16Array;
  readonly #gap: Uint8Array;
  /** Per entity: its id at the last update tick, and the shortest interval it may have. */
  readonly #id: Uint32Array;
  readonly #least: Uint8Array;
  #preparedAt = -1;
  readonly #planned: Uint8Array;
  /** The current plan's candidates: the first of each sort bucket, and the next in its bucket. */
  readonly #head: Uint16Array;
  readonly #next: Uint16Array;

  constructor(entities: EntityTable, maxPlayers: number, focus: PlannerFocus | null, options?: PriorityOptions) {
    this.#entities = entities;
    this.#cap = entities.capacity;
    this.focus = focus;
    this.near = options?.near ?? 700;
    this.mid = options?.mid ?? 1400;
    this.far = options?.far ?? 2400;
    this.limit = options?.limit ?? this.#cap;
    const n = maxPlayers;
    const cap = this.#cap;
    // Widest elements first (see Arena).
    const a = new Arena(4 * (2 * n + cap) + 2 * (n * cap + BUCKETS + cap) + (n * cap + cap + n));
    this.#tick = a.u32(n);
    this.#synced = a.i32(n);
    this.#id = a.u32(cap);
    this.#sent = a.u16(n * cap);
    this.#head = a.u16(BUCKETS);
    this.#next = a.u16(cap);
    this.#gap = a.u8(n * cap);
    this.#least = a.u8(cap);
    this.#planned = a.u8(n);
    a.done();
  }

  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot: number): void {
    const base = slot * this.#cap;
    this.#gap.fill(0, base, base + this.#cap);
    this.#synced[slot] = 0;
  }

  /** What every client's plan shares in one update tick. */
  #prepare(): void {
    const e = this.#entities;
    const cap = this.#cap;
    const alive = e.alive;
    const gen = e.generation;
    const owner = e.owner;
    const vx = e.vx;
    const vy = e.vy;
    const id = this.#id;
    const least = this.#least;
    const steady = this.focus !== null && this.focus.steady !== undefined ? this.focus.steady : null;
    const gap = this.#gap;
    for (let i = 0; i < cap; i++) {
      if (alive[i] === 0) continue;
      const current = ((gen[i] << 16) | i) >>> 0;
      if (id[i] !== current) {
        // A new entity in this slot of the pool: never sent to anyone.
        id[i] = current;
        for (let k = i; k < gap.length; k += cap) gap[k] = 0;
      }
      // Bodies without an owner move on known paths; resting entities do not move.
      if (owner[i] === NO_PLAYER || vx[i] * vx[i] + vy[i] * vy[i] < 1) least[i] = MAX_UPDATE_GAP;
      else least[i] = steady !== null && steady[i] !== 0 ? 2 : 1;
    }
  }

  plan(slot: number, synced: number, list: Uint16Array, now: number): number {
    const e = this.#entities;
    const cap = this.#cap;
    // A new `now`, or a slot planned twice at one `now`, starts a new update tick.
    if (now !== this.#preparedAt || this.#planned[slot] !== 0) {
      this.#prepare();
      this.#preparedAt = now;
      this.#planned.fill(0);
    }
    this.#planned[slot] = 1;
    if (synced < this.#synced[slot]) this.resetSlot(slot);
    this.#synced[slot] = synced;
    const tick = this.#tick[slot] + 1;
    this.#tick[slot] = tick;
    const base = slot * cap;
    const own = this.focus !== null ? this.focus.focusIndex[slot] : -1;
    const fx = this.focus !== null ? this.focus.focusX[slot] : 0;
    const fy = this.focus !== null ? this.focus.focusY[slot] : 0;
    const alive = e.alive;
    const ex = e.x;
    const ey = e.y;
    const sent = this.#sent;
    const gapOf = this.#gap;
    const head = this.#head;
    const next = this.#next;
    head.fill(NONE);
    const end = synced < cap ? synced : cap;
    // Backwards, so that each bucket's list comes out in index order.
    for (let i = end - 1, k = base + end - 1; i >= 0; i--, k--) {
      if (alive[i] === 0) continue;
      let b: number;
      if (i === own) b = OWN;
      else {
        const gap = gapOf[k];
        const age = (tick - sent[k]) & 0xffff;
        if (gap !== 0 && age < gap) continue;
        let dx = ex[i] - fx;
        let dy = ey[i] - fy;
        if (dx < 0) dx = -dx;
        if (dy < 0) dy = -dy;
        // Octagonal distance: within 8% of the true one, without a square root.
        let db = ((dx > dy ? dx + 0.41 * dy : dy + 0.41 * dx) * PER_BUCKET) | 0;
        if (db >= DISTANCE_BUCKETS) db = DISTANCE_BUCKETS - 1;
        b = gap === 0 ? FRESH : age >= MAX_UPDATE_GAP ? OVERDUE + db : DUE + db;
      }
      next[i] = head[b];
      head[b] = i;
    }
    const limit = this.limit;
    let n = 0;
    for (let b = 0; b < BUCKETS && n < limit; b++)
      for (let i = head[b]; i !== NONE && n < limit; i = next[i]) list[n++] = i;
    return n;
  }

  /** The first `sent` entries went out: each is due again after the interval its distance calls for now. */
  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    const e = this.#entities;
    const base = slot * this.#cap;
    const tick = this.#tick[slot];
    const last = this.#sent;
    const gap = this.#gap;
    const least = this.#least;
    const ex = e.x;
    const ey = e.y;
    const fx = this.focus !== null ? this.focus.focusX[slot] : 0;
    const fy = this.focus !== null ? this.focus.focusY[slot] : 0;
    const near = this.near;
    const mid = this.mid;
    const far = this.far;
    for (let k = 0; k < sent; k++) {
      const i = list[k];
      let dx = ex[i] - fx;
      let dy = ey[i] - fy;
      if (dx < 0) dx = -dx;
      if (dy < 0) dy = -dy;
      const d = dx > dy ? dx + 0.41 * dy : dy + 0.41 * dx;
      const by = d < near ? 1 : d < mid ? 2 : d < far ? 3 : MAX_UPDATE_GAP;
      const l = least[i];
      last[base + i] = tick;
      gap[base + i] = by > l ? by : l;
    }
  }

  poolBytes(): number {
    return (
      this.#tick.byteLength + this.#synced.byteLength + this.#sent.byteLength + this.#gap.byteLength +
      this.#id.byteLength + this.#least.byteLength + this.#planned.byteLength + this.#head.byteLength +
      this.#next.byteLength
    );
  }
}
