import assert from "node:assert/strict";

describe("counters: one declaration", () => {
  it("names and count come from Counter, in index order", async () => {
    const { Counter, COUNTER_COUNT, COUNTER_NAMES, counterNames } = await import("../../modules/protocol/counters");
    assert.equal(COUNTER_COUNT, Object.keys(Counter).length);
    assert.equal(COUNTER_NAMES[Counter.PacketsIn], "packetsIn");
    assert.equal(COUNTER_NAMES[Counter.SendErrors], "sendErrors");
    assert.throws(() => counterNames({ A: 0, B: 2 }), /no counter has index 1/);
    assert.throws(() => counterNames({ A: 0, B: 0 }), /used twice/);
  });
});
