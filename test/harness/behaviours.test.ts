/** The bot behaviours (harness/behaviours.ts), over a client's view of the world. */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { createClient, type Client } from "../../modules/client/client";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../../modules/protocol/codec";
import { TemplateId } from "../../modules/game/templates";
import { Network } from "../../harness/link";
import { BEHAVIOURS, behaviourInput, ownShip } from "../../harness/behaviours";

const SELF = 0x10000;
const ENEMY = 0x10001;

/** A client whose world is written by hand: our ship at (x, y) with heading `deg`. */
function view(x: number, y: number, deg: number): Client {
  const net = new Network();
  const c = createClient(makeConfig(), net.host("mem:c", 1), "mem:server", 2);
  c.selfId = SELF;
  c.selfSlot = 0;
  put(c, 3, SELF, TemplateId.Interceptor, x, y, deg);
  return c;
}

function put(c: Client, i: number, owner: number, type: number, x: number, y: number, deg = 0): void {
  c.alive[i] = 1;
  c.entityId[i] = 0x10000 | i;
  c.owner[i] = owner >>> 0;
  c.type[i] = type;
  c.x[i] = x;
  c.y[i] = y;
  c.rot[i] = deg * 100;
}

describe("bot behaviours", function () {
  it("are idle, wander and hunt; an unknown name throws", function () {
    assert.deepEqual([...BEHAVIOURS], ["idle", "wander", "hunt"]);
    assert.throws(() => behaviourInput("dance", view(0, 1500, 0), 0), /unknown behaviour "dance"/);
    assert.equal(behaviourInput("idle", view(0, 1500, 0), 0), 0);
  });

  it("find their own ship among the entities", function () {
    const c = view(0, 1500, 0);
    put(c, 1, ENEMY, TemplateId.Fighter, 0, 0);
    put(c, 2, SELF, TemplateId.Pulse, 0, 0);
    assert.equal(ownShip(c), 3);
  });

  it("hunt turns towards the nearest enemy and fires when aligned and in range", function () {
    // Enemy straight ahead along +x, 500 away: no turn, thrust, fire.
    let c = view(0, 1500, 0);
    put(c, 5, ENEMY, TemplateId.Fighter, 500, 1500);
    put(c, 6, 0x10002, TemplateId.Fighter, -2000, 1500); // farther away, ignored
    let bits = behaviourInput("hunt", c, 0);
    assert.equal(bits & (INPUT_LEFT | INPUT_RIGHT), 0);
    assert.ok(bits & INPUT_SHOOTING);
    assert.ok(bits & INPUT_FORWARD);
    // Enemy above (counter-clockwise of our heading): turn left, hold fire.
    c = view(0, 1500, 0);
    put(c, 5, ENEMY, TemplateId.Fighter, 0, 2000);
    bits = behaviourInput("hunt", c, 0);
    assert.ok(bits & INPUT_LEFT);
    assert.equal(bits & INPUT_SHOOTING, 0);
    // Enemy below: turn right.
    c = view(0, 1500, 0);
    put(c, 5, ENEMY, TemplateId.Fighter, 0, 1000);
    assert.ok(behaviourInput("hunt", c, 0) & INPUT_RIGHT);
    // Too close: back off.
    c = view(0, 1500, 0);
    put(c, 5, ENEMY, TemplateId.Fighter, 100, 1500);
    assert.ok(behaviourInput("hunt", c, 0) & INPUT_BACKWARD);
  });

  it("steer away from the sun and thrust when too close to it", function () {
    // At (300, 0) facing the sun (heading 180°): turn round and thrust.
    for (const name of ["wander", "hunt"]) {
      const c = view(300, 0, 180);
      put(c, 5, ENEMY, TemplateId.Fighter, -1000, 0);
      const bits = behaviourInput(name, c, 0);
      assert.ok(bits & INPUT_FORWARD, name);
      assert.ok(bits & (INPUT_LEFT | INPUT_RIGHT), name);
      assert.equal(bits & INPUT_SHOOTING, 0, name);
    }
  });

  it("wander changes course every two seconds, differently per player", function () {
    const headings = new Set<number>();
    for (let t = 0; t < 20; t++) {
      const c = view(0, 1500, 0);
      headings.add(behaviourInput("wander", c, t * 2000) & (INPUT_LEFT | INPUT_RIGHT | INPUT_FORWARD));
    }
    assert.ok(headings.size >= 3);
    const a = view(0, 1500, 0);
    assert.equal(behaviourInput("wander", a, 500), behaviourInput("wander", a, 1500), "steady within a period");
  });
});
