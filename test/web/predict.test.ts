/**
 * The page's prediction of its own ship (web/predict.ts) against the game (modules/game):
 * the same motion rules for the same inputs, and corrections that fade instead of jumping.
 */
import assert from "node:assert/strict";
import { SHIP_TURN, SHIP_TYPES, STEP_MS } from "../../modules/game/templates";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT } from "../../modules/input";
import { fromWu, POS_ONE, toWireAngle, toWirePosition, toWireVelocity } from "../../modules/units";
import { BLEND_MS, fromUpdate, inputDelaySteps, Predictor, PREDICT_SNAP_WU, type ShipState } from "../../web/predict";
import { ShipStepper } from "../../modules/game/ship-stepper";
import { testNative } from "../helpers/native";

/** The game's ship loop as the page has it once kernels.wasm is loaded (here: Node's). */
function pageStepper(): ShipStepper {
  const native = testNative();
  return new ShipStepper(native.kernels!, native.memory ?? null);
}

/** A predictor with its stepper, as the page makes it. */
function predictor(): Predictor {
  const p = new Predictor();
  p.stepper = pageStepper();
  return p;
}
import { joinAndSpawn, makeWorld, type World } from "../game/world";

/** A game with one ship of `type` at `s` (game units), steered by `input`. */
function game(type: number, s: ShipState): { w: World; i: number } {
  const w = makeWorld({ planets: 0 });
  w.players.ship[0] = type;
  const i = joinAndSpawn(w, 0);
  const e = w.entities;
  e.x[i] = s.x;
  e.y[i] = s.y;
  e.vx[i] = s.vx;
  e.vy[i] = s.vy;
  e.rot[i] = s.rot;
  w.game.moved(i);
  return { w, i };
}

function stateOf(w: World, i: number): ShipState {
  const e = w.entities;
  return { x: e.x[i], y: e.y[i], vx: e.vx[i], vy: e.vy[i], rot: e.rot[i] };
}

/** What the client library keeps of an Update of `s` (wu, wu/s, centidegrees), back in game units. */
function overWire(s: ShipState): ShipState {
  return fromUpdate(toWirePosition(s.x), toWirePosition(s.y), toWireVelocity(s.vx), toWireVelocity(s.vy), toWireAngle(s.rot), { x: 0, y: 0, vx: 0, vy: 0, rot: 0 });
}

const INPUTS = [0, INPUT_FORWARD, INPUT_BACKWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_FORWARD | INPUT_LEFT, INPUT_FORWARD | INPUT_RIGHT, INPUT_BACKWARD | INPUT_LEFT];

describe("web page: own-ship prediction (web/predict.ts)", function () {
  it("one step of the page's prediction is the game's step, less the gravity the game adds, for every ship type and input", function () {
    const m = pageStepper();
    let checked = 0;
    for (let type = 0; type < SHIP_TYPES; type++) {
      for (const rot of [0, 1000, 2048, 3332, 4092]) {
        for (const input of INPUTS) {
          const start: ShipState = { x: fromWu(2200), y: fromWu(-700), vx: 2100, vy: -1300, rot };
          const steered = game(type, start);
          // The same ship unsteered: what the game's step adds besides steering (gravity).
          const idle = game(type, start);
          steered.w.players.input[0] = input;
          steered.w.game.step();
          idle.w.game.step();
          const g = stateOf(steered.w, steered.i);
          const gi = stateOf(idle.w, idle.i);
          const p = { ...start };
          m.step(p, type, input);
          const label = `type ${type}, rot ${rot}, input ${input}`;
          assert.equal(p.rot, g.rot, `${label}: heading`);
          assert.equal(p.x, g.x, `${label}: x`);
          assert.equal(p.y, g.y, `${label}: y`);
          assert.equal(p.vx - start.vx, g.vx - gi.vx, `${label}: vx`);
          assert.equal(p.vy - start.vy, g.vy - gi.vy, `${label}: vy`);
          checked++;
        }
      }
    }
    assert.equal(checked, SHIP_TYPES * 5 * INPUTS.length);
  });

  it("over 3 s of changing input the predicted heading is the game's at every step, the position off by about what gravity moves a ship at rest", function () {
    const type = 0;
    const start: ShipState = { x: fromWu(2000), y: fromWu(1200), vx: 0, vy: 0, rot: 512 };
    const g = game(type, start);
    // The same ship left alone: from rest, it moves by gravity only.
    const idle = game(type, start);
    const p = predictor();
    p.delay = 0;
    let now = 1000;
    p.reset(start, type, now);
    let worst = 0;
    for (let k = 0; k < 90; k++) {
      const input = INPUTS[(k >> 3) % INPUTS.length];
      g.w.players.input[0] = input;
      g.w.game.step();
      idle.w.game.step();
      now += STEP_MS;
      p.advance(now, input);
      const s = stateOf(g.w, g.i);
      assert.equal(p.lead.rot, s.rot, `step ${k}: heading`);
      worst = Math.max(worst, Math.hypot(p.lead.x - s.x, p.lead.y - s.y) / POS_ONE);
    }
    const i = stateOf(idle.w, idle.i);
    const fall = Math.hypot(i.x - start.x, i.y - start.y) / POS_ONE;
    console.log(`      largest position difference in 90 steps: ${worst.toFixed(2)} wu; a ship at rest there falls ${fall.toFixed(2)} wu`);
    assert.ok(worst <= fall * 1.25, `${worst} wu`);
  });

  it("an Update's heading comes back exactly from the wire's centidegrees", function () {
    for (let rot = 0; rot < 4096; rot += 4) assert.equal(overWire({ x: 0, y: 0, vx: 0, vy: 0, rot }).rot, rot);
  });

  it("the server's ship with our input a few steps late, its Updates every 2 steps over the wire: the heading exactly the server's, the position within 4 wu, no correction over 2 wu", function () {
    const type = 0;
    const start: ShipState = { x: fromWu(1800), y: fromWu(-1500), vx: 0, vy: 0, rot: 0 };
    const server = game(type, start);
    const delay = inputDelaySteps(2, 10);
    const p = predictor();
    p.delay = delay;
    let now = 0;
    p.server(overWire(start), type, -STEP_MS / 2);
    const held: number[] = [];
    for (let k = 0; k < 180; k++) {
      // A player who thrusts, turns both ways and coasts, 10 steps each.
      const input = [INPUT_FORWARD, INPUT_FORWARD | INPUT_LEFT, 0, INPUT_RIGHT, INPUT_BACKWARD, INPUT_LEFT][Math.floor(k / 10) % 6];
      held.push(input);
      // The local step and then the server's, half a step later.
      now += STEP_MS / 2;
      p.advance(now, input);
      server.w.players.input[0] = k >= delay ? held[k - delay] : 0;
      server.w.game.step();
      now += STEP_MS / 2;
      if (k % 2 === 1) p.server(overWire(stateOf(server.w, server.i)), type, now);
    }
    console.log(`      ${p.corrections} Updates, delay ${delay} steps: largest difference ${p.maxError.toFixed(2)} wu, largest correction ${p.maxCorrection.toFixed(2)} wu, largest heading difference ${p.maxTurnError}/4096 turn`);
    assert.equal(p.snaps, 0);
    assert.ok(p.maxError < 4, `${p.maxError} wu`);
    assert.ok(p.maxCorrection < 2, `${p.maxCorrection} wu`);
    // The heading has no gravity to miss: with the delay right, the server's is the prediction's, always.
    assert.equal(p.maxTurnError, 0);
  });

  it("a correction fades over about BLEND_MS: nothing moves at the Update, most of it is gone three time constants later; a teleport is taken at once", function () {
    const type = 1;
    const p = predictor();
    const s: ShipState = { x: fromWu(100), y: fromWu(200), vx: 0, vy: 0, rot: 1024 };
    p.reset(s, type, 0);
    p.advance(100, 0);
    const before = { ...p.pose(100) };
    // The server has the ship 40 wu further along x.
    const moved = { ...p.lag, x: p.lag.x + fromWu(40) };
    const err = p.server(moved, type, 100);
    assert.ok(Math.abs(err - 40) < 1e-9, `${err}`);
    const at = p.pose(100);
    assert.ok(Math.abs(at.x - before.x) < 1e-9 && Math.abs(at.y - before.y) < 1e-9, "no jump at the Update");
    p.advance(100 + 3 * BLEND_MS, 0);
    const later = p.pose(100 + 3 * BLEND_MS);
    const left = before.x + 40 - later.x;
    assert.ok(left > 0 && left < 40 * 0.06, `${left} wu left`);
    // A respawn far away: no blending.
    const far = { ...p.lag, x: p.lag.x + fromWu(PREDICT_SNAP_WU + 100) };
    p.server(far, type, 500);
    assert.equal(p.snaps, 1);
    assert.ok(Math.abs(p.pose(500).x - far.x / POS_ONE) < 1e-9);
  });

  it("a turn key shows in the very next drawn pose, by the part of the step already gone", function () {
    const type = 0;
    const p = predictor();
    p.reset({ x: 0, y: 0, vx: 0, vy: 0, rot: 0 }, type, 0);
    p.advance(STEP_MS * 0.5, 0);
    assert.equal(p.pose(STEP_MS * 0.5).rot, 0);
    p.advance(STEP_MS * 0.5, INPUT_LEFT);
    const half = (SHIP_TURN[type] / 2 / 4096) * 2 * Math.PI;
    assert.ok(Math.abs(p.pose(STEP_MS * 0.5).rot - half) < 1e-9);
  });
});
