/**
 * Chooses, per client and update tick, which entities go into its Update messages and
 * in what order. This default plan is a fair round robin over the entities the client
 * has been sent an Add for; the server sends as many as fit under its packet cap and
 * reports back how many went out.
 */
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
}

/**
 * The game's plan: each client's own ship every tick, then entities by distance from
 * its ship, nearer ones more often: within `near` every tick, `mid` every 2, `far`
 * every 3, beyond that every MAX_UPDATE_GAP. Bodies without an owner (sun, planets:
 * on predictable paths) and entities at rest go every MAX_UPDATE_GAP ticks. Entities the
 * client has never had an Update for come right after its own ship. An entity whose gap
 * has reached MAX_UPDATE_GAP is overdue and goes before every merely due one, so the
 * guard holds as long as one tick's packets can carry a quarter of the entities.
 *
 * State per client and entity: the update tick it was last sent in, the id it had (a
 * recycled index counts as never sent) and the interval its distance called for then;
 * an entity is measured again only once that interval has passed. What all clients
 * share (ids, which entities ignore distance) is worked out once per update tick: the
 * server plans every client at the same `now`, with no change to the entities in
 * between. Distances are octagonal (no square root). The sort is a counting sort over
 * buckets; nothing allocates after construction.
 */
export class PriorityPlanner implements UpdatePlanner {
  readonly #entities: EntityTable;
  readonly #cap: number;
  focus: PlannerFocus | null;
  readonly near: number;
  readonly mid: number;
  readonly far: number;
  /** Update ticks planned, per slot. */
  readonly #tick: Uint32Array;
  readonly #synced: Int32Array;
  /** [slot × capacity + index]: tick of the last send, and the entity id then. */
  readonly #lastSent: Uint32Array;
  readonly #sentId: Uint32Array;
  /** [slot × capacity + index]: update ticks until it is due again, chosen by its distance when last sent. */
  readonly #every: Uint8Array;
  /** Per entity, refreshed once per update tick: its id, and its interval when distance does not count (0 when it does). */
  readonly #id: Uint32Array;
  readonly #fixed: Uint8Array;
  #preparedAt = -1;
  readonly #planned: Uint8Array;
  readonly #bucket: Uint8Array;
  /** Per candidate of the current plan: the interval its distance calls for. */
  readonly #interval: Uint8Array;
  readonly #candidates: Uint16Array;
  readonly #start: Uint16Array;

  constructor(entities: EntityTable, maxPlayers: number, focus: PlannerFocus | null, options?: PriorityOptions) {
    this.#entities = entities;
    this.#cap = entities.capacity;
    this.focus = focus;
    this.near = options?.near ?? 700;
    this.mid = options?.mid ?? 1400;
    this.far = options?.far ?? 2400;
    this.#tick = new Uint32Array(maxPlayers);
    this.#synced = new Int32Array(maxPlayers);
    this.#lastSent = new Uint32Array(maxPlayers * this.#cap);
    this.#sentId = new Uint32Array(maxPlayers * this.#cap);
    this.#every = new Uint8Array(maxPlayers * this.#cap);
    this.#id = new Uint32Array(this.#cap);
    this.#fixed = new Uint8Array(this.#cap);
    this.#planned = new Uint8Array(maxPlayers);
    this.#bucket = new Uint8Array(this.#cap);
    this.#interval = new Uint8Array(this.#cap);
    this.#candidates = new Uint16Array(this.#cap);
    this.#start = new Uint16Array(BUCKETS + 1);
  }

  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot: number): void {
    const base = slot * this.#cap;
    this.#sentId.fill(0, base, base + this.#cap);
    this.#synced[slot] = 0;
  }

  /** What every client's plan shares in one update tick (the server plans them all at one `now`). */
  #prepare(): void {
    const e = this.#entities;
    const alive = e.alive;
    const gen = e.generation;
    const owner = e.owner;
    const vx = e.vx;
    const vy = e.vy;
    const id = this.#id;
    const fixed = this.#fixed;
    for (let i = 0; i < this.#cap; i++) {
      if (alive[i] === 0) continue;
      id[i] = ((gen[i] << 16) | i) >>> 0;
      // Bodies without an owner move on predictable paths; resting entities do not move.
      fixed[i] = owner[i] === NO_PLAYER || vx[i] * vx[i] + vy[i] * vy[i] < 1 ? MAX_UPDATE_GAP : 0;
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
    // Update ticks count from 1 (a never-sent entity has tick 0); a Uint32 lasts 9 years at 15 Hz.
    const tick = this.#tick[slot] + 1;
    this.#tick[slot] = tick;
    const base = slot * cap;
    const own = this.focus !== null ? this.focus.focusIndex[slot] : -1;
    const fx = this.focus !== null ? this.focus.focusX[slot] : 0;
    const fy = this.focus !== null ? this.focus.focusY[slot] : 0;
    const alive = e.alive;
    const ex = e.x;
    const ey = e.y;
    const id = this.#id;
    const fixed = this.#fixed;
    const sentId = this.#sentId;
    const lastSent = this.#lastSent;
    const every = this.#every;
    const interval = this.#interval;
    const bucket = this.#bucket;
    const candidates = this.#candidates;
    const start = this.#start;
    const near = this.near;
    const mid = this.mid;
    const far = this.far;
    start.fill(0);
    let count = 0;
    const end = synced < cap ? synced : cap;
    if (own >= 0 && own < end && alive[own] !== 0) {
      interval[own] = 1;
      bucket[own] = OWN;
      candidates[count++] = own;
      start[OWN + 1]++;
    }
    for (let i = 0, k = base; i < end; i++, k++) {
      if (alive[i] === 0 || i === own) continue;
      const fresh = sentId[k] !== id[i];
      const gap = tick - lastSent[k];
      // Not due yet by the interval chosen when it was last sent: skip without measuring.
      if (!fresh && gap < every[k]) continue;
      let dx = ex[i] - fx;
      let dy = ey[i] - fy;
      if (dx < 0) dx = -dx;
      if (dy < 0) dy = -dy;
      // Octagonal distance: within 8% of the true one, without a square root.
      const d = dx > dy ? dx + 0.41 * dy : dy + 0.41 * dx;
      let db = (d * PER_BUCKET) | 0;
      if (db >= DISTANCE_BUCKETS) db = DISTANCE_BUCKETS - 1;
      const b = fresh ? FRESH : gap >= MAX_UPDATE_GAP ? OVERDUE + db : DUE + db;
      interval[i] = fixed[i] !== 0 ? fixed[i] : d < near ? 1 : d < mid ? 2 : d < far ? 3 : MAX_UPDATE_GAP;
      bucket[i] = b;
      candidates[count++] = i;
      start[b + 1]++;
    }
    for (let b = 0; b < BUCKETS; b++) start[b + 1] += start[b];
    for (let k = 0; k < count; k++) {
      const i = candidates[k];
      list[start[bucket[i]]++] = i;
    }
    return count;
  }

  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    const base = slot * this.#cap;
    const tick = this.#tick[slot];
    const id = this.#id;
    const lastSent = this.#lastSent;
    const sentId = this.#sentId;
    const every = this.#every;
    const interval = this.#interval;
    for (let k = 0; k < sent; k++) {
      const i = list[k];
      lastSent[base + i] = tick;
      sentId[base + i] = id[i];
      every[base + i] = interval[i];
    }
  }

  poolBytes(): number {
    return (
      this.#tick.byteLength + this.#synced.byteLength + this.#lastSent.byteLength + this.#sentId.byteLength + this.#every.byteLength +
      this.#interval.byteLength +
      this.#id.byteLength + this.#fixed.byteLength + this.#planned.byteLength + this.#bucket.byteLength + this.#candidates.byteLength +
      this.#start.byteLength
    );
  }
}
