/**
 * The fuzzer's mutations, host-free: the in-process fuzzer (core.ts, on Node and XS) and the
 * fuzzing relay (relay.ts, real UDP) make their mutants with the same code.
 *
 * A `Mutator` changes a packet copied into its `buffer` one to four times: bit flips, random
 * and boundary bytes, truncation, extension (also past 512 bytes), copied ranges, splices
 * with a packet of a `Corpus`, new message counts, types and timestamps, and, given what
 * the target would take, acks and seqnos. A third of the mutants are gentle: one or two
 * changes that keep the packet's shape, so that most of them get past validation.
 */
import { HEADER_SIZE, MAX_PACKET, RELIABLE_HEADER } from "../../modules/protocol/constants";
import type { Random } from "../../modules/random";
import { HEADER_ACK, HEADER_REL, HEADER_TIMESTAMP, HEADER_UNREL } from "../../modules/transport/frame";

/** Room for a mutant: past 512 bytes, so oversized ones are tried too. */
export const MUTANT_ROOM = 640;
/** Packets a corpus keeps, unless told otherwise. */
export const CORPUS_SIZE = 96;

/** The kinds of mutation, as bit indices of `Mutator.kinds`. */
export const Mutation = Object.freeze({
  Bit: 0,
  Byte: 1,
  Boundary: 2,
  Truncate: 3,
  Extend: 4,
  Copy: 5,
  Splice: 6,
  Counts: 7,
  Ack: 8,
  Seqno: 9,
  Timestamp: 10,
  Type: 11,
  Id: 12,
} as const);

/** Names of the kinds, in bit order. */
export const MUTATION_NAMES: readonly string[] = Object.freeze([
  "bit", "byte", "boundary", "truncate", "extend", "copy", "splice", "counts", "ack", "seqno", "timestamp", "type", "id",
]);
export const MUTATION_COUNT = MUTATION_NAMES.length;

/** Bytes worth trying: boundaries, and every message type. */
const INTERESTING = Object.freeze([0, 1, 2, 0x7f, 0x80, 0xfe, 0xff, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 200, 201, 202, 203, 204, 205]);

/** Mutations that keep a packet's shape: a bit, an ack, a seqno, a timestamp, an id. */
const GENTLE = Object.freeze([0, 8, 9, 9, 10, 12, 12]);

/** A ring of valid packets of one direction. */
export class Corpus {
  readonly size: number;
  readonly bytes: Uint8Array;
  readonly length: Uint16Array;
  /** Slot has reliable messages. */
  readonly reliable: Uint8Array;
  count = 0;
  #next = 0;
  constructor(size = CORPUS_SIZE) {
    this.size = size;
    this.bytes = new Uint8Array(size * MAX_PACKET);
    this.length = new Uint16Array(size);
    this.reliable = new Uint8Array(size);
  }
  add(b: Uint8Array, n: number): void {
    const k = this.#next;
    this.#next = (k + 1) % this.size;
    if (this.count < this.size) this.count++;
    const base = k * MAX_PACKET;
    for (let i = 0; i < n; i++) this.bytes[base + i] = b[i];
    this.length[k] = n;
    this.reliable[k] = b[HEADER_REL] !== 0 ? 1 : 0;
  }
}

export class Mutator {
  /** The mutant: copy a packet in, call `mutate`, send the bytes it returns the length of. */
  readonly buffer = new Uint8Array(MUTANT_ROOM);
  /** The kinds of the last `mutate` that changed something, one bit each (`Mutation`). */
  kinds = 0;
  /** The last `mutate` was gentle. */
  gentle = false;
  readonly #rng: Random;

  constructor(rng: Random) {
    this.#rng = rng;
  }

  /**
   * 1..4 mutations of the `n` bytes in `buffer`; returns the new length. `from` lends
   * splices their tails. `ack` and `next` are what the target would take: the newest
   * seqno it sent the sender (an ack of it is good), and the seqno it expects next;
   * `timestamp` is the newest it applied.
   */
  mutate(n: number, from: Corpus, ack: number, next: number, timestamp: number): number {
    const rng = this.#rng;
    const m = this.buffer;
    let kinds = 0;
    const gentle = rng.next() < 0.33;
    this.gentle = gentle;
    for (let times = gentle ? 1 + rng.below(2) : 1 + rng.below(4); times > 0; times--) {
      switch (gentle ? GENTLE[rng.below(GENTLE.length)] : rng.below(13)) {
        case 0: {
          if (n === 0) break;
          const bit = rng.below(n * 8);
          m[bit >> 3] ^= 1 << (bit & 7);
          kinds |= 1 << Mutation.Bit;
          break;
        }
        case 1:
          if (n > 0) {
            m[rng.below(n)] = rng.below(256);
            kinds |= 1 << Mutation.Byte;
          }
          break;
        case 2:
          if (n > 0) {
            m[rng.below(n)] = INTERESTING[rng.below(INTERESTING.length)];
            kinds |= 1 << Mutation.Boundary;
          }
          break;
        case 3:
          n = rng.below(n + 1);
          kinds |= 1 << Mutation.Truncate;
          break;
        case 4: {
          // Mostly a few bytes; now and then past 512.
          const more = rng.next() < 0.08 ? MAX_PACKET + 1 - n + rng.below(MUTANT_ROOM - MAX_PACKET) : 1 + rng.below(24);
          const zero = rng.next() < 0.3;
          for (let i = 0; i < more && n < MUTANT_ROOM; i++) m[n++] = zero ? 0 : rng.below(256);
          kinds |= 1 << Mutation.Extend;
          break;
        }
        case 5: {
          // Copy a range over another place.
          if (n < 2) break;
          const a = rng.below(n);
          const b = rng.below(n);
          const len = 1 + rng.below(Math.min(32, n - (a > b ? a : b)));
          m.copyWithin(b, a, a + len);
          kinds |= 1 << Mutation.Copy;
          break;
        }
        case 6: {
          // Splice: keep our head, take another packet's tail.
          if (from.count === 0 || n < HEADER_SIZE) break;
          const k = rng.below(from.count);
          const other = from.length[k];
          const cut = HEADER_SIZE + rng.below(n - HEADER_SIZE + 1);
          const start = HEADER_SIZE + rng.below(Math.max(1, other - HEADER_SIZE));
          let o = cut;
          for (let i = start; i < other && o < MUTANT_ROOM; i++) m[o++] = from.bytes[k * MAX_PACKET + i];
          n = o;
          kinds |= 1 << Mutation.Splice;
          break;
        }
        case 7:
          if (n >= HEADER_SIZE) {
            if (rng.next() < 0.5) m[HEADER_REL] = rng.below(rng.next() < 0.2 ? 256 : 4);
            else m[HEADER_UNREL] = rng.below(rng.next() < 0.2 ? 256 : 4);
            kinds |= 1 << Mutation.Counts;
          }
          break;
        case 8:
          // An ack the target would take, or one just past it.
          if (n >= HEADER_SIZE) {
            put(m, HEADER_ACK, rng.next() < 0.7 ? ack : rng.next() < 0.5 ? (ack + 1) >>> 0 : rng.nextU32());
            kinds |= 1 << Mutation.Ack;
          }
          break;
        case 9:
          // The first reliable message gets the seqno the target expects (or a neighbour).
          if (n >= HEADER_SIZE + RELIABLE_HEADER && m[HEADER_REL] > 0) {
            put(m, HEADER_SIZE, (next + (rng.next() < 0.7 ? 0 : rng.below(3) - 1)) >>> 0);
            kinds |= 1 << Mutation.Seqno;
          }
          break;
        case 10:
          // Timestamps: the newest applied, just after, far ahead, far behind, anything.
          if (n >= HEADER_SIZE) {
            const r = rng.below(5);
            put(m, HEADER_TIMESTAMP, r === 0 ? timestamp : r === 1 ? (timestamp + 1) >>> 0 : r === 2 ? (timestamp + 0x40000000) >>> 0 : r === 3 ? (timestamp - 0x40000000) >>> 0 : rng.nextU32());
            kinds |= 1 << Mutation.Timestamp;
          }
          break;
        case 11:
          // A message's type byte, when the packet still parses far enough to find one.
          if (n > HEADER_SIZE) {
            m[m[HEADER_REL] > 0 ? HEADER_SIZE + RELIABLE_HEADER - 1 : HEADER_SIZE] = INTERESTING[rng.below(INTERESTING.length)];
            kinds |= 1 << Mutation.Type;
          }
          break;
        default: {
          // A whole random id in the first payload: a player id of slot 0..7 of some generation.
          const o = m[HEADER_REL] > 0 ? HEADER_SIZE + RELIABLE_HEADER : HEADER_SIZE + 1;
          if (n >= o + 4) {
            put(m, o, (((1 + rng.below(3)) << 16) | rng.below(9)) >>> 0);
            kinds |= 1 << Mutation.Id;
          }
          break;
        }
      }
    }
    this.kinds = kinds;
    return n;
  }
}

function put(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = (v >>> 16) & 0xff;
  b[o + 2] = (v >>> 8) & 0xff;
  b[o + 3] = v & 0xff;
}
