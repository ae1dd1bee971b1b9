/**
 * Chooses, per client and update tick, which entities go into its Update messages and
 * in what order. This default plan is a fair round robin over the entities the client
 * has been sent an Add for; the server sends as many as fit under its packet cap and
 * reports back how many went out.
 */
import type { EntityTable } from "../game/entities";

export interface UpdatePlanner {
  /**
   * Write candidate entity indices for `slot` into `list`, best first; return the count.
   * `synced` is the client's sync cursor: only indices below it may be sent.
   */
  plan(slot: number, synced: number, list: Uint16Array, now: number): number;
  /** The first `sent` entries of the last plan for `slot` went out. */
  commit(slot: number, list: Uint16Array, sent: number, now: number): void;
}

export class RoundRobinPlanner implements UpdatePlanner {
  readonly #entities: EntityTable;
  readonly #cursor: Uint16Array;

  constructor(entities: EntityTable, maxPlayers: number) {
    this.#entities = entities;
    this.#cursor = new Uint16Array(maxPlayers);
  }

  plan(slot: number, synced: number, list: Uint16Array, _now: number): number {
    const e = this.#entities;
    const cap = e.capacity;
    const start = this.#cursor[slot] < cap ? this.#cursor[slot] : 0;
    let n = 0;
    for (let k = 0; k < cap; k++) {
      let i = start + k;
      if (i >= cap) i -= cap;
      if (i < synced && e.alive[i] !== 0) list[n++] = i;
    }
    return n;
  }

  commit(slot: number, list: Uint16Array, sent: number, _now: number): void {
    if (sent > 0) this.#cursor[slot] = list[sent - 1] + 1;
  }
}
