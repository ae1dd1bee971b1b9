/**
 * The unreliable part of UpdateWriter's packets (update-writer.ts): Stats, the Update and
 * its entry loop, in the native kernel `pack` (modules/kernels/loops.c, modules/native.ts).
 *
 * Entries live in a cache after the packet buffer, one UPDATE_ENTRY per entity index, and
 * are encoded once per change (the `encoded` flags; the writer clears them when the
 * entities change in place, and when an entity is added at an index). A plan's entries are
 * copied from the cache into the packet.
 */
import type { EntityTable } from "../game/entities";
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { PackWord } from "../native-words";
import { MAX_PACKET } from "../protocol/constants";
import { ANGLE_BITS, CENTIDEGREES, POS_SHIFT, STEP_HZ } from "../units";


export interface EntryPacker {
  /**
   * The packet's unreliable part from offset `o`: with `stats`, a Stats message if it fits;
   * an Update if it fits, with entries list[pos], list[pos + 1], ... (up to `n`) while they
   * fit (and at most 255); the header's unreliable count. Returns the new `pos`; `o` and `k`
   * (entries written) are then in the fields below.
   */
  pack(pos: number, n: number, o: number, stats: boolean): number;
  o: number;
  k: number;
}

/** What the loop works on: the packet with the entry cache after it, and the plan's list. */
export interface EntryMemory {
  /** The packet buffer (MAX_PACKET bytes), then the cache (capacity × UPDATE_ENTRY). */
  all: Uint8Array;
  /** Per index: 1 while its cached entry is up to date. */
  encoded: Uint8Array;
  entities: EntityTable;
  list: Uint16Array;
  /** What a Stats carries: a score and a ping for each of MAX_PLAYERS. */
  scores: Uint16Array;
  pings: Uint16Array;
  /** The server's counters: the packer counts the Stats, the Update and its entries it wrote, and the packet (sent right after). */
  counters: Uint32Array;
}

/** The packet's unreliable part in C (modules/kernels/loops.c, lw_pack). */
export class NativeEntryPacker implements EntryPacker {
  o = 0;
  k = 0;
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #words: Int32Array;
  readonly #at: number;

  constructor(m: EntryMemory, kernels: Kernels, native: NativeOptions | null) {
    const e = m.entities;
    const b = new Binding(
      NATIVE_LAYOUT.pack,
      {
        entries: m.all, encoded: m.encoded, generation: e.generation, x: e.x, y: e.y, vx: e.vx, vy: e.vy, rot: e.rot, health: e.health,
        list: m.list, scores: m.scores, pings: m.pings, counters: m.counters,
      },
      0, native,
    );
    const w = b.words;
    w[b.scalars + PackWord.MaxPacket] = MAX_PACKET;
    w[b.scalars + PackWord.StepHz] = STEP_HZ;
    w[b.scalars + PackWord.PosShift] = POS_SHIFT;
    w[b.scalars + PackWord.AngleBits] = ANGLE_BITS;
    w[b.scalars + PackWord.Centidegrees] = CENTIDEGREES;
    this.#kernels = kernels;
    this.#b = b;
    this.#words = w;
    this.#at = b.scalars;
  }

  pack(pos: number, n: number, o: number, stats: boolean): number {
    const b = this.#b;
    const next = this.#kernels.pack(b.layout, b.m0, b.m1, b.m2, b.m3, pos, n, o, stats ? 1 : 0);
    this.o = this.#words[this.#at + PackWord.O];
    this.k = this.#words[this.#at + PackWord.K];
    return next;
  }
}
