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
const BUCKET_WIDTH = 200;
/** Sort buckets: own ship, never sent, then overdue and due entities, each by distance. */
const OWN = 0;
const FRESH = 1;
const OVERDUE = 2;
const DUE = OVERDUE + DISTANCE_BUCKETS;
const BUCKETS = DUE + DISTANCE_BUCKETS;
const SKIP = 255;

export interface PriorityOptions {
  /** Entities nearer than these distances are due every 1, 2 and 3 update ticks; the rest every 4. */
  near?: number;
  mid?: number;
  far?: number;
}

/**
 * The game's plan: each client's own ship every tick, then entities by distance from
 * its ship, nearer ones more often. Entities the client has never had an Update for
 * come right after its own ship. Bodies without an owner (sun, planets: slow, on
 * predictable paths) and entities at rest go every MAX_UPDATE_GAP ticks. An entity
 * whose gap has reached MAX_UPDATE_GAP is overdue and goes before every merely due one,
 * so the guard holds as long as one tick's packets can carry a quarter of the entities.
 *
 * State per client and entity: the update tick it was last sent in and the id it had,
 * so a recycled index counts as never sent. The sort is a counting sort over buckets;
 * nothing allocates after construction.
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
  readonly #bucket: Uint8Array;
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
    this.#bucket = new Uint8Array(this.#cap);
    this.#start = new Uint16Array(BUCKETS + 1);
  }

  /** Forget what was sent to `slot` (a new player took it). */
  resetSlot(slot: number): void {
    const base = slot * this.#cap;
    this.#sentId.fill(0, base, base + this.#cap);
    this.#synced[slot] = 0;
  }

  /** Update ticks between sends of entity `i` at distance `d` when nothing is overdue. */
  #interval(i: number, d: number): number {
    const e = this.#entities;
    if (e.owner[i] === NO_PLAYER) return MAX_UPDATE_GAP;
    if (e.vx[i] * e.vx[i] + e.vy[i] * e.vy[i] < 1) return MAX_UPDATE_GAP;
    return d < this.near ? 1 : d < this.mid ? 2 : d < this.far ? 3 : MAX_UPDATE_GAP;
  }

  plan(slot: number, synced: number, list: Uint16Array, _now: number): number {
    const e = this.#entities;
    const cap = this.#cap;
    if (synced < this.#synced[slot]) this.resetSlot(slot);
    this.#synced[slot] = synced;
    const tick = (this.#tick[slot] + 1) >>> 0;
    this.#tick[slot] = tick;
    const base = slot * cap;
    const own = this.focus !== null ? this.focus.focusIndex[slot] : -1;
    const fx = this.focus !== null ? this.focus.focusX[slot] : 0;
    const fy = this.focus !== null ? this.focus.focusY[slot] : 0;
    const bucket = this.#bucket;
    const start = this.#start;
    start.fill(0);
    const end = synced < cap ? synced : cap;
    for (let i = 0; i < end; i++) {
      bucket[i] = SKIP;
      if (e.alive[i] === 0) continue;
      let b: number;
      if (i === own) b = OWN;
      else if (this.#sentId[base + i] !== e.id(i)) b = FRESH;
      else {
        const dx = e.x[i] - fx;
        const dy = e.y[i] - fy;
        const d = Math.sqrt(dx * dx + dy * dy);
        let db = Math.floor(d / BUCKET_WIDTH);
        if (db >= DISTANCE_BUCKETS) db = DISTANCE_BUCKETS - 1;
        const gap = (tick - this.#lastSent[base + i]) >>> 0;
        if (gap >= MAX_UPDATE_GAP) b = OVERDUE + db;
        else if (gap >= this.#interval(i, d)) b = DUE + db;
        else continue;
      }
      bucket[i] = b;
      start[b + 1]++;
    }
    for (let b = 0; b < BUCKETS; b++) start[b + 1] += start[b];
    const n = start[BUCKETS];
    for (let i = 0; i < end; i++) {
      const b = bucket[i];
      if (b !== SKIP) list[start[b]++] = i;
    }
    return n;
  }

  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    const e = this.#entities;
    const base = slot * this.#cap;
    const tick = this.#tick[slot];
    for (let k = 0; k < sent; k++) {
      const i = list[k];
      this.#lastSent[base + i] = tick;
      this.#sentId[base + i] = e.id(i);
    }
  }

  poolBytes(): number {
    return (
      this.#tick.byteLength + this.#synced.byteLength + this.#lastSent.byteLength + this.#sentId.byteLength +
      this.#bucket.byteLength + this.#start.byteLength
    );
  }
}
