/**
 * The page's view of spawn protection (web/world.ts, no DOM): a ship the page sees added is
 * guarded for GUARD_MS, and no longer once its player fires, as the server rules it
 * (docs/game.md, "Spawn protection"). The page draws its ring while `guarded` holds.
 */
import assert from "node:assert/strict";
import { Scenario } from "../../harness/scenario";
import type { Client } from "../../modules/client/client";
import { Kind, kindOf } from "../../modules/game/templates";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { GUARD_MS, World } from "../../web/world";

/** The entity index of the ship `owner` flies, as `watcher` knows it; -1 without one. */
function shipOf(watcher: Client, world: World, owner: Client): number {
  for (const i of world.live) if (kindOf(watcher.type[i]) === Kind.Ship && watcher.owner[i] >>> 0 === owner.selfId >>> 0) return i;
  return -1;
}

/** Two players on the in-memory network with the game, idle; b's page watches a's ship appear. */
function match(): { m: Scenario; a: Client; b: Client; wb: World; ship: number; seenAt: number } {
  const m = new Scenario({ players: 2, game: true, social: false });
  const [a, b] = m.clients;
  const wb = new World(b, () => m.net.now);
  let ship = -1;
  for (let t = 0; ship < 0; t += 10) {
    assert.ok(t < 10000, "a's ship reaches b's page");
    m.net.run(10, 10);
    if (m.ready()) ship = shipOf(b, wb, a);
  }
  return { m, a, b, wb, ship, seenAt: m.net.now };
}

describe("web page: spawn protection", function () {
  it("a ship the page sees added is guarded for GUARD_MS, then not", function () {
    const { m, wb, ship, seenAt } = match();
    assert.ok(wb.guarded(ship, m.net.now), "guarded when it appears");
    m.net.run(GUARD_MS - 100, 10);
    assert.ok(wb.guarded(ship, m.net.now), `still guarded ${m.net.now - seenAt} ms after it appeared`);
    m.net.run(200, 10);
    assert.ok(!wb.guarded(ship, m.net.now), `no guard ${m.net.now - seenAt} ms after it appeared`);
  });

  it("its player's first shot ends the guard at once", function () {
    const { m, a, b, wb, ship, seenAt } = match();
    assert.ok(wb.guarded(ship, m.net.now));
    a.setInput(INPUT_SHOOTING);
    let shot = false;
    for (let t = 0; !shot; t += 10) {
      assert.ok(t < 1000, "a's shot reaches b's page");
      m.net.run(10, 10);
      shot = wb.live.some((i) => kindOf(b.type[i]) === Kind.Shot && b.owner[i] >>> 0 === a.selfId >>> 0);
    }
    assert.ok(m.net.now - seenAt < GUARD_MS / 2, "well inside the 2 s");
    assert.ok(!wb.guarded(ship, m.net.now), "the shot ended the guard");
    a.setInput(0);
    m.net.run(GUARD_MS, 10);
    assert.ok(!wb.guarded(ship, m.net.now));
  });
});
