/** The memory budget's pool table (tools/budget.ts): every pool is listed and the rows add up to the printed total. */
import assert from "node:assert/strict";
import { formatPoolTable, manifestCreation, parseCreation, parseSets, poolTable } from "../../tools/budget";

describe("memory budget table", function () {
  const table = poolTable();

  it("lists every pool of the server and the game under the default config", function () {
    const names = table.rows.map((r) => r.name);
    for (const pattern of [/packet buffers/, /reliable queues/, /player tables/, /^entity arrays/, /broad-phase/, /^counters$/, /update planner/, /game entity arrays/]) {
      assert.ok(names.some((n) => pattern.test(n)), `no row matches ${pattern}: ${names.join(", ")}`);
    }
    for (const r of table.rows) assert.ok(Number.isInteger(r.bytes) && r.bytes > 0, `${r.name}: ${r.bytes} bytes`);
  });

  it("sums the rows to the printed total", function () {
    const sum = table.rows.reduce((total, r) => total + r.bytes, 0);
    assert.equal(table.total, sum);
    const lines = formatPoolTable(table);
    const last = lines[lines.length - 1];
    const m = /^\s*pools total\s+(\d+)$/.exec(last);
    assert.ok(m, `last line: ${last}`);
    assert.equal(Number(m[1]), sum);
    // one printed line per row, each with its bytes
    for (const r of table.rows) assert.ok(lines.some((l) => l.includes(r.name) && l.trimEnd().endsWith(String(r.bytes))), r.name);
  });

  it("follows the config", function () {
    const small = poolTable({ reliableQueueBytes: 1024 });
    const queues = (t: typeof table) => t.rows.find((r) => /reliable queues/.test(r.name))!.bytes;
    assert.equal(queues(table) - queues(small), 8 * 1024);
    assert.equal(table.total - small.total, 8 * 1024);
  });

  it("names the config it was given", function () {
    const lines = formatPoolTable(poolTable({ maxEntities: 128 }));
    assert.match(lines[0], /^Pools under the config maxEntities=128: 8 players, 128 entities/);
    assert.match(formatPoolTable(table)[0], /^Pools under the default config:/);
  });

  it("--set takes known integer fields, checked like any config", function () {
    assert.deepEqual(parseSets(["maxEntities=128", "reliableQueueBytes=1024"]), { maxEntities: 128, reliableQueueBytes: 1024 });
    assert.throws(() => parseSets(["maxEntites=128"]), /no config field 'maxEntites'/);
    assert.throws(() => parseSets(["maxEntities=12.5"]), /FIELD=INTEGER/);
    assert.throws(() => parseSets(["maxPlayers=9"]), /maxPlayers must be an integer in 1\.\.8/);
  });

  it("--creation: the manifest's by default, the plain esp32 heaps, or CHUNKS,SLOTS", function () {
    const m = manifestCreation();
    assert.deepEqual(parseCreation(undefined), m);
    assert.deepEqual(parseCreation("esp32"), { label: "plain -p esp32 creation", chunks: 32768, slots: 2048, stack: m.stack });
    assert.deepEqual(parseCreation("49152,2304"), { label: "creation", chunks: 49152, slots: 2304, stack: m.stack });
    assert.throws(() => parseCreation("big"), /esp32" or CHUNKS,SLOTS/);
  });
});
