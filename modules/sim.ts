/**
 * The small interfaces between the server and the simulation it hosts. Neither side
 * imports the other: the server drives a `Simulation` and plans Updates around a `Focus`;
 * the game reads and writes the server's per-player `Players` arrays. modules/match.ts
 * wires them together.
 */

/** What the server drives, once per tick and at each join and leave. */
export interface Simulation {
  /** Called once per server tick, before anything is sent. */
  tick(now: number): void;
  playerJoined(slot: number, playerId: number): void;
  /**
   * The player left. The simulation forgets its ship; the server removes every entity the
   * player owns right after this call (one owner of that removal).
   */
  playerLeft(slot: number, playerId: number): void;
  /** [name, bytes] rows of the simulation's own pools, for the memory budget. Allocates. */
  pools?(): Array<[string, number]>;
}

/** Where each player's view is centred, for the server's update planner. */
export interface Focus {
  /** Entity index of the player's own ship, or -1 while it has none. */
  readonly focusIndex: Int32Array;
  /** The own ship's position (position units), kept while the player waits to respawn. */
  readonly focusX: Int32Array;
  readonly focusY: Int32Array;
  /**
   * By entity index, 1 for an entity whose path a client can extrapolate from its last
   * Update (a projectile: no thrust, no turns).
   */
  readonly steady?: Uint8Array;
}

/**
 * Called when a ship is destroyed: `slot` lost it; `killerSlot` is the slot of the player
 * who dealt the last blow (`slot` itself for a suicide), -1 for the environment or a
 * player who has left; `cause` is the template id of what dealt it (the sun, a planet, a
 * projectile, or the ramming ship). Numbers only: it runs inside a step.
 */
export type DeathHook = (slot: number, killerSlot: number, cause: number) => void;

/** The per-player arrays the simulation reads (input, selection) and writes (scores). The server owns them. */
export interface Players {
  /** Newest Input of each player as INPUT_* bits (modules/protocol/codec.ts). */
  readonly input: Uint8Array;
  readonly ship: Uint8Array;
  readonly weapon: Uint8Array;
  /**
   * 1 once the server has accepted a Selection from the player since it joined (a server
   * bot from the start), else 0: a newcomer's first ship waits for it, at most 1 s.
   */
  readonly selected: Uint8Array;
  readonly scores: Uint16Array;
}
