/**
 * The codec: every message through its writer and reader, golden packets as byte
 * literals, and one case per malformed packet class with the exact counter it bumps. The
 * same classes of bad input fed to a Server are in test/server/bad-input.test.ts.
 */
import assert from "node:assert/strict";
import {
  FROM_CLIENT, FROM_SERVER, HEADER_SIZE, MAX_PACKET, MAX_PLAYERS, Msg, NAME_LENGTH, NO_ACK, RejectReason, UPDATE_ENTRY,
} from "../../modules/protocol/constants";
import { NO_PLAYER } from "../../modules/game/entities";
import { getU32, setU32 } from "../../modules/protocol/bytes";
import { createCounters } from "../../modules/protocol/counters";
import {
  Fields, INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING, chatPayloadSize,
  headerAck, headerRel, headerTimestamp, headerUnrel, payloadSize, readAdd, readChat, readId, readInput, readInputView,
  writeUpdateNum, writeUpdateStart,
  readName, readReject, readSelection, readStats, updateCount, updateEntryHealth, updateEntryId,
  updateEntryRot, updateEntryVx, updateEntryVy, updateEntryX, updateEntryY, validatePacket, writeAdd,
  writeChat, writeHeader, writeId, writeInput, writeName, writeReject, writeSelection, writeStats,
  writeUpdateEntry,
} from "../../modules/protocol/codec";
import { Endpoint, finishPacket } from "../../modules/transport/endpoint";
import { lwarChannel } from "../../modules/protocol/channel";
import { Client } from "../../modules/client/client";
import { makeConfig } from "../../modules/config";
import { ascii, hex, nonZero, text } from "../helpers/bytes";
import { FakeHost } from "../helpers/fake-host";

/**
 * Wrap one message in a packet: header, then `seqno u32, type u8` (reliable) or
 * `type u8` (unreliable), then whatever `write` puts at the payload offset.
 * Checks the writer's size against `size`, validates the packet from `from`, and
 * returns the buffer and the payload offset.
 */
function onePacket(
  reliable: boolean, type: number, size: number, from: number, write: (b: Uint8Array, o: number) => number,
): { b: Uint8Array; p: number; end: number } {
  const b = new Uint8Array(MAX_PACKET);
  let o = writeHeader(b, 7, 1234, reliable ? 1 : 0, reliable ? 0 : 1);
  if (reliable) {
    setU32(b, o, 0x01020304);
    b[o + 4] = type;
    o += 5;
  } else b[o++] = type;
  const end = write(b, o);
  assert.equal(end - o, size, "writer returns the offset after its payload");
  const counters = createCounters();
  assert.equal(validatePacket(b, end, from, counters), true, "packet validates");
  assert.deepEqual(nonZero(counters), {});
  assert.equal(payloadSize(b, o, type, end), size, "payloadSize agrees with the writer");
  return { b, p: o, end };
}

describe("codec: every message round-trips", () => {
  const f = new Fields();

  it("header", () => {
    const b = new Uint8Array(HEADER_SIZE);
    assert.equal(writeHeader(b, 0xfffffffe, 0x89abcdef, 3, 200), HEADER_SIZE);
    assert.equal(getU32(b, 0), 0xf27087c5);
    assert.equal(headerAck(b), 0xfffffffe);
    assert.equal(headerTimestamp(b), 0x89abcdef);
    assert.equal(headerRel(b), 3);
    assert.equal(headerUnrel(b), 200);
  });

  it("Connect and Disconnect carry no payload", () => {
    for (const type of [Msg.Connect, Msg.Disconnect]) {
      const { end } = onePacket(true, type, 0, FROM_CLIENT, (_b, o) => o);
      assert.equal(end, HEADER_SIZE + 5);
    }
  });

  it("Join, Leave and Remove carry one id", () => {
    for (const type of [Msg.Join, Msg.Leave, Msg.Remove]) {
      const { b, p } = onePacket(true, type, 4, FROM_SERVER, (b, o) => writeId(b, o, 0xfffe0007));
      assert.equal(readId(b, p), 0xfffe0007);
    }
  });

  it("Chat, sent by either side, from 1 to 127 characters", () => {
    for (const from of [FROM_CLIENT, FROM_SERVER]) {
      for (const msg of ["x", "hello, world", "~".repeat(127)]) {
        const src = ascii(msg);
        const { b, p } = onePacket(true, Msg.Chat, chatPayloadSize(src.length), from, (b, o) =>
          writeChat(b, o, 0x00030002, src, 0, src.length));
        readChat(b, p, f);
        assert.equal(f.id, 0x00030002);
        assert.equal(f.textLength, src.length);
        assert.equal(text(b, f.textOffset, f.textLength), msg);
        assert.equal(b[p + 4 + src.length], 0, "NUL-terminated");
      }
    }
  });

  it("Chat writes a slice of its source, and refuses 128 characters", () => {
    const src = ascii("..abc..");
    const { b, p } = onePacket(true, Msg.Chat, 8, FROM_CLIENT, (b, o) => writeChat(b, o, 1, src, 2, 3));
    readChat(b, p, f);
    assert.equal(text(b, f.textOffset, f.textLength), "abc");
    assert.throws(() => writeChat(new Uint8Array(200), 0, 1, new Uint8Array(128), 0, 128), RangeError);
  });

  it("Add, with an owner and with no owner", () => {
    for (const owner of [0x00050001, NO_PLAYER]) {
      const { b, p } = onePacket(true, Msg.Add, 9, FROM_SERVER, (b, o) => writeAdd(b, o, 0x0002002a, owner, 250));
      readAdd(b, p, f);
      assert.equal(f.id, 0x0002002a);
      assert.equal(f.other, owner);
      assert.equal(f.a, 250);
    }
  });

  it("Selection, sent by either side", () => {
    for (const from of [FROM_CLIENT, FROM_SERVER]) {
      const { b, p } = onePacket(true, Msg.Selection, 6, from, (b, o) => writeSelection(b, o, 0x00010006, 2, 255));
      readSelection(b, p, f);
      assert.deepEqual([f.id, f.a, f.b], [0x00010006, 2, 255]);
    }
  });

  it("Name, NUL-padded to 32 bytes, up to 31 characters", () => {
    for (const from of [FROM_CLIENT, FROM_SERVER]) {
      for (const name of ["A", "Ann", "n".repeat(31)]) {
        const src = ascii(name);
        const { b, p } = onePacket(true, Msg.Name, 4 + NAME_LENGTH, from, (b, o) => {
          b.fill(0xee, o, o + 40); // the writer must overwrite stale bytes with padding
          return writeName(b, o, 0x00040003, src, 0, src.length);
        });
        readName(b, p, f);
        assert.equal(f.id, 0x00040003);
        assert.equal(text(b, f.textOffset, f.textLength), name);
        for (let i = src.length; i < NAME_LENGTH; i++) assert.equal(b[p + 4 + i], 0);
      }
    }
    assert.throws(() => writeName(new Uint8Array(64), 0, 1, new Uint8Array(32), 0, 32), RangeError);
  });

  it("Stats, scores then pings, by slot", () => {
    const scores = new Uint16Array(MAX_PLAYERS);
    const pings = new Uint16Array(MAX_PLAYERS);
    for (let i = 0; i < MAX_PLAYERS; i++) {
      scores[i] = i * 1000 + 1;
      pings[i] = 65535 - i;
    }
    const { b, p } = onePacket(false, Msg.Stats, 32, FROM_SERVER, (b, o) => writeStats(b, o, scores, pings));
    const s2 = new Uint16Array(MAX_PLAYERS);
    const p2 = new Uint16Array(MAX_PLAYERS);
    readStats(b, p, s2, p2);
    assert.deepEqual(s2, scores);
    assert.deepEqual(p2, pings);
  });

  it("Update with zero, one and 33 entities", () => {
    for (const num of [0, 1, 33]) {
      const { b, p } = onePacket(false, Msg.Update, 1 + 15 * num, FROM_SERVER, (b, o) => {
        b[o] = num;
        let e = o + 1;
        for (let i = 0; i < num; i++) e = writeUpdateEntry(b, e, 0x00010000 + i, 0 - i * 100, i * 7, i - 16, 16 - i, i * 1000, i);
        return e;
      });
      assert.equal(updateCount(b, p), num);
      for (let i = 0; i < num; i++) {
        const e = p + 1 + 15 * i;
        assert.equal(updateEntryId(b, e), 0x00010000 + i);
        assert.equal(updateEntryX(b, e), 0 - i * 100);
        assert.equal(updateEntryY(b, e), i * 7);
        assert.equal(updateEntryVx(b, e), i - 16);
        assert.equal(updateEntryVy(b, e), 16 - i);
        assert.equal(updateEntryRot(b, e), i * 1000);
        assert.equal(updateEntryHealth(b, e), i);
      }
    }
  });

  it("Update rotation is degrees × 100 in 0..35999, positions are clamped to int16", () => {
    const b = new Uint8Array(15);
    const rot = (r: number): number => {
      writeUpdateEntry(b, 0, 1, 0, 0, 0, 0, r, 0);
      return updateEntryRot(b, 0);
    };
    assert.equal(rot(0), 0);
    assert.equal(rot(18000), 18000);
    assert.equal(rot(35999), 35999);
    // Out of range is our own bug upstream; the writer still keeps the wire valid.
    assert.equal(rot(36000), 0);
    assert.equal(rot(-1), 0);
    writeUpdateEntry(b, 0, 1, 1000000, -1000000, 32768, -32769, 0, 255);
    assert.equal(updateEntryX(b, 0), 32767);
    assert.equal(updateEntryY(b, 0), -32768);
    assert.equal(updateEntryVx(b, 0), 32767);
    assert.equal(updateEntryVy(b, 0), -32768);
    assert.equal(updateEntryHealth(b, 0), 100);
  });

  it("Input, all 32 combinations; any non-zero byte reads as true", () => {
    for (let bits = 0; bits < 32; bits++) {
      const { b, p } = onePacket(false, Msg.Input, 5, FROM_CLIENT, (b, o) => writeInput(b, o, bits));
      for (let i = 0; i < 5; i++) assert.equal(b[p + i], (bits >> i) & 1);
      assert.equal(readInput(b, p), bits);
    }
    assert.equal(readInput(hex("00 07 00 ff 00"), 0), INPUT_BACKWARD | INPUT_RIGHT);
    assert.equal(INPUT_FORWARD | INPUT_BACKWARD | INPUT_LEFT | INPUT_RIGHT | INPUT_SHOOTING, 31);
  });

  it("readInputView, the server's one-read Input, agrees with readInput on every byte pattern that matters", () => {
    const b = new Uint8Array(8);
    const v = new DataView(b.buffer);
    for (let bits = 0; bits < 32; bits++) {
      for (const on of [1, 0x80, 0xff]) {
        for (let i = 0; i < 5; i++) b[2 + i] = (bits >> i) & 1 ? on : 0;
        assert.equal(readInputView(v, b, 2), readInput(b, 2), `bits ${bits}, true as ${on}`);
      }
    }
  });

  it("Update: num written after the entries, where writeUpdateStart reserved it", () => {
    const b = new Uint8Array(1 + 2 * UPDATE_ENTRY);
    let o = writeUpdateStart(b, 0);
    assert.equal(o, 1);
    o = writeUpdateEntry(b, o, 0x00010002, 1, 2, 3, 4, 9000, 50);
    o = writeUpdateEntry(b, o, 0x00030004, -1, -2, -3, -4, 18000, 100);
    writeUpdateNum(b, 0, 2);
    assert.equal(b[0], 2);
    assert.equal(o, 1 + 2 * UPDATE_ENTRY);
    assert.equal(updateEntryHealth(b, 1 + UPDATE_ENTRY), 100);
  });

  it("Reject", () => {
    const { b, p } = onePacket(false, Msg.Reject, 1, FROM_SERVER, (b, o) => writeReject(b, o, RejectReason.ServerFull));
    assert.equal(readReject(b, p), 1);
  });
});

describe("codec: a chat line's or a name's length and printability, read four bytes at a time", () => {
  /** A Chat payload (id 7, `line`, NUL, then `after`) at `at` in a buffer that ends right after it. */
  function chat(at: number, line: number[], after: number[] = []): Uint8Array {
    const b = new Uint8Array(at + 4 + line.length + 1 + after.length).fill(0xee);
    setU32(b, at, 7);
    b.set(line, at + 4);
    b[at + 4 + line.length] = 0;
    b.set(after, at + 5 + line.length);
    return b;
  }
  const printable = (c: number): boolean => c >= 0x20 && c <= 0x7e;

  it("every byte value at each of 9 places of lines of 1 to 9 bytes, each ending its buffer", () => {
    const f = new Fields();
    for (let n = 1; n <= 9; n++) {
      for (let place = 0; place < n; place++) {
        for (let c = 1; c < 256; c++) {
          const line = Array.from({ length: n }, (_, i) => (i === place ? c : 0x41 + i));
          for (const at of [0, 1, 2, 3]) {
            const b = chat(at, line);
            readChat(b, at, f);
            assert.equal(f.id, 7);
            assert.equal(f.textOffset, at + 4);
            assert.equal(f.textLength, n, `length ${n}, 0x${c.toString(16)} at ${place}, offset ${at}`);
            assert.equal(f.unprintable !== 0, !printable(c), `length ${n}, 0x${c.toString(16)} at ${place}, offset ${at}`);
          }
        }
      }
    }
  });

  it("bytes after the NUL are not the line's", () => {
    const f = new Fields();
    for (let n = 0; n <= 8; n++) {
      const b = chat(2, Array.from({ length: n }, () => 0x7e), [0x7f, 0x01, 0xff, 0x80, 0x00, 0x1f]);
      readChat(b, 2, f);
      assert.equal(f.textLength, n);
      assert.equal(f.unprintable, 0);
    }
  });

  it("an empty line, and one of 127 characters", () => {
    const f = new Fields();
    readChat(chat(0, []), 0, f);
    assert.deepEqual([f.textLength, f.unprintable], [0, 0]);
    readChat(chat(5, Array.from({ length: 127 }, (_, i) => 0x20 + (i % 95))), 5, f);
    assert.deepEqual([f.textLength, f.unprintable], [127, 0]);
  });

  it("a line without a NUL before the end of its bytes is unprintable (readers take validated messages; this one is not)", () => {
    const f = new Fields();
    for (let n = 1; n <= 6; n++) {
      const b = chat(1, Array.from({ length: n }, () => 0x61)).subarray(0, 1 + 4 + n);
      readChat(b, 1, f);
      assert.equal(f.textLength, n);
      assert.notEqual(f.unprintable, 0);
    }
  });

  it("one Fields reading two buffers in turn, and a view its owner gives it", () => {
    const f = new Fields();
    const a = chat(0, [0x61, 0x62, 0x63]);
    const b = chat(3, [0x61, 0x07]);
    for (let k = 0; k < 3; k++) {
      readChat(a, 0, f);
      assert.deepEqual([f.textLength, f.unprintable], [3, 0]);
      readChat(b, 3, f);
      assert.deepEqual([f.textLength, f.unprintable !== 0], [2, true]);
    }
    const whole = new Uint8Array(64);
    const part = whole.subarray(16, 32);
    part.set(chat(0, [0x68, 0x69]));
    f.use(part, new DataView(whole.buffer, 16, 16));
    readChat(part, 0, f);
    assert.deepEqual([f.textLength, f.unprintable], [2, 0]);
  });

  it("a name: up to 31 characters, a NUL at once is empty, the padding is not the name's", () => {
    const f = new Fields();
    for (let n = 0; n < NAME_LENGTH; n++) {
      for (const c of [0x41, 0x1f, 0x7f, 0xc3]) {
        const b = new Uint8Array(4 + NAME_LENGTH);
        setU32(b, 0, 9);
        for (let i = 0; i < n; i++) b[4 + i] = i === n - 1 ? c : 0x7a;
        if (n + 1 < NAME_LENGTH) b[4 + n + 1] = 0x07; // after the NUL: not the name's
        readName(b, 0, f);
        assert.equal(f.id, 9);
        assert.equal(f.textLength, n);
        assert.equal(f.unprintable !== 0, n > 0 && !printable(c), `${n} characters, the last 0x${c.toString(16)}`);
      }
    }
  });
});

describe("codec: golden packets", () => {
  it("a client's Connect packet", () => {
    const golden = hex(
      "f27087c5 ffffffff 000003e8 01 00", // appId, ack: none yet, timestamp 1000, rel 1, unrel 0
      "00000000 65", //                      seqno 0, Connect
    );
    const b = new Uint8Array(MAX_PACKET);
    let o = writeHeader(b, NO_ACK, 1000, 1, 0);
    setU32(b, o, 0);
    b[o + 4] = Msg.Connect;
    o += 5;
    assert.deepEqual(b.subarray(0, o), golden);
    assert.equal(validatePacket(golden, golden.length, FROM_CLIENT, createCounters()), true);

    // The client library puts exactly these bytes on the wire.
    const host = new FakeHost();
    host.t = 1000;
    const client = new Client(makeConfig(), host, "server", 32422);
    client.connect();
    assert.equal(host.sent.length, 1);
    assert.deepEqual(host.sent[0].bytes, golden);
  });

  it("a server's Join + Name packet", () => {
    const golden = hex(
      "f27087c5 00000000 00001388 02 00", //   ack 0 (the Connect), timestamp 5000, rel 2, unrel 0
      "00000000 67 00010003", //               seqno 0, Join, id gen 1 : slot 3
      "00000001 6d 00010003 416e6e00", //      seqno 1, Name, same id, "Ann\0"
      "00".repeat(28), //                      NUL padding to 32 bytes
    );
    assert.equal(golden.length, 64);
    const ep = new Endpoint(lwarChannel(1024, 100));
    ep.reset(0);
    ep.acceptReliable(0, createCounters());
    writeId(ep.buf, ep.queue(Msg.Join, 4), 0x00010003);
    const name = ascii("Ann");
    writeName(ep.buf, ep.queue(Msg.Name, 36), 0x00010003, name, 0, name.length);
    const out = new Uint8Array(MAX_PACKET).fill(0xaa);
    const end = ep.fill(out, 5000, 5000);
    finishPacket(out, 0);
    assert.deepEqual(out.subarray(0, end), golden);
    assert.equal(validatePacket(golden, golden.length, FROM_SERVER, createCounters()), true);
  });

  it("a server's Stats + Update packet", () => {
    const golden = hex(
      "f27087c5 00000004 00002710 00 02", //   ack 4, timestamp 10000, rel 0, unrel 2
      "c9", //                                 Stats
      "000a 0000 012c 0000 0000 0000 0000 ffff", // scores by slot
      "002d 0000 0078 0000 0000 0000 0000 0001", // pings by slot
      "ca 02", //                              Update, 2 entities
      "00020005 ff9c 00c8 0003 fffc 2328 4b", // x -100, y 200, vx 3, vy -4, 90.00°, health 75
      "00010007 7fff 8000 0000 0003 6978 64", // clamped x/y, vx 0, vy 3, 270.00°, 150 → 100
    );
    const scores = Uint16Array.of(10, 0, 300, 0, 0, 0, 0, 65535);
    const pings = Uint16Array.of(45, 0, 120, 0, 0, 0, 0, 1);
    const b = new Uint8Array(MAX_PACKET).fill(0xaa);
    let o = writeHeader(b, 4, 10000, 0, 2);
    b[o] = Msg.Stats;
    o = writeStats(b, o + 1, scores, pings);
    b[o] = Msg.Update;
    b[o + 1] = 2;
    o = writeUpdateEntry(b, o + 2, 0x00020005, -100, 200, 3, -4, 9000, 75);
    o = writeUpdateEntry(b, o, 0x00010007, 40000, -40000, 0, 3, 27000, 150);
    assert.deepEqual(b.subarray(0, o), golden);
    assert.equal(validatePacket(golden, golden.length, FROM_SERVER, createCounters()), true);
  });

  it("a client's Input packet", () => {
    const golden = hex("f27087c5 00000002 00000bb8 00 01", "cb 01 00 01 00 01");
    const b = new Uint8Array(MAX_PACKET);
    let o = writeHeader(b, 2, 3000, 0, 1);
    b[o] = Msg.Input;
    o = writeInput(b, o + 1, INPUT_FORWARD | INPUT_LEFT | INPUT_SHOOTING);
    assert.deepEqual(b.subarray(0, o), golden);
    assert.equal(validatePacket(golden, golden.length, FROM_CLIENT, createCounters()), true);
  });
});

/** Validate a byte literal and return the non-zero counters. */
function check(packet: Uint8Array, from: number): { ok: boolean; counters: Record<string, number> } {
  const counters = createCounters();
  const ok = validatePacket(packet, packet.length, from, counters);
  return { ok, counters: nonZero(counters) };
}

function rejects(packet: Uint8Array, from: number, counter: string): void {
  assert.deepEqual(check(packet, from), { ok: false, counters: { [counter]: 1 } });
}

describe("codec: malformed packets are dropped whole and counted by reason", () => {
  it("too short: 13 bytes", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00"), FROM_CLIENT, "tooShort");
  });

  it("too long: 513 bytes, even if all padding", () => {
    const p = hex("f27087c5 ffffffff 00000000 00 00", "00".repeat(499));
    assert.equal(p.length, 513);
    rejects(p, FROM_CLIENT, "tooLong");
  });

  it("bad appId", () => {
    rejects(hex("f27087c4 ffffffff 00000000 00 00"), FROM_CLIENT, "badAppId");
  });

  it("unknown reliable type (110)", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 6e"), FROM_CLIENT, "unknownType");
  });

  it("unknown unreliable type (205)", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01", "cd"), FROM_SERVER, "unknownType");
  });

  it("unknown type below the table (0)", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01", "00"), FROM_CLIENT, "unknownType");
  });

  it("wrong channel: Input in the reliable section", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 cb 0000000000"), FROM_CLIENT, "wrongChannel");
  });

  it("wrong channel: Chat in the unreliable section", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01", "69 00010000 686900"), FROM_CLIENT, "wrongChannel");
  });

  it("wrong direction: Update sent by a client", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01", "ca 00"), FROM_CLIENT, "wrongDirection");
  });

  it("wrong direction: Input sent by the server", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01", "cb 0000000000"), FROM_SERVER, "wrongDirection");
  });

  it("wrong direction: Join sent by a client", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 67 00010000"), FROM_CLIENT, "wrongDirection");
  });

  it("wrong direction: Connect sent by the server", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 65"), FROM_SERVER, "wrongDirection");
  });

  it("wrong direction: Reject sent by a client", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01", "cc 01"), FROM_CLIENT, "wrongDirection");
  });

  it("truncated reliable header: 3 of 5 bytes", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "000000"), FROM_CLIENT, "truncated");
  });

  it("truncated: rel says 2, one message present", () => {
    rejects(hex("f27087c5 ffffffff 00000000 02 00", "00000000 65"), FROM_CLIENT, "truncated");
  });

  it("truncated: unrel says 1, nothing follows", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01"), FROM_CLIENT, "truncated");
  });

  it("truncated payload: Selection with 5 of 6 bytes", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 6c 00010000 00"), FROM_CLIENT, "truncated");
  });

  it("truncated payload: Name with 35 of 36 bytes counts as truncated, not unterminated", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 6d 00010000", "41".repeat(31)), FROM_CLIENT, "truncated");
  });

  it("truncated payload: Chat with 3 of 4 id bytes", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 69 000100"), FROM_CLIENT, "truncated");
  });

  it("truncated Update entries: num 2, one and a half entries", () => {
    rejects(
      hex("f27087c5 00000000 00000000 00 01", "ca 02", "00010000 0001 0002 0003 0004 0005 64", "00010001 0001 00"),
      FROM_SERVER, "truncated",
    );
  });

  it("truncated Update: num missing", () => {
    rejects(hex("f27087c5 00000000 00000000 00 01", "ca"), FROM_SERVER, "truncated");
  });

  it("unterminated chat: the packet ends before the NUL", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 69 00010000 6869"), FROM_CLIENT, "unterminatedChat");
  });

  it("unterminated chat: 128 bytes without a NUL, even if one follows", () => {
    rejects(
      hex("f27087c5 ffffffff 00000000 01 00", "00000000 69 00010000", "61".repeat(128), "00"),
      FROM_CLIENT, "unterminatedChat",
    );
  });

  it("unterminated name: 32 bytes without a NUL", () => {
    rejects(hex("f27087c5 ffffffff 00000000 01 00", "00000000 6d 00010000", "41".repeat(32)), FROM_CLIENT, "unterminatedName");
  });

  it("trailing non-zero bytes after the last message", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 01", "cb 0100000000", "00 00 07"), FROM_CLIENT, "trailingBytes");
  });

  it("trailing non-zero bytes after an empty packet", () => {
    rejects(hex("f27087c5 ffffffff 00000000 00 00", "01"), FROM_SERVER, "trailingBytes");
  });

  it("a bad message after a good one still drops the whole packet", () => {
    rejects(hex("f27087c5 ffffffff 00000000 02 00", "00000000 66", "00000001 6e"), FROM_CLIENT, "unknownType");
  });
});

describe("codec: well-formed edge cases are accepted", () => {
  it("an empty packet (header only)", () => {
    assert.deepEqual(check(hex("f27087c5 ffffffff 00000000 00 00"), FROM_CLIENT), { ok: true, counters: {} });
  });

  it("zero padding after the last message", () => {
    assert.deepEqual(check(hex("f27087c5 ffffffff 00000000 00 01", "cb 0100000000", "00".repeat(20)), FROM_CLIENT), {
      ok: true, counters: {},
    });
  });

  it("exactly 512 bytes of header and zero padding", () => {
    const p = hex("f27087c5 ffffffff 00000000 00 00", "00".repeat(498));
    assert.equal(p.length, MAX_PACKET);
    assert.deepEqual(check(p, FROM_SERVER), { ok: true, counters: {} });
  });

  it("a chat of 127 characters and its NUL (128 bytes)", () => {
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000000 69 00010000", "7e".repeat(127), "00");
    assert.deepEqual(check(p, FROM_CLIENT), { ok: true, counters: {} });
  });

  it("a name of 31 characters and its NUL", () => {
    const p = hex("f27087c5 ffffffff 00000000 01 00", "00000000 6d 00010000", "41".repeat(31), "00");
    assert.deepEqual(check(p, FROM_CLIENT), { ok: true, counters: {} });
  });

  it("reliable and unreliable messages together", () => {
    const p = hex(
      "f27087c5 00000003 00000010 02 02",
      "00000004 69 00010000 6f6b00", "00000005 6c 00010000 01 02",
      "c9", "00".repeat(32), "ca 00",
    );
    assert.deepEqual(check(p, FROM_SERVER), { ok: true, counters: {} });
  });
});
