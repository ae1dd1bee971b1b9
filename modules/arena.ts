/**
 * Typed arrays carved out of one ArrayBuffer.
 *
 * On XS a typed array with a buffer of its own costs 7 slots (the ArrayBuffer and the
 * view) plus a chunk header; a view into a shared buffer costs 4 slots. A module with a
 * dozen tables therefore takes them all from one arena, widest element first (so no
 * padding is ever needed).
 *
 * Nobody adds up the bytes by hand: the owner runs its takes twice, first on
 * `Arena.measuring()` (which hands out empty arrays, one per element type, and only counts), then on
 * `new Arena(measured.bytes)`, and calls `done()`, which throws if the two passes took
 * different amounts. Each take may carry a label; `rows()` sums the bytes by label for the
 * memory budget. Everything here runs at start-up only.
 *
 * Given a `FixedMemory`, the arena carves its bytes from that one buffer instead of making
 * its own (on Node and in the page: the WebAssembly memory that the native loops reach,
 * modules/native-wasm.ts); its arrays are then views into that buffer, at the offsets it
 * handed out.
 */
export class Arena {
  /** The buffer the arrays are views into (a fixed memory's whole buffer, when given one). */
  readonly buffer: ArrayBuffer;
  readonly #measuring: boolean;
  /** Where the arena starts in `buffer`, and its size. */
  readonly #base: number;
  readonly #size: number;
  #at = 0;
  readonly #labels: string[] = [];
  readonly #bytes: number[] = [];
  /**
   * A measuring arena hands out one empty array per element type, whatever the take: on XS
   * a new empty array per take would be 7 slots of garbage each, at the start-up peak.
   */
  #emptyf64: Float64Array | null = null;
  #emptyf32: Float32Array | null = null;
  #emptyu32: Uint32Array | null = null;
  #emptyi32: Int32Array | null = null;
  #emptyu16: Uint16Array | null = null;
  #emptyi16: Int16Array | null = null;
  #emptyu8: Uint8Array | null = null;

  /** An arena that only counts: its arrays are empty. */
  static measuring(): Arena {
    return new Arena(-1);
  }

  constructor(bytes: number, memory: FixedMemory | null = null) {
    this.#measuring = bytes < 0;
    this.#size = this.#measuring ? 0 : bytes;
    if (memory !== null && !this.#measuring) {
      this.buffer = memory.buffer;
      this.#base = memory.take(bytes);
    } else {
      this.buffer = new ArrayBuffer(this.#size);
      this.#base = 0;
    }
  }

  /** Bytes taken so far (for a measuring arena: the size the real one needs). */
  get bytes(): number {
    return this.#at;
  }

  f64(n: number, label = ""): Float64Array {
    const at = this.#take(n, 8, label);
    if (this.#measuring) return (this.#emptyf64 ??= new Float64Array(0));
    return new Float64Array(this.buffer, this.#base + at, n);
  }
  f32(n: number, label = ""): Float32Array {
    const at = this.#take(n, 4, label);
    if (this.#measuring) return (this.#emptyf32 ??= new Float32Array(0));
    return new Float32Array(this.buffer, this.#base + at, n);
  }
  u32(n: number, label = ""): Uint32Array {
    const at = this.#take(n, 4, label);
    if (this.#measuring) return (this.#emptyu32 ??= new Uint32Array(0));
    return new Uint32Array(this.buffer, this.#base + at, n);
  }
  i32(n: number, label = ""): Int32Array {
    const at = this.#take(n, 4, label);
    if (this.#measuring) return (this.#emptyi32 ??= new Int32Array(0));
    return new Int32Array(this.buffer, this.#base + at, n);
  }
  u16(n: number, label = ""): Uint16Array {
    const at = this.#take(n, 2, label);
    if (this.#measuring) return (this.#emptyu16 ??= new Uint16Array(0));
    return new Uint16Array(this.buffer, this.#base + at, n);
  }
  i16(n: number, label = ""): Int16Array {
    const at = this.#take(n, 2, label);
    if (this.#measuring) return (this.#emptyi16 ??= new Int16Array(0));
    return new Int16Array(this.buffer, this.#base + at, n);
  }
  u8(n: number, label = ""): Uint8Array {
    const at = this.#take(n, 1, label);
    if (this.#measuring) return (this.#emptyu8 ??= new Uint8Array(0));
    return new Uint8Array(this.buffer, this.#base + at, n);
  }

  /** Throws unless every byte of the buffer went to an array. */
  done(): void {
    if (this.#at !== this.#size) throw new RangeError(`arena of ${this.#size} bytes: ${this.#at} taken`);
  }

  /** [label, bytes] per label, in the order labels were first used; unlabelled takes are left out. */
  rows(): Array<[string, number]> {
    const rows: Array<[string, number]> = [];
    for (let i = 0; i < this.#labels.length; i++) rows.push([this.#labels[i], this.#bytes[i]]);
    return rows;
  }

  #take(n: number, size: number, label: string): number {
    const at = this.#at;
    if (at % size !== 0) throw new RangeError(`arena: a ${size}-byte array at offset ${at}; take wider elements first`);
    if (!this.#measuring && at + n * size > this.#size)
      throw new RangeError(`arena of ${this.#size} bytes: no room for ${n} × ${size} at ${at}`);
    this.#at = at + n * size;
    if (label !== "") {
      const k = this.#labels.indexOf(label);
      if (k < 0) {
        this.#labels.push(label);
        this.#bytes.push(n * size);
      } else this.#bytes[k] += n * size;
    }
    return at;
  }
}

/**
 * One buffer of fixed size, handed out from the start by a bump allocator, never freed:
 * every arena of a match (and every binding's words) in one memory that native code can
 * reach. Sized once, at start-up; `take` throws when it runs out (the size was computed
 * for the config: a bug, not bad input).
 */
export class FixedMemory {
  readonly buffer: ArrayBuffer;
  #at: number;
  readonly #end: number;

  /** The bytes of `buffer` from `start` to `end` are this memory's to hand out. */
  constructor(buffer: ArrayBuffer, start = 0, end = buffer.byteLength) {
    this.buffer = buffer;
    this.#at = start;
    this.#end = end;
  }

  /** Bytes handed out so far, and left. */
  get used(): number {
    return this.#at;
  }
  get left(): number {
    return this.#end - this.#at;
  }

  /** The offset of `bytes` fresh bytes, 8-aligned. */
  take(bytes: number): number {
    const at = (this.#at + 7) & ~7;
    if (at + bytes > this.#end)
      throw new RangeError(`fixed memory of ${this.buffer.byteLength} bytes: no room for ${bytes} more at ${at}`);
    this.#at = at + bytes;
    return at;
  }
}
