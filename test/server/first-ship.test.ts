/**
 * The truthful join (server side): a newcomer's first ship spawns once its first Selection
 * has arrived, or JOIN_SPAWN_STEPS (1 s) after its Join, whichever comes first
 * (docs/protocol.md, "The first ship"). Real clients over the in-memory network, a real
 * game; what the client sees is read from the Adds it applies.
 */
import assert from "node:assert/strict";
import { type Client, ClientState, type ClientListener } from "../../modules/client/client";
import type { Game } from "../../modules/game/game";
import { JOIN_SPAWN_STEPS, SHIP_BASE } from "../../modules/game/templates";
import { STEP_HZ } from "../../modules/units";
import { Msg } from "../../modules/protocol/constants";
import { Fields, readAdd } from "../../modules/protocol/codec";
import { TestMatch } from "../../harness/match";

/** The Adds a client applies, as [owner, typeId, ms on the network's clock]. */
class Adds implements ClientListener {
  readonly seen: Array<[number, number, number]> = [];
  readonly #f = new Fields();
  constructor(readonly m: TestMatch) {}
  reliable(_c: Client, type: number, _seq: number, b: Uint8Array, o: number): void {
    if (type !== Msg.Add) return;
    readAdd(b, o, this.#f);
    this.seen.push([this.#f.other, this.#f.a, this.m.net.now]);
  }
  unreliable(): void {}
  /** The first Add of a ship owned by `id`: [typeId, ms], or null. */
  firstShip(id: number): [number, number] | null {
    for (const [owner, type, at] of this.seen) if (owner === id && type >= SHIP_BASE && type < SHIP_BASE + 4) return [type, at];
    return null;
  }
}

/**
 * Run until the player in `slot` has its first ship (at most 3 s); returns the game's step
 * at which the slot joined (the game heard of it) and the step at which its ship appeared.
 */
function untilFirstShip(m: TestMatch, game: Game, slot: number): { joined: number; spawned: number } {
  let joined = -1;
  let spawned = -1;
  m.until(() => {
    if (joined < 0 && game.present[slot] !== 0) joined = game.steps;
    if (spawned < 0 && game.focusIndex[slot] >= 0) spawned = game.steps;
    return spawned >= 0;
  }, 3000);
  assert.ok(joined >= 0 && spawned >= 0, `slot ${slot}: joined at step ${joined}, spawned at ${spawned}`);
  return { joined, spawned };
}

/** A client that joins as `name` flying (ship, weapon), with an Add recorder; connected. */
function joinAs(m: TestMatch, name: string, ship: number, weapon: number): { c: Client; adds: Adds } {
  const c = m.client();
  const adds = new Adds(m);
  c.listener = adds;
  assert.equal(c.joinAs(name, ship, weapon), true);
  c.connect();
  assert.ok(m.until(() => c.state === ClientState.Connected, 2000));
  return { c, adds };
}

describe("server: a newcomer's first ship", function () {
  it("comes with the Selection sent with the Join's acknowledgement, of the chosen ship and weapon", function () {
    const m = new TestMatch({}, { seed: 3, delayMs: 5, jitterMs: 2 });
    const game = m.withGame(11, null);
    m.join();
    m.run(200);
    const { c, adds } = joinAs(m, "Ana", 2, 1);
    const slot = c.selfSlot;
    const { joined, spawned } = untilFirstShip(m, game, slot);
    assert.equal(m.server.selected[slot], 1);
    // A round trip on a 5 ms link and the next step, far sooner than the 1 s fallback.
    assert.ok(spawned - joined < JOIN_SPAWN_STEPS / 3, `spawned ${spawned - joined} steps after joining`);
    const i = game.focusIndex[slot];
    assert.equal(m.server.entities.type[i], SHIP_BASE + 2);
    assert.equal(game.shipType[slot], 2);
    assert.equal(game.weaponType[slot], 1);
    // The client's first ship, as it learns of it, is the one it picked.
    m.run(300);
    const first = adds.firstShip(c.selfId);
    assert.ok(first !== null, "the client got the Add of its ship");
    assert.equal(first[0], SHIP_BASE + 2);
  });

  it("comes 1 s after the Join, with the defaults, when no Selection arrives", function () {
    const m = new TestMatch({}, { seed: 4, delayMs: 5, jitterMs: 2 });
    const game = m.withGame(12, null);
    // Someone else selecting does not hurry our ship.
    joinAs(m, "Bo", 3, 2);
    m.run(200);
    const c = m.client();
    const adds = new Adds(m);
    c.listener = adds;
    c.connect();
    assert.ok(m.until(() => c.state === ClientState.Connected, 2000));
    const slot = c.selfSlot;
    const { joined, spawned } = untilFirstShip(m, game, slot);
    assert.equal(m.server.selected[slot], 0);
    assert.equal(JOIN_SPAWN_STEPS, STEP_HZ);
    assert.equal(spawned - joined, JOIN_SPAWN_STEPS);
    assert.equal(m.server.entities.type[game.focusIndex[slot]], SHIP_BASE);
    assert.equal(game.weaponType[slot], 0);
    m.run(300);
    const first = adds.firstShip(c.selfId);
    assert.ok(first !== null, "the client got the Add of its ship");
    assert.equal(first[0], SHIP_BASE);
  });

  it("counts only an accepted Selection: one out of range leaves the ship to the 1 s rule", function () {
    const m = new TestMatch({}, { seed: 5, delayMs: 5, jitterMs: 2 });
    const game = m.withGame(13, null);
    const c = m.client();
    // Ship type 9 is beyond the configured types: the server drops it (badSelection).
    c.joinAs("Cy", 9, 0);
    c.connect();
    assert.ok(m.until(() => c.state === ClientState.Connected, 2000));
    const slot = c.selfSlot;
    const { joined, spawned } = untilFirstShip(m, game, slot);
    assert.equal(m.server.selected[slot], 0);
    assert.equal(spawned - joined, JOIN_SPAWN_STEPS);
    assert.equal(m.server.entities.type[game.focusIndex[slot]], SHIP_BASE);
  });

  it("a Selection after the first ship changes nothing about the ship in flight", function () {
    const m = new TestMatch({}, { seed: 6, delayMs: 5, jitterMs: 2 });
    const game = m.withGame(14, null);
    const { c } = joinAs(m, "Di", 1, 0);
    const slot = c.selfSlot;
    untilFirstShip(m, game, slot);
    assert.equal(m.server.entities.type[game.focusIndex[slot]], SHIP_BASE + 1);
    assert.equal(c.select(3, 1), true);
    m.run(200);
    assert.equal(m.server.entities.type[game.focusIndex[slot]], SHIP_BASE + 1);
    assert.equal(game.shipType[slot], 1);
  });
});
