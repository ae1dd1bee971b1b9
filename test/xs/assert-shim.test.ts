/**
 * The XS stand-in for `node:assert/strict` (test/xs/assert-shim.ts) passes and fails
 * exactly where Node's own assert does, case by case.
 */
import assert from "node:assert/strict";
import shim, { AssertionError as ShimError } from "./assert-shim";

type Case = [string, (a: typeof assert) => unknown];

class Point {
  constructor(readonly x: number, readonly y: number) {}
}

const CASES: Case[] = [
  ["ok true", (a) => a.ok(1)],
  ["ok false", (a) => a.ok(0)],
  ["ok empty string", (a) => a.ok("")],
  ["assert() itself", (a) => a(false)],
  ["equal same", (a) => a.equal(3, 3)],
  ["equal 1 and '1'", (a) => a.equal(1 as unknown, "1")],
  ["equal NaN", (a) => a.equal(NaN, NaN)],
  ["equal -0 and 0", (a) => a.equal(-0, 0)],
  ["equal objects", (a) => a.equal({}, {})],
  ["strictEqual", (a) => a.strictEqual("x", "x")],
  ["notEqual different", (a) => a.notEqual(1, 2)],
  ["notEqual same", (a) => a.notEqual(1, 1)],
  ["deepEqual arrays", (a) => a.deepEqual([1, [2, { a: 3 }]], [1, [2, { a: 3 }]])],
  ["deepEqual arrays differ", (a) => a.deepEqual([1, 2], [1, 3])],
  ["deepEqual lengths differ", (a) => a.deepEqual([1, 2], [1, 2, undefined])],
  ["deepEqual 1 and '1' inside", (a) => a.deepEqual([1], ["1"])],
  ["deepEqual objects, key order", (a) => a.deepEqual({ a: 1, b: 2 }, { b: 2, a: 1 })],
  ["deepEqual missing key", (a) => a.deepEqual({ a: 1 }, { a: 1, b: undefined })],
  ["deepEqual prototypes differ", (a) => a.deepEqual(new Point(1, 2), { x: 1, y: 2 })],
  ["deepEqual class instances", (a) => a.deepEqual(new Point(1, 2), new Point(1, 2))],
  ["deepEqual typed arrays", (a) => a.deepEqual(Uint8Array.of(1, 2), Uint8Array.of(1, 2))],
  ["deepEqual typed arrays differ", (a) => a.deepEqual(Uint16Array.of(1, 2), Uint16Array.of(1, 3))],
  ["deepEqual typed array kinds differ", (a) => a.deepEqual(Uint8Array.of(1), Int8Array.of(1))],
  ["deepEqual typed array and array", (a) => a.deepEqual(Uint8Array.of(1), [1])],
  ["deepEqual subarray", (a) => a.deepEqual(Uint8Array.of(9, 1, 2).subarray(1), Uint8Array.of(1, 2))],
  ["deepEqual NaN", (a) => a.deepEqual([NaN], [NaN])],
  ["deepEqual -0", (a) => a.deepEqual([-0], [0])],
  ["deepEqual Map", (a) => a.deepEqual(new Map([[1, { a: 1 }]]), new Map([[1, { a: 1 }]]))],
  ["deepEqual Map differs", (a) => a.deepEqual(new Map([[1, 2]]), new Map([[1, 3]]))],
  ["deepEqual Set", (a) => a.deepEqual(new Set([1, 2]), new Set([2, 1]))],
  ["deepEqual Set differs", (a) => a.deepEqual(new Set([1, 2]), new Set([1, 3]))],
  ["deepEqual Date", (a) => a.deepEqual(new Date(5), new Date(5))],
  ["deepEqual Date differs", (a) => a.deepEqual(new Date(5), new Date(6))],
  ["deepEqual null and {}", (a) => a.deepEqual(null, {})],
  ["deepEqual cycles", (a: typeof assert) => {
    const x: { self?: unknown } = {};
    x.self = x;
    const y: { self?: unknown } = {};
    y.self = y;
    a.deepEqual(x, y);
  }],
  ["notDeepEqual equal", (a) => a.notDeepEqual({ a: [1] }, { a: [1] })],
  ["notDeepEqual different", (a) => a.notDeepEqual({ a: [1] }, { a: [2] })],
  ["throws by class", (a) => a.throws(() => { throw new RangeError("r"); }, RangeError)],
  ["throws wrong class", (a) => a.throws(() => { throw new TypeError("t"); }, RangeError)],
  ["throws subclass", (a) => a.throws(() => { throw new RangeError("r"); }, Error)],
  ["throws regexp", (a) => a.throws(() => { throw new Error("boom 7"); }, /boom \d/)],
  ["throws regexp mismatch", (a) => a.throws(() => { throw new Error("boom"); }, /bang/)],
  ["throws object", (a) => a.throws(() => { throw new RangeError("r1"); }, { name: "RangeError", message: /r\d/ })],
  ["throws object mismatch", (a) => a.throws(() => { throw new RangeError("r1"); }, { message: "r2" })],
  ["throws validator", (a) => a.throws(() => { throw new Error("v"); }, (e: unknown) => e instanceof Error)],
  ["throws nothing", (a) => a.throws(() => {})],
  ["doesNotThrow", (a) => a.doesNotThrow(() => {})],
  ["doesNotThrow throwing", (a) => a.doesNotThrow(() => { throw new Error("x"); })],
  ["match", (a) => a.match("abc", /b/)],
  ["match fails", (a) => a.match("abc", /d/)],
  ["doesNotMatch", (a) => a.doesNotMatch("abc", /d/)],
  ["fail", (a) => a.fail("why")],
];

/** "pass", or the class name of what was thrown. */
function outcome(a: typeof assert, body: Case[1]): string {
  try {
    body(a);
    return "pass";
  } catch (e) {
    return e instanceof Error ? e.name : typeof e;
  }
}

describe("the XS stand-in for node:assert/strict", function () {
  for (const [name, body] of CASES) {
    it(`agrees with Node: ${name}`, function () {
      const want = outcome(assert, body);
      const got = outcome(shim as unknown as typeof assert, body);
      assert.equal(got, want);
    });
  }

  it("agrees with Node on rejects", async function () {
    await shim.rejects(Promise.reject(new RangeError("x")), RangeError);
    await assert.rejects(shim.rejects(Promise.resolve(1)), ShimError);
    await assert.rejects(shim.rejects(() => Promise.reject(new TypeError("x")), RangeError), ShimError);
  });

  it("keeps the caller's message, and carries actual, expected and operator", function () {
    try {
      shim.equal(1, 2, "custom");
      assert.fail("did not throw");
    } catch (e) {
      assert.ok(e instanceof ShimError);
      assert.equal(e.message, "custom");
      assert.equal(e.actual, 1);
      assert.equal(e.expected, 2);
      assert.equal(e.operator, "strictEqual");
      assert.equal(e.code, "ERR_ASSERTION");
    }
    assert.equal(shim.strict, shim);
  });
});
