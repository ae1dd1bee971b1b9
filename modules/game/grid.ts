/**
 * Uniform grid broad phase over a square around the origin, rebuilt every step by a
 * counting sort: `begin()`, `insert()` each mover, `build()`, then `range()` and walk
 * `items[start[c] .. start[c + 1])` for each cell c in the range. Items come out in
 * insertion order within a cell, so walks are deterministic. Everything is sized at
 * construction; nothing allocates afterwards. Positions outside the square fall into
 * the border cells.
 */
export class Grid {
  readonly cellSize: number;
  /** Cells per side. */
  readonly side: number;
  readonly #origin: number;
  /** Cell c holds items[start[c] .. start[c + 1]). Valid after build(). */
  readonly start: Int32Array;
  readonly items: Uint16Array;
  readonly #cursor: Int32Array;
  readonly #inserted: Uint16Array;
  readonly #cellOf: Int32Array;
  #count = 0;
  /** Inclusive cell range written by range(). */
  x0 = 0;
  x1 = 0;
  y0 = 0;
  y1 = 0;

  constructor(capacity: number, halfExtent: number, cellSize: number) {
    if (!(cellSize > 0) || !(halfExtent > 0)) throw new RangeError("grid extent and cell size must be positive");
    this.cellSize = cellSize;
    this.side = Math.ceil((2 * halfExtent) / cellSize);
    this.#origin = -halfExtent;
    const cells = this.side * this.side;
    this.start = new Int32Array(cells + 1);
    this.#cursor = new Int32Array(cells);
    this.items = new Uint16Array(capacity);
    this.#inserted = new Uint16Array(capacity);
    this.#cellOf = new Int32Array(capacity);
  }

  poolBytes(): number {
    return this.start.byteLength + this.#cursor.byteLength + this.items.byteLength + this.#inserted.byteLength + this.#cellOf.byteLength;
  }

  /** Items inserted since begin(). */
  get count(): number {
    return this.#count;
  }

  #cell(v: number): number {
    const c = Math.floor((v - this.#origin) / this.cellSize);
    return c < 0 ? 0 : c >= this.side ? this.side - 1 : c;
  }

  begin(): void {
    this.start.fill(0);
    this.#count = 0;
  }

  /** Add entity `index` at (x, y). Each index at most once between begin() and build(). */
  insert(index: number, x: number, y: number): void {
    const side = this.side;
    let cx = Math.floor((x - this.#origin) / this.cellSize);
    let cy = Math.floor((y - this.#origin) / this.cellSize);
    if (cx < 0) cx = 0;
    else if (cx >= side) cx = side - 1;
    if (cy < 0) cy = 0;
    else if (cy >= side) cy = side - 1;
    const c = cy * side + cx;
    this.#cellOf[index] = c;
    this.#inserted[this.#count++] = index;
    this.start[c + 1]++;
  }

  build(): void {
    const start = this.start;
    const cells = this.side * this.side;
    for (let c = 0; c < cells; c++) {
      start[c + 1] += start[c];
      this.#cursor[c] = start[c];
    }
    for (let k = 0; k < this.#count; k++) {
      const index = this.#inserted[k];
      this.items[this.#cursor[this.#cellOf[index]]++] = index;
    }
  }

  /** Set x0..x1, y0..y1 to the cells that overlap the square of half-size r around (x, y). */
  range(x: number, y: number, r: number): void {
    this.x0 = this.#cell(x - r);
    this.x1 = this.#cell(x + r);
    this.y0 = this.#cell(y - r);
    this.y1 = this.#cell(y + r);
  }
}
