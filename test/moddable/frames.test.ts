/**
 * The board's WebSocket protocol code (hosts/moddable/frames.ts) on Node, without the SDK:
 * frames as a client sends them, in whole and in pieces, what the reader drops or refuses,
 * and the upgrade request's headers.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { Frame, FrameReader, MAX_FRAGMENTS, MAX_MESSAGE, Status, upgradeRequest, WS_GUID } from "../../hosts/moddable/frames";

const MASK = [0x37, 0xfa, 0x21, 0x3d];

/** One client frame: FIN, opcode, masked payload (always masked unless `mask` is false). */
function frame(opcode: number, payload: Uint8Array, o: { fin?: boolean; mask?: boolean; rsv?: number; len64?: boolean } = {}): Uint8Array {
  const n = payload.length;
  const head: number[] = [(o.fin === false ? 0 : 0x80) | (o.rsv ?? 0) | opcode];
  const m = o.mask === false ? 0 : 0x80;
  if (o.len64) head.push(m | 127, 0, 0, 0, 0, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
  else if (n < 126) head.push(m | n);
  else head.push(m | 126, n >> 8, n & 0xff);
  if (m) head.push(...MASK);
  const out = new Uint8Array(head.length + n);
  out.set(head);
  for (let i = 0; i < n; i++) out[head.length + i] = m ? payload[i] ^ MASK[i & 3] : payload[i];
  return out;
}

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

interface Seen {
  event: number;
  length: number;
  code: number;
  bytes: number[];
}

/** Feed `bytes` in pieces of `piece` bytes; collect every event with what the reader holds. */
function read(reader: FrameReader, bytes: Uint8Array, piece = bytes.length): Seen[] {
  const seen: Seen[] = [];
  for (let start = 0; start < bytes.length; start += piece) {
    const end = Math.min(start + piece, bytes.length);
    let i = start;
    while (i < end) {
      i = reader.step(bytes, i, end);
      if (reader.event !== Frame.None) {
        const kept = reader.event === Frame.Binary && reader.length <= reader.payload.length ? reader.length : reader.event === Frame.Ping || reader.event === Frame.Close ? reader.length : 0;
        seen.push({ event: reader.event, length: reader.length, code: reader.code, bytes: [...reader.payload.subarray(0, kept)] });
      }
    }
  }
  return seen;
}

const bytes = (n: number, seed = 1) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + seed) & 0xff);

describe("board WebSocket frames", function () {
  it("reads binary messages of every length form, unmasked, whole or a byte at a time", function () {
    const messages = [bytes(0), bytes(14), bytes(125), bytes(126), bytes(512)];
    const stream = concat(...messages.map((m) => frame(2, m)), frame(2, bytes(300), { len64: true }));
    for (const piece of [stream.length, 1, 3, 7]) {
      const seen = read(new FrameReader(512), stream, piece);
      assert.deepEqual(seen.map((s) => s.event), [1, 1, 1, 1, 1, 1].map(() => Frame.Binary), `pieces of ${piece}`);
      messages.forEach((m, k) => assert.deepEqual(seen[k].bytes, [...m], `message ${k}, pieces of ${piece}`));
      assert.equal(seen[5].length, 300);
      assert.deepEqual(seen[5].bytes, [...bytes(300)]);
    }
  });

  it("passes over a binary message longer than its buffer, and gives its length (the server counts it tooLong)", function () {
    const seen = read(new FrameReader(512), concat(frame(2, bytes(600)), frame(2, bytes(20))), 5);
    assert.deepEqual(seen.map((s) => [s.event, s.length]), [[Frame.Binary, 600], [Frame.Binary, 20]]);
    assert.deepEqual(seen[1].bytes, [...bytes(20)]);
  });

  it("reports a text message and a fragmented one, storing neither, and goes on", function () {
    const stream = concat(
      frame(1, new TextEncoder().encode("hello")),
      frame(2, bytes(10), { fin: false }),
      frame(9, Uint8Array.of(1, 2)), // a ping between fragments is allowed
      frame(0, bytes(10), { fin: false }),
      frame(0, bytes(5), { fin: true }),
      frame(2, bytes(16, 9)),
    );
    const seen = read(new FrameReader(512), stream, 2);
    assert.deepEqual(seen.map((s) => s.event), [Frame.Text, Frame.Ping, Frame.Fragmented, Frame.Binary]);
    assert.deepEqual(seen[1].bytes, [1, 2]);
    assert.equal(seen[2].length, 25);
    assert.deepEqual(seen[3].bytes, [...bytes(16, 9)]);
  });

  it("gives ping payloads and close codes", function () {
    const seen = read(new FrameReader(512), concat(frame(9, bytes(125)), frame(10, bytes(3)), frame(8, Uint8Array.of(0x03, 0xe8, 0x62, 0x79, 0x65))));
    assert.deepEqual(seen.map((s) => s.event), [Frame.Ping, Frame.Pong, Frame.Close]);
    assert.deepEqual(seen[0].bytes, [...bytes(125)]);
    assert.equal(seen[2].code, 1000);
    const bare = read(new FrameReader(512), frame(8, new Uint8Array(0)));
    assert.deepEqual(bare.map((s) => [s.event, s.code]), [[Frame.Close, Status.NoStatus]]);
  });

  it("refuses what RFC 6455 forbids, and reads no more after", function () {
    const cases: [string, Uint8Array, number][] = [
      ["an unmasked frame", frame(2, bytes(4), { mask: false }), Status.ProtocolError],
      ["a reserved bit", frame(2, bytes(4), { rsv: 0x40 }), Status.ProtocolError],
      ["an unknown opcode", frame(3, bytes(4)), Status.ProtocolError],
      ["an unknown control opcode", frame(11, bytes(4)), Status.ProtocolError],
      ["a fragmented control frame", frame(9, bytes(4), { fin: false }), Status.ProtocolError],
      ["a control frame over 125 bytes", frame(9, bytes(126)), Status.ProtocolError],
      ["a continuation with nothing to continue", frame(0, bytes(4)), Status.ProtocolError],
      ["a new message inside a fragmented one", concat(frame(2, bytes(4), { fin: false }), frame(2, bytes(4))), Status.ProtocolError],
      ["a close with a 1-byte payload", frame(8, Uint8Array.of(3)), Status.ProtocolError],
      ["a message over 64 KiB", frame(2, new Uint8Array(MAX_MESSAGE + 1), { len64: true }), Status.TooBig],
    ];
    for (const [what, stream, code] of cases) {
      const reader = new FrameReader(512);
      const seen = read(reader, concat(stream, frame(2, bytes(4))));
      assert.deepEqual(seen.map((s) => [s.event, s.code]), [[Frame.Error, code]], what);
      assert.ok(reader.dead, what);
    }
  });

  it("closes on a message in more than 64 frames, or over 64 KiB in its fragments", function () {
    const parts = [frame(2, bytes(1), { fin: false })];
    for (let k = 1; k < MAX_FRAGMENTS; k++) parts.push(frame(0, bytes(1), { fin: false }));
    const ok = read(new FrameReader(512), concat(...parts, frame(0, bytes(1))));
    assert.deepEqual(ok.map((s) => s.event), [Frame.Error], "65 frames");
    assert.equal(ok[0].code, Status.PolicyViolation);
    const fits = read(new FrameReader(512), concat(...parts.slice(0, -1), frame(0, bytes(1))));
    assert.deepEqual(fits.map((s) => [s.event, s.length]), [[Frame.Fragmented, MAX_FRAGMENTS]], "64 frames");
    const big = read(new FrameReader(512), concat(frame(2, new Uint8Array(40000), { fin: false }), frame(0, new Uint8Array(40000))));
    assert.deepEqual(big.map((s) => [s.event, s.code]), [[Frame.Error, Status.TooBig]]);
  });

  it("reads the upgrade request's headers, in any case and order", function () {
    const key = "dGhlIHNhbXBsZSBub25jZQ==";
    const ok = upgradeRequest(`Host: lwar.local\r\nupgrade: WebSocket\r\nConnection: keep-alive, Upgrade\r\nSEC-WEBSOCKET-KEY: ${key}\r\nSec-WebSocket-Version: 13\r\n`);
    assert.deepEqual(ok, { key, problem: "" });
    assert.match(upgradeRequest(`Connection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13`).problem, /Upgrade: websocket/);
    assert.match(upgradeRequest(`Upgrade: websocket\r\nConnection: keep-alive\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13`).problem, /Connection/);
    assert.match(upgradeRequest(`Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 8`).problem, /13/);
    assert.match(upgradeRequest(`Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13`).problem, /Key/);
    assert.equal(upgradeRequest("").key, "");
  });

  it("hashes the key with the RFC's GUID (section 1.3's example)", function () {
    const accept = createHash("sha1").update("dGhlIHNhbXBsZSBub25jZQ==" + WS_GUID).digest("base64");
    assert.equal(accept, "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  });
});
