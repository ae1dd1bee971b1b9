/**
 * The hot loops: the escape hatch of the style guide, behind one interface.
 *
 * Measured on XS, where each typed-array access is a few hundred machine instructions,
 * these loops cost the most in JavaScript (docs/performance.md): the priority planner's
 * `plan`, `commit` and bookkeeping of Adds and Removes (`notify`), the packing of Update
 * entries, and the entity sync that queues Adds and Removes, run for every player on every
 * update tick or entity change; the game's step (ships, projectiles, planets, the broad
 * phase, damage) runs 30 times a second. Each has one implementation, in C:
 * modules/kernels/loops.c and game.c. On XS it is compiled
 * into the engine (hosts/moddable/kernels.c: the board, the simulator, and tools/xs's lwxs);
 * on Node and in the page it runs as WebAssembly (modules/native-wasm.ts,
 * dist/web/kernels.wasm). They reach the core through `createMatch`'s options
 * (`NativeOptions`) or as the platform's (`platformNative`), never through `Host`; each loop's
 * object is made once, at start-up. Tests replay recorded matches on both engines and
 * compare every byte (docs/architecture.md, "One home for each hot loop").
 *
 * Calling convention. The C cannot be given a dozen typed arrays per call cheaply, so
 * each user of a kernel builds one `Binding` at start-up: up to four byte views (one per
 * ArrayBuffer its arrays live in) and a layout word array that says, for each array the
 * kernel reads or writes, which view and which byte offset it starts at, followed by
 * scalar parameters and results. The arrays and words are declared once, by name, in
 * modules/native-layout.ts; modules/kernels/layout.h and modules/native-words.ts are
 * generated from it. A call passes the layout, the four views and a few integers (on
 * WebAssembly, where everything lives in the one memory, just the layout's address). The C
 * takes pointers for the length of the call only and allocates nothing.
 */
import type { FixedMemory } from "./arena";
import type { Config } from "./config";
import { type BindingArrays, type BindingLayout, names as listNames, wordCount } from "./native-layout";

/** The native functions a platform provides (modules/kernels/loops.c, game.c). */
export interface Kernels {
  /** PriorityPlanner.plan (modules/server/updates.ts). Returns the count listed. */
  plan(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number): number;
  /** PriorityPlanner.commit. */
  commit(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number, sent: number): void;
  /**
   * The unreliable part of an UpdateWriter packet (modules/server/update-writer.ts) after its
   * reliable part, which ends at `o`: with `stats` 1, a Stats message if it fits; an Update
   * if it fits, with the entries list[pos] onwards that fit (encoded into the entry cache
   * when they are not yet, then copied); the header's unreliable count. Returns the new
   * `pos`; the new packet offset and the entry count are in the layout's results.
   */
  pack(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, pos: number, n: number, o: number, stats: number): number;
  /**
   * The entity sync of one player (modules/server/entity-sync.ts): Removes and Adds for
   * its dirty indices, written into its reliable queue while the queue keeps its line.
   * Returns how many it listed for the planner (the layout's results have the queue's new
   * length, messages, next seqno and why it stopped).
   */
  sync(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number): number;
  /**
   * EntityReconciler's marking (modules/server/entity-sync.ts): the indices pending (added
   * or removed since the last call) become dirty for each player in `mask` (bit s: slot s).
   */
  mark(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, mask: number): void;
  /** PriorityPlanner.applyActions: the first `n` entity sync actions for `slot` (index added, ~index removed). */
  notify(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number, n: number): void;
  /**
   * The ship step (ShipStepper.step, modules/game/ship-stepper.ts) for the ship of `slot`.
   * Returns 1 when the ship touches something or may fire (the layout's results: what it
   * touches, and its heading's cosine and sine), else 0.
   */
  ship(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number): number;
  /**
   * The game's step (NativeGameStep.run, modules/game/step-native.ts): `run` begins a step,
   * goes on after a stop or places the bodies (GameRun). Returns why it stopped (GameStop:
   * done, or what the JavaScript must do first), with the details in the layout's words.
   */
  game(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, run: number): number;
  /**
   * The transport (modules/transport/endpoint.ts, modules/kernels/transport.c): `run`
   * (TransportRun) on peer `i` (a mask of peers for a broadcast or dueMask) with up to four
   * integers. Returns what that run returns.
   */
  transport(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, run: number, i: number, a: number, b: number, c: number, d: number): number;
  /**
   * The session's name store (modules/server/session.ts, modules/kernels/session.c): the
   * name of `length` bytes at `from` in the arena becomes `slot`'s, made unique among the
   * players of `mask`. Returns its length.
   */
  name(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number, from: number, length: number, mask: number): number;
}

/** The kernels by name. */
export type KernelName = keyof Kernels;

/** How a match gets its native loops: `createMatch`, `createServer` and `Game` take these. */
export interface NativeOptions {
  /** The platform's native loops: the server and the game cannot run without them. */
  kernels?: Kernels | null;
  /** Every binding made is pushed here (for tests that check them). */
  bindings?: Binding[] | null;
  /**
   * Where the match's arenas and the bindings' words are carved from, when the kernels can
   * reach only one memory (WebAssembly: modules/native-wasm.ts); absent, each arena has a
   * buffer of its own (XS, where the C takes any buffer).
   */
  memory?: FixedMemory | null;
}

/** Makes a match's native options for its config: what a host installs as `globalThis.lwarNative`. */
export type NativeFactory = (config: Config) => NativeOptions;

/**
 * The native loops of the platform this runs on, for a new match: those the host's entry
 * point installed, as a factory (`globalThis.lwarNative`: Node's WebAssembly,
 * hosts/node/kernels.ts) or as kernels (`globalThis.lwarKernels`: the device bench's), else
 * lwxs's own (`xs.kernels`, tools/xs), else null. The board's main.ts passes its kernels to
 * createMatch itself. Start-up only.
 */
export function platformNative(config: Config): NativeOptions | null {
  const g = globalThis as { lwarNative?: NativeFactory };
  return g.lwarNative !== undefined ? g.lwarNative(config) : xsNative();
}

/** The XS kernels the host installed (`globalThis.lwarKernels`), else lwxs's own (`xs.kernels`), else null: any buffer will do for them. */
function xsNative(): NativeOptions | null {
  const g = globalThis as { lwarKernels?: Kernels | null; xs?: { kernels?: Kernels } };
  if (g.lwarKernels != null) return { kernels: g.lwarKernels };
  return g.xs !== undefined && g.xs.kernels !== undefined ? { kernels: g.xs.kernels } : null;
}

/** Makes native options whose memory holds at least `bytes` for the arrays: what a host installs as `globalThis.lwarMemory`. */
export type MemoryFactory = (bytes: number) => NativeOptions;

/**
 * The platform's native loops for an owner that is not a match (a client, the chat relay, a
 * lone Endpoint), with `bytes` of memory for its arrays where the loops reach only one
 * memory: `globalThis.lwarMemory` (Node's and the page's WebAssembly: a new instance), else
 * the XS kernels (any buffer will do there), else null. Start-up only.
 */
export function platformMemory(bytes: number): NativeOptions | null {
  const g = globalThis as { lwarMemory?: MemoryFactory };
  return g.lwarMemory !== undefined ? g.lwarMemory(bytes) : xsNative();
}

/**
 * `n` words for an array the native loops write, a counters sink say: in `native`'s memory
 * when it has one (WebAssembly), else an array of its own. Start-up only.
 */
export function nativeWords(native: NativeOptions | null, n: number): Uint32Array {
  const memory = native?.memory ?? null;
  return memory !== null ? new Uint32Array(memory.buffer, memory.take(4 * n), n) : new Uint32Array(n);
}

/** The kernels of `options`; throws when there are none (`who` says what needs them). Start-up only. */
export function requireKernels(options: NativeOptions | null | undefined, who: string): Kernels {
  if (options == null || options.kernels == null)
    throw new RangeError(`${who} needs the platform's native loops (NativeOptions.kernels): on Node, installNodeKernels() (hosts/node/kernels.ts)`);
  return options.kernels;
}

/** Any typed array the core keeps its state in. */
export type View = Int32Array | Uint32Array | Int16Array | Uint16Array | Uint8Array;

const VIEWS = 4;

/**
 * The memory a kernel works on: the arrays `layout` declares, given by name (placed in its
 * order), and its scalar words after them, plus `tail` more for a run whose length the
 * owner gives. Throws on a missing or extra name. Start-up only: it allocates.
 */
export class Binding {
  /** The declaration this binding follows. */
  readonly declared: BindingLayout;
  /** The arrays it was given, by name. */
  readonly arrays: Readonly<Record<string, ArrayBufferView>>;
  /** [view, byte offset] per array, then the scalars. */
  readonly words: Int32Array;
  /** `words` as bytes, as the kernels take it. */
  readonly layout: Uint8Array;
  readonly m0: Uint8Array;
  readonly m1: Uint8Array;
  readonly m2: Uint8Array;
  readonly m3: Uint8Array;
  /** Index of the first scalar word. */
  readonly scalars: number;

  constructor(layout: BindingLayout, arrays: BindingArrays, tail = 0, native: NativeOptions | null = null) {
    const given = arrays;
    const names = listNames(layout.arrays);
    for (const name of Object.keys(given))
      if (names.indexOf(name) < 0) throw new RangeError(`binding: "${name}" is not one of its declared arrays (${layout.arrays})`);
    const buffers: ArrayBufferLike[] = [];
    this.declared = layout;
    this.arrays = given;
    this.scalars = 2 * names.length;
    const count = this.scalars + wordCount(layout) + tail;
    const memory = native?.memory ?? null;
    this.words = memory !== null ? new Int32Array(memory.buffer, memory.take(4 * count), count) : new Int32Array(count);
    for (let i = 0; i < names.length; i++) {
      const a = given[names[i]];
      if (a === undefined) throw new RangeError(`binding: no array "${names[i]}"`);
      const width = (a as { BYTES_PER_ELEMENT?: number }).BYTES_PER_ELEMENT ?? 1;
      if ((a.byteOffset & 3) !== 0 && width === 4) throw new RangeError(`binding: array "${names[i]}" is not 4-byte aligned`);
      let v = buffers.indexOf(a.buffer);
      if (v < 0) {
        if (buffers.length === VIEWS) throw new RangeError(`binding: more than ${VIEWS} buffers`);
        v = buffers.push(a.buffer) - 1;
      }
      this.words[2 * i] = v;
      this.words[2 * i + 1] = a.byteOffset;
    }
    const views: Uint8Array[] = [];
    // Unused views repeat the first: XS may give an empty buffer no address at all.
    for (let v = 0; v < VIEWS; v++) views.push(v < buffers.length ? new Uint8Array(buffers[v]) : views[0]);
    this.m0 = views[0];
    this.m1 = views[1];
    this.m2 = views[2];
    this.m3 = views[3];
    this.layout = new Uint8Array(this.words.buffer, this.words.byteOffset, 4 * count);
    const made = native?.bindings ?? null;
    if (made !== null) made.push(this);
  }
}
