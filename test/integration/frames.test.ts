/** FrameTracker (hosts/node/frames.ts): which client messages came in more than one frame. */
import assert from "node:assert/strict";
import { FrameTracker } from "../../hosts/node/frames";

/** One frame as a client sends it: masked, with the payload length in the shortest form. */
function frame(fin: boolean, opcode: number, length: number): Uint8Array {
  const ext = length < 126 ? 0 : length < 65536 ? 2 : 8;
  const b = new Uint8Array(2 + ext + 4 + length);
  b[0] = (fin ? 0x80 : 0) | opcode;
  if (ext === 0) b[1] = 0x80 | length;
  else if (ext === 2) {
    b[1] = 0x80 | 126;
    b[2] = length >> 8;
    b[3] = length & 0xff;
  } else {
    b[1] = 0x80 | 127;
    for (let k = 0, v = length; k < 8; k++, v = Math.floor(v / 256)) b[9 - k] = v % 256;
  }
  for (let k = 0; k < length; k++) b[2 + ext + 4 + k] = 0xff; // payload bytes that look like headers
  return b;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

function takeAll(t: FrameTracker): boolean[] {
  const out: boolean[] = [];
  while (t.pending > 0) out.push(t.take());
  return out;
}

describe("FrameTracker", function () {
  it("a single binary frame is one whole message", function () {
    const t = new FrameTracker();
    t.feed(frame(true, 2, 19));
    assert.deepEqual(takeAll(t), [false]);
  });

  it("a binary frame without FIN and its continuation are one fragmented message", function () {
    const t = new FrameTracker();
    t.feed(concat(frame(false, 2, 10), frame(true, 0, 9)));
    assert.deepEqual(takeAll(t), [true]);
  });

  it("three fragments with a ping between them are one fragmented message", function () {
    const t = new FrameTracker();
    t.feed(concat(frame(false, 2, 3), frame(false, 0, 3), frame(true, 9, 4), frame(true, 0, 3)));
    assert.deepEqual(takeAll(t), [true]);
  });

  it("control frames (ping, pong, close) are no messages", function () {
    const t = new FrameTracker();
    t.feed(concat(frame(true, 9, 0), frame(true, 10, 2), frame(true, 8, 2)));
    assert.deepEqual(takeAll(t), []);
  });

  it("a text frame is a message like a binary one", function () {
    const t = new FrameTracker();
    t.feed(concat(frame(true, 1, 5), frame(true, 2, 5)));
    assert.deepEqual(takeAll(t), [false, false]);
  });

  it("a fragmented message followed by a whole one, fed one byte at a time", function () {
    const t = new FrameTracker();
    const bytes = concat(frame(false, 2, 200), frame(true, 0, 0), frame(true, 2, 19));
    for (let i = 0; i < bytes.length; i++) t.feed(bytes.subarray(i, i + 1));
    assert.deepEqual(takeAll(t), [true, false]);
  });

  it("16-bit and 64-bit payload lengths are passed over exactly", function () {
    const t = new FrameTracker();
    t.feed(concat(frame(true, 2, 513), frame(true, 2, 70000), frame(true, 2, 1)));
    assert.deepEqual(takeAll(t), [false, false, false]);
  });

  it("unmasked frames have no masking key", function () {
    const t = new FrameTracker();
    t.feed(Uint8Array.of(0x82, 2, 0xaa, 0xbb, 0x02, 1, 0xcc, 0x80, 0));
    assert.deepEqual(takeAll(t), [false, true]);
  });

  it("take() with nothing pending says whole", function () {
    assert.equal(new FrameTracker().take(), false);
  });
});
