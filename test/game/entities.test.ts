/** The entity pool (modules/game/entities.ts): generational ids, their wrap, the free list, misuse. */
import assert from "node:assert/strict";
import { EntityError, EntityTable, NO_PLAYER } from "../../modules/game/entities";

describe("EntityTable", function () {
  it("generations run 1..65535, then wrap to 1: id 0 never names an entity, an old id never the new one", function () {
    const e = new EntityTable(1);
    let previous = -1;
    for (let n = 1; n <= 65536; n++) {
      const i = e.add(0, NO_PLAYER, 0, 0);
      assert.equal(i, 0);
      const id = e.id(0);
      if (n === 1 || n === 65535 || n === 65536) assert.equal(id >>> 16, n === 65536 ? 1 : n, `add ${n}`);
      if (previous >= 0 && e.indexOf(previous) !== -1) assert.fail(`an old id ${previous} still names the entity`);
      previous = id;
      e.remove(0);
    }
    for (let k = 0; k < 65535; k++) {
      e.add(0, NO_PLAYER, 0, 0);
      assert.notEqual(e.generation[0], 0);
      e.remove(0);
    }
  });

  it("indexOf finds live ids only, of the current generation", function () {
    const e = new EntityTable(4);
    const a = e.add(1, NO_PLAYER, 0, 0);
    const id = e.id(a);
    assert.equal(e.indexOf(id), a);
    e.remove(a);
    assert.equal(e.indexOf(id), -1);
    const b = e.add(1, NO_PLAYER, 0, 0);
    assert.equal(b, a, "the index is reused");
    assert.equal(e.indexOf(id), -1, "the old id names nothing");
    assert.equal(e.indexOf(e.id(b)), b);
    assert.equal(e.indexOf(0x00010009), -1, "beyond capacity");
  });

  it("fills from index 0 upwards, returns -1 when full, and keeps a high-water mark", function () {
    const e = new EntityTable(3);
    assert.deepEqual([e.add(0, 1, 0, 0), e.add(0, 1, 0, 0), e.add(0, 1, 0, 0)], [0, 1, 2]);
    assert.equal(e.add(0, 1, 0, 0), -1);
    assert.equal(e.count, 3);
    e.remove(1);
    e.remove(2);
    assert.equal(e.end, 3);
    assert.equal(e.add(0, 1, 0, 0), 2, "the last freed first");
  });

  it("removeOwnedBy removes exactly one owner's entities", function () {
    const e = new EntityTable(8);
    for (let k = 0; k < 6; k++) e.add(5, k % 2 === 0 ? 0x10000 : 0x10001, 0, 0);
    e.removeOwnedBy(0x10000);
    assert.equal(e.count, 3);
    for (let i = 0; i < 6; i++) assert.equal(e.alive[i], i % 2 === 0 ? 0 : 1);
  });

  it("misuse throws an EntityError: a capacity out of 1..65535, removing a dead slot", function () {
    for (const bad of [0, 65536, 1.5]) assert.throws(() => new EntityTable(bad), (x: unknown) => x instanceof EntityError && /entity capacity must be 1\.\.65535/.test((x as Error).message));
    const e = new EntityTable(2);
    assert.throws(() => e.remove(0), /remove of a dead entity slot 0/);
    assert.throws(() => e.remove(5), EntityError);
  });
});
