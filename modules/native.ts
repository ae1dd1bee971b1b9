/**
 * Native inner loops: the escape hatch of the style guide, behind one interface.
 *
 * Four loops run for every player on every update tick or entity change: the priority
 * planner's `plan` and `commit`, the packing of Update entries, and the entity sync that
 * queues Adds and Removes; one runs for every projectile on every game step: its flight,
 * its collisions and the sun's pull; and a respawn measures the clearance of up to 24
 * candidate points against every entity. On XS each typed-array access is a few
 * hundred machine instructions, so a platform may implement these in C (one module
 * name per platform: hosts/moddable/kernels.js declares them, hosts/moddable/kernels.c
 * defines them, and tools/xs/lwxs.c builds the same C into our XS test host). A host
 * that has them hands them to the core as `Host.kernels`; without them the core runs its
 * own JavaScript, which stays the reference: the same tests run on both, and a test
 * replays one recorded match through each and compares every byte sent.
 *
 * Calling convention. The C cannot be given a dozen typed arrays per call cheaply, so
 * each user of a kernel builds one `Binding` at start-up: up to four byte views (one per
 * ArrayBuffer its arrays live in) and a layout word array that says, for each array the
 * kernel reads or writes, which view and which byte offset it starts at, followed by
 * scalar parameters and results. A call then passes the layout, the four views and a few
 * integers. The C takes pointers for the length of the call only and allocates nothing.
 */

/** The native functions a host may provide. Each mirrors a JavaScript method named below. */
export interface Kernels {
  /** PriorityPlanner.plan. Returns the count listed. */
  plan(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number): number;
  /** PriorityPlanner.commit. */
  commit(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number, sent: number): void;
  /**
   * The Update entry loop of Server#sendUpdates: encodes the entries not yet encoded and
   * copies them into the packet from `o`, list[pos] onwards, while they fit. Returns the
   * new `pos`; the new packet offset and the entry count are in the layout's results.
   */
  pack(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, pos: number, n: number, o: number): number;
  /**
   * Game#moveShots from list[k], `n` projectiles, `dc` doomed so far. Returns where it
   * stopped; the layout's results say why (done; list[k] hit a ship; list[k] has moved and
   * its pull is the JavaScript's) with the new count and doomed count.
   */
  shots(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, k: number, n: number, dc: number): number;
  /**
   * Server#sync for one player: Removes and Adds for its dirty indices, written into its
   * reliable queue while the queue keeps its line. Returns how many it listed for the
   * planner (the layout's results have the queue's new length, messages, next seqno and
   * why it stopped).
   */
  sync(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number): number;
  /**
   * Server#validate's fast path and the reading of what it passes: for a datagram of
   * `length` bytes in the receive buffer that is an ack alone (returns 1) or an ack and one
   * Input (2), the ack, timestamp and input bits into the layout's results; else 0.
   */
  peek(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, length: number): number;
  /**
   * The entity sync's first step: the indices added or removed since the last (one bit set
   * each) into the dirty bits of each of the first `players` slots that is active, which are
   * marked as having some; the changed set is then cleared.
   */
  merge(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, players: number): void;
  /** PriorityPlanner.applyActions: the first `n` entity sync actions for `slot` (index added, ~index removed). */
  notify(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number, n: number): void;
  /**
   * Game#moveShip for the ship of `slot`, unless it meets the arena's edge or goes far over
   * its speed limit (then it changes nothing and returns 2, and the JavaScript moves it).
   * Returns 1 when the ship touches something or may fire (the layout's results: what it
   * touches, and its heading's cosine and sine), else 0.
   */
  ship(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, slot: number): number;
  /** Game#clearance: how far (wu) the point (x, y) is from a fair spawn point. */
  clearance(layout: Uint8Array, m0: Uint8Array, m1: Uint8Array, m2: Uint8Array, m3: Uint8Array, x: number, y: number): number;
}

/** Any typed array the core keeps its state in. */
export type View = Int32Array | Uint32Array | Int16Array | Uint16Array | Uint8Array;

const VIEWS = 4;

/**
 * The memory a kernel works on: `arrays` (in the order of the kernel's array numbers) and
 * `scalars` words after them. Start-up only: it allocates.
 */
export class Binding {
  /** [view, byte offset] per array, then the scalars. */
  readonly words: Int32Array;
  /** `words` as bytes, as the kernels take it. */
  readonly layout: Uint8Array;
  readonly m0: Uint8Array;
  readonly m1: Uint8Array;
  readonly m2: Uint8Array;
  readonly m3: Uint8Array;
  /** Index of the first scalar word. */
  readonly scalars: number;

  constructor(arrays: readonly View[], scalars: number) {
    const buffers: ArrayBufferLike[] = [];
    this.scalars = 2 * arrays.length;
    this.words = new Int32Array(this.scalars + scalars);
    for (let i = 0; i < arrays.length; i++) {
      const a = arrays[i];
      if ((a.byteOffset & 3) !== 0 && a.BYTES_PER_ELEMENT === 4) throw new RangeError(`binding: array ${i} is not 4-byte aligned`);
      let v = buffers.indexOf(a.buffer);
      if (v < 0) {
        if (buffers.length === VIEWS) throw new RangeError(`binding: more than ${VIEWS} buffers`);
        v = buffers.push(a.buffer) - 1;
      }
      this.words[2 * i] = v;
      this.words[2 * i + 1] = a.byteOffset;
    }
    const views: Uint8Array[] = [];
    // Unused views repeat the first: XS may give an empty buffer no address at all.
    for (let v = 0; v < VIEWS; v++) views.push(v < buffers.length ? new Uint8Array(buffers[v]) : views[0]);
    this.m0 = views[0];
    this.m1 = views[1];
    this.m2 = views[2];
    this.m3 = views[3];
    this.layout = new Uint8Array(this.words.buffer);
  }
}
