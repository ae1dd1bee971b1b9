import assert from "node:assert/strict";
import {
  ANGLE_TURN, POS_ONE, fromRadians, fromWu, fromWuPerSecond, toRadians, toWirePosition, toWireVelocity, toWireAngle, toWu,
  toWuPerSecond,
} from "../modules/units";

describe("units: fixed point to the wire", function () {
  it("positions round half up to whole world units and clamp to int16", function () {
    assert.equal(toWirePosition(0), 0);
    assert.equal(toWirePosition(POS_ONE / 2 - 1), 0);
    assert.equal(toWirePosition(POS_ONE / 2), 1);
    assert.equal(toWirePosition(-POS_ONE / 2), 0); // Math.round(-0.5) is -0
    assert.equal(toWirePosition(-POS_ONE / 2 - 1), -1);
    assert.equal(toWirePosition(fromWu(-2999.4)), -2999);
    assert.equal(toWirePosition(fromWu(40000)), 32767);
    assert.equal(toWirePosition(fromWu(-40000)), -32768);
    for (let wu = -3000; wu <= 3000; wu += 0.37) assert.equal(toWirePosition(fromWu(wu)), Math.round(fromWu(wu) / POS_ONE) || 0);
  });

  it("velocities are per step inside and per second on the wire", function () {
    assert.equal(toWireVelocity(fromWuPerSecond(650)), 650);
    assert.equal(toWireVelocity(fromWuPerSecond(-1500)), -1500);
    assert.equal(toWireVelocity(fromWuPerSecond(0.4)), 0);
    for (let v = -1500; v <= 1500; v += 7.3) assert.ok(Math.abs(toWireVelocity(fromWuPerSecond(v)) - v) <= 0.52, `${v}`);
    assert.ok(Math.abs(toWuPerSecond(fromWuPerSecond(123.4)) - 123.4) < 0.02);
  });

  it("headings are 1/4096 turn inside and centidegrees 0..35999 on the wire", function () {
    assert.equal(toWireAngle(0), 0);
    assert.equal(toWireAngle(ANGLE_TURN / 4), 9000);
    assert.equal(toWireAngle(ANGLE_TURN / 2), 18000);
    assert.equal(toWireAngle(ANGLE_TURN - 1), 35991);
    assert.equal(toWireAngle(ANGLE_TURN), 0, "wraps");
    assert.equal(toWireAngle(-1), 35991, "wraps below 0");
    assert.equal(fromRadians(Math.PI / 2), 1024);
    assert.equal(fromRadians(-Math.PI / 2), 3072);
    assert.ok(Math.abs(toRadians(fromRadians(1)) - 1) < 0.001);
    assert.equal(toWu(fromWu(12.5)), 12.5);
  });
});
