/**
 * The hot loops as WebAssembly: the same C as on XS (modules/kernels/loops.c and game.c, through
 * modules/kernels/wasm.c), built by `npm run build:wasm` into dist/web/kernels.wasm. Node runs
 * the server's and the game's loops on it, and the page its own ship's step.
 *
 * The C reaches one memory only, so the match's arenas, grid and binding words are carved
 * from it (`FixedMemory`, modules/arena.ts): every binding then has one view, the memory,
 * and each call passes just the address of the binding's layout words. The memory's size is
 * fixed when the instance is made, from the config (`nativeMemoryBytes`), and never grows.
 *
 * Host-free: a host reads the file and compiles it (`compileKernels`, or `WasmKernels.load`
 * in a browser, which wants it done asynchronously); instantiating is here, for Node and the
 * page alike.
 */
import { FixedMemory } from "./arena";
import type { Config } from "./config";
import type { Kernels, NativeOptions } from "./native";

/** The exports of dist/web/kernels.wasm: each loop takes the address of its binding's layout words. */
interface KernelExports {
  plan(layout: number, slot: number): number;
  commit(layout: number, slot: number, sent: number): void;
  notify(layout: number, slot: number, n: number): void;
  pack(layout: number, pos: number, n: number, o: number, stats: number): number;
  sync(layout: number, slot: number): number;
  ship(layout: number, slot: number): number;
  game(layout: number, run: number): number;
  mark(layout: number, mask: number): void;
  transport(layout: number, run: number, i: number, a: number, b: number, c: number, d: number): number;
  name(layout: number, slot: number, from: number, length: number, mask: number): number;
  /** Where the C's stack and data end: the memory above is ours. */
  __heap_base: { value: number };
}

interface WasmMemory {
  buffer: ArrayBuffer;
}

/** The part of the WebAssembly API used here (XS has none; this module never runs there). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => CompiledKernels;
  Memory: new (size: { initial: number; maximum: number }) => WasmMemory;
  Instance: new (module: CompiledKernels, imports: object) => { exports: unknown };
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: unknown } }>;
  compile(bytes: Uint8Array): Promise<CompiledKernels>;
}

/** dist/web/kernels.wasm compiled: made once per process, instantiated once per match. */
export interface CompiledKernels {
  readonly compiledKernels?: never;
}

const PAGE = 65536;

function wasm(): WasmApi {
  const api = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) throw new Error("this engine has no WebAssembly: the native loops cannot run");
  return api;
}

/** Compile the bytes of dist/web/kernels.wasm (synchronous: start-up only). */
export function compileKernels(bytes: Uint8Array): CompiledKernels {
  return new (wasm().Module)(bytes);
}

/** Compile the bytes of kernels.wasm without blocking (a browser's main thread). */
export function compileKernelsAsync(bytes: Uint8Array): Promise<CompiledKernels> {
  return wasm().compile(bytes);
}

/**
 * Bytes of fixed memory a match of `config` takes: the entity pool, the server's arena
 * (reliable queues, tables, entry cache), the planner's sets, the game's arena and grid,
 * and the bindings' words, with room to spare (test/native/wasm.test.ts checks the margin
 * at the config's limits).
 */
export function nativeMemoryBytes(config: Config): number {
  const n = config.maxPlayers;
  const cap = config.maxEntities;
  const words = (cap + 31) >> 5;
  const perEntity = 80;
  const perPlayer = config.reliableQueueBytes + 3 * cap + 18 * 4 * words + 256;
  return 96 * 1024 + cap * perEntity + n * perPlayer;
}

/** A memory of `bytes` for the arrays, and a page before them for the C's stack and data (below __heap_base). */
function fixedPages(bytes: number): { memory: WasmMemory; pages: number } {
  const pages = 1 + Math.ceil(bytes / PAGE);
  return { memory: new (wasm().Memory)({ initial: pages, maximum: pages }), pages };
}

/** The native loops on one WebAssembly instance, with the fixed memory their arrays live in. */
export class WasmKernels implements Kernels {
  readonly memory: FixedMemory;
  readonly #x: KernelExports;
  readonly #buffer: ArrayBuffer;

  /** An instance of `module` with `bytes` of memory for the arrays (synchronous: Node). Start-up only. */
  static create(module: CompiledKernels, bytes: number): WasmKernels {
    const { memory, pages } = fixedPages(bytes);
    return new WasmKernels(new (wasm().Instance)(module, { env: { memory } }).exports as KernelExports, memory, pages);
  }

  /** An instance of the module in `wasm` with `bytes` of memory, compiled as a browser wants it: asynchronously. */
  static async load(wasmBytes: Uint8Array, bytes: number): Promise<WasmKernels> {
    const { memory, pages } = fixedPages(bytes);
    const { instance } = await wasm().instantiate(wasmBytes, { env: { memory } });
    return new WasmKernels(instance.exports as KernelExports, memory, pages);
  }

  private constructor(x: KernelExports, memory: WasmMemory, pages: number) {
    const base = x.__heap_base.value;
    if (base > PAGE) throw new RangeError(`kernels.wasm: its stack and data take ${base} bytes, more than a page`);
    this.#x = x;
    this.#buffer = memory.buffer;
    this.memory = new FixedMemory(memory.buffer, base, pages * PAGE);
  }

  plan(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, slot: number): number {
    return this.#x.plan(this.#at(layout, m0, m1), slot);
  }
  commit(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, slot: number, sent: number): void {
    this.#x.commit(this.#at(layout, m0, m1), slot, sent);
  }
  notify(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, slot: number, n: number): void {
    this.#x.notify(this.#at(layout, m0, m1), slot, n);
  }
  pack(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, pos: number, n: number, o: number, stats: number): number {
    return this.#x.pack(this.#at(layout, m0, m1), pos, n, o, stats);
  }
  sync(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, slot: number): number {
    return this.#x.sync(this.#at(layout, m0, m1), slot);
  }
  ship(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, slot: number): number {
    return this.#x.ship(this.#at(layout, m0, m1), slot);
  }
  game(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, run: number): number {
    return this.#x.game(this.#at(layout, m0, m1), run);
  }
  mark(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, mask: number): void {
    this.#x.mark(this.#at(layout, m0, m1), mask);
  }

  transport(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, run: number, i: number, a: number, b: number, c: number, d: number): number {
    return this.#x.transport(this.#at(layout, m0, m1), run, i, a, b, c, d);
  }

  name(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, _m2: Uint8Array, _m3: Uint8Array, slot: number, from: number, length: number, mask: number): number {
    return this.#x.name(this.#at(layout, m0, m1), slot, from, length, mask);
  }

  /**
   * The layout's address, once it is clear that the layout and every array are in this
   * instance's memory (a binding's unused views repeat its first: one buffer, then m1 is m0).
   */
  #at(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array): number {
    const b = this.#buffer;
    if (layout.buffer !== b || m0.buffer !== b || m1.buffer !== b)
      throw new RangeError("kernels.wasm: a binding with arrays outside its memory (made without NativeOptions.memory?)");
    return layout.byteOffset;
  }
}

/** Native options for one match of `config` on a new instance of `module`. Start-up only. */
export function wasmNative(module: CompiledKernels, config: Config): NativeOptions {
  const kernels = WasmKernels.create(module, nativeMemoryBytes(config));
  return { kernels, memory: kernels.memory };
}

/** Native options with `bytes` of memory for the arrays, on a new instance of `module` (a client, the chat relay, a lone Endpoint). Start-up only. */
export function wasmMemory(module: CompiledKernels, bytes: number): NativeOptions {
  const kernels = WasmKernels.create(module, bytes);
  return { kernels, memory: kernels.memory };
}
