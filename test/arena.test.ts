/** Arena: typed arrays carved from one buffer, widest first, sized exactly. */
import assert from "node:assert/strict";
import { Arena } from "../modules/arena";

describe("Arena", () => {
  it("hands out adjacent views of one buffer, widest elements first", () => {
    const a = new Arena(8 * 2 + 4 * 3 + 2 * 3 + 5);
    const f = a.f64(2);
    const u = a.u32(3);
    const h = a.i16(3);
    const b = a.u8(5);
    a.done();
    assert.equal(f.buffer, a.buffer);
    assert.equal(b.buffer, a.buffer);
    assert.deepEqual([f.byteOffset, u.byteOffset, h.byteOffset, b.byteOffset], [0, 16, 28, 34]);
    assert.deepEqual([f.length, u.length, h.length, b.length], [2, 3, 3, 5]);
    u[2] = 0xffffffff;
    h[0] = -2;
    assert.equal(new Uint32Array(a.buffer, 24, 1)[0], 0xffffffff, "u32[2] sits at byte 24");
    assert.equal(new Int16Array(a.buffer, 28, 1)[0], -2, "i16[0] follows at byte 28");
  });

  it("throws when a wider element would be misaligned", () => {
    const a = new Arena(2 + 4);
    a.u16(1);
    assert.throws(() => a.u32(1), /take wider elements first/);
  });

  it("throws when the arrays outgrow the size", () => {
    const a = new Arena(10);
    a.u32(2);
    assert.throws(() => a.u16(2), /no room/);
  });

  it("done() throws when bytes are left over", () => {
    const a = new Arena(12);
    a.u32(2);
    assert.throws(() => a.done(), /arena of 12 bytes: 8 taken/);
  });
});

describe("Arena: measured, not summed by hand", () => {
  it("a measuring pass sizes the real one, and rows() sums bytes by label", () => {
    const carve = (a: Arena): Uint8Array[] => [
      a.f64(3, "big") as unknown as Uint8Array,
      a.u32(5, "small") as unknown as Uint8Array,
      a.u16(7, "big") as unknown as Uint8Array,
      a.u8(9),
    ];
    const m = Arena.measuring();
    const empty = carve(m);
    assert.equal(m.bytes, 3 * 8 + 5 * 4 + 7 * 2 + 9);
    assert.ok(empty.every((v) => v.length === 0), "a measuring arena hands out empty arrays");
    const a = new Arena(m.bytes);
    const views = carve(a);
    a.done();
    assert.deepEqual(views.map((v) => v.length), [3, 5, 7, 9]);
    assert.deepEqual(a.rows(), [["big", 3 * 8 + 7 * 2], ["small", 5 * 4]]);
  });
});
