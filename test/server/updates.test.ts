import assert from "node:assert/strict";
import { EntityTable, NO_PLAYER } from "../../modules/game/entities";
import { MAX_UPDATE_GAP, PriorityPlanner, type PlannerFocus } from "../../modules/server/updates";
import { fromWu } from "../../modules/units";
import type { NativeOptions } from "../../modules/native";
import { nativeI32, nativeU8, testNative } from "../helpers/native";

const CAP = 64;

interface Setup {
  e: EntityTable;
  focus: PlannerFocus;
  planner: PriorityPlanner;
  list: Uint16Array;
}

/** A planner over a table whose adds and removes are announced to every slot, as the server does. */
function setup(slots = 2, options?: { limit?: number }, steady?: (native: NativeOptions) => Uint8Array): Setup {
  const native = testNative({ maxPlayers: slots, maxEntities: CAP });
  const e = new EntityTable(CAP, native.memory);
  const focus = {
    focusIndex: nativeI32(native, slots).fill(-1), focusX: nativeI32(native, slots), focusY: nativeI32(native, slots),
    steady: steady?.(native),
  };
  const planner = new PriorityPlanner(e, slots, focus, options ?? null, native);
  e.listener = {
    entityAdded(i: number): void {
      for (let s = 0; s < slots; s++) planner.added(s, i);
    },
    entityRemoved(i: number): void {
      for (let s = 0; s < slots; s++) planner.removed(s, i);
    },
  };
  return { e, focus, planner, list: planner.list };
}

/** A moving entity owned by player 1 at (x, y) wu. */
function mover(e: EntityTable, x: number, y: number): number {
  const i = e.add(5, 1, fromWu(x), fromWu(y));
  e.vx[i] = 100;
  return i;
}

function plan(p: PriorityPlanner, list: Uint16Array, slot = 0, budget = CAP): number[] {
  const n = p.plan(slot, list, 0);
  p.commit(slot, list, Math.min(n, budget), 0);
  return Array.from(list.subarray(0, n));
}

/** Update ticks (1-based) at which each entity was listed, over `ticks` plans. */
function schedule(s: Setup, ticks: number): Map<number, number[]> {
  const sends = new Map<number, number[]>();
  for (let t = 1; t <= ticks; t++) for (const i of plan(s.planner, s.list)) sends.set(i, [...(sends.get(i) ?? []), t]);
  return sends;
}

function gaps(times: number[]): Set<number> {
  return new Set(times.slice(1).map((t, k) => t - times[k]));
}

describe("PriorityPlanner", function () {
  it("puts the own ship first, newly announced entities next, then what is due", function () {
    const s = setup();
    const far = mover(s.e, 2000, 0);
    const near = mover(s.e, 100, 0);
    const mid = mover(s.e, 1000, 0);
    const own = mover(s.e, 0, 0);
    s.focus.focusIndex[0] = own;
    assert.deepEqual(plan(s.planner, s.list), [own, far, near, mid]);
    assert.deepEqual(plan(s.planner, s.list), [own, near], "mid is due every 2, far every 3");
    const late = mover(s.e, 2900, 0);
    assert.deepEqual(plan(s.planner, s.list), [own, late, near, mid]);
    assert.deepEqual(plan(s.planner, s.list), [own, far, near]);
  });

  it("sends near entities every tick and far, unowned or resting ones less often", function () {
    const s = setup();
    const own = mover(s.e, 0, 0);
    s.focus.focusIndex[0] = own;
    const near = mover(s.e, 300, 0);
    const mid = mover(s.e, 1000, 0);
    const far = mover(s.e, 2000, 0);
    const farther = mover(s.e, 2900, 0);
    const sun = s.e.add(0, NO_PLAYER, 0, 0);
    const resting = s.e.add(5, 1, fromWu(200), 0);
    const sends = schedule(s, 24);
    assert.deepEqual(gaps(sends.get(own)!), new Set([1]));
    assert.deepEqual(gaps(sends.get(near)!), new Set([1]));
    assert.deepEqual(gaps(sends.get(mid)!), new Set([2]));
    assert.deepEqual(gaps(sends.get(far)!), new Set([3]));
    for (const i of [farther, sun, resting]) assert.deepEqual(gaps(sends.get(i)!), new Set([MAX_UPDATE_GAP]), `entity ${i}`);
  });

  it("measures distance from the focus, which follows the ship", function () {
    const s = setup();
    const a = mover(s.e, 2000, 0);
    s.focus.focusX[0] = fromWu(2000);
    s.focus.focusY[0] = fromWu(100);
    const sends = schedule(s, 8);
    assert.deepEqual(sends.get(a), [1, 2, 3, 4, 5, 6, 7, 8], "near the focus: every tick");
  });

  it("sends steady entities (projectiles) at most every 2nd tick, however near", function () {
    let steady: Uint8Array = new Uint8Array(0);
    const s = setup(1, undefined, (native) => (steady = nativeU8(native, CAP)));
    const ship = mover(s.e, 100, 0);
    const shot = mover(s.e, 120, 0);
    const farShot = mover(s.e, 2000, 0);
    steady[shot] = 1;
    steady[farShot] = 1;
    const sends = schedule(s, 12);
    assert.deepEqual(sends.get(ship), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    assert.deepEqual(sends.get(shot), [1, 3, 5, 7, 9, 11]);
    assert.deepEqual(sends.get(farShot), [1, 4, 7, 10], "far: its distance's rate");
  });

  it("carries what did not fit over to the next tick, first after the new ones", function () {
    const s = setup(1, { limit: 5 });
    for (let k = 0; k < 20; k++) mover(s.e, 3000 - 100 * k, 0);
    s.focus.focusIndex[0] = mover(s.e, 0, 0);
    assert.equal(s.planner.plan(0, s.list, 1), 5);
    assert.deepEqual(Array.from(s.list.subarray(0, 5)), [20, 0, 1, 2, 3], "own ship, then the new ones in index order");
    s.planner.commit(0, s.list, 3, 1);
    // 2 and 3 were listed but not sent, 4.. not listed: all stay new.
    assert.equal(s.planner.plan(0, s.list, 2), 5);
    assert.deepEqual(Array.from(s.list.subarray(0, 5)), [20, 2, 3, 4, 5]);
    s.planner.commit(0, s.list, 5, 2);
  });

  it("keeps every gap within 4 ticks while the budget carries a quarter of what is due", function () {
    const s = setup(1);
    const own = mover(s.e, 0, 0);
    s.focus.focusIndex[0] = own;
    for (let k = 0; k < 39; k++) mover(s.e, 50 + 15 * k, 0); // all near: due every tick
    const last = new Int32Array(CAP);
    let worst = 0;
    for (let t = 1; t <= 200; t++) {
      const n = s.planner.plan(0, s.list, 0);
      const sent = Math.min(n, 11);
      s.planner.commit(0, s.list, sent, 0);
      assert.equal(s.list[0], own);
      for (let k = 0; k < sent; k++) last[s.list[k]] = t;
      // Every entity, sent this tick or not, was sent within the last 4 ticks.
      if (t > 10) for (let i = 0; i < 40; i++) worst = Math.max(worst, t - last[i] + 1);
    }
    assert.equal(worst, MAX_UPDATE_GAP);
  });

  it("lists entities at the 4-tick guard before those due early by their distance", function () {
    const s = setup(1, { limit: 3 });
    const near: number[] = [];
    for (let k = 0; k < 4; k++) near.push(mover(s.e, 100 + k, 0));
    const far = mover(s.e, 2900, 0);
    // Tick 1 (all new): the limit takes three; the rest stay new and go on tick 2.
    plan(s.planner, s.list);
    plan(s.planner, s.list);
    // Play on with a budget of 3: far reaches its guard and must never wait past it.
    let last = 0;
    for (let t = 3; t <= 40; t++) {
      if (plan(s.planner, s.list).slice(0, 3).includes(far)) {
        if (last > 0) assert.ok(t - last <= 4, `far waited ${t - last} ticks`);
        last = t;
      }
    }
    assert.ok(last > 30, "far kept being sent");
  });

  it("never lists a removed entity, and a recycled index is new again", function () {
    const s = setup();
    const a = mover(s.e, 2900, 0);
    const other = mover(s.e, 2900, 100);
    plan(s.planner, s.list);
    s.e.remove(a);
    for (let t = 0; t < 8; t++) assert.ok(!plan(s.planner, s.list).includes(a));
    const b = mover(s.e, 2900, 0);
    assert.equal(b, a, "same index, new generation");
    assert.deepEqual(plan(s.planner, s.list).slice(0, 1), [b]);
    assert.ok(plan(s.planner, s.list, 1).includes(other), "slot 1 has its own history");
  });

  it("forgets a slot when a new player takes it, and lists only what was announced to it", function () {
    const s = setup();
    mover(s.e, 2900, 0);
    mover(s.e, 2900, 100);
    plan(s.planner, s.list);
    s.planner.resetSlot(0);
    assert.deepEqual(plan(s.planner, s.list), [], "nothing announced since the reset");
    s.planner.added(0, 1);
    assert.deepEqual(plan(s.planner, s.list), [1]);
  });

  it("throws when a commit does not follow its own plan", function () {
    const s = setup();
    mover(s.e, 0, 0);
    s.planner.plan(0, s.list, 0);
    assert.throws(() => s.planner.commit(1, s.list, 1, 0), /commit for slot 1/);
  });
});
