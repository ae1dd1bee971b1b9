/**
 * Uniform grid broad phase, turned around for a world of few ships and planets and many
 * projectiles: each ship and planet marks the cells within its reach with its own bit, and
 * a projectile (or a ship) reads the one cell it is in to learn what it may touch. A step
 * costs one copy, a few cells per ship and one read per projectile. Sized at construction;
 * nothing allocates afterwards.
 *
 * Two layers: `base` holds what changes slowly (fixed zones, and marks its owner renews
 * now and then, such as planets'), 16 bits a cell; `mask` is what a step reads, `base`
 * plus what is marked afresh each step (ships), 32 bits a cell. The game's step, in C
 * (modules/kernels/game.c), copies `base` into `mask` and marks both; here the grid is made
 * and its fixed zones set, once.
 *
 * Coordinates are integers (the position units of modules/units.ts); a cell is a power of
 * two of them, so finding a cell is an add and a shift. The grid covers the square
 * [−halfExtent, halfExtent) on both axes, and positions outside it fall into the border cells.
 */
import type { FixedMemory } from "../arena";

export class ReachGrid {
  /** Cell size is 1 << cellShift position units. */
  readonly cellShift: number;
  /** Cells per side. */
  readonly side: number;
  /** Half the side, position units; a multiple of the cell size. */
  readonly halfExtent: number;
  /** Bits of whatever reaches into the cell this step. Index: row × side + column. */
  readonly mask: Int32Array;
  /** The slow layer (bits 0..15), which each step copies into `mask` before its marks. */
  readonly base: Uint16Array;

  /** `memory`: where to carve the two layers from (modules/arena.ts); absent, a buffer of their own. */
  constructor(halfExtent: number, cellShift: number, memory: FixedMemory | null = null) {
    if (!Number.isInteger(cellShift) || cellShift < 0 || cellShift > 24) throw new RangeError("grid cell shift must be 0..24");
    const cell = 1 << cellShift;
    if (!Number.isInteger(halfExtent) || halfExtent <= 0 || halfExtent % cell !== 0 || halfExtent > 0x3fffffff)
      throw new RangeError("grid half extent must be a positive multiple of the cell size");
    this.cellShift = cellShift;
    this.halfExtent = halfExtent;
    // A shift, not a division: on XS the quotient would be a double.
    this.side = (2 * halfExtent) >> cellShift;
    const cells = this.side * this.side;
    // Both layers in one buffer: the game's step reaches them through one view.
    const buffer = memory !== null ? memory.buffer : new ArrayBuffer(6 * cells);
    const at = memory !== null ? memory.take(6 * cells) : 0;
    this.mask = new Int32Array(buffer, at, cells);
    this.base = new Uint16Array(buffer, at + 4 * cells, cells);
  }

  poolBytes(): number {
    return this.mask.byteLength + this.base.byteLength;
  }

  /** Column or row of a coordinate, clamped to the grid. */
  line(v: number): number {
    const c = (v + this.halfExtent) >> this.cellShift;
    return c < 0 ? 0 : c >= this.side ? this.side - 1 : c;
  }

  /** The cell (x, y) falls in. */
  cell(x: number, y: number): number {
    return this.line(y) * this.side + this.line(x);
  }

  /**
   * Set `bit` (0..15) in the slow layer for good, in every cell for which
   * `touches(x0, y0, x1, y1)` (the cell's corners) holds. Start-up only.
   */
  setFixed(bit: number, touches: (x0: number, y0: number, x1: number, y1: number) => boolean): void {
    const cell = 1 << this.cellShift;
    for (let cy = 0; cy < this.side; cy++)
      for (let cx = 0; cx < this.side; cx++) {
        const x0 = cx * cell - this.halfExtent;
        const y0 = cy * cell - this.halfExtent;
        if (touches(x0, y0, x0 + cell, y0 + cell)) this.base[cy * this.side + cx] |= bit;
      }
  }
}
