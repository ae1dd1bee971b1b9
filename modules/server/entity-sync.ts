/**
 * The entity sync of one player (Server#sync), behind one interface with two
 * implementations: the JavaScript (the reference) and the native kernel `sync`
 * (modules/native.ts). The server picks one at start-up; the call site never branches.
 *
 * For each of the player's dirty indices, while its queue keeps a packet's worth of room
 * and the Leave reserve free: a Remove of what it knows there if that is gone or replaced,
 * an Add of what lives there if it does not know it.
 */
import type { EntityTable } from "../game/entities";
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { SyncStop, SyncWord } from "../native-words";
import type { Endpoint } from "../transport/endpoint";
import type { UpdatePlanner } from "./updates";

export interface EntitySync {
  /** Reconcile `slot`'s dirty indices; true when none is left (false: its queue is at its line). */
  slot(slot: number, now: number): boolean;
  /** The planner that hears of each Add and Remove (the game installs its own). */
  planner: UpdatePlanner;
}

/** What both implementations work on. */
export interface SyncMemory {
  entities: EntityTable;
  /** [slot × words + word]: the indices to reconcile. */
  dirty: Int32Array;
  /** [slot × capacity + index]: the generation the player knows there (0: none). */
  known: Uint16Array;
  endpoints: Endpoint[];
  /** Bytes each queue keeps free: a packet's worth and the Leave reserve. */
  keep: number;
  /** Per slot: when its queue's front message started waiting (set when a message goes into an empty queue). */
  frontSince: Int32Array;
}

/** How the JavaScript queues an Add or a Remove: the server's own (false: the queue was full). */
export interface SyncQueue {
  add(to: number, index: number): boolean;
  remove(to: number, index: number): boolean;
}

export class JsEntitySync implements EntitySync {
  planner: UpdatePlanner;
  readonly #m: SyncMemory;
  readonly #queue: SyncQueue;
  readonly #words: number;

  constructor(m: SyncMemory, queue: SyncQueue, planner: UpdatePlanner) {
    this.#m = m;
    this.#queue = queue;
    this.planner = planner;
    this.#words = (m.entities.capacity + 31) >> 5;
  }

  slot(s: number, _now: number): boolean {
    const m = this.#m;
    const e = m.entities;
    const cap = e.capacity;
    const alive = e.alive;
    const gen = e.generation;
    const words = this.#words;
    const dirty = m.dirty;
    const known = m.known;
    const ep = m.endpoints[s];
    const keep = m.keep;
    const queue = this.#queue;
    const clz = Math.clz32;
    for (let j = 0, w = s * words; j < words; j++, w++) {
      let bits = dirty[w];
      while (bits !== 0) {
        if (ep.capacityBytes - ep.usedBytes < keep) {
          dirty[w] = bits;
          return false;
        }
        const low = bits & -bits;
        const i = (j << 5) + 31 - clz(low);
        const k = s * cap + i;
        const now = alive[i] !== 0 ? gen[i] : 0;
        if (known[k] !== now) {
          if ((known[k] !== 0 && !queue.remove(s, i)) || (now !== 0 && !queue.add(s, i))) {
            dirty[w] = bits;
            return false;
          }
        }
        bits ^= low;
      }
      dirty[w] = bits;
    }
    return true;
  }
}

/**
 * The sync in C (hosts/moddable/kernels.c, xs_lwar_sync): the C reconciles the dirty
 * indices and writes the Adds and Removes into the queue while it keeps its line; the
 * endpoint's counts and the planner are brought up to date here from what it did.
 */
export class NativeEntitySync implements EntitySync {
  planner: UpdatePlanner;
  readonly #m: SyncMemory;
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #words: Int32Array;
  readonly #at: number;
  /** The Adds and Removes the C queued (~index: a Remove), for the planner. */
  readonly #actions: Int32Array;

  /**
   * `arena` is the buffer the queues live in, `queues` their views; `actions` is room for
   * a capacity's worth of actions, in a buffer of the same four as the rest.
   */
  constructor(m: SyncMemory, arena: Uint8Array, queues: Uint8Array[], actions: Int32Array, planner: UpdatePlanner, kernels: Kernels, native: NativeOptions | null) {
    const e = m.entities;
    const n = queues.length;
    const b = new Binding(
      NATIVE_LAYOUT.sync,
      { dirty: m.dirty, alive: e.alive, generation: e.generation, known: m.known, owner: e.owner, type: e.type, arena, actions },
      n, native?.bindings ?? null,
    );
    const w = b.words;
    const at = b.scalars;
    w[at + SyncWord.Capacity] = e.capacity;
    w[at + SyncWord.Words] = (e.capacity + 31) >> 5;
    w[at + SyncWord.ActionRoom] = actions.length;
    w[at + SyncWord.QueueBytes] = m.endpoints[0].capacityBytes;
    w[at + SyncWord.Keep] = m.keep;
    for (let i = 0; i < n; i++) w[at + SyncWord.Queue + i] = queues[i].byteOffset - arena.byteOffset;
    this.#m = m;
    this.#kernels = kernels;
    this.#b = b;
    this.#words = w;
    this.#at = at;
    this.#actions = actions;
    this.planner = planner;
  }

  slot(s: number, now: number): boolean {
    const b = this.#b;
    const w = this.#words;
    const at = this.#at;
    const ep = this.#m.endpoints[s];
    let state: number = SyncStop.Actions;
    while (state === SyncStop.Actions) {
      w[at + SyncWord.Used] = ep.usedBytes;
      w[at + SyncWord.Seq] = ep.nextSeq;
      const n = this.#kernels.sync(b.layout, b.m0, b.m1, b.m2, b.m3, s);
      ep.usedBytes = w[at + SyncWord.Used];
      if (ep.count === 0) this.#m.frontSince[s] = now;
      ep.count += w[at + SyncWord.Messages];
      ep.nextSeq = w[at + SyncWord.Seq] >>> 0;
      state = w[at + SyncWord.State];
      if (n !== 0) this.planner.applyActions(s, this.#actions, n);
    }
    return state === SyncStop.Done;
  }
}
