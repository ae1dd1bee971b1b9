import assert from "node:assert/strict";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { GameCounter } from "../../modules/game/game";
import {
  PLANET_DAMAGE_BASE, RAM_DAMAGE_BASE, RESPAWN_STEPS, SHIP_BASE, SHIP_HP, SHOT_ARM_STEPS, SHOT_BASE, TEMPLATE_RADIUS,
  WEAPON_DAMAGE, WEAPON_LIFE,
} from "../../modules/game/templates";
import { joinAndSpawn, makeWorld, ofType, place, playerIdOf, radiusOf, steps, vxOf, vyOf, xOf, yOf, type World } from "./world";

/** Two ships, A (slot 0) and B (slot 1), far from the sun, no planets. */
function duel(weaponA = 0): { w: World; a: number; b: number } {
  const w = makeWorld({ planets: 0 });
  w.players.weapon[0] = weaponA;
  const a = joinAndSpawn(w, 0);
  const b = joinAndSpawn(w, 1);
  return { w, a, b };
}

/** Hold the trigger for one step. */
function fire(w: World, slot: number): void {
  w.players.input[slot] = INPUT_SHOOTING;
  w.game.step();
  w.players.input[slot] = 0;
}

describe("game combat", function () {
  it("a projectile damages the ship it hits and disappears", function () {
    const { w, a, b } = duel(1);
    place(w, a, 2000, 0, 0, 0, Math.PI / 2);
    place(w, b, 2000, 250, 0, 0, 0);
    fire(w, 0);
    const [shot] = ofType(w, SHOT_BASE + 1);
    assert.equal(w.entities.owner[shot], playerIdOf(0), "the shot belongs to its shooter");
    let t = 0;
    while (w.entities.alive[shot] !== 0 && t++ < 60) w.game.step();
    assert.ok(t < 20, `hit after ${t} steps`);
    assert.equal(w.game.hp[1], SHIP_HP[0] - WEAPON_DAMAGE[1]);
    assert.equal(w.entities.health[b], Math.ceil(((SHIP_HP[0] - WEAPON_DAMAGE[1]) * 100) / SHIP_HP[0]));
    assert.equal(w.game.hp[0], SHIP_HP[0], "the shooter is untouched");
    assert.equal(w.entities.health[a], 100);
    assert.equal(w.game.counters[GameCounter.ShotHits], 1);
    assert.equal(w.game.shots, 0);
  });

  it("a projectile at 1500 wu/s (50 wu a step) cannot pass through a ship 26 wu across; a near miss misses", function () {
    // Pulse (radius 3) against an interceptor (radius 10): contact within 13 wu of its path.
    for (const [offset, hits] of [[0, true], [12, true], [-12, true], [14, false], [-14, false]] as const) {
      for (let phase = 0; phase < 50; phase += 7) {
        const { w, a, b } = duel(0);
        place(w, a, -2000, -1500, 0, 0, 0);
        fire(w, 0);
        const [shot] = ofType(w, SHOT_BASE);
        // Along +y at 1500 wu/s, starting `phase` wu further on, past B at x + offset.
        place(w, shot, 1500 + offset, -400 + phase, 0, 1500);
        place(w, b, 1500, 0, 0, 0, 0);
        const hp = w.game.hp[1];
        steps(w, 14);
        assert.equal(w.game.hp[1] < hp, hits, `offset ${offset}, phase ${phase}: hp ${w.game.hp[1]}`);
      }
    }
  });

  it("a projectile lives for its weapon's lifetime", function () {
    for (const weapon of [0, 1, 2]) {
      const { w, a, b } = duel(weapon);
      place(w, a, -1100, 2200, 0, 0, 0);
      place(w, b, 0, -2500, 0, 0, 0);
      fire(w, 0);
      const [shot] = ofType(w, SHOT_BASE + weapon);
      assert.notEqual(shot, undefined);
      const id = w.entities.id(shot);
      // The firing step counts as the first of its life.
      steps(w, WEAPON_LIFE[weapon] - 2);
      assert.equal(w.entities.indexOf(id), shot, `weapon ${weapon} still flying`);
      w.game.step();
      assert.equal(w.entities.indexOf(id), -1, `weapon ${weapon} expired`);
      assert.equal(w.game.counters[GameCounter.ShotHits], 0);
    }
  });

  it("ships that collide both take damage and bounce apart, the lighter one more", function () {
    const { w, a, b } = duel();
    place(w, a, 1990, 1000, 150, 0, 0);
    place(w, b, 2030, 1000, -150, 0, Math.PI);
    steps(w, 3);
    assert.equal(w.game.counters[GameCounter.Rams], 1);
    assert.ok(w.game.hp[0] < SHIP_HP[0] - RAM_DAMAGE_BASE, `A hp ${w.game.hp[0]}`);
    assert.equal(w.game.hp[0], w.game.hp[1], "equal damage");
    // About 300 wu/s closing (gravity adds a little): 6 + 0.05 × the closing speed, rounded down.
    const dmg = SHIP_HP[0] - w.game.hp[0];
    assert.ok(dmg === RAM_DAMAGE_BASE + 14 || dmg === RAM_DAMAGE_BASE + 15, `damage ${dmg}`);
    assert.ok(w.entities.vx[b] - w.entities.vx[a] > 0, "separating");
    assert.ok(xOf(w, b) - xOf(w, a) >= 2 * TEMPLATE_RADIUS[SHIP_BASE] - 1e-3, "no overlap");

    // A cruiser hitting an interceptor barely slows; the interceptor is thrown back.
    const h = makeWorld({ planets: 0 });
    h.players.ship[0] = 2;
    const c = joinAndSpawn(h, 0);
    const d = joinAndSpawn(h, 1);
    place(h, c, 1980, 1000, 150, 0, 0);
    place(h, d, 2030, 1000, -150, 0, Math.PI);
    steps(h, 3);
    assert.equal(h.game.counters[GameCounter.Rams], 1);
    assert.ok(vxOf(h, c) > 0, `cruiser keeps going (${vxOf(h, c)})`);
    assert.ok(vxOf(h, d) > 150, `interceptor thrown back (${vxOf(h, d)})`);
  });

  it("a planet bounces a ship off and damages it", function () {
    const w = makeWorld({ planets: 1 });
    const g = w.game;
    const e = w.entities;
    const s = joinAndSpawn(w, 0);
    const p = g.bodyIndex[1];
    const reach = TEMPLATE_RADIUS[e.type[p]] + TEMPLATE_RADIUS[e.type[s]];
    // Approach the planet along the line from the sun, at 200 wu/s relative to it.
    const r = radiusOf(w, p);
    const nx = xOf(w, p) / r;
    const ny = yOf(w, p) / r;
    place(w, s, xOf(w, p) + nx * (reach + 8), yOf(w, p) + ny * (reach + 8), vxOf(w, p) - nx * 200, vyOf(w, p) - ny * 200, 0);
    steps(w, 4);
    assert.equal(g.counters[GameCounter.PlanetHits], 1);
    assert.ok(g.hp[0] <= SHIP_HP[0] - PLANET_DAMAGE_BASE && g.hp[0] > 0, `hp ${g.hp[0]}`);
    const dx = xOf(w, s) - xOf(w, p);
    const dy = yOf(w, s) - yOf(w, p);
    const d = Math.hypot(dx, dy);
    assert.ok(d >= reach - 1e-3, "outside the planet");
    const vn = ((vxOf(w, s) - vxOf(w, p)) * dx + (vyOf(w, s) - vyOf(w, p)) * dy) / d;
    assert.ok(vn > 50, `moving away at ${vn}`);
    assert.equal(g.counters[GameCounter.EnvironmentDeaths], 0);
  });

  it("projectiles vanish in the sun and in planets without hurting anyone", function () {
    const w = makeWorld({ planets: 1 });
    const g = w.game;
    const e = w.entities;
    const a = joinAndSpawn(w, 0);
    place(w, a, 600, 0, 0, 0, Math.PI);
    fire(w, 0);
    const [intoSun] = ofType(w, SHOT_BASE);
    steps(w, 30);
    assert.equal(e.alive[intoSun] !== 0 && e.type[intoSun] === SHOT_BASE, false, "absorbed by the sun");
    const p = g.bodyIndex[1];
    const r = radiusOf(w, p);
    // Riding along with the planet, 150 wu out, nose at its centre.
    place(w, a, xOf(w, p) * (1 + 150 / r), yOf(w, p) * (1 + 150 / r), vxOf(w, p), vyOf(w, p), Math.atan2(-yOf(w, p), -xOf(w, p)));
    fire(w, 0);
    const [intoPlanet] = ofType(w, SHOT_BASE);
    steps(w, 20);
    assert.equal(e.alive[intoPlanet] !== 0 && e.type[intoPlanet] === SHOT_BASE, false, "absorbed by the planet");
    assert.equal(g.counters[GameCounter.ShotHits], 0);
    assert.equal(g.hp[0], SHIP_HP[0]);
  });

  it("the sun kills on contact: no score, and the player respawns 2 s later with full health", function () {
    const { w, a } = duel();
    const g = w.game;
    const oldId = w.entities.id(a);
    place(w, a, 165, 0, -200, 0, 0);
    w.game.step();
    const died = g.steps;
    assert.equal(w.entities.indexOf(oldId), -1, "removed");
    assert.equal(g.focusIndex[0], -1);
    assert.equal(g.deaths[0], 1);
    assert.equal(g.counters[GameCounter.EnvironmentDeaths], 1);
    assert.deepEqual(Array.from(w.players.scores), [0, 0, 0, 0, 0, 0, 0, 0], "nobody scores, nothing goes below 0");
    steps(w, RESPAWN_STEPS - 1);
    assert.equal(g.focusIndex[0], -1, "still waiting");
    w.game.step();
    assert.equal(g.steps - died, RESPAWN_STEPS);
    const again = g.focusIndex[0];
    assert.ok(again >= 0, "respawned");
    assert.notEqual(w.entities.id(again), oldId);
    assert.equal(g.hp[0], SHIP_HP[0]);
    assert.equal(w.entities.health[again], 100);
    assert.equal(w.entities.owner[again], playerIdOf(0));
  });

  it("a kill by a projectile scores for its shooter", function () {
    const { w, a, b } = duel(2);
    place(w, a, 2000, 0, 0, 0, Math.PI / 2);
    place(w, b, 2000, 200, 0, 0, 0);
    w.game.hp[1] = 5;
    fire(w, 0);
    steps(w, 20);
    assert.equal(w.game.deaths[1], 1);
    assert.equal(w.game.kills[0], 1);
    assert.equal(w.players.scores[0], 1);
    assert.equal(w.players.scores[1], 0);
    assert.equal(w.game.counters[GameCounter.Kills], 1);
    assert.equal(w.game.focusIndex[1], -1, "B waits to respawn");
  });

  it("a kill by ramming scores for the rammer, and both can die", function () {
    const { w, a, b } = duel();
    place(w, a, 1990, 1000, 200, 0, 0);
    place(w, b, 2030, 1000, -200, 0, Math.PI);
    w.game.hp[0] = 3;
    w.game.hp[1] = 3;
    steps(w, 3);
    assert.equal(w.game.counters[GameCounter.Kills], 2);
    assert.deepEqual(Array.from(w.players.scores.subarray(0, 2)), [1, 1]);
  });

  it("a suicide costs nothing and scores nothing; a fresh shot cannot hit its own ship", function () {
    const { w, a } = duel(1);
    place(w, a, 2000, 0, 0, 0, Math.PI / 2);
    fire(w, 0);
    const [shot] = ofType(w, SHOT_BASE + 1);
    // Still arming: the ship can sit right in its path.
    place(w, a, xOf(w, shot), yOf(w, shot) + 20, 0, 0, 0);
    w.game.step();
    assert.equal(w.game.hp[0], SHIP_HP[0], "no damage while arming");
    assert.ok(SHOT_ARM_STEPS < 20);
    steps(w, SHOT_ARM_STEPS);
    w.game.hp[0] = 5;
    place(w, a, xOf(w, shot) + vxOf(w, shot) / 15, yOf(w, shot) + vyOf(w, shot) / 15, 0, 0, 0);
    steps(w, 4);
    assert.equal(w.game.deaths[0], 1);
    assert.equal(w.game.counters[GameCounter.Suicides], 1);
    assert.equal(w.game.counters[GameCounter.Kills], 0);
    assert.deepEqual(Array.from(w.players.scores.subarray(0, 2)), [0, 0]);
  });

  it("a Selection takes effect at the next spawn", function () {
    const { w, a } = duel();
    const g = w.game;
    w.players.ship[0] = 2;
    w.players.weapon[0] = 2;
    steps(w, 5);
    assert.equal(w.entities.type[a], SHIP_BASE, "the live ship keeps its type");
    place(w, a, 0, -2000, 0, 0, 0);
    fire(w, 0);
    assert.equal(ofType(w, SHOT_BASE).length, 1, "and its weapon");
    assert.equal(ofType(w, SHOT_BASE + 2).length, 0);
    place(w, a, 165, 0, -200, 0, 0); // into the sun
    steps(w, 1 + RESPAWN_STEPS);
    const s = g.focusIndex[0];
    assert.ok(s >= 0);
    assert.equal(w.entities.type[s], SHIP_BASE + 2);
    assert.equal(g.hp[0], SHIP_HP[2]);
    assert.equal(g.shipType[0], 2);
    assert.equal(g.weaponType[0], 2);
    steps(w, 3);
    fire(w, 0);
    assert.equal(ofType(w, SHOT_BASE + 2).length, 1, "the new weapon fires");
  });

  it("a leaving player's ship and projectiles go, and a killer who left scores nothing", function () {
    const { w, a, b } = duel(2);
    place(w, a, 2000, 0, 0, 0, Math.PI / 2);
    place(w, b, 2000, 300, 0, 0, 0);
    fire(w, 0);
    w.game.playerLeft(0, playerIdOf(0));
    // The shot is still in flight (the server removes owned entities; here it stays).
    w.game.hp[1] = 5;
    steps(w, 25);
    assert.equal(w.game.deaths[1], 1);
    assert.equal(w.players.scores[0], 0);
    assert.equal(w.game.counters[GameCounter.Kills], 1);
  });
});
