/** tools/wireshark/pcap.ts, record.ts and the `npm run pcap` command line. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Msg } from "../../modules/protocol/constants";
import { internetChecksum, PcapWriter, udpFrame, parseIPv4, wsFrame, DEFAULT_EPOCH_S } from "../../tools/wireshark/pcap";
import { recordMatch, toPcap } from "../../tools/wireshark/record";
import { tshark, tsharkMissing } from "./tshark";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
const CLI = "tools/wireshark/capture.ts";

function u16(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1];
}

describe("pcap writer", function () {
  it("the Internet checksum of RFC 1071's example", function () {
    // Its section 3 sums 00 01 f2 03 f4 f5 f6 f7 to 0xddf2; the checksum is the complement.
    assert.equal(internetChecksum(Uint8Array.of(0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7)), 0x220d);
    // An odd length pads with a zero byte.
    assert.equal(internetChecksum(Uint8Array.of(0x01)), 0xfeff);
  });

  it("writes the classic file header and one record per frame, timestamps in microseconds", function () {
    const w = new PcapWriter();
    w.udp(1500.25, "192.0.2.10", 40000, "192.0.2.1", 32422, Uint8Array.of(1, 2, 3));
    const b = w.bytes();
    const v = new DataView(b.buffer);
    assert.equal(v.getUint32(0, true), 0xa1b2c3d4);
    assert.equal(v.getUint16(4, true), 2);
    assert.equal(v.getUint16(6, true), 4);
    assert.equal(v.getUint32(16, true), 65535);
    assert.equal(v.getUint32(20, true), 1, "LINKTYPE_ETHERNET");
    assert.equal(v.getUint32(24, true), DEFAULT_EPOCH_S + 1);
    assert.equal(v.getUint32(28, true), 500250);
    // Ethernet 14 + IPv4 20 + UDP 8 + 3 payload bytes
    assert.equal(v.getUint32(32, true), 45);
    assert.equal(v.getUint32(36, true), 45);
    assert.equal(b.length, 24 + 16 + 45);
  });

  it("builds Ethernet, IPv4 and UDP headers whose checksums verify", function () {
    const src = parseIPv4("192.0.2.10");
    const dst = parseIPv4("192.0.2.1");
    const payload = Uint8Array.of(0xf2, 0x70, 0x87, 0xc5, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0x7f);
    const f = udpFrame(src, 40000, dst, 32422, payload, 7);
    assert.deepEqual([...f.subarray(0, 6)], [0x02, 0x00, 192, 0, 2, 1], "destination MAC");
    assert.deepEqual([...f.subarray(6, 12)], [0x02, 0x00, 192, 0, 2, 10], "source MAC");
    assert.equal(u16(f, 12), 0x0800);
    const ip = f.subarray(14, 34);
    assert.equal(ip[0], 0x45);
    assert.equal(u16(ip, 2), 20 + 8 + payload.length);
    assert.equal(u16(ip, 4), 7);
    assert.equal(ip[9], 17);
    assert.equal(internetChecksum(ip), 0, "IPv4 header checksum");
    const udp = f.subarray(34);
    assert.equal(u16(udp, 0), 40000);
    assert.equal(u16(udp, 2), 32422);
    assert.equal(u16(udp, 4), 8 + payload.length);
    const pseudo = Uint8Array.of(...src, ...dst, 0, 17, 0, udp.length);
    const whole = new Uint8Array(pseudo.length + udp.length);
    whole.set(pseudo);
    whole.set(udp, pseudo.length);
    assert.equal(internetChecksum(whole), 0, "UDP checksum over the pseudo-header");
    assert.deepEqual([...udp.subarray(8)], [...payload]);
  });

  it("refuses addresses that are not IPv4", function () {
    assert.throws(() => parseIPv4("192.0.2"), RangeError);
    assert.throws(() => parseIPv4("192.0.2.256"), RangeError);
    assert.throws(() => parseIPv4("mem:server"), RangeError);
  });

  it("masks client WebSocket frames and uses the 16-bit length from 126 bytes", function () {
    const payload = new Uint8Array(300).map((_, i) => i);
    const mask = Uint8Array.of(1, 2, 3, 4);
    const f = wsFrame(2, payload, mask);
    assert.equal(f[0], 0x82, "FIN, binary");
    assert.equal(f[1], 0x80 | 126);
    assert.equal(u16(f, 2), 300);
    assert.deepEqual([...f.subarray(4, 8)], [1, 2, 3, 4]);
    for (let i = 0; i < 300; i++) assert.equal(f[8 + i] ^ mask[i & 3], payload[i]);
    const plain = wsFrame(2, Uint8Array.of(9, 8, 7), null);
    assert.deepEqual([...plain], [0x82, 3, 9, 8, 7]);
  });
});

describe("match recording", function () {
  this.timeout(60_000);

  it("is the same datagrams for the same seed, each way, every message type included", function () {
    const a = recordMatch({ players: 2, seconds: 4, seed: 5 });
    const b = recordMatch({ players: 2, seconds: 4, seed: 5 });
    assert.deepEqual(toPcap(a), toPcap(b));
    assert.deepEqual(a.endings, ["shutdown", "left", "rejected"]);
    const types = new Set<number>();
    for (const d of a.datagrams) types.add(d.bytes[12] > 0 ? d.bytes[18] : d.bytes[14]);
    assert.ok(types.has(Msg.Connect) && types.has(Msg.Reject) && types.has(Msg.Input));
    assert.ok(a.datagrams.some((d) => d.src === a.serverAddress) && a.datagrams.some((d) => d.dst === a.serverAddress));
  });

  it("carries the chosen players over WebSocket: a handshake, one frame per datagram, a close", function () {
    const r = recordMatch({ players: 2, seconds: 4, seed: 5 });
    const port = r.clients[0].port;
    const mine = r.datagrams.filter((d) => d.srcPort === port || d.dstPort === port).length;
    const mixed = toPcap(r, 1);
    // handshake: SYN, SYN+ACK, ACK, GET, 101; close: close, close, FIN, FIN, ACK
    let frames = 0;
    for (let o = 24; o < mixed.length; o += 16 + new DataView(mixed.buffer).getUint32(o + 8, true)) frames++;
    assert.equal(frames, r.datagrams.length + 5 + 5);
    assert.ok(mine > 50, `${mine} datagrams of the first player`);
    const text = Buffer.from(mixed).toString("latin1");
    assert.ok(text.includes("GET /ws HTTP/1.1\r\n"));
    assert.ok(text.includes("HTTP/1.1 101 Switching Protocols\r\n"));
  });

  it("refuses a match it cannot script", function () {
    assert.throws(() => recordMatch({ players: 0 }), RangeError);
    assert.throws(() => recordMatch({ players: 9 }), RangeError);
    assert.throws(() => recordMatch({ seconds: 3 }), RangeError);
  });

  it("has no bad checksum or sequence number for tshark", function () {
    const missing = tsharkMissing();
    if (missing !== null) {
      console.log(`      skipped: ${missing}`);
      this.skip();
    }
    const dir = mkdtempSync(join(tmpdir(), "lwar-pcap-"));
    try {
      const file = join(dir, "m.pcap");
      writeFileSync(file, toPcap(recordMatch({ players: 2, seconds: 4, seed: 3 }), 1));
      const out = tshark(["-r", file, "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-o", "tcp.check_checksum:TRUE", "-q", "-z", "expert,warn"]);
      assert.doesNotMatch(out, /checksum|Malformed|Retransmission|out.of.order|previous segment/i, out);
      const upgraded = tshark(["-r", file, "-Y", "websocket", "-T", "fields", "-e", "frame.number"]).trim().split("\n");
      assert.ok(upgraded.length > 50, "the WebSocket dissector follows the upgrade");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("npm run pcap", function () {
  this.timeout(60_000);

  function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const r = spawnSync(TSX, [CLI, ...args], { cwd: ROOT, encoding: "utf8", timeout: 60_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  it("--help lists every option with its default", function () {
    const r = run(["--help"]);
    assert.equal(r.status, 0);
    for (const f of ["--out FILE", "(default: match.pcap)", "--players N", "(default: 3)", "--seconds N", "(default: 6)", "--seed N", "--websocket N", "--help"]) {
      assert.ok(r.stdout.includes(f), `${f} in --help`);
    }
  });

  for (const [args, message] of [
    [["--nonsense"], /Unknown option '--nonsense'/],
    [["--players", "9"], /--players must be an integer in 1\.\.8, got '9'/],
    [["--seconds", "2"], /--seconds must be an integer in 4\.\.600, got '2'/],
    [["--players", "2", "--websocket", "3"], /--websocket must be an integer in 0\.\.2, got '3'/],
    [["--out", ""], /--out needs a file name/],
    [["extra"], /positional argument/i],
  ] as const) {
    it(`exits 2 on ${args.join(" ") || "''"}, saying why`, function () {
      const r = run([...args]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /Try 'npm run pcap -- --help'\./);
    });
  }

  it("exits 1 when the file cannot be written", function () {
    const r = run(["--out", join(tmpdir(), "no-such-dir-lwar", "x.pcap"), "--seconds", "4", "--players", "1"]);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^pcap: cannot write .*x\.pcap: ENOENT/);
  });

  it("writes the pcap and ends with a one-line summary", function () {
    const dir = mkdtempSync(join(tmpdir(), "lwar-pcap-"));
    try {
      const out = join(dir, "match.pcap");
      const r = run(["--out", out, "--players", "2", "--seconds", "4", "--seed", "7", "--websocket", "1"]);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^pcap: wrote .*match\.pcap: \d+ datagrams, \d+ bytes; 2 players, 1 over WebSocket, 4 s, seed 7; 13 of 13 message types\n$/);
      const b = readFileSync(out);
      assert.equal(b.readUInt32LE(0), 0xa1b2c3d4);
      assert.equal(Number(/(\d+) bytes;/.exec(r.stdout)![1]), b.length);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
