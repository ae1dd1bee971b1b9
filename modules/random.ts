/** Seeded xorshift32 PRNG: the same seed gives the same sequence on every engine. */
export class Random {
  #s: number;
  constructor(seed: number) {
    this.#s = seed >>> 0 || 0x9e3779b9;
  }
  /** Next raw 32-bit value. */
  nextU32(): number {
    let x = this.#s;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#s = x >>> 0;
    return this.#s;
  }
  /** Uniform in [0, 1). */
  next(): number {
    return this.nextU32() / 4294967296;
  }
  /** Integer in [0, n). */
  below(n: number): number {
    return Math.floor(this.next() * n);
  }
  get state(): number {
    return this.#s;
  }
}
