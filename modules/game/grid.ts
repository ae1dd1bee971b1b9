/**
 * Uniform grid broad phase, turned around for a world of few ships and many projectiles:
 * each ship marks the cells within its reach with its player-slot bit, and a projectile
 * (or a ship) reads the one cell it is in to learn which ships it may touch. A step costs
 * one memset, a few cells per ship and one byte per projectile, which matters on XS,
 * where every typed-array access is a call. Sized at construction; nothing allocates
 * afterwards. Positions outside the square fall into the border cells.
 */
export class ReachGrid {
  readonly cellSize: number;
  /** Cells per side. */
  readonly side: number;
  /** Bit s set: the ship of player slot s reaches into the cell. Index: row × side + column. */
  readonly mask: Uint8Array;
  readonly #half: number;
  readonly #perCell: number;

  constructor(halfExtent: number, cellSize: number) {
    if (!(cellSize > 0) || !(halfExtent > 0)) throw new RangeError("grid extent and cell size must be positive");
    this.cellSize = cellSize;
    this.side = Math.ceil((2 * halfExtent) / cellSize);
    this.#half = halfExtent;
    this.#perCell = 1 / cellSize;
    this.mask = new Uint8Array(this.side * this.side);
  }

  poolBytes(): number {
    return this.mask.byteLength;
  }

  /** Column or row of a coordinate, clamped to the grid. */
  line(v: number): number {
    const c = Math.floor((v + this.#half) * this.#perCell);
    return c < 0 ? 0 : c >= this.side ? this.side - 1 : c;
  }

  /** The cell (x, y) falls in. */
  cell(x: number, y: number): number {
    return this.line(y) * this.side + this.line(x);
  }

  clear(): void {
    this.mask.fill(0);
  }

  /** Mark `bit` in every cell that the square of half-size r around (x, y) touches. */
  mark(bit: number, x: number, y: number, r: number): void {
    const x0 = this.line(x - r);
    const x1 = this.line(x + r);
    const y1 = this.line(y + r);
    const mask = this.mask;
    for (let cy = this.line(y - r); cy <= y1; cy++) {
      const row = cy * this.side;
      for (let cx = x0; cx <= x1; cx++) mask[row + cx] |= bit;
    }
  }
}
