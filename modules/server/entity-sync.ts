/**
 * Entity sync: which Adds and Removes each player is owed, and queueing them.
 *
 * Entity sync is lazy. An add or remove only marks the index pending
 * (`EntityReconciler.markIndex`), and the next reconciliation makes the pending indices
 * every player's dirty bits (the native `mark`); each tick, while a player's queue has room,
 * its dirty indices are reconciled with what it knows (`state.known`): a Remove for what it knows
 * that is gone or replaced, an Add for what lives that it does not know. A stalled
 * player's queue thus never fills with entity traffic, and what is born and dies while it
 * is away never reaches it.
 *
 * One player's reconciliation is the native kernel `sync` (modules/kernels/loops.c,
 * modules/native.ts): it goes through a player's dirty indices while its queue keeps a
 * packet's worth of room and the Leave reserve free.
 */
import type { EntityTable } from "../game/entities";
import { Binding, type Kernels, type NativeOptions, requireKernels } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { MarkWord, SyncStop, SyncWord } from "../native-words";
import { MAX_PACKET } from "../protocol/constants";
import type { Endpoint } from "../transport/endpoint";
import type { ServerState } from "./state";
import type { UpdatePlanner } from "./updates";

export interface EntitySync {
  /** Reconcile `slot`'s dirty indices; true when none is left (false: its queue is at its line). */
  slot(slot: number, now: number): boolean;
  /** The planner that hears of each Add and Remove (the game installs its own). */
  planner: UpdatePlanner;
}

/** What the sync works on. */
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

/**
 * The sync in C (modules/kernels/loops.c, lw_sync): the C reconciles the dirty
 * indices and writes the Adds and Removes into the queue while it keeps its line, and tells
 * the game's planner of them when its sets are bound; the endpoint's counts (and another
 * planner) are brought up to date here from what it did.
 */
export class NativeEntitySync implements EntitySync {
  #planner: UpdatePlanner;
  readonly #m: SyncMemory;
  readonly #kernels: Kernels;
  #b: Binding;
  #words: Int32Array;
  #at = 0;
  /** The C tells the planner of its actions itself (the planner's syncArrays are bound). */
  #notifies = false;
  /** The Adds and Removes the C queued (~index: a Remove), for the planner. */
  readonly #actions: Int32Array;
  readonly #arena: Uint8Array;
  readonly #queues: Uint8Array[];
  readonly #native: NativeOptions | null;

  /**
   * `arena` is the buffer the queues live in, `queues` their views; `actions` is room for
   * a capacity's worth of actions, in a buffer of the same four as the rest.
   */
  constructor(m: SyncMemory, arena: Uint8Array, queues: Uint8Array[], actions: Int32Array, planner: UpdatePlanner, kernels: Kernels, native: NativeOptions | null) {
    this.#m = m;
    this.#kernels = kernels;
    this.#actions = actions;
    this.#arena = arena;
    this.#queues = queues;
    this.#native = native;
    this.#planner = planner;
    this.#b = this.#bind(planner);
    this.#words = this.#b.words;
  }

  get planner(): UpdatePlanner {
    return this.#planner;
  }
  /** A planner that takes the actions in C (the game's) gets a binding with its arrays: start-up only, it allocates. */
  set planner(planner: UpdatePlanner) {
    const had = this.#planner.syncArrays;
    this.#planner = planner;
    if (planner.syncArrays !== had) {
      this.#b = this.#bind(planner);
      this.#words = this.#b.words;
    }
  }

  #bind(planner: UpdatePlanner): Binding {
    const m = this.#m;
    const e = m.entities;
    const queues = this.#queues;
    const arena = this.#arena;
    const n = queues.length;
    const own = planner.syncArrays ?? null;
    // Without them, any aligned arrays stand in; the notify word says not to read them.
    const b = new Binding(
      NATIVE_LAYOUT.sync,
      {
        dirty: m.dirty, alive: e.alive, generation: e.generation, known: m.known, owner: e.owner, type: e.type, arena, actions: this.#actions,
        sets: own !== null ? own.sets : m.dirty, seen: own !== null ? own.seen : e.type,
      },
      n, this.#native,
    );
    const w = b.words;
    const at = b.scalars;
    w[at + SyncWord.Capacity] = e.capacity;
    w[at + SyncWord.Words] = (e.capacity + 31) >> 5;
    w[at + SyncWord.ActionRoom] = this.#actions.length;
    w[at + SyncWord.QueueBytes] = m.endpoints[0].capacityBytes;
    w[at + SyncWord.Keep] = m.keep;
    w[at + SyncWord.Notify] = own !== null ? 1 : 0;
    for (let i = 0; i < n; i++) w[at + SyncWord.Queue + i] = queues[i].byteOffset - arena.byteOffset;
    this.#at = at;
    this.#notifies = own !== null;
    return b;
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
      if (ep.count === 0) this.#m.frontSince[s] = now;
      ep.commit(w[at + SyncWord.Used], w[at + SyncWord.Messages]);
      state = w[at + SyncWord.State];
      if (n !== 0 && !this.#notifies) this.#planner.applyActions(s, this.#actions, n);
    }
    return state === SyncStop.Done;
  }
}

/**
 * Every player's entity sync: marks what changed (the server's EntityListener calls in),
 * runs each player's reconciliation on the tick, and queues the Adds and Removes the
 * JavaScript sync decides (the native one writes its own). The tables are in state.ts.
 */
export class EntityReconciler {
  readonly #state: ServerState;
  readonly #entities: EntityTable;
  readonly #sync: EntitySync;
  /** Int32 words of dirty bits per player. */
  readonly #words: number;
  /** Bit s set while slot s has dirty bits. */
  #dirtyMask = 0;
  /** Some index is pending (state.pending): marked, not yet every player's dirty bit. */
  #pending = false;
  readonly #kernels: Kernels;
  /** The marking's binding: dirty and pending. */
  readonly #mark: Binding;
  #planner: UpdatePlanner;

  /**
   * `arena` is the buffer the queues live in, `queues` their views (the native sync writes
   * into them). The state's tables must be carved.
   */
  constructor(state: ServerState, arena: Uint8Array, queues: Uint8Array[], planner: UpdatePlanner, native: NativeOptions | null) {
    const e = state.entities;
    this.#state = state;
    this.#entities = e;
    this.#words = (e.capacity + 31) >> 5;
    this.#planner = planner;
    const memory: SyncMemory = {
      entities: e, dirty: state.dirty, known: state.known, endpoints: state.endpoints,
      keep: MAX_PACKET + state.leaveReserve, frontSince: state.frontSince,
    };
    const kernels = requireKernels(native, "the entity sync");
    this.#sync = new NativeEntitySync(memory, arena, queues, state.actions, planner, kernels, native);
    this.#kernels = kernels;
    this.#mark = new Binding(NATIVE_LAYOUT.mark, { dirty: state.dirty, pending: state.pending }, 0, native);
    this.#mark.words[this.#mark.scalars + MarkWord.Words] = this.#words;
  }

  /** The planner that hears of each Add and Remove (the game installs its own). */
  get planner(): UpdatePlanner {
    return this.#planner;
  }
  set planner(planner: UpdatePlanner) {
    this.#planner = planner;
    this.#sync.planner = planner;
  }

  /** A newcomer in `slot` knows nothing: every index is to be looked at (a bot's none: it reads the game's tables). */
  joined(slot: number): void {
    const t = this.#state;
    const cap = this.#entities.capacity;
    t.known.fill(0, slot * cap, (slot + 1) * cap);
    if (((t.botMask >> slot) & 1) !== 0) this.#dirtyMask &= ~(1 << slot);
    else this.#markAll(slot);
  }

  /**
   * The entity at `index` was added or removed: every player reconciles it at its next
   * chance. It is pending until then (one bit, where every player's would cost a typed-array
   * write each: a game step adds and removes many); `reconcile` makes it each player's.
   */
  markIndex(index: number): void {
    this.#state.pending[index >> 5] |= 1 << (index & 31);
    this.#pending = true;
  }

  /** Mark every index up to the pool's high-water mark dirty for `slot`. */
  #markAll(slot: number): void {
    const dirty = this.#state.dirty;
    const words = this.#words;
    const end = this.#entities.end;
    const base = slot * words;
    dirty.fill(0, base, base + words);
    for (let w = 0; w < words && w << 5 < end; w++) dirty[base + w] = -1;
    this.#dirtyMask |= 1 << slot;
  }

  /**
   * Reconcile each player's dirty indices while its queue keeps a packet's worth of room
   * (the rest of the queue is for player events and the final Leave): Remove what it knows
   * that is gone or replaced, Add what lives that it does not know.
   */
  reconcile(now: number): void {
    const t = this.#state;
    if (this.#pending) {
      // What changed since the last time becomes dirty for every player with a peer (a bot
      // reads the game's tables; a newcomer marks everything when it joins).
      this.#pending = false;
      const peers = t.activeMask & ~t.botMask;
      const b = this.#mark;
      this.#kernels.mark(b.layout, b.m0, b.m1, b.m2, b.m3, peers);
      this.#dirtyMask |= peers;
    }
    const dirty = this.#dirtyMask;
    if (dirty === 0) return;
    const sync = this.#sync;
    const pendingKick = t.pendingKick;
    // Players that left, or are bots, are done with; one with a kick pending too.
    let left = dirty & t.activeMask & ~t.botMask;
    for (let s = 0; left >> s !== 0; s++) {
      const bit = 1 << s;
      if ((left & bit) === 0) continue;
      if (pendingKick[s] !== 0 || sync.slot(s, now)) left &= ~bit;
    }
    this.#dirtyMask = left;
  }
}
