/**
 * The recording format's writer and reader against each other: times on the 1/1024 ms
 * grid come back exactly from their deltas and others from their f64s, peer ids and
 * lengths past one byte, the buffer handed to the sink in pieces, and the size limit.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import {
  EndReason, END_BYTES, encodeHeader, Rec, RecordingReader, RecordWriter, type RecordingHeader,
} from "../../modules/recording/format";

function header(start: number): Uint8Array {
  const h: RecordingHeader = { config: makeConfig(), seed: 1, start, hashEveryMs: 1000 };
  return encodeHeader(h);
}

function collect(start: number, limitBytes?: number, bufferBytes?: number): { w: RecordWriter; bytes: () => Uint8Array; flushes: () => number } {
  const parts: Uint8Array[] = [];
  const w = new RecordWriter({ header: header(start), start, limitBytes, bufferBytes, sink: (b, n) => void parts.push(b.slice(0, n)) });
  return {
    w,
    flushes: () => parts.length,
    bytes(): Uint8Array {
      const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
      let at = 0;
      for (const p of parts) {
        out.set(p, at);
        at += p.length;
      }
      return out;
    },
  };
}

describe("recording format", function () {
  it("gives every time back bit for bit: deltas on the 1/1024 ms grid, f64s off it", function () {
    const start = 123456.5;
    const times = [123466.5, 123466.5, 123476.25, 123476.3, 123486.3, 123496.0009765625, 200000, 200000 + 1 / 1024, 9e6];
    const c = collect(start);
    for (const t of times) c.w.tick(t);
    c.w.end(EndReason.Finished, 9e6, 0xdeadbeef, 7, 8);
    const r = new RecordingReader(c.bytes());
    for (const t of times) {
      assert.equal(r.next(), Rec.Tick);
      assert.equal(r.time, t);
    }
    assert.equal(r.next(), Rec.End);
    assert.deepEqual([r.hash, r.packetsOut, r.bytesOut, r.reason], [0xdeadbeef, 7, 8, EndReason.Finished]);
    // A 10 ms step on the grid is 3 bytes: the kind and a 2-byte delta.
    const d = collect(0);
    d.w.tick(10);
    assert.equal(d.w.written - header(0).length, 1 + 3);
  });

  it("numbers 300 peers and carries datagrams of 1 to 2000 bytes", function () {
    const c = collect(0, undefined, 70000);
    const payload = new Uint8Array(2000);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7) & 0xff;
    for (let p = 0; p < 300; p++) c.w.datagram(p, payload.subarray(0, 1 + p * 6), 1 + p * 6, `10.0.${p >> 8}.${p & 0xff}`, 1000 + p);
    c.w.gone(300, "10.0.1.43", 1299);
    c.w.end(EndReason.Finished, 301, 0, 0, 0);
    const r = new RecordingReader(c.bytes());
    for (let p = 0; p < 300; p++) {
      assert.equal(r.next(), Rec.Peer);
      assert.equal(r.peer, p);
      assert.equal(r.next(), Rec.Datagram);
      assert.equal(r.address[r.peer], `10.0.${p >> 8}.${p & 0xff}`);
      assert.equal(r.port[r.peer], 1000 + p);
      assert.equal(r.dataLength, 1 + p * 6);
      assert.deepEqual(r.file.subarray(r.dataAt, r.dataAt + r.dataLength), payload.subarray(0, 1 + p * 6));
    }
    assert.equal(r.next(), Rec.Gone);
    assert.equal(r.peer, 299);
    assert.equal(r.next(), Rec.End);
  });

  it("hands the sink whole records, and never passes the limit, End included", function () {
    // The buffer holds at least one largest datagram (64 KiB): the limit is past three of it.
    const limit = 200000;
    const c = collect(0, limit);
    const b = new Uint8Array(100);
    let t = 0;
    let taken = 0;
    while (c.w.datagram(t, b, 100, "a", 1)) {
      taken++;
      t += 10;
    }
    assert.equal(c.w.full, true);
    assert.equal(c.w.tick(t), false, "nothing more once full");
    c.w.end(EndReason.SizeLimit, t, 1, 2, 3);
    const file = c.bytes();
    assert.ok(file.length <= limit && file.length > limit - 100 - 20 - END_BYTES, `${file.length} bytes`);
    assert.ok(c.flushes() >= 3, "the buffer went to the sink as it filled");
    const r = new RecordingReader(file);
    let n = 0;
    while (r.next() !== Rec.End) if (r.kind === Rec.Datagram) n++;
    assert.equal(n, taken);
    assert.equal(r.reason, EndReason.SizeLimit);
  });
});
