import assert from "node:assert/strict";

describe("counters: one declaration", () => {
  it("names and count come from C, in index order", async () => {
    const { C, COUNTER_COUNT, COUNTER_NAMES, counterNames } = await import("../../modules/protocol/counters");
    assert.equal(COUNTER_COUNT, Object.keys(C).length);
    assert.equal(COUNTER_NAMES[C.PacketsIn], "packetsIn");
    assert.equal(COUNTER_NAMES[C.SendErrors], "sendErrors");
    assert.throws(() => counterNames({ A: 0, B: 2 }), /no counter has index 1/);
    assert.throws(() => counterNames({ A: 0, B: 0 }), /used twice/);
  });
});
