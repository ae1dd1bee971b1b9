/** Spawn protection (the guard) and spawn points away from enemies (modules/game/spawn.ts). */
import assert from "node:assert/strict";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { GameCounter } from "../../modules/game/game";
import { RAM_DAMAGE_BASE, SHIP_HP, SHOT_BASE, SPAWN_ENEMY_CLEARANCE, SPAWN_GUARD_STEPS, WEAPON_DAMAGE } from "../../modules/game/templates";
import { joinAndSpawn, makeWorld, ofType, place, steps, xOf, yOf, type World } from "./world";

/** A cannon shot (22 damage) fired by slot 0's ship at slot 1's, 250 wu away; the steps until it is gone. */
function shoot(w: World, a: number, b: number): number {
  place(w, a, 2000, 0, 0, 0, Math.PI / 2);
  place(w, b, 2000, 250, 0, 0, 0);
  w.players.input[0] = INPUT_SHOOTING;
  w.game.step();
  w.players.input[0] = 0;
  const [shot] = ofType(w, SHOT_BASE + 1);
  let t = 0;
  while (w.entities.alive[shot] !== 0 && t++ < 60) w.game.step();
  return t;
}

describe("game spawn protection", function () {
  it("a new ship takes no damage for 2 s: a shot that hits it is spent, and the blow counted as guarded", function () {
    const w = makeWorld({ planets: 0 });
    w.players.weapon[0] = 1;
    const a = joinAndSpawn(w, 0);
    const b = joinAndSpawn(w, 1, true);
    assert.ok(w.game.guarded(1), "the new ship is guarded");
    assert.ok(!w.game.guarded(0), "the test dropped the other one's guard");
    const t = shoot(w, a, b);
    assert.ok(t < 20, `the shot hit after ${t} steps`);
    assert.equal(w.game.hp[1], SHIP_HP[0], "no damage");
    assert.equal(w.entities.health[b], 100);
    assert.equal(w.game.counters[GameCounter.ShotHits], 1);
    assert.equal(w.game.counters[GameCounter.GuardedBlows], 1);
  });

  it("the guard ends 2 s after the spawn: the next shot hurts", function () {
    const w = makeWorld({ planets: 0 });
    w.players.weapon[0] = 1;
    const a = joinAndSpawn(w, 0);
    const b = joinAndSpawn(w, 1, true);
    const until = w.game.guardUntil[1];
    assert.equal(until, w.game.steps + SPAWN_GUARD_STEPS, "the guard lasts SPAWN_GUARD_STEPS after the spawning step");
    steps(w, until - w.game.steps);
    assert.ok(!w.game.guarded(1));
    shoot(w, a, b);
    assert.equal(w.game.hp[1], SHIP_HP[0] - WEAPON_DAMAGE[1]);
    assert.equal(w.game.counters[GameCounter.GuardedBlows], 0);
  });

  it("firing ends the guard at once", function () {
    const w = makeWorld({ planets: 0 });
    w.players.weapon[0] = 1;
    w.players.weapon[1] = 1;
    const a = joinAndSpawn(w, 0);
    const b = joinAndSpawn(w, 1, true);
    place(w, b, -2000, 0, 0, 0, -Math.PI / 2);
    w.players.input[1] = INPUT_SHOOTING;
    w.game.step();
    w.players.input[1] = 0;
    assert.ok(!w.game.guarded(1), "it fired: no guard");
    shoot(w, a, b);
    assert.equal(w.game.hp[1], SHIP_HP[0] - WEAPON_DAMAGE[1]);
  });

  it("a ram hurts only the unguarded ship", function () {
    const w = makeWorld({ planets: 0 });
    const a = joinAndSpawn(w, 0);
    const b = joinAndSpawn(w, 1, true);
    place(w, a, 1000, 1000, 200, 0, 0);
    place(w, b, 1030, 1000, -200, 0, Math.PI);
    steps(w, 3);
    assert.equal(w.game.hp[1], SHIP_HP[0], "guarded");
    assert.ok(w.game.hp[0] <= SHIP_HP[0] - RAM_DAMAGE_BASE, `the other took the ram: ${w.game.hp[0]} hp`);
  });

  it("a new ship spawns at least SPAWN_ENEMY_CLEARANCE from every enemy ship where the arena allows", function () {
    for (let seed = 1; seed <= 20; seed++) {
      const w = makeWorld({ planets: 6 }, seed);
      // Three enemies together on one side of the sun: most of the ring is far from them.
      const enemies = [0, 1, 2].map((s) => joinAndSpawn(w, s));
      place(w, enemies[0], 1500, 0);
      place(w, enemies[1], 1500, 300);
      place(w, enemies[2], 1200, -300);
      const me = joinAndSpawn(w, 3);
      const x = xOf(w, me);
      const y = yOf(w, me);
      for (const e of enemies) {
        const d = Math.hypot(xOf(w, e) - x, yOf(w, e) - y);
        assert.ok(d >= SPAWN_ENEMY_CLEARANCE - 60, `seed ${seed}: spawned ${d.toFixed(0)} wu from an enemy`);
      }
      assert.equal(w.game.counters[GameCounter.CrowdedSpawns], 0, `seed ${seed}: and clear of bodies and projectiles`);
    }
  });
});
