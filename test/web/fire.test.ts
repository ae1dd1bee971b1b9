/** web/fire.ts: our shots predicted, claimed by the server's projectiles, and faded when the server did not fire. */
import assert from "node:assert/strict";
import { SHOT_BASE, STEP_MS, WEAPON_COOLDOWN } from "../../modules/game/templates";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { CLAIM_MS, FADE_MS, FirePredictor, PREDICTED_SHOTS } from "../../web/fire";

function drawn(f: FirePredictor): number {
  let n = 0;
  for (let k = 0; k < PREDICTED_SHOTS; k++) if (f.drawn(k)) n++;
  return n;
}

describe("page fire prediction", function () {
  it("fires at once when the trigger goes down, then at the weapon's rate, from the nose with the muzzle speed", function () {
    const f = new FirePredictor();
    assert.equal(f.advance(1000, 0, true, 0, 1, 0, 0, 0, 0, 0), false, "no trigger, no shot");
    assert.equal(f.advance(1010, INPUT_SHOOTING, true, 0, 1, 100, 50, 0, 20, 0), true, "fired at once");
    const p = { ...f.pose(0, 1010) };
    assert.ok(Math.abs(p.x - (100 + 10 + 5 + 1)) < 1e-9 && p.y === 50, `at the nose: ${p.x}, ${p.y}`);
    const later = { ...f.pose(0, 2010) };
    assert.ok(Math.abs(later.x - p.x - (20 + 520)) < 1, `ship speed + muzzle speed: ${later.x - p.x} wu/s`);
    assert.equal(f.type(0), SHOT_BASE + 1);
    const cooldown = WEAPON_COOLDOWN[1] * STEP_MS;
    assert.equal(f.advance(1010 + cooldown - 1, INPUT_SHOOTING, true, 0, 1, 0, 0, 0, 0, 0), false, "not before the cooldown");
    assert.equal(f.advance(1010 + cooldown, INPUT_SHOOTING, true, 0, 1, 0, 0, 0, 0, 0), true, "held: the next one");
    assert.equal(f.fired, 2);
    assert.equal(f.advance(5000, INPUT_SHOOTING, false, 0, 1, 0, 0, 0, 0, 0), false, "no ship, no shot");
  });

  it("the server's Add claims the oldest shot; its first Update takes the shot's place", function () {
    const f = new FirePredictor();
    f.advance(0, INPUT_SHOOTING, true, 0, 0, 0, 0, 0, 0, 0);
    f.advance(100, INPUT_SHOOTING, true, 0, 0, 0, 0, 0, 0, 0);
    assert.equal(drawn(f), 2);
    assert.ok(f.claim(40, 60));
    assert.ok(f.claims(40));
    const at = f.handOver(40, 90);
    assert.ok(at !== null && Math.abs(at.x - (14 + 650 * 0.09)) < 1, JSON.stringify(at));
    assert.equal(drawn(f), 1, "the claimed shot gives way");
    assert.equal(f.handOver(41, 90), null, "a projectile that claimed nothing");
  });

  it("a shot no Add claims fades out and goes", function () {
    const f = new FirePredictor();
    f.advance(0, INPUT_SHOOTING, true, 0, 0, 0, 0, 0, 0, 0);
    assert.equal(f.pose(0, CLAIM_MS - 1).alpha, 1);
    assert.ok(f.pose(0, CLAIM_MS + FADE_MS / 2).alpha < 0.6);
    f.expire(CLAIM_MS + FADE_MS + 1);
    assert.equal(drawn(f), 0);
    assert.equal(f.faded, 1);
    assert.equal(f.claim(7, CLAIM_MS + FADE_MS + 2), false, "too late to claim");
  });
});
