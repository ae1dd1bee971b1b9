/**
 * The device bench's inputs, checked without the Moddable SDK: the trace file that
 * `npm run bench:device:trace` writes replays to the recorded totals, the module list it
 * writes names real modules, and the per-step costs line up with timeReplay's timed walk.
 * The board's receive path it times takes the host's own steps, and the peers it names as
 * the board does replay the same match. Building and running the app itself needs the SDK:
 * `npm run bench:device`.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { performance } from "node:perf_hooks";
import { DEFAULT_CASE, Replay, recordTrace, timeReplay } from "../../harness/trace";
import { timeBroadcast } from "../../harness/broadcast";
import { Counter } from "../../modules/protocol/counters";
import { NAME_LENGTH } from "../../modules/protocol/constants";
import { deviceTrace, modulesFragment } from "../../bench/device/generate";
import { isBareAck, lastBareAcks, peerIp, useBoardAddresses } from "../../bench/device/peers";
import { StepRecorder } from "../../bench/device/steps";
import { caseLabel, decodeTraceFile, defaultDeviceCase, encodeTraceFile } from "../../bench/device/tracefile";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("device bench", function () {
  const o = defaultDeviceCase(DEFAULT_CASE);
  const file = deviceTrace(o);

  it("defaults to the bench's 8-player game case at capacity 192", function () {
    assert.deepEqual(
      { players: o.players, game: o.game, capacity: o.capacity, entities: o.entities },
      { players: 8, game: true, capacity: 192, entities: 0 },
    );
    assert.equal(caseLabel(o), "8p game192");
  });

  it("writes a trace file that replays to the recorded totals", function () {
    const { header, trace } = decodeTraceFile(file);
    assert.deepEqual(header.options, o);
    assert.equal(header.label, "8p game192");
    assert.ok(header.packetsOut > 1000 && header.bytesOut > 100000, `a busy match: ${header.packetsOut} packets, ${header.bytesOut} bytes`);
    const r = new Replay(header.options, trace);
    assert.equal(r.windowTicks, o.steps, "one tick per step: the device app sizes its per-step ring by steps");
    r.warm();
    r.walk(r.windowStart, r.windowTicks, true, null, null);
    const c = r.server.counters;
    assert.equal(c[Counter.PacketsOut], header.packetsOut);
    assert.equal(c[Counter.BytesOut], header.bytesOut);
    assert.equal(c[Counter.Kicks] + c[Counter.Timeouts], 0);
  });

  it("times a broadcast after the window: one chat, one rename and one selection from each player, taken and sent on to all eight, and a bare ack from each", function () {
    const { header, trace } = decodeTraceFile(file);
    const r = new Replay(header.options, trace);
    r.warm();
    r.walk(r.windowStart, r.windowTicks, true, null, null);
    const c = r.server.counters;
    const chats = c[Counter.ReliableReceived];
    const queued = r.server.endpoints.map((ep) => ep.nextSeq);
    const b = timeBroadcast(r, () => performance.now());
    assert.deepEqual([b.chats, b.recipients], [8, 8]);
    assert.equal(c[Counter.ReliableReceived] - chats, 24, "each chat, rename and selection processed once");
    assert.equal(c[Counter.Kicks] + c[Counter.Timeouts] + c[Counter.Refused], 0);
    assert.ok(b.chatUs > 0 && Number.isFinite(b.ackUs) && Number.isFinite(b.perRecipientUs), JSON.stringify(b));
    assert.ok(b.renameUs > 0 && b.selectUs > 0 && Number.isFinite(b.renamePerRecipientUs) && Number.isFinite(b.selectPerRecipientUs), JSON.stringify(b));
    // Every player now has its new name and selection.
    for (let s = 0; s < 8; s++) assert.equal(r.server.names[s * NAME_LENGTH], "p".charCodeAt(0), `slot ${s}'s name`);
    // The 24 messages went straight into every player's queue, and nothing else did.
    assert.deepEqual(
      r.server.endpoints.map((ep, s) => (ep.nextSeq - queued[s]) >>> 0),
      queued.map(() => 24),
    );
  });

  it("rejects a file that is not a trace, or of another version", function () {
    const bad = file.slice();
    bad[0] = 0x58;
    assert.throws(() => decodeTraceFile(bad), /bad magic/);
    const old = file.slice();
    old[4] = 0;
    assert.throws(() => decodeTraceFile(old), /version 0/);
    assert.throws(() => decodeTraceFile(file.subarray(0, 8)), /too short/);
    const { trace } = decodeTraceFile(file);
    const round = decodeTraceFile(encodeTraceFile({ label: "x", options: o, packetsOut: 1, bytesOut: 2, liveEntities: 3, packetsInPerSecond: 4 }, trace));
    assert.equal(round.header.bytesOut, 2);
    assert.equal(round.header.label, "x");
    assert.deepEqual(round.trace.subarray(round.trace.length - 100), trace.subarray(trace.length - 100), "the same records");
    assert.throws(() => decodeTraceFile(recordTrace({ ...o, warmSteps: 10, steps: 10 }).bytes), /not a device bench trace/);
  });

  it("lists every module the app loads outside bench/device, each with a source", function () {
    const f = modulesFragment();
    assert.ok(f.preload.includes("harness/trace") && f.preload.includes("modules/server/server"), "the walk found the driver and the core");
    assert.deepEqual(Object.keys(f.modules).sort(), [...f.preload].sort());
    for (const m of f.preload) {
      assert.ok(!m.startsWith("bench/device/"), `${m} belongs to manifest.json`);
      assert.equal(f.modules[m], "../../" + m);
      assert.ok(existsSync(join(ROOT, m + ".ts")) || existsSync(join(ROOT, m + ".js")), `${m} has no source`);
    }
  });

  it("times the board's receive path with the host's own drain: hosts/moddable/drain.ts in its manifest", function () {
    const f = modulesFragment();
    assert.equal(f.modules["hosts/moddable/drain"], "../../hosts/moddable/drain");
    assert.ok(f.preload.includes("hosts/moddable/drain"));
  });

  it("names the peers as the board does, and the match replays the same", function () {
    // hosts/moddable/host.ts ipText, which the device uses (it cannot load on Node).
    const dotted = (ip: number) => `${ip & 0xff}.${(ip >>> 8) & 0xff}.${(ip >>> 16) & 0xff}.${ip >>> 24}`;
    assert.equal(dotted(peerIp(0)), "192.168.4.2");
    const { header, trace } = decodeTraceFile(file);
    const r = new Replay(header.options, trace);
    useBoardAddresses(r, dotted);
    r.warm();
    r.walk(r.windowStart, r.windowTicks, true, null, null);
    const c = r.server.counters;
    assert.equal(c[Counter.PacketsOut], header.packetsOut);
    assert.equal(c[Counter.BytesOut], header.bytesOut);
    // Each client's last bare ack and ack + Input, received again from its board address,
    // take the normal path: counted in, nothing else counted.
    const acks = lastBareAcks(r, r.windowTicks);
    const inputs = r.lastAckInputs(r.windowStart, r.windowTicks);
    assert.equal(acks.length, 8);
    assert.ok(inputs.length >= 4, `${inputs.length} clients' last datagrams are an ack + Input`);
    for (const at of acks) assert.ok(isBareAck(r.datagramAt(at).bytes));
    const before = c.slice();
    const reader = r.replayer.reader;
    for (const at of acks.concat(inputs)) {
      const d = r.datagramAt(at);
      r.server.receive(d.bytes, d.bytes.length, dotted(peerIp(d.client)), reader.port[d.client]);
    }
    for (let i = 0; i < c.length; i++) {
      if (i !== Counter.PacketsIn && i !== Counter.BytesIn) assert.equal(c[i], before[i], `counter ${i}`);
    }
    assert.equal(c[Counter.PacketsIn], before[Counter.PacketsIn] + acks.length + inputs.length);
  });

  it("recovers each step's cost from timeReplay's clock readings", function () {
    const { header, trace } = decodeTraceFile(file);
    const short = { ...header.options };
    const recorder = new StepRecorder(() => performance.now(), short.steps);
    const result = timeReplay(short, trace, recorder.now, false);
    const costs = recorder.steps(result);
    assert.ok(costs !== null, "the last steps + 1 clock readings are the timed walk");
    assert.equal(costs.length, result.ticks);
    const sorted = costs.slice().sort();
    assert.ok(Math.abs(sorted[sorted.length - 1] * 1000 - result.maxUs) < 1e-6 * Math.max(1, result.maxUs));
    assert.equal(new StepRecorder(() => performance.now(), short.steps + 1).steps(result), null, "a ring of the wrong size is refused");
  });
});
