/**
 * The unreliable part of the server's packets, written by the native `pack`
 * (modules/server/entries.ts, modules/kernels/loops.c): Stats, then an Update with its
 * entries, then the header's count of unreliable messages. Compared with the protocol's own
 * writers (modules/protocol/codec.ts) byte for byte.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { EntityTable } from "../../modules/game/entities";
import { nodeNative } from "../../hosts/node/kernels";
import { MAX_PACKET, MAX_PLAYERS, Msg, UPDATE_ENTRY } from "../../modules/protocol/constants";
import { writeStats, writeUpdateEntry } from "../../modules/protocol/codec";
import { NativeEntryPacker } from "../../modules/server/entries";
import { HEADER_SIZE, HEADER_UNREL } from "../../modules/transport/frame";
import { COUNTER_COUNT, Counter } from "../../modules/protocol/counters";
import { POS_SHIFT } from "../../modules/units";

const CAPACITY = 16;
const STATS = 1 + 4 * MAX_PLAYERS;

function packer() {
  const native = nodeNative(makeConfig({ maxPlayers: 8, maxEntities: CAPACITY }));
  const memory = native.memory!;
  const carve = (bytes: number) => new Uint8Array(memory.buffer, memory.take(bytes), bytes);
  const entities = new EntityTable(CAPACITY, memory);
  const all = carve(MAX_PACKET + CAPACITY * UPDATE_ENTRY);
  const encoded = carve(CAPACITY);
  const list = new Uint16Array(memory.buffer, memory.take(2 * CAPACITY), CAPACITY);
  const scores = new Uint16Array(memory.buffer, memory.take(2 * MAX_PLAYERS), MAX_PLAYERS);
  const pings = new Uint16Array(memory.buffer, memory.take(2 * MAX_PLAYERS), MAX_PLAYERS);
  const counters = new Uint32Array(memory.buffer, memory.take(4 * COUNTER_COUNT), COUNTER_COUNT);
  const p = new NativeEntryPacker({ all, encoded, entities, list, scores, pings, counters }, native.kernels!, native);
  return { p, all, entities, list, scores, pings, counters };
}

describe("server packets: the native pack", () => {
  it("writes Stats, scores then pings by slot, top bits included, as writeStats does, then an empty Update", () => {
    const { p, all, scores, pings } = packer();
    scores.set([0xffff, 1, 0x8000, 0x7fff, 0, 2, 0x1234, 0xfffe]);
    pings.set([65535, 0, 120, 0x8001, 7, 0, 0, 1]);
    const o = HEADER_SIZE + 9;
    assert.equal(p.pack(0, 0, o, true), 0);
    const want = new Uint8Array(STATS);
    want[0] = Msg.Stats;
    writeStats(want, 1, scores, pings);
    assert.deepEqual(all.subarray(o, o + STATS), want);
    assert.deepEqual([...all.subarray(o + STATS, o + STATS + 2)], [Msg.Update, 0]);
    assert.equal(p.o, o + STATS + 2);
    assert.equal(p.k, 0);
    assert.equal(all[HEADER_UNREL], 2, "two unreliable messages");
  });

  it("counts what it wrote and the packet, which goes out as it is: Stats, the Update and its entries, packets and bytes out", () => {
    const { p, list, entities, counters } = packer();
    list[0] = entities.add(1, 0, 0, 0);
    list[1] = entities.add(1, 0, 5, 5);
    const o = HEADER_SIZE + 9;
    p.pack(0, 2, o, true);
    const first = o + STATS + 2 + 2 * UPDATE_ENTRY;
    assert.equal(p.o, first);
    const c = (k: keyof typeof Counter) => counters[Counter[k]];
    assert.deepEqual([c("StatsSent"), c("UpdatesSent"), c("UpdateEntitiesSent"), c("PacketsOut"), c("BytesOut")], [1, 1, 2, 1, first]);
    // Without Stats, and with no room for an Update: the packet alone is counted.
    p.pack(0, 2, MAX_PACKET - 1, false);
    assert.deepEqual([c("StatsSent"), c("UpdatesSent"), c("UpdateEntitiesSent"), c("PacketsOut"), c("BytesOut")], [1, 1, 2, 2, first + MAX_PACKET - 1]);
  });

  it("an Update's entries are the bytes writeUpdateEntry writes, ids with the entity's generation", () => {
    const { p, all, entities, list } = packer();
    const a = entities.add(1, 0, 100 << POS_SHIFT, -50 << POS_SHIFT);
    entities.remove(a);
    const b = entities.add(1, 0, 7 << POS_SHIFT, 9 << POS_SHIFT); // a later generation at a reused index, or a new index
    const c = entities.add(2, 0, -3 << POS_SHIFT, 4 << POS_SHIFT);
    entities.health[c] = 250;
    list[0] = c;
    list[1] = b;
    const o = HEADER_SIZE;
    assert.equal(p.pack(0, 2, o, false), 2);
    assert.equal(all[o], Msg.Update);
    assert.equal(all[o + 1], 2);
    const want = new Uint8Array(2 * UPDATE_ENTRY);
    writeUpdateEntry(want, 0, entities.id(c), -3, 4, 0, 0, 0, 100);
    writeUpdateEntry(want, UPDATE_ENTRY, entities.id(b), 7, 9, 0, 0, 0, entities.health[b]);
    assert.deepEqual(all.subarray(o + 2, o + 2 + 2 * UPDATE_ENTRY), want);
    assert.equal(all[HEADER_UNREL], 1);
  });

  it("no room for Stats: the Update alone; no room for an Update either: nothing, and the count says so", () => {
    const { p, all, list, entities } = packer();
    list[0] = entities.add(1, 0, 0, 0);
    const tight = MAX_PACKET - STATS + 1;
    p.pack(0, 1, tight, true);
    assert.equal(all[tight], Msg.Update, "the Update where Stats did not fit");
    assert.equal(all[HEADER_UNREL], 1);
    p.pack(0, 1, MAX_PACKET - 1, true);
    assert.equal(p.o, MAX_PACKET - 1);
    assert.equal(p.k, 0);
    assert.equal(all[HEADER_UNREL], 0);
  });
});
