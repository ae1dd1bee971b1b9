import assert from "node:assert/strict";
import { createGeometry, RSQRT_SEEDS } from "../../modules/game/geometry";
import { createShipMotion, motionLimit, motionSteer, motionTurn, type ShipMotion } from "../../modules/game/motion";
import { SHIP_MAX_SPEED, SHIP_TYPES } from "../../modules/game/templates";
import { buildSineTable, SINE_TABLE_LENGTH } from "../../modules/game/trig";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT } from "../../modules/input";
import { fromWu } from "../../modules/units";
import { joinAndSpawn, makeWorld, type World } from "./world";

/** A ship's motion record with tables of its own, as a client would make it. */
function clientMotion(): ShipMotion {
  return createShipMotion(buildSineTable(new Int16Array(SINE_TABLE_LENGTH)), createGeometry(new Uint16Array(RSQRT_SEEDS)));
}

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

describe("ship motion (modules/game/motion.ts), as a client predicts its own ship", function () {
  it("turning and thrust change heading and velocity exactly as the server does, for every ship type and input", function () {
    const m = clientMotion();
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
          m.rot = rot;
          m.vx = 300;
          m.vy = -200;
          motionSteer(m, type, bits);
          const e = steered.w.entities;
          assert.equal(e.rot[steered.i], m.rot, `type ${type}, rot ${rot}, input ${bits}: heading`);
          assert.equal(m.rot, motionTurn(rot, bits, type));
          assert.equal(e.vx[steered.i] - idle.w.entities.vx[idle.i], m.vx - 300, `type ${type}, rot ${rot}, input ${bits}: vx`);
          assert.equal(e.vy[steered.i] - idle.w.entities.vy[idle.i], m.vy + 200, `type ${type}, rot ${rot}, input ${bits}: vy`);
          checked++;
        }
      }
    }
    assert.equal(checked, SHIP_TYPES * 5 * 16);
  });

  it("the speed limit gives the server's velocity: under it untouched, just over it and far over it scaled to the maximum", function () {
    const m = clientMotion();
    const px = fromWu(1500);
    const py = fromWu(-900);
    for (let type = 0; type < SHIP_TYPES; type++) {
      const max = SHIP_MAX_SPEED[type];
      for (const scale of [0.5, 0.99, 1.05, 1.2, 3]) {
        for (const angle of [0.3, 2, 4.4]) {
          const vx = Math.round(Math.cos(angle) * max * scale);
          const vy = Math.round(Math.sin(angle) * max * scale);
          // The ship ends the drift at (px, py); a ship at rest there learns the pull it gets.
          const moving = shipAt(type, px - vx, py - vy, vx, vy, 0, 0);
          const resting = shipAt(type, px, py, 0, 0, 0, 0);
          moving.w.game.step();
          resting.w.game.step();
          m.vx = vx + resting.w.entities.vx[resting.i];
          m.vy = vy + resting.w.entities.vy[resting.i];
          const before = Math.hypot(m.vx, m.vy);
          const heading = Math.atan2(m.vy, m.vx);
          motionLimit(m, type);
          const label = `type ${type}, ${scale} × max, angle ${angle}`;
          assert.equal(moving.w.entities.vx[moving.i], m.vx, `${label}: vx`);
          assert.equal(moving.w.entities.vy[moving.i], m.vy, `${label}: vy`);
          const after = Math.hypot(m.vx, m.vy);
          if (before <= max) assert.equal(after, before, `${label}: untouched`);
          else {
            assert.ok(after <= max && after > max - 3, `${label}: ${after} vs ${max}`);
            assert.ok(Math.abs(Math.atan2(m.vy, m.vx) - heading) < 1e-3, `${label}: direction kept`);
          }
        }
      }
    }
  });
});
