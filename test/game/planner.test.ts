import assert from "node:assert/strict";
import { EntityTable, NO_PLAYER } from "../../modules/game/entities";
import { MAX_UPDATE_GAP, PriorityPlanner, type PlannerFocus } from "../../modules/server/updates";

const CAP = 64;

function setup(): { e: EntityTable; focus: PlannerFocus; planner: PriorityPlanner; list: Uint16Array } {
  const e = new EntityTable(CAP);
  const focus = { focusIndex: new Int32Array(2).fill(-1), focusX: new Float32Array(2), focusY: new Float32Array(2) };
  const planner = new PriorityPlanner(e, 2, focus);
  return { e, focus, planner, list: new Uint16Array(CAP) };
}

/** A moving entity owned by player 1 at (x, y). */
function mover(e: EntityTable, x: number, y: number): number {
  const i = e.add(5, 1, x, y);
  e.vx[i] = 100;
  return i;
}

function plan(p: PriorityPlanner, list: Uint16Array, slot = 0, budget = CAP): number[] {
  const n = p.plan(slot, CAP, list, 0);
  const sent = Math.min(n, budget);
  p.commit(slot, list, sent, 0);
  return Array.from(list.subarray(0, n));
}

describe("PriorityPlanner", function () {
  it("puts the own ship first, never-sent entities next, then the rest nearest first", function () {
    const { e, focus, planner, list } = setup();
    const far = mover(e, 2000, 0);
    const near = mover(e, 100, 0);
    const mid = mover(e, 500, 0);
    const own = mover(e, 0, 0);
    focus.focusIndex[0] = own;
    // First tick: own ship, then everything never sent, in index order.
    assert.deepEqual(plan(planner, list), [own, far, near, mid]);
    // Ticks 2 and 3: the far one (every 3 ticks at 2000) is not due.
    assert.deepEqual(plan(planner, list), [own, near, mid]);
    assert.deepEqual(plan(planner, list), [own, near, mid]);
    // Tick 4: everything is due; a newcomer goes right after the own ship.
    const late = mover(e, 3000, 0);
    const order = plan(planner, list);
    assert.equal(order[0], own);
    assert.equal(order[1], late);
    assert.deepEqual(order.slice(2), [near, mid, far]);
  });

  it("sends near entities every tick and far, unowned or resting ones less often, never past the guard", function () {
    const { e, focus, planner, list } = setup();
    const own = mover(e, 0, 0);
    focus.focusIndex[0] = own;
    const near = mover(e, 300, 0);
    const mid = mover(e, 1000, 0);
    const far = mover(e, 2000, 0);
    const farther = mover(e, 2900, 0);
    const sun = e.add(0, NO_PLAYER, 0, 0);
    const resting = e.add(5, 1, 200, 0);
    const sends = new Map<number, number[]>();
    for (let t = 1; t <= 24; t++) for (const i of plan(planner, list)) sends.set(i, [...(sends.get(i) ?? []), t]);
    const gaps = (i: number): number[] => sends.get(i)!.slice(1).map((t, k) => t - sends.get(i)![k]);
    assert.deepEqual(new Set(gaps(own)), new Set([1]));
    assert.deepEqual(new Set(gaps(near)), new Set([1]));
    assert.deepEqual(new Set(gaps(mid)), new Set([2]));
    assert.deepEqual(new Set(gaps(far)), new Set([3]));
    for (const i of [farther, sun, resting]) assert.deepEqual(new Set(gaps(i)), new Set([MAX_UPDATE_GAP]), `entity ${i}`);
  });

  it("sends overdue entities before merely due ones, so a tight budget still keeps every gap within 4 ticks", function () {
    const { e, focus, planner, list } = setup();
    const own = mover(e, 0, 0);
    focus.focusIndex[0] = own;
    for (let k = 0; k < 39; k++) mover(e, 50 + 20 * k, 0); // all near: due every tick
    const last = new Int32Array(CAP);
    let worst = 0;
    // 40 entities, 11 sends a tick: just over a quarter of them.
    for (let t = 1; t <= 200; t++) {
      const n = planner.plan(0, CAP, list, 0);
      const sent = Math.min(n, 11);
      planner.commit(0, list, sent, 0);
      assert.equal(list[0], own);
      for (let k = 0; k < sent; k++) {
        if (t > 10) worst = Math.max(worst, t - last[list[k]]);
        last[list[k]] = t;
      }
    }
    assert.equal(worst, MAX_UPDATE_GAP);
  });

  it("treats a recycled index as never sent, and forgets a slot when a new player takes it", function () {
    const { e, planner, list } = setup();
    const a = mover(e, 3000, 0);
    mover(e, 3000, 100);
    plan(planner, list);
    assert.deepEqual(plan(planner, list), [], "both far: not due yet");
    e.remove(a);
    const b = mover(e, 3000, 0);
    assert.equal(b, a, "same index, new generation");
    assert.deepEqual(plan(planner, list), [b]);
    planner.resetSlot(0);
    assert.equal(plan(planner, list).length, 2);
    // Slot 1 has its own history.
    assert.equal(plan(planner, list, 1).length, 2);
  });

  it("sends steady entities (projectiles) at most every 2nd tick, however near", function () {
    const e = new EntityTable(CAP);
    const steady = new Uint8Array(CAP);
    const focus = { focusIndex: new Int32Array(1).fill(-1), focusX: new Float32Array(1), focusY: new Float32Array(1), steady };
    const planner = new PriorityPlanner(e, 1, focus);
    const list = new Uint16Array(CAP);
    const ship = mover(e, 100, 0);
    const shot = mover(e, 120, 0);
    const farShot = mover(e, 2000, 0);
    steady[shot] = 1;
    steady[farShot] = 1;
    const sends = new Map<number, number[]>();
    for (let t = 1; t <= 12; t++) for (const i of plan(planner, list)) sends.set(i, [...(sends.get(i) ?? []), t]);
    assert.deepEqual(sends.get(ship), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.deepEqual(sends.get(shot), [1, 3, 5, 7, 9, 11]);
    assert.deepEqual(sends.get(farShot), [1, 4, 7, 10], "far: its distance's rate");
  });

  it("lists at most `limit` entries, the best ones", function () {
    const e = new EntityTable(CAP);
    const focus = { focusIndex: new Int32Array(1).fill(-1), focusX: new Float32Array(1), focusY: new Float32Array(1) };
    const planner = new PriorityPlanner(e, 1, focus, { limit: 5 });
    const list = new Uint16Array(CAP);
    for (let k = 0; k < 20; k++) mover(e, 3000 - 100 * k, 0);
    focus.focusIndex[0] = mover(e, 0, 0);
    assert.equal(planner.plan(0, CAP, list, 1), 5);
    planner.commit(0, list, 5, 1);
    assert.equal(list[0], 20, "own ship first");
    // The other four went in index order (all never sent); next tick the rest of the
    // never-sent ones come first, then what is due, nearest first.
    assert.deepEqual(Array.from(list.subarray(1, 5)), [0, 1, 2, 3]);
    assert.equal(planner.plan(0, CAP, list, 2), 5);
    assert.deepEqual(Array.from(list.subarray(0, 5)), [20, 4, 5, 6, 7]);
  });

  it("only plans entities below the client's sync cursor", function () {
    const { e, planner, list } = setup();
    for (let k = 0; k < 10; k++) mover(e, 100 * k, 0);
    const n = planner.plan(0, 4, list, 0);
    assert.deepEqual(Array.from(list.subarray(0, n)), [0, 1, 2, 3]);
  });
});
