/**
 * Ship motion by the ship's own input: turning, thrust and the speed limit, as the ship loop
 * (modules/kernels/loops.c) does them in the game and, outside a world, for the page's
 * prediction (modules/game/ship-stepper.ts).
 */
import assert from "node:assert/strict";
import { SHIP_HEADINGS } from "../../modules/game/motion";
import { ShipStepper, type ShipState } from "../../modules/game/ship-stepper";
import { SHIP_MAX_SPEED, SHIP_THRUST, SHIP_TURN, SHIP_TYPES } from "../../modules/game/templates";
import { buildSineTable, SINE_TABLE_LENGTH } from "../../modules/game/trig";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT } from "../../modules/input";
import { fromWu } from "../../modules/units";
import { testNative } from "../helpers/native";
import { joinAndSpawn, makeWorld, type World } from "./world";

/** A game with one ship of `type` at (x, y) position units, moving (vx, vy), heading `rot`, steered by `input`. */
function shipAt(type: number, x: number, y: number, vx: number, vy: number, rot: number, input: number): { w: World; i: number } {
  const w = makeWorld({ planets: 0 });
  w.players.ship[0] = type;
  const i = joinAndSpawn(w, 0);
  const e = w.entities;
  e.x[i] = x;
  e.y[i] = y;
  e.vx[i] = vx;
  e.vy[i] = vy;
  e.rot[i] = rot;
  w.game.moved(i);
  w.players.input[0] = input;
  return { w, i };
}

function stepper(): ShipStepper {
  const native = testNative();
  return new ShipStepper(native.kernels!, native.memory ?? null);
}

const SINE = buildSineTable(new Int16Array(SINE_TABLE_LENGTH));

/** The rules of docs/game.md, written out: the heading after `input`, and its cosine and sine (Q14). */
function rules(rot: number, input: number, type: number): { rot: number; c: number; s: number } {
  if (input & INPUT_LEFT) rot += SHIP_TURN[type];
  if (input & INPUT_RIGHT) rot -= SHIP_TURN[type];
  rot &= SHIP_HEADINGS;
  const q = (rot >> 2) & 255;
  const quadrant = rot >> 10;
  const c = [SINE[256 - q], -SINE[q], -SINE[256 - q], SINE[q]][quadrant];
  const s = [SINE[q], SINE[256 - q], -SINE[q], -SINE[256 - q]][quadrant];
  return { rot, c, s };
}

describe("ship motion: the ship loop in C, in the game and for the page's prediction", function () {
  it("turning and thrust change heading and velocity by the rules, for every ship type and input", function () {
    const x = fromWu(2000);
    const y = fromWu(500);
    let checked = 0;
    for (let type = 0; type < SHIP_TYPES; type++) {
      for (const rot of [0, 1001, 2050, 3333, 4095]) {
        for (let input = 0; input < 16; input++) {
          const bits = (input & 1 ? INPUT_LEFT : 0) | (input & 2 ? INPUT_RIGHT : 0) | (input & 4 ? INPUT_FORWARD : 0) | (input & 8 ? INPUT_BACKWARD : 0);
          // The same ship with no input: the same drift and gravity, so the difference is the steering alone.
          const steered = shipAt(type, x, y, 300, -200, rot, bits);
          const idle = shipAt(type, x, y, 300, -200, rot, 0);
          steered.w.game.step();
          idle.w.game.step();
          const r = rules(rot, bits, type);
          let t = 0;
          if (bits & INPUT_FORWARD) t += SHIP_THRUST[type];
          if (bits & INPUT_BACKWARD) t -= SHIP_THRUST[type] >> 1;
          const dvx = t === 0 ? 0 : (r.c * t + 8192) >> 14;
          const dvy = t === 0 ? 0 : (r.s * t + 8192) >> 14;
          const e = steered.w.entities;
          const label = `type ${type}, rot ${rot}, input ${bits}`;
          assert.equal(e.rot[steered.i], r.rot, `${label}: heading`);
          assert.equal(e.vx[steered.i] - idle.w.entities.vx[idle.i], dvx, `${label}: vx`);
          assert.equal(e.vy[steered.i] - idle.w.entities.vy[idle.i], dvy, `${label}: vy`);
          checked++;
        }
      }
    }
    assert.equal(checked, SHIP_TYPES * 5 * 16);
  });

  it("the speed limit: under it untouched, just over it and far over it scaled to the maximum, the direction kept", function () {
    const m = stepper();
    for (let type = 0; type < SHIP_TYPES; type++) {
      const max = SHIP_MAX_SPEED[type];
      for (const scale of [0.5, 0.99, 1.05, 1.2, 3, 40]) {
        for (const angle of [0.3, 2, 4.4]) {
          const vx = Math.round(Math.cos(angle) * max * scale);
          const vy = Math.round(Math.sin(angle) * max * scale);
          const s: ShipState = { x: 0, y: 0, vx, vy, rot: 0 };
          m.step(s, type, 0);
          const label = `type ${type}, ${scale} × max, angle ${angle}`;
          assert.deepEqual([s.x, s.y], [vx, vy], `${label}: drifted by the velocity it had`);
          const before = Math.hypot(vx, vy);
          const after = Math.hypot(s.vx, s.vy);
          if (before <= max) assert.deepEqual([s.vx, s.vy], [vx, vy], `${label}: untouched`);
          else {
            assert.ok(after <= max && after > max - 3, `${label}: ${after} vs ${max}`);
            assert.ok(Math.abs(Math.atan2(s.vy, s.vx) - Math.atan2(vy, vx)) < 1e-3, `${label}: direction kept`);
          }
        }
      }
    }
  });

  it("the page's step is the game's, less what the world adds (the game's ship at rest far from the sun)", function () {
    const m = stepper();
    for (let type = 0; type < SHIP_TYPES; type++) {
      for (const input of [0, INPUT_FORWARD, INPUT_LEFT | INPUT_FORWARD, INPUT_RIGHT | INPUT_BACKWARD]) {
        const g = shipAt(type, fromWu(2500), fromWu(-400), 900, 700, 1024, input);
        const idle = shipAt(type, fromWu(2500), fromWu(-400), 900, 700, 1024, 0);
        g.w.game.step();
        idle.w.game.step();
        const s: ShipState = { x: fromWu(2500), y: fromWu(-400), vx: 900, vy: 700, rot: 1024 };
        const rest: ShipState = { ...s };
        m.step(s, type, input);
        m.step(rest, type, 0);
        const e = g.w.entities;
        assert.equal(s.rot, e.rot[g.i]);
        assert.equal(s.vx - rest.vx, e.vx[g.i] - idle.w.entities.vx[idle.i]);
        assert.equal(s.vy - rest.vy, e.vy[g.i] - idle.w.entities.vy[idle.i]);
      }
    }
  });
});
