/**
 * The entity pool: struct-of-arrays typed arrays in one buffer, sized once from the config,
 * generational ids (16-bit generation : 16-bit index) recycled through a free list.
 *
 * The server listens to adds and removes (to send Add/Remove) and reads the
 * fields to write Update messages. The game owns the simulation of the fields.
 */
import { Arena, type FixedMemory } from "../arena";

/**
 * The owner of entities that belong to nobody (sun, planets): the player id an Add carries for
 * them (docs/protocol.md), and the kernels' LW_NO_PLAYER (modules/kernels/layout.h, npm run build:native-header).
 */
export const NO_PLAYER = 0xffffffff;

/** Receives pool changes. Implemented by the server; one object, no closures. */
export interface EntityListener {
  entityAdded(index: number): void;
  entityRemoved(index: number, id: number): void;
}

export class EntityError extends Error {
  // A field, not an assignment: on XS, Error.prototype is frozen after preload and
  // assigning an inherited read-only `name` would throw.
  override name = "EntityError";
}

export class EntityTable {
  readonly capacity: number;
  /** Number of live entities. */
  count = 0;
  /** One past the highest index ever taken: no entity lives at or above it. */
  end = 0;
  /** 1 while the slot holds a live entity. */
  readonly alive!: Uint8Array;
  readonly generation!: Uint16Array;
  /** Template id, sent as Add.typeId. */
  readonly type!: Uint8Array;
  /** Owning player id, or NO_PLAYER. */
  readonly owner!: Uint32Array;
  /** Position and velocity in the fixed-point units of modules/units.ts (1/1024 wu, 1/1024 wu per step). */
  readonly x!: Int32Array;
  readonly y!: Int32Array;
  readonly vx!: Int32Array;
  readonly vy!: Int32Array;
  /** Heading in 1/4096 turn (modules/units.ts). */
  readonly rot!: Int32Array;
  /** 0..100. */
  readonly health!: Uint8Array;
  /** Free list as a stack of indices. */
  readonly #free!: Uint16Array;
  #freeTop: number;
  readonly #bytes: number;
  listener: EntityListener | null = null;
  /**
   * Bumped by whoever changes positions, velocities, headings or health in place (the
   * game, once per step): the server re-encodes Update entries only after a change.
   */
  version = 0;

  /** `memory`: where to carve the table from (modules/arena.ts); absent, a buffer of its own. */
  constructor(capacity: number, memory: FixedMemory | null = null) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > 65535)
      throw new EntityError(`entity capacity must be 1..65535, got ${capacity}`);
    this.capacity = capacity;
    // Measured, then carved (see Arena); the fields marked `!` are assigned in this loop.
    let a = Arena.measuring();
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, memory);
      this.x = a.i32(capacity);
      this.y = a.i32(capacity);
      this.vx = a.i32(capacity);
      this.vy = a.i32(capacity);
      this.rot = a.i32(capacity);
      this.owner = a.u32(capacity);
      this.generation = a.u16(capacity);
      this.#free = a.u16(capacity);
      this.alive = a.u8(capacity);
      this.type = a.u8(capacity);
      this.health = a.u8(capacity);
    }
    a.done();
    this.#bytes = a.bytes;
    // Lowest index on top, so the pool fills from index 0 upwards.
    for (let i = 0; i < capacity; i++) this.#free[i] = capacity - 1 - i;
    this.#freeTop = capacity;
  }

  /** Bytes of the preallocated arrays (for the memory budget). */
  poolBytes(): number {
    return this.#bytes;
  }

  /** The generational id of the entity at `index`. */
  id(index: number): number {
    return ((this.generation[index] << 16) | index) >>> 0;
  }

  /** Index of a live entity by id, or -1. */
  indexOf(id: number): number {
    const index = id & 0xffff;
    if (index >= this.capacity || this.alive[index] === 0) return -1;
    return this.generation[index] === id >>> 16 ? index : -1;
  }

  /** Take a slot, or return -1 when the pool is full. x, y in position units; the rest zeroed, health 100. */
  add(type: number, owner: number, x: number, y: number): number {
    if (this.#freeTop === 0) return -1;
    const i = this.#free[--this.#freeTop];
    if (i >= this.end) this.end = i + 1;
    this.generation[i] = (this.generation[i] + 1) & 0xffff || 1;
    this.alive[i] = 1;
    this.type[i] = type;
    this.owner[i] = owner;
    this.x[i] = x;
    this.y[i] = y;
    this.vx[i] = 0;
    this.vy[i] = 0;
    this.rot[i] = 0;
    this.health[i] = 100;
    this.count++;
    if (this.listener !== null) this.listener.entityAdded(i);
    return i;
  }

  /** Free a live slot. Freeing a dead slot is a bug in our code and throws. */
  remove(index: number): void {
    if (index < 0 || index >= this.capacity || this.alive[index] === 0)
      throw new EntityError(`remove of a dead entity slot ${index}`);
    this.alive[index] = 0;
    this.count--;
    this.#free[this.#freeTop++] = index;
    if (this.listener !== null) this.listener.entityRemoved(index, this.id(index));
  }

  /** Remove every entity owned by `owner`. */
  removeOwnedBy(owner: number): void {
    for (let i = 0; i < this.capacity; i++)
      if (this.alive[i] !== 0 && this.owner[i] === owner) this.remove(i);
  }
}
