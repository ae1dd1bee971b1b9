/** makeConfig (modules/config.ts): defaults, overrides, and a clear ConfigError for every bad field. */
import assert from "node:assert/strict";
import { ConfigError, defaultConfig, makeConfig, type Config } from "../modules/config";
import { createServer } from "../modules/server/server";
import { FakeHost } from "./helpers/fake-host";

/** Each field with its accepted range. */
const RANGES: Array<[keyof Config, number, number]> = [
  ["maxPlayers", 1, 8],
  ["reliableQueueBytes", 512, 65535],
  ["maxEntities", 1, 65535],
  ["shipTypes", 1, 255],
  ["weaponTypes", 1, 255],
  ["timeoutMs", 100, 3600000],
  ["updateIntervalMs", 1, 10000],
  ["statsIntervalMs", 1, 60000],
  ["resendIntervalMs", 1, 10000],
  ["misbehaviourLimit", 1, 1000000],
  ["maxUpdatePacketsPerTick", 1, 64],
  ["planets", 0, 8],
  ["bots", 0, 8],
  ["botSkill", 0, 2],
];

describe("makeConfig", function () {
  it("returns the defaults, as a fresh object each time", function () {
    const a = makeConfig();
    assert.deepEqual(a, { ...defaultConfig });
    assert.notEqual(a, makeConfig());
    assert.ok(Object.isFrozen(defaultConfig));
    a.maxPlayers = 2;
    assert.equal(defaultConfig.maxPlayers, 8, "changing a config leaves the defaults alone");
  });

  it("takes overrides and keeps the rest", function () {
    const c = makeConfig({ maxPlayers: 4, timeoutMs: 5000 });
    assert.equal(c.maxPlayers, 4);
    assert.equal(c.timeoutMs, 5000);
    assert.equal(c.maxEntities, defaultConfig.maxEntities);
  });

  it("bots: at most maxPlayers", function () {
    assert.equal(makeConfig({ maxPlayers: 3, bots: 3 }).bots, 3);
    assert.throws(() => makeConfig({ maxPlayers: 3, bots: 4 }), (e: Error) => e instanceof ConfigError && /config\.bots must be an integer in 0\.\.3, got 4/.test(e.message));
  });

  it("checks every field, so the table here names them all", function () {
    assert.deepEqual(RANGES.map(([k]) => k).sort(), Object.keys(defaultConfig).sort());
  });

  for (const [field, min, max] of RANGES) {
    it(`${field}: ${min}..${max} are accepted; below, above, fractions and NaN throw a ConfigError naming it`, function () {
      assert.equal(makeConfig({ [field]: min })[field], min);
      assert.equal(makeConfig({ [field]: max })[field], max);
      for (const bad of [min - 1, max + 1, min + 0.5, NaN]) {
        assert.throws(() => makeConfig({ [field]: bad }), (e: unknown) => {
          assert.ok(e instanceof ConfigError && e instanceof RangeError);
          assert.equal(e.name, "ConfigError");
          assert.equal(e.message, `config.${field} must be an integer in ${min}..${max}, got ${bad}`);
          return true;
        });
      }
    });
  }

  it("the server refuses a queue too small for a packet, an announcement and the Leave reserve", function () {
    // 512 for entity traffic, 61 for an announcement (Join, Name, Selection), 9 per player and 9 for its own kick.
    assert.throws(() => createServer(makeConfig({ reliableQueueBytes: 512 }), new FakeHost()),
      (e: unknown) => e instanceof ConfigError && e.message === "config.reliableQueueBytes must be at least 654 for 8 players");
    assert.doesNotThrow(() => createServer(makeConfig({ reliableQueueBytes: 654 }), new FakeHost()));
    assert.doesNotThrow(() => createServer(makeConfig({ reliableQueueBytes: 600, maxPlayers: 1 }), new FakeHost()));
  });
});
