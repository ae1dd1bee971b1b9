/**
 * The Update entry loop of UpdateWriter (update-writer.ts), behind one interface with two
 * implementations: the JavaScript (the reference) and the native kernel `pack`
 * (modules/native.ts). The server picks one at start-up; the call site never branches.
 *
 * Entries live in a cache after the packet buffer, one UPDATE_ENTRY per entity index, and
 * are encoded once per change (the `encoded` flags; the writer clears them when the
 * entities change in place, and writes an entry's id when its entity is added). A plan's
 * entries are copied from the cache into the packet; consecutive indices lie side by side
 * there, so each run of them is one copy.
 */
import type { EntityTable } from "../game/entities";
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { PackWord } from "../native-words";
import { MAX_PACKET, UPDATE_ENTRY } from "../protocol/constants";
import { writeUpdateEntry } from "../protocol/codec";
import { ANGLE_BITS, ANGLE_MASK, CENTIDEGREES, POS_SHIFT, STEP_HZ } from "../units";

const POS_HALF = 1 << (POS_SHIFT - 1);
const ANGLE_HALF = 1 << (ANGLE_BITS - 1);

export interface EntryPacker {
  /**
   * Entries list[pos], list[pos + 1], ... (up to `n`) into the packet from offset `o`
   * while they fit (and at most 255). Returns the new `pos`; `o` and `k` (entries
   * written) are then in the fields below.
   */
  pack(pos: number, n: number, o: number): number;
  o: number;
  k: number;
}

/** What both implementations work on: the packet with the entry cache after it, and the plan's list. */
export interface EntryMemory {
  /** The packet buffer (MAX_PACKET bytes), then the cache (capacity × UPDATE_ENTRY). */
  all: Uint8Array;
  /** Per index: 1 while its cached entry is up to date. */
  encoded: Uint8Array;
  entities: EntityTable;
  list: Uint16Array;
}

export class JsEntryPacker implements EntryPacker {
  o = 0;
  k = 0;
  readonly #m: EntryMemory;

  constructor(m: EntryMemory) {
    this.#m = m;
  }

  pack(pos: number, n: number, o: number): number {
    const m = this.#m;
    const all = m.all;
    const encoded = m.encoded;
    const list = m.list;
    const e = m.entities;
    const room = MAX_PACKET - UPDATE_ENTRY;
    let k = 0;
    while (pos < n && o <= room && k < 255) {
      const first = list[pos];
      let i = first;
      const start = o;
      do {
        // The entry after a change: fixed point to wire units (modules/units.ts), rounded
        // half up; the codec clamps and writes it.
        if (encoded[i] === 0) {
          writeUpdateEntry(
            all, MAX_PACKET + i * UPDATE_ENTRY, e.id(i),
            (e.x[i] + POS_HALF) >> POS_SHIFT, (e.y[i] + POS_HALF) >> POS_SHIFT,
            (e.vx[i] * STEP_HZ + POS_HALF) >> POS_SHIFT, (e.vy[i] * STEP_HZ + POS_HALF) >> POS_SHIFT,
            ((e.rot[i] & ANGLE_MASK) * CENTIDEGREES + ANGLE_HALF) >> ANGLE_BITS, e.health[i],
          );
          encoded[i] = 1;
        }
        pos++;
        i++;
        o += UPDATE_ENTRY;
        k++;
      } while (pos < n && list[pos] === i && o <= room && k < 255);
      all.copyWithin(start, MAX_PACKET + first * UPDATE_ENTRY, MAX_PACKET + i * UPDATE_ENTRY);
    }
    this.o = o;
    this.k = k;
    return pos;
  }
}

/** The same loop in C (hosts/moddable/kernels.c, xs_lwar_pack). */
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
      { entries: m.all, encoded: m.encoded, x: e.x, y: e.y, vx: e.vx, vy: e.vy, rot: e.rot, health: e.health, list: m.list },
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

  pack(pos: number, n: number, o: number): number {
    const b = this.#b;
    const next = this.#kernels.pack(b.layout, b.m0, b.m1, b.m2, b.m3, pos, n, o);
    this.o = this.#words[this.#at + PackWord.O];
    this.k = this.#words[this.#at + PackWord.K];
    return next;
  }
}
