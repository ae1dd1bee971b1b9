import assert from "node:assert/strict";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT } from "../../modules/protocol/codec";
import { GameCounter } from "../../modules/game/game";
import {
  ARENA_RADIUS, DT, SHIP_BASE, SHIP_MAX_SPEED, SHIP_THRUST, SHIP_TURN, SHOT_BASE, SHOT_MAX_SPEED, STEP_MS, SUN_GM,
  TEMPLATE_RADIUS,
} from "../../modules/game/templates";
import { TWO_PI } from "../../modules/game/trig";
import { joinAndSpawn, makeWorld, ofType, place, speed, steps } from "./world";

/** Float32 storage keeps about 7 significant digits. */
const F32 = 1e-5;

function angleDiff(a: number, b: number): number {
  let d = (a - b) % TWO_PI;
  if (d > Math.PI) d -= TWO_PI;
  if (d < -Math.PI) d += TWO_PI;
  return d;
}

describe("game physics", function () {
  it("forward thrust accelerates along the heading, backward at half the thrust", function () {
    const runs = [0, INPUT_FORWARD, INPUT_BACKWARD].map((input) => {
      const w = makeWorld({ planets: 0 });
      const i = joinAndSpawn(w, 0);
      place(w, i, 2000, 500, 0, 0, 0.7);
      w.players.input[0] = input;
      w.game.step();
      return { vx: w.entities.vx[i], vy: w.entities.vy[i], rot: w.entities.rot[i] };
    });
    const [idle, fwd, back] = runs;
    const a = SHIP_THRUST[0] * DT;
    assert.ok(Math.abs(fwd.vx - idle.vx - Math.cos(0.7) * a) < a * F32 + 1e-4, `forward dvx ${fwd.vx - idle.vx}`);
    assert.ok(Math.abs(fwd.vy - idle.vy - Math.sin(0.7) * a) < a * F32 + 1e-4, `forward dvy ${fwd.vy - idle.vy}`);
    assert.ok(Math.abs(back.vx - idle.vx + (Math.cos(0.7) * a) / 2) < 1e-4);
    assert.ok(Math.abs(back.vy - idle.vy + (Math.sin(0.7) * a) / 2) < 1e-4);
    assert.equal(fwd.rot, idle.rot, "thrust does not turn");
  });

  it("left turns counter-clockwise and right clockwise, at the ship type's turn rate", function () {
    for (const [input, sign] of [[INPUT_LEFT, 1], [INPUT_RIGHT, -1]] as const) {
      for (const type of [0, 1, 2]) {
        const w = makeWorld({ planets: 0 });
        w.players.ship[0] = type;
        const i = joinAndSpawn(w, 0);
        assert.equal(w.entities.type[i], SHIP_BASE + type);
        place(w, i, 0, -2000, 0, 0, 1);
        w.players.input[0] = input;
        steps(w, 15);
        const turned = angleDiff(w.entities.rot[i], 1);
        assert.ok(Math.abs(turned - sign * SHIP_TURN[type] * 15 * DT) < 1e-4, `type ${type} turned ${turned}`);
      }
    }
  });

  it("gravity pulls ships towards the sun with G·M/r², and the sun kills what falls in", function () {
    const w = makeWorld({ planets: 0 });
    const i = joinAndSpawn(w, 0);
    place(w, i, 1200, 900, 0, 0, 0);
    w.game.step();
    const r = 1500;
    const g = SUN_GM / (r * r);
    const vx = w.entities.vx[i];
    const vy = w.entities.vy[i];
    assert.ok(Math.abs(Math.hypot(vx, vy) - g * DT) < g * DT * 1e-3, `speed ${Math.hypot(vx, vy)} vs ${g * DT}`);
    assert.ok(Math.abs(vx / Math.hypot(vx, vy) + 1200 / r) < 1e-4 && Math.abs(vy / Math.hypot(vx, vy) + 900 / r) < 1e-4, "towards the sun");
    // Left alone it falls into the sun and dies there.
    let t = 0;
    while (w.game.focusIndex[0] >= 0 && t++ < 30 * 30) w.game.step();
    assert.equal(w.game.focusIndex[0], -1, "the ship fell into the sun");
    assert.equal(w.game.counters[GameCounter.EnvironmentDeaths], 1);
    assert.ok(Math.hypot(w.game.focusX[0], w.game.focusY[0]) < 300, "it died at the sun");
  });

  it("planets keep to their circles and their angular speed over 10 minutes of simulated time", function () {
    const w = makeWorld({ planets: 8 }, 77);
    const g = w.game;
    const e = w.entities;
    assert.equal(g.bodies, 9);
    let worst = 0;
    let worstAngle = 0;
    const total = 10 * 60 * 30;
    for (let s = 1; s <= total; s++) {
      g.step();
      if (s % 97 !== 0 && s !== total) continue;
      for (let b = 1; b < g.bodies; b++) {
        const i = g.bodyIndex[b];
        const r = Math.hypot(e.x[i], e.y[i]);
        worst = Math.max(worst, Math.abs(r - g.orbitRadius[b]));
        const expected = g.orbitPhase[b] + g.orbitOmega[b] * s * DT;
        worstAngle = Math.max(worstAngle, Math.abs(angleDiff(Math.atan2(e.y[i], e.x[i]), expected)));
        // Velocity is tangential, of size ωR.
        const v = Math.hypot(e.vx[i], e.vy[i]);
        assert.ok(Math.abs(v - g.orbitOmega[b] * g.orbitRadius[b]) < 1e-3);
        assert.ok(Math.abs(e.x[i] * e.vx[i] + e.y[i] * e.vy[i]) / (r * v) < 1e-5);
      }
    }
    assert.ok(worst < 0.01, `radius error ${worst}`);
    assert.ok(worstAngle < 1e-5, `angle error ${worstAngle}`);
    // Distinct orbits, inside the arena, and the sun stays put.
    for (let b = 1; b < g.bodies; b++) {
      assert.ok(g.orbitRadius[b] + TEMPLATE_RADIUS[e.type[g.bodyIndex[b]]] < ARENA_RADIUS);
      if (b > 1) assert.ok(g.orbitRadius[b] - g.orbitRadius[b - 1] > 2 * 64 + 40, "orbits do not touch");
    }
    assert.equal(e.x[g.bodyIndex[0]], 0);
    assert.equal(e.y[g.bodyIndex[0]], 0);
  });

  it("ship speed is clamped to the type's maximum", function () {
    for (const type of [0, 1, 2]) {
      const w = makeWorld({ planets: 0 });
      w.players.ship[0] = type;
      const i = joinAndSpawn(w, 0);
      // Along a chord far from the sun, nose along +x.
      place(w, i, -900, -2700, 0, 0, 0);
      w.players.input[0] = INPUT_FORWARD;
      let top = 0;
      for (let s = 0; s < 45; s++) {
        w.game.step();
        top = Math.max(top, speed(w, i));
        assert.ok(speed(w, i) <= SHIP_MAX_SPEED[type] * (1 + F32), `type ${type} at ${speed(w, i)}`);
      }
      assert.ok(top > SHIP_MAX_SPEED[type] * 0.99, `type ${type} reached ${top}`);
    }
  });

  it("projectile speed is clamped", function () {
    const w = makeWorld({ planets: 0 });
    const i = joinAndSpawn(w, 0);
    place(w, i, 0, -2000, 0, 0, Math.PI);
    w.players.input[0] = 16;
    w.game.step();
    w.players.input[0] = 0;
    const [shot] = ofType(w, SHOT_BASE);
    place(w, shot, -1000, -1000, 4000, 3000);
    w.game.step();
    assert.ok(Math.abs(speed(w, shot) - SHOT_MAX_SPEED) < SHOT_MAX_SPEED * F32, `shot at ${speed(w, shot)}`);
  });

  it("the arena boundary bounces ships back in, and projectiles that leave it vanish", function () {
    const w = makeWorld({ planets: 0 });
    const i = joinAndSpawn(w, 0);
    const limit = ARENA_RADIUS - TEMPLATE_RADIUS[SHIP_BASE];
    place(w, i, 2800, 300, 400, 0, 0);
    w.players.input[0] = INPUT_FORWARD;
    let bounced = false;
    for (let s = 0; s < 90; s++) {
      const before = w.entities.x[i] * w.entities.vx[i] + w.entities.y[i] * w.entities.vy[i];
      w.game.step();
      const r = Math.hypot(w.entities.x[i], w.entities.y[i]);
      assert.ok(r <= limit + 1e-3, `outside at ${r}`);
      const radial = w.entities.x[i] * w.entities.vx[i] + w.entities.y[i] * w.entities.vy[i];
      if (before > 0 && r > limit - 1e-3) {
        assert.ok(radial <= 0, "moving back in after touching the edge");
        bounced = true;
      }
    }
    assert.ok(bounced, "it reached the edge");
    assert.equal(w.game.focusIndex[0], i, "still alive");

    // A shot fired outwards from near the edge is gone before its lifetime.
    place(w, i, 0, 2800, 0, 0, Math.PI / 2);
    w.players.input[0] = 16;
    w.game.step();
    w.players.input[0] = 0;
    const shots = ofType(w, SHOT_BASE);
    assert.equal(shots.length, 1);
    steps(w, 30);
    assert.equal(w.entities.alive[shots[0]] === 0 || w.entities.type[shots[0]] !== SHOT_BASE, true, "left the arena and vanished");
    assert.equal(w.game.counters[GameCounter.ShotHits], 0);
  });

  it("the fixed step runs at 30 Hz from the host's ticks, catching up at most 4 steps per tick", function () {
    const w = makeWorld({ planets: 0 });
    w.game.tick(1000);
    for (let t = 1010; t <= 2000; t += 10) w.game.tick(t);
    const ran = w.game.steps;
    assert.ok(Math.abs(ran - 1000 / STEP_MS) <= 1, `${ran} steps in a second`);
    w.game.tick(3000); // a second-long stall
    assert.equal(w.game.steps, ran + 4);
    assert.ok(w.game.counters[GameCounter.StepsSkipped] > 20);
  });
});
