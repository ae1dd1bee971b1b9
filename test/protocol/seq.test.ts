/** Wrap-safe sequence arithmetic across the wrap from 0xFFFFFFFF to 0. */
import assert from "node:assert/strict";
import { seqDiff, seqGreater, seqGreaterEq, seqLess, seqNext } from "../../modules/protocol/seq";

describe("seq: wrap-safe comparison", () => {
  it("0 is newer than 0xFFFFFFFF", () => {
    assert.equal(seqGreater(0, 0xffffffff), true);
    assert.equal(seqGreater(0xffffffff, 0), false);
    assert.equal(seqLess(0xffffffff, 0), true);
    assert.equal(seqLess(0, 0xffffffff), false);
    assert.equal(seqGreaterEq(0, 0xffffffff), true);
    assert.equal(seqGreaterEq(0xffffffff, 0), false);
  });

  it("distances across the wrap are small and signed", () => {
    assert.equal(seqDiff(0, 0xffffffff), 1);
    assert.equal(seqDiff(0xffffffff, 0), -1);
    assert.equal(seqDiff(5, 0xfffffffb), 10);
    assert.equal(seqDiff(0xfffffffb, 5), -10);
    assert.equal(seqDiff(0x12345678, 0x12345678), 0);
  });

  it("equal values are >= but neither greater nor less", () => {
    assert.equal(seqGreater(7, 7), false);
    assert.equal(seqLess(7, 7), false);
    assert.equal(seqGreaterEq(7, 7), true);
    assert.equal(seqGreaterEq(0xffffffff, 0xffffffff), true);
  });

  it("the forward window is 2^31 - 1 wide", () => {
    assert.equal(seqGreater(0x7fffffff, 0), true);
    assert.equal(seqGreater(0x7fffffff + 1, 0), false);
    assert.equal(seqGreater(0, 0x80000001), true);
  });

  it("seqNext wraps 0xFFFFFFFF to 0 and stays unsigned", () => {
    assert.equal(seqNext(0xfffffffe), 0xffffffff);
    assert.equal(seqNext(0xffffffff), 0);
    assert.equal(seqNext(0x7fffffff), 0x80000000);
  });
});
