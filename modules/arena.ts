/**
 * Typed arrays carved out of one ArrayBuffer.
 *
 * On XS a typed array with a buffer of its own costs 7 slots (the ArrayBuffer and the
 * view) plus a chunk header; a view into a shared buffer costs 4 slots. A module with a
 * dozen tables therefore takes them all from one arena: it computes the bytes from its
 * config, takes the arrays widest element first (so no padding is ever needed and the
 * size is a plain sum), and calls `done()`, which throws if the sum and the arrays taken
 * disagree. Everything here runs at start-up only.
 */
export class Arena {
  readonly buffer: ArrayBuffer;
  #at = 0;

  constructor(bytes: number) {
    this.buffer = new ArrayBuffer(bytes);
  }

  f64(n: number): Float64Array {
    return new Float64Array(this.buffer, this.#take(n, 8), n);
  }
  f32(n: number): Float32Array {
    return new Float32Array(this.buffer, this.#take(n, 4), n);
  }
  u32(n: number): Uint32Array {
    return new Uint32Array(this.buffer, this.#take(n, 4), n);
  }
  i32(n: number): Int32Array {
    return new Int32Array(this.buffer, this.#take(n, 4), n);
  }
  u16(n: number): Uint16Array {
    return new Uint16Array(this.buffer, this.#take(n, 2), n);
  }
  i16(n: number): Int16Array {
    return new Int16Array(this.buffer, this.#take(n, 2), n);
  }
  u8(n: number): Uint8Array {
    return new Uint8Array(this.buffer, this.#take(n, 1), n);
  }

  /** Throws unless every byte of the buffer went to an array. */
  done(): void {
    if (this.#at !== this.buffer.byteLength)
      throw new RangeError(`arena of ${this.buffer.byteLength} bytes: ${this.#at} taken`);
  }

  #take(n: number, size: number): number {
    const at = this.#at;
    if (at % size !== 0) throw new RangeError(`arena: a ${size}-byte array at offset ${at}; take wider elements first`);
    if (at + n * size > this.buffer.byteLength) throw new RangeError(`arena of ${this.buffer.byteLength} bytes: no room for ${n} × ${size} at ${at}`);
    this.#at = at + n * size;
    return at;
  }
}
