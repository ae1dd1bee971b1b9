import assert from "node:assert/strict";
import { INPUT_LEFT, INPUT_SHOOTING } from "../../modules/protocol/codec";
import type { EntityListener } from "../../modules/game/entities";
import { GameCounter } from "../../modules/game/game";
import { SHIP_BASE, SHOT_BASE } from "../../modules/game/templates";
import { joinAndSpawn, makeWorld } from "./world";

describe("game pool exhaustion", function () {
  for (const capacity of [192, 64]) {
    it(`8 players holding fire for a minute stay within ${capacity} entities, never throw, and count the dropped shots`, function () {
      const w = makeWorld({ maxEntities: capacity }, 11);
      const g = w.game;
      const e = w.entities;
      let adds = 0;
      let removes = 0;
      const listener: EntityListener = { entityAdded: () => adds++, entityRemoved: () => removes++ };
      e.listener = listener;
      const bodies = g.bodies;
      for (let s = 0; s < 8; s++) {
        w.players.weapon[s] = 0;
        joinAndSpawn(w, s);
      }
      const poolBytes = g.pools().reduce((n, [, b]) => n + b, 0);
      for (let s = 0; s < 8; s++) w.players.input[s] = INPUT_SHOOTING | (s % 2 === 0 ? INPUT_LEFT : 0);
      let full = 0;
      for (let t = 0; t < 60 * 30; t++) {
        g.step();
        assert.ok(e.count <= capacity);
        assert.ok(g.shots <= g.shotCapacity, `${g.shots} shots`);
        if (g.shots === g.shotCapacity) full++;
        // Every present player has a ship or a respawn coming.
        for (let s = 0; s < 8; s++) assert.ok(g.focusIndex[s] >= 0 || g.respawnStep[s] > g.steps - 1);
      }
      assert.equal(g.shotCapacity, capacity - bodies - 8);
      assert.ok(full > 0, `pool full in ${full} steps`);
      const fired = g.counters[GameCounter.ShotsFired];
      const dropped = g.counters[GameCounter.ShotsDropped];
      assert.ok(dropped > 0 && fired > 0, `${fired} fired, ${dropped} dropped`);
      // Every shot fired took an entity; every spawn too; nothing else was added.
      assert.equal(adds, fired + g.counters[GameCounter.Spawns]);
      assert.equal(e.count, bodies + adds - removes);
      let shots = 0;
      let ships = 0;
      for (let i = 0; i < capacity; i++) {
        if (e.alive[i] === 0) continue;
        if (e.type[i] >= SHOT_BASE) shots++;
        else if (e.type[i] >= SHIP_BASE) ships++;
      }
      assert.equal(shots, g.shots);
      assert.ok(ships <= 8);
      assert.equal(g.pools().reduce((n, [, b]) => n + b, 0), poolBytes, "nothing grew");
    });
  }

  it("a pool too small for the sun, the planets and every ship is a config error", function () {
    assert.throws(() => makeWorld({ maxEntities: 1 + 6 + 8 }), /maxEntities must be at least 16/);
    assert.doesNotThrow(() => makeWorld({ maxEntities: 16 }));
  });
});
