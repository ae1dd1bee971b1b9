import assert from "node:assert/strict";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../../modules/protocol/codec";
import { GameCounter } from "../../modules/game/game";
import {
  ARENA_RADIUS, DT, ORBIT_SPEED_FACTOR, SHIP_BASE, SHIP_MAX_SPEED, SHIP_THRUST, SHIP_TURN, SHOT_BASE, SHOT_MAX_SPEED,
  SHOT_MAX_VELOCITY, STEP_MS, SUN_GM, TEMPLATE_RADIUS,
} from "../../modules/game/templates";
import { cosQ, sinQ, TWO_PI } from "../../modules/game/trig";
import { ANGLE_TURN, POS_ONE, toRadians, toWu } from "../../modules/units";
import { joinAndSpawn, makeWorld, ofType, place, radiusOf, speed, steps, xOf, yOf } from "./world";

function angleDiff(a: number, b: number): number {
  let d = (a - b) % TWO_PI;
  if (d > Math.PI) d -= TWO_PI;
  if (d < -Math.PI) d += TWO_PI;
  return d;
}

/** The sun's pull at (x, y) wu, in velocity units (1/1024 wu per step) per step. */
function pull(x: number, y: number): [number, number] {
  const r = Math.hypot(x, y);
  const g = ((SUN_GM / (r * r)) * DT * DT) * POS_ONE;
  return [(-g * x) / r, (-g * y) / r];
}

describe("game physics", function () {
  it("forward thrust accelerates along the heading, backward at half the thrust", function () {
    const runs = [0, INPUT_FORWARD, INPUT_BACKWARD].map((input) => {
      const w = makeWorld({ planets: 0 });
      const i = joinAndSpawn(w, 0);
      place(w, i, 2000, 500, 0, 0, 0.7);
      w.players.input[0] = input;
      w.game.step();
      return { vx: w.entities.vx[i], vy: w.entities.vy[i], rot: w.entities.rot[i], sine: w.game.sine };
    });
    const [idle, fwd, back] = runs;
    // The heading is on the sine table's grid, and the change of velocity is the thrust along
    // it, rounded to the velocity unit: exact to 1 unit (0.03 wu/s).
    const c = cosQ(idle.sine, idle.rot) / 16384;
    const s = sinQ(idle.sine, idle.rot) / 16384;
    assert.ok(Math.abs(toRadians(idle.rot) - 0.7) < (2 * Math.PI * 4) / ANGLE_TURN, "heading as placed");
    const a = SHIP_THRUST[0];
    assert.ok(Math.abs(fwd.vx - idle.vx - c * a) <= 1, `forward dvx ${fwd.vx - idle.vx} vs ${c * a}`);
    assert.ok(Math.abs(fwd.vy - idle.vy - s * a) <= 1, `forward dvy ${fwd.vy - idle.vy} vs ${s * a}`);
    assert.ok(Math.abs(back.vx - idle.vx + c * (a >> 1)) <= 1, `backward dvx ${back.vx - idle.vx}`);
    assert.ok(Math.abs(back.vy - idle.vy + s * (a >> 1)) <= 1, `backward dvy ${back.vy - idle.vy}`);
    // In the units of docs/game.md: 420 wu/s² within 0.25 % (a unit of rounding).
    const accel = (Math.hypot(fwd.vx - idle.vx, fwd.vy - idle.vy) * 900) / POS_ONE;
    assert.ok(Math.abs(accel - 420) < 1, `thrust ${accel} wu/s²`);
    assert.equal(fwd.rot, idle.rot, "thrust does not turn");
  });

  it("left turns counter-clockwise and right clockwise, by the ship type's turn per step", function () {
    for (const [input, sign] of [[INPUT_LEFT, 1], [INPUT_RIGHT, -1]] as const) {
      for (const type of [0, 1, 2]) {
        const w = makeWorld({ planets: 0 });
        w.players.ship[0] = type;
        const i = joinAndSpawn(w, 0);
        assert.equal(w.entities.type[i], SHIP_BASE + type);
        place(w, i, 0, -2000, 0, 0, 1);
        const start = w.entities.rot[i];
        w.players.input[0] = input;
        steps(w, 15);
        const turned = (((w.entities.rot[i] - start) * sign) % ANGLE_TURN + ANGLE_TURN) % ANGLE_TURN;
        assert.equal(turned, 15 * SHIP_TURN[type], `type ${type}`);
        assert.ok(w.entities.rot[i] >= 0 && w.entities.rot[i] < ANGLE_TURN);
      }
    }
    // The turn rates of docs/game.md, rad/s.
    assert.deepEqual(SHIP_TURN.map((t) => Math.round(((t * 2 * Math.PI) / ANGLE_TURN / DT) * 100) / 100), [4.42, 3.5, 2.39]);
  });

  it("gravity pulls ships towards the sun with G·M/r², to the unit each step and exactly on average", function () {
    for (const [x, y] of [[1200, 900], [180, -110], [-2100, 1900], [0, 2900]]) {
      const w = makeWorld({ planets: 0 });
      const i = joinAndSpawn(w, 0);
      const [gx, gy] = pull(x, y);
      let sx = 0;
      let sy = 0;
      const n = 200;
      for (let k = 0; k < n; k++) {
        place(w, i, x, y, 0, 0, 0);
        w.game.step();
        const vx = w.entities.vx[i];
        const vy = w.entities.vy[i];
        // The table is within 0.05 % of G·M/r²; each step rounds to the unit.
        assert.ok(Math.abs(vx - gx) < 1 + Math.abs(gx) * 1e-3 && Math.abs(vy - gy) < 1 + Math.abs(gy) * 1e-3, `(${x}, ${y}): ${vx}, ${vy} vs ${gx}, ${gy}`);
        sx += vx;
        sy += vy;
        if (w.game.focusIndex[0] < 0) break;
      }
      // The rounding is dithered, so on average the pull is exact (within the table's 0.05 %).
      const g = Math.hypot(gx, gy);
      assert.ok(Math.abs(Math.hypot(sx, sy) / n - g) < g * 1e-3 + 0.02, `(${x}, ${y}): mean ${Math.hypot(sx, sy) / n} vs ${g}`);
      assert.ok(Math.abs(angleDiff(Math.atan2(sy, sx), Math.atan2(gy, gx))) < 2e-3, `(${x}, ${y}) towards the sun`);
    }
    // Left alone it falls into the sun and dies there.
    const w = makeWorld({ planets: 0 });
    const i = joinAndSpawn(w, 0);
    place(w, i, 1200, 900, 0, 0, 0);
    let t = 0;
    while (w.game.focusIndex[0] >= 0 && t++ < 30 * 30) w.game.step();
    assert.equal(w.game.focusIndex[0], -1, "the ship fell into the sun");
    assert.equal(w.game.counters[GameCounter.EnvironmentDeaths], 1);
    assert.ok(Math.hypot(toWu(w.game.focusX[0]), toWu(w.game.focusY[0])) < 300, "it died at the sun");
  });

  it("a falling projectile gains what the sun's gravity gives it (every other step, twice as strong)", function () {
    const w = makeWorld({ planets: 0 });
    const i = joinAndSpawn(w, 0);
    place(w, i, 0, -2500, 0, 0, Math.PI);
    w.players.input[0] = INPUT_SHOOTING;
    w.game.step();
    w.players.input[0] = 0;
    const [shot] = ofType(w, SHOT_BASE);
    // From 2500 wu at 600 wu/s inwards to 1000 wu: v² = 600² + 2·G·M·(1/r − 1/2500), within 1 %.
    place(w, shot, 2500, 0, -600, 0);
    const id = w.entities.id(shot);
    for (let t = 0; t < 80 && radiusOf(w, shot) > 1000; t++) w.game.step();
    assert.equal(w.entities.indexOf(id), shot, "still flying");
    const r = radiusOf(w, shot);
    assert.ok(r <= 1000);
    const v = Math.sqrt(600 * 600 + 2 * SUN_GM * (1 / r - 1 / 2500));
    assert.ok(Math.abs(speed(w, shot) - v) < v * 0.01, `${speed(w, shot)} wu/s at ${r} wu, energy says ${v}`);
    assert.ok(Math.abs(yOf(w, shot)) < 1 && xOf(w, shot) > 0, "straight down");
  });

  it("planets keep to their circles and their angular speed over 10 minutes of simulated time", function () {
    const w = makeWorld({ planets: 8 }, 77);
    const g = w.game;
    const e = w.entities;
    assert.equal(g.bodies, 9);
    let worst = 0;
    let worstLate = 0;
    let worstAngle = 0;
    const total = 10 * 60 * 30;
    for (let s = 1; s <= total; s++) {
      g.step();
      if (s % 97 !== 0 && s !== total) continue;
      for (let b = 1; b < g.bodies; b++) {
        const i = g.bodyIndex[b];
        const R = toWu(g.orbitRadius[b]);
        const r = Math.hypot(toWu(e.x[i]), toWu(e.y[i]));
        worst = Math.max(worst, Math.abs(r - R));
        if (s > total - 30 * 60) worstLate = Math.max(worstLate, Math.abs(r - R));
        // The angle straight from the step count, to the Q14 sine's precision.
        const turns = ((g.orbitPhase[b] + g.orbitOmega[b] * s) % 2 ** 30) / 2 ** 30;
        worstAngle = Math.max(worstAngle, Math.abs(angleDiff(Math.atan2(e.y[i], e.x[i]), turns * TWO_PI)));
        // Velocity is tangential, of size ωR.
        const omega = (g.orbitOmega[b] / 2 ** 18 / ANGLE_TURN) * TWO_PI / DT;
        const v = Math.hypot(e.vx[i], e.vy[i]) * 30 / POS_ONE;
        assert.ok(Math.abs(v - omega * R) < 0.05 + omega * R * 1e-3, `speed ${v} vs ${omega * R}`);
        assert.ok(Math.abs(e.x[i] * e.vx[i] + e.y[i] * e.vy[i]) / (Math.hypot(e.x[i], e.y[i]) * Math.hypot(e.vx[i], e.vy[i])) < 1e-3);
      }
    }
    // The Q14 table and 1/32 wu of rounding bound the radius error; it does not grow.
    assert.ok(worst < 0.3, `radius error ${worst}`);
    assert.ok(worstLate <= worst, `radius error in the last minute ${worstLate}`);
    assert.ok(worstAngle < 2e-4, `angle error ${worstAngle}`);
    // Half the Kepler angular speed, to the fixed point's 1e-5.
    for (let b = 1; b < g.bodies; b++) {
      const R = toWu(g.orbitRadius[b]);
      const kepler = ORBIT_SPEED_FACTOR * Math.sqrt(SUN_GM / (R * R * R));
      const omega = (g.orbitOmega[b] / 2 ** 18 / ANGLE_TURN) * TWO_PI / DT;
      assert.ok(Math.abs(omega / kepler - 1) < 1e-5, `ω ${omega} vs ${kepler}`);
    }
    // Distinct orbits, inside the arena, and the sun stays put.
    for (let b = 1; b < g.bodies; b++) {
      assert.ok(toWu(g.orbitRadius[b]) + TEMPLATE_RADIUS[e.type[g.bodyIndex[b]]] < ARENA_RADIUS);
      if (b > 1) assert.ok(toWu(g.orbitRadius[b] - g.orbitRadius[b - 1]) > 2 * 64 + 40, "orbits do not touch");
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
      const max = SHIP_MAX_SPEED[type];
      let top = 0;
      for (let s = 0; s < 45; s++) {
        w.game.step();
        const v2 = w.entities.vx[i] ** 2 + w.entities.vy[i] ** 2;
        top = Math.max(top, Math.sqrt(v2));
        assert.ok(v2 <= max * max, `type ${type} at ${Math.sqrt(v2)} of ${max}`);
      }
      assert.ok(top > max * 0.999, `type ${type} reached ${top} of ${max}`);
    }
  });

  it("projectile speed is clamped at its next pull", function () {
    const w = makeWorld({ planets: 0 });
    const i = joinAndSpawn(w, 0);
    place(w, i, 0, -2000, 0, 0, Math.PI);
    w.players.input[0] = INPUT_SHOOTING;
    w.game.step();
    w.players.input[0] = 0;
    const [shot] = ofType(w, SHOT_BASE);
    place(w, shot, -1000, -1000, 4000, 3000);
    steps(w, 2);
    const v2 = w.entities.vx[shot] ** 2 + w.entities.vy[shot] ** 2;
    assert.ok(v2 <= SHOT_MAX_VELOCITY ** 2 && Math.sqrt(v2) > SHOT_MAX_VELOCITY - 4, `shot at ${speed(w, shot)}`);
    assert.ok(Math.abs(speed(w, shot) - SHOT_MAX_SPEED) < 0.1);
    // Fired faster than the limit (a ship thrown by a ram): clamped at once.
    place(w, i, 0, -2000, 1400, 0, 0);
    steps(w, 10);
    w.players.input[0] = INPUT_SHOOTING;
    w.game.step();
    const fresh = ofType(w, SHOT_BASE).filter((s) => s !== shot);
    assert.equal(fresh.length, 1);
    assert.ok(w.entities.vx[fresh[0]] ** 2 + w.entities.vy[fresh[0]] ** 2 <= SHOT_MAX_VELOCITY ** 2);
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
      const r = radiusOf(w, i);
      assert.ok(r <= limit + 1e-3, `outside at ${r}`);
      const radial = w.entities.x[i] * w.entities.vx[i] + w.entities.y[i] * w.entities.vy[i];
      // Put back on the edge to the unit vector's Q14 (0.2 wu at this radius).
      if (before > 0 && r > limit - 0.25) {
        assert.ok(radial <= 0, "moving back in after touching the edge");
        bounced = true;
      }
    }
    assert.ok(bounced, "it reached the edge");
    assert.equal(w.game.focusIndex[0], i, "still alive");

    // A shot fired outwards from near the edge is gone before its lifetime.
    place(w, i, 0, 2800, 0, 0, Math.PI / 2);
    w.players.input[0] = INPUT_SHOOTING;
    w.game.step();
    w.players.input[0] = 0;
    const shots = ofType(w, SHOT_BASE);
    assert.equal(shots.length, 1);
    const id = w.entities.id(shots[0]);
    let t = 0;
    while (w.entities.indexOf(id) >= 0 && t++ < 30) {
      assert.ok(radiusOf(w, shots[0]) <= ARENA_RADIUS + 0.2, "no step ends beyond the edge");
      w.game.step();
    }
    assert.equal(w.entities.indexOf(id), -1, "left the arena and vanished");
    assert.ok(t < 15, `after ${t} steps`);
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
    // Over a minute of 10 ms ticks, exactly 30 steps a second.
    const v = makeWorld({ planets: 0 });
    for (let t = 0; t <= 60000; t += 10) v.game.tick(t);
    assert.equal(v.game.steps, 1800);
  });
});
