/**
 * tools/wireshark/lwar.lua under tshark: a recorded in-memory match written as a pcap
 * (every message type of Rev 1 and Reject, both ways), its WebSocket carriage, and one
 * hand-written malformed packet per drop counter. Every decoded field is checked against
 * what the server's own codec reads from the same bytes.
 *
 * Skipped, with the reason printed, when tshark is not on PATH.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getU32 } from "../../modules/protocol/bytes";
import { validatePacket } from "../../modules/protocol/codec";
import { FROM_CLIENT, FROM_SERVER, MAX_PLAYERS, Msg, UPDATE_ENTRY } from "../../modules/protocol/constants";
import { NO_PLAYER } from "../../modules/game/entities";
import { Counter, COUNTER_NAMES, createCounters } from "../../modules/protocol/counters";
import { Random } from "../../modules/random";
import { PcapWriter } from "../../tools/wireshark/pcap";
import { recordMatch, toPcap, type Recording } from "../../tools/wireshark/record";
import {
  DISSECTOR, expectedFields, FIELDS, hex32, idText, lwarSection, tsharkFields, tsharkMissing, tsharkVerbose, type Decoded,
} from "./tshark";

const TYPE_NAMES: Record<number, string> = {};
for (const [name, id] of Object.entries(Msg)) TYPE_NAMES[id] = name;

/** Every message type the protocol defines: Rev 1's twelve and the Reject extension. */
const ALL_TYPES = Object.freeze(Object.values(Msg).slice().sort((a, b) => a - b));

function skipWithoutTshark(ctx: Mocha.Context): void {
  const missing = tsharkMissing();
  if (missing === null) return;
  console.log(`      skipped: ${missing}`);
  ctx.skip();
}

describe("Wireshark dissector: drop names", function () {
  it("names the server's validation drops as modules/protocol/counters.ts does, in its order", function () {
    const lua = readFileSync(DISSECTOR, "utf8");
    const block = /local DROPS = \{([\s\S]*?)\n\}/.exec(lua);
    assert.ok(block !== null, "DROPS table in lwar.lua");
    const names = [...block[1].matchAll(/\{ "(\w+)",/g)].map((m) => m[1]);
    assert.deepEqual(names, COUNTER_NAMES.slice(Counter.TooShort, Counter.TrailingBytes + 1));
  });
});

describe("Wireshark dissector on a recorded match (tshark)", function () {
  this.timeout(120_000);
  let dir = "";
  let rec: Recording;
  /** Per datagram (frame i + 1): sender side and the codec's reading. */
  let from: number[] = [];
  let decoded: Array<ReturnType<typeof expectedFields>> = [];
  let fields: Array<Map<string, string[]>> = [];
  let verbose: Map<number, string>;

  before(function () {
    skipWithoutTshark(this);
    dir = mkdtempSync(join(tmpdir(), "lwar-wireshark-"));
    rec = recordMatch({ players: 3, seconds: 6, seed: 1 });
    const file = join(dir, "match.pcap");
    writeFileSync(file, toPcap(rec));
    from = rec.datagrams.map((d) => (d.src === rec.serverAddress ? FROM_SERVER : FROM_CLIENT));
    decoded = rec.datagrams.map((d, i) => expectedFields(d.bytes, from[i]));
    fields = tsharkFields(file, FIELDS);
    verbose = tsharkVerbose(file);
  });

  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  /** The first frame (1-based) holding a message of `type` sent by `side`, and that message. */
  function first(type: number, side: number, where: (d: Decoded, b: Uint8Array) => boolean = () => true): { frame: number; message: Decoded; bytes: Uint8Array } {
    for (let i = 0; i < decoded.length; i++) {
      if (from[i] !== side) continue;
      for (const m of decoded[i].messages) if (m.type === type && where(m, rec.datagrams[i].bytes)) return { frame: i + 1, message: m, bytes: rec.datagrams[i].bytes };
    }
    throw new Error(`no ${TYPE_NAMES[type]} from the ${side === FROM_SERVER ? "server" : "client"} in the recording`);
  }

  /** The -V text of one message: from its header line to the next message's. */
  function messageText(frame: number, m: Decoded, index: number): string {
    const text = lwarSection(verbose.get(frame));
    const head = `    ${m.reliable ? "Reliable" : "Unreliable"} message ${index}: ${TYPE_NAMES[m.type]}`;
    const at = text.indexOf(head);
    assert.ok(at >= 0, `"${head}" in frame ${frame}:\n${text.slice(0, 1500)}`);
    const next = text.slice(at + head.length).search(/\n {4}\S/);
    return next < 0 ? text.slice(at) : text.slice(at, at + head.length + next + 1);
  }

  function indexOf(frame: number, m: Decoded): number {
    const ms = decoded[frame - 1].messages;
    const k = ms.indexOf(m);
    return m.reliable ? k : k - ms.filter((x) => x.reliable).length;
  }

  function text(found: { frame: number; message: Decoded }): string {
    return messageText(found.frame, found.message, indexOf(found.frame, found.message));
  }

  it("the recording holds every message type of the protocol, both ways where both sides send it", function () {
    const seen = new Set<string>();
    decoded.forEach((d, i) => d.messages.forEach((m) => seen.add(`${m.type}/${from[i]}`)));
    for (const t of ALL_TYPES) assert.ok(seen.has(`${t}/${FROM_CLIENT}`) || seen.has(`${t}/${FROM_SERVER}`), TYPE_NAMES[t]);
    for (const t of [Msg.Chat, Msg.Name, Msg.Selection]) {
      assert.ok(seen.has(`${t}/${FROM_CLIENT}`), `${TYPE_NAMES[t]} from a client`);
      assert.ok(seen.has(`${t}/${FROM_SERVER}`), `${TYPE_NAMES[t]} from the server`);
    }
  });

  it("every frame: the header and every message's fields are what the server's codec reads", function () {
    assert.equal(fields.length, rec.datagrams.length, "one line of fields per datagram");
    let messages = 0;
    for (let i = 0; i < fields.length; i++) {
      for (const f of FIELDS) assert.deepEqual(fields[i].get(f), decoded[i].fields.get(f), `frame ${i + 1}, ${f}`);
      messages += decoded[i].messages.length;
    }
    assert.ok(messages > 1000, `${messages} messages compared`);
  });

  it("Connect (101): the client's first reliable message, seqno 0, before any ack", function () {
    const c = first(Msg.Connect, FROM_CLIENT);
    const all = lwarSection(verbose.get(c.frame));
    assert.match(all, /^ {4}\[Sender: client\]$/m);
    assert.match(all, /^ {4}Ack: 4294967295 \(none yet\)$/m);
    const t = text(c);
    assert.match(t, /^ {4}Reliable message 0: Connect, seqno 0$/m);
    assert.match(t, /^ {8}Seqno: 0$/m);
    assert.match(t, /^ {8}Type: Connect \(101\)$/m);
  });

  it("Disconnect (102): the last player's, with its seqno", function () {
    const c = first(Msg.Disconnect, FROM_CLIENT);
    assert.equal(rec.datagrams[c.frame - 1].srcPort, rec.clients[2].port);
    assert.match(text(c), new RegExp(`^ {4}Reliable message \\d+: Disconnect, seqno ${c.message.seqno}\\n {8}Seqno: ${c.message.seqno}\\n {8}Type: Disconnect \\(102\\)`, "m"));
  });

  it("Join (103): the player id as generation:index, with both halves", function () {
    const c = first(Msg.Join, FROM_SERVER);
    const id = getU32(c.bytes, c.message.offset);
    assert.equal(idText(id), "1:0");
    const t = text(c);
    assert.match(t, /, seqno 0 \(1:0\)$/m);
    assert.match(t, /^ {8}Player id: 1:0 \(0x00010000\)\n {12}Generation: 1\n {12}Index: 0$/m);
  });

  it("Leave (104): the leaver's id to the others, and each player's own id at shutdown", function () {
    const c = first(Msg.Leave, FROM_SERVER);
    const id = getU32(c.bytes, c.message.offset);
    assert.equal(id, 0x00010002, "the third player disconnected first");
    assert.match(text(c), /^ {8}Player id: 1:2 \(0x00010002\)$/m);
    // Shutdown: the first player is told of its own leave.
    const own = first(Msg.Leave, FROM_SERVER, (m, b) => getU32(b, m.offset) === 0x00010000);
    assert.equal(rec.datagrams[own.frame - 1].dstPort, rec.clients[0].port);
    assert.match(text(own), /^ {8}Player id: 1:0 \(0x00010000\)$/m);
  });

  it("Chat (105): the text as text, from the client and echoed by the server", function () {
    for (const side of [FROM_CLIENT, FROM_SERVER]) {
      const c = first(Msg.Chat, side);
      const t = text(c);
      assert.match(t, /\(1:0 "hello from the first player"\)$/m);
      assert.match(t, /^ {8}Player id: 1:0 \(0x00010000\)$/m);
      assert.match(t, /^ {8}Message: hello from the first player$/m);
    }
  });

  it("Add (106): entity id, owner (none for the sun) and template", function () {
    const sun = first(Msg.Add, FROM_SERVER);
    const t = text(sun);
    assert.match(t, /^ {8}Entity id: 1:0 \(0x00010000\)$/m);
    assert.match(t, /^ {8}Owner: none \(0xffffffff\)$/m);
    assert.match(t, /^ {8}Template: sun \(0\)$/m);
    const ship = first(Msg.Add, FROM_SERVER, (m, b) => getU32(b, m.offset + 4) !== NO_PLAYER);
    const owner = getU32(ship.bytes, ship.message.offset + 4);
    const entity = getU32(ship.bytes, ship.message.offset);
    const s = text(ship);
    assert.ok(s.includes(`        Entity id: ${idText(entity)} (${hex32(entity)})\n`), s);
    assert.ok(s.includes(`        Owner: ${idText(owner)} (${hex32(owner)})\n`), s);
    assert.match(s, /^ {8}Template: (interceptor \(4\)|fighter \(5\)|cruiser \(6\)|\w+ projectile \([789]\))$/m);
  });

  it("Remove (107): the entity id as generation:index", function () {
    const c = first(Msg.Remove, FROM_SERVER);
    const id = getU32(c.bytes, c.message.offset);
    const t = text(c);
    assert.ok(t.includes(`        Entity id: ${idText(id)} (${hex32(id)})\n            Generation: ${id >>> 16}\n            Index: ${id & 0xffff}\n`), t);
  });

  it("Selection (108): ship and weapon by name, from the client and broadcast by the server", function () {
    for (const side of [FROM_CLIENT, FROM_SERVER]) {
      const c = first(Msg.Selection, side, (m, b) => b[m.offset + 4] === 1);
      const t = text(c);
      assert.match(t, /\(1:0 ship 1 weapon 2\)$/m);
      assert.match(t, /^ {8}Ship type: fighter \(1\)$/m);
      assert.match(t, /^ {8}Weapon type: torpedo \(2\)$/m);
    }
  });

  it("Name (109): the name as text, without its NUL padding", function () {
    const dflt = text(first(Msg.Name, FROM_SERVER));
    assert.match(dflt, /^ {8}Name: Player 1$/m);
    for (const side of [FROM_CLIENT, FROM_SERVER]) {
      const t = text(first(Msg.Name, side, (m, b) => b[m.offset + 4] === 0x4e));
      assert.match(t, /\(1:1 "Nova"\)$/m);
      assert.match(t, /^ {8}Name: Nova$/m);
    }
  });

  it("Stats (201): a score and a ping per slot", function () {
    const c = first(Msg.Stats, FROM_SERVER, (m, b) => getU32(b, m.offset + 16) !== 0);
    const t = text(c);
    for (let s = 0; s < MAX_PLAYERS; s++) {
      const score = (c.bytes[c.message.offset + 2 * s] << 8) | c.bytes[c.message.offset + 2 * s + 1];
      const ping = (c.bytes[c.message.offset + 16 + 2 * s] << 8) | c.bytes[c.message.offset + 17 + 2 * s];
      assert.ok(t.includes(`            Slot ${s} score: ${score}\n`), `slot ${s} score in\n${t}`);
      assert.ok(t.includes(`            Slot ${s} ping: ${ping} ms\n`), `slot ${s} ping in\n${t}`);
    }
    assert.ok(/Slot 0 ping: [1-9]\d* ms/.test(t), "a measured ping");
  });

  it("Update (202): the entities as a list, one line each", function () {
    const c = first(Msg.Update, FROM_SERVER, (m, b) => b[m.offset] >= 10);
    const b = c.bytes;
    const n = b[c.message.offset];
    const t = text(c);
    assert.match(t, new RegExp(`^ {4}Unreliable message \\d+: Update \\(${n}\\)$`, "m"));
    assert.match(t, new RegExp(`^ {8}Entities: ${n}$`, "m"));
    const lines = t.split("\n").filter((l) => /^ {8}Entity \d+: /.test(l));
    assert.equal(lines.length, n);
    const view = new DataView(b.buffer, b.byteOffset);
    for (let i = 0; i < n; i++) {
      const e = c.message.offset + 1 + UPDATE_ENTRY * i;
      const id = view.getUint32(e);
      const want = `        Entity ${i}: ${idText(id)} at (${view.getInt16(e + 4)}, ${view.getInt16(e + 6)}) ` +
        `moving (${view.getInt16(e + 8)}, ${view.getInt16(e + 10)}), heading ${(view.getUint16(e + 12) / 100).toFixed(2)}, health ${b[e + 14]}`;
      assert.equal(lines[i], want);
    }
  });

  it("Input (203): five booleans", function () {
    const c = first(Msg.Input, FROM_CLIENT, (m, b) => b[m.offset + 4] !== 0);
    const b = c.bytes;
    const t = text(c);
    const names = ["Forward", "Backward", "Left", "Right", "Shooting"];
    names.forEach((name, i) => assert.match(t, new RegExp(`^ {8}${name}: ${b[c.message.offset + i] !== 0 ? "True" : "False"}$`, "m")));
    assert.match(t, /^ {8}Shooting: True$/m);
  });

  it("Reject (204): the reason, to the client that found the server full", function () {
    const c = first(Msg.Reject, FROM_SERVER);
    assert.equal(rec.datagrams[c.frame - 1].dstPort, rec.clients[3].port);
    assert.match(text(c), /^ {4}Unreliable message 0: Reject \(server full\)\n {8}Type: Reject \(204\)\n {8}Reason: server full \(1\)$/m);
    assert.match(lwarSection(verbose.get(c.frame)), /^ {4}Ack: 4294967295 \(none yet\)$/m);
  });

  it("no frame of the match is flagged as malformed", function () {
    for (let i = 0; i < fields.length; i++) assert.deepEqual(fields[i].get("lwar.drop"), [], `frame ${i + 1}`);
    for (const [n, v] of verbose) assert.ok(!v.includes("Expert Info"), `frame ${n} has expert info`);
  });
});

describe("Wireshark dissector on the WebSocket carriage (tshark)", function () {
  this.timeout(120_000);
  let dir = "";
  let file = "";
  let rec: Recording;
  let expected: Array<{ sender: string; types: string[] }> = [];

  before(function () {
    skipWithoutTshark(this);
    dir = mkdtempSync(join(tmpdir(), "lwar-wireshark-"));
    rec = recordMatch({ players: 2, seconds: 4, seed: 2 });
    file = join(dir, "web.pcap");
    writeFileSync(file, toPcap(rec, 1));
    const port = rec.clients[0].port;
    expected = rec.datagrams
      .filter((d) => d.srcPort === port || d.dstPort === port)
      .map((d) => {
        const side = d.srcPort === port ? FROM_CLIENT : FROM_SERVER;
        return { sender: side === FROM_CLIENT ? "client" : "server", types: expectedFields(d.bytes, side).fields.get("lwar.type")! };
      });
  });

  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  function lwarOverWebSocket(extra: string[]): Array<Map<string, string[]>> {
    return tsharkFields(file, ["lwar.sender", "lwar.type", "lwar.drop", "tcp.srcport"], ["-Y", "websocket && lwar", ...extra]);
  }

  it("each binary message to and from the HTTP port (8080) is a packet; the mask tells the client's from the server's", function () {
    const got = lwarOverWebSocket(["--disable-heuristic", "lwar_ws"]);
    assert.equal(got.length, expected.length);
    got.forEach((g, i) => {
      assert.deepEqual(g.get("lwar.sender"), [expected[i].sender], `message ${i}`);
      assert.deepEqual(g.get("lwar.type"), expected[i].types, `message ${i}`);
      assert.deepEqual(g.get("lwar.drop"), []);
    });
  });

  it("on another HTTP port, the heuristic finds the packets by their app id", function () {
    assert.equal(lwarOverWebSocket(["--disable-heuristic", "lwar_ws", "-o", "lwar.web_port:9"]).length, 0, "neither the port nor the heuristic");
    const got = lwarOverWebSocket(["-o", "lwar.web_port:9"]);
    assert.equal(got.length, expected.length);
    got.forEach((g, i) => assert.deepEqual(g.get("lwar.sender"), [expected[i].sender], `message ${i}`));
  });

  it("the UDP players of the same capture are still dissected on UDP 32422", function () {
    const udp = tsharkFields(file, ["lwar.sender"], ["-Y", "udp && lwar"]);
    assert.equal(udp.length, rec.datagrams.length - expected.length);
  });
});

describe("Wireshark dissector: UDP on another port (tshark)", function () {
  this.timeout(60_000);
  let dir = "";
  let file = "";
  before(function () {
    skipWithoutTshark(this);
    dir = mkdtempSync(join(tmpdir(), "lwar-wireshark-"));
    file = join(dir, "port.pcap");
    const pcap = new PcapWriter();
    // Header only: ack none, timestamp 100, rel 0, unrel 0; then a Reject from the server.
    pcap.udp(0, "192.0.2.10", 40000, "192.0.2.1", 5000, Uint8Array.of(0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 100, 0, 0));
    pcap.udp(1, "192.0.2.1", 5000, "192.0.2.10", 40000, Uint8Array.of(0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 101, 0, 1, 204, 1));
    writeFileSync(file, pcap.bytes());
  });
  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it("is found by the heuristic, with the sender unknown until the port is set", function () {
    const got = tsharkFields(file, ["lwar.sender", "lwar.type"]);
    assert.deepEqual(got.map((g) => g.get("lwar.sender")), [["unknown"], ["unknown"]]);
    assert.deepEqual(got[1].get("lwar.type"), ["204"]);
    const set = tsharkFields(file, ["lwar.sender"], ["-o", "lwar.udp_port:5000"]);
    assert.deepEqual(set.map((g) => g.get("lwar.sender")), [["client"], ["server"]]);
  });
});

/**
 * One hand-written bad packet per drop counter. The server's validation must count it as
 * named, and the dissector must flag it with that name: `lwar.drop` and expert info.
 */
const MALFORMED: ReadonlyArray<{ drop: string; counter: number; from: number; bytes: number[]; detail: RegExp }> = [
  {
    drop: "tooShort", counter: Counter.TooShort, from: FROM_CLIENT, detail: /13 bytes, the header alone is 14/,
    // 13 bytes: the header without its unrel count
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00],
  },
  {
    drop: "tooLong", counter: Counter.TooLong, from: FROM_CLIENT, detail: /513 bytes, at most 512/,
    // a header with no messages, then 499 zero bytes: 513 in all
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00, ...new Array<number>(499).fill(0)],
  },
  {
    drop: "badAppId", counter: Counter.BadAppId, from: FROM_CLIENT, detail: /0xf27087c6, not 0xf27087c5/,
    bytes: [0xf2, 0x70, 0x87, 0xc6, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00, 0x00],
  },
  {
    drop: "unknownType", counter: Counter.UnknownType, from: FROM_CLIENT, detail: /type id 110/,
    // rel 1: seqno 0, type 110
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 110],
  },
  {
    drop: "wrongChannel", counter: Counter.WrongChannel, from: FROM_CLIENT, detail: /Connect is reliable, found among the unreliable messages/,
    // unrel 1: Connect (101)
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00, 0x01, 101],
  },
  {
    drop: "wrongDirection", counter: Counter.WrongDirection, from: FROM_CLIENT, detail: /Stats sent by a client/,
    // unrel 1: Stats (201) from a client, 32 zero bytes
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00, 0x01, 201, ...new Array<number>(32).fill(0)],
  },
  {
    drop: "truncated", counter: Counter.Truncated, from: FROM_CLIENT, detail: /Input payload needs more than the 3 bytes left/,
    // unrel 1: Input (203) with 3 of its 5 bytes
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00, 0x01, 203, 0x01, 0x00, 0x01],
  },
  {
    drop: "unterminatedChat", counter: Counter.UnterminatedChat, from: FROM_CLIENT, detail: /Chat text has no NUL within 128 bytes or before the end of the packet/,
    // rel 1: seqno 1, Chat (105), id 1:0, "hi" and no NUL
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x64, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 105, 0x00, 0x01, 0x00, 0x00, 0x68, 0x69],
  },
  {
    drop: "unterminatedName", counter: Counter.UnterminatedName, from: FROM_CLIENT, detail: /Name has no NUL in its 32-byte field/,
    // rel 1: seqno 1, Name (109), id 1:0, 32 × "A"
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x64, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 109, 0x00, 0x01, 0x00, 0x00, ...new Array<number>(32).fill(0x41)],
  },
  {
    drop: "trailingBytes", counter: Counter.TrailingBytes, from: FROM_CLIENT, detail: /0x07 at offset 21, after the last message/,
    // unrel 1: Input (203) forward, then 0x00 0x07
    bytes: [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00, 0x01, 203, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07],
  },
];

describe("Wireshark dissector: malformed packets, one per drop counter (tshark)", function () {
  this.timeout(60_000);
  let dir = "";
  let got: Array<Map<string, string[]>> = [];
  let verbose: Map<number, string>;

  before(function () {
    skipWithoutTshark(this);
    dir = mkdtempSync(join(tmpdir(), "lwar-wireshark-"));
    const file = join(dir, "malformed.pcap");
    const pcap = new PcapWriter();
    MALFORMED.forEach((m, i) => pcap.udp(i, "192.0.2.10", 40000, "192.0.2.1", 32422, Uint8Array.from(m.bytes)));
    // A valid Input followed by zero padding, which the server accepts.
    pcap.udp(MALFORMED.length, "192.0.2.10", 40000, "192.0.2.1", 32422,
      Uint8Array.of(0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x64, 0x00, 0x01, 203, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00));
    writeFileSync(file, pcap.bytes());
    got = tsharkFields(file, ["lwar.drop", "_ws.expert.message", "lwar.padding", "lwar.input.shooting"]);
    verbose = tsharkVerbose(file);
  });

  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  MALFORMED.forEach((m, i) => {
    it(`${m.drop}: counted as ${m.drop} by the server, flagged as ${m.drop} by the dissector`, function () {
      const counters = createCounters();
      assert.equal(validatePacket(Uint8Array.from(m.bytes), m.bytes.length, m.from, counters), false);
      assert.equal(counters[m.counter], 1);
      assert.equal(COUNTER_NAMES[m.counter], m.drop);
      assert.deepEqual(got[i].get("lwar.drop"), [m.drop]);
      const experts = got[i].get("_ws.expert.message")!;
      assert.equal(experts.length, 1, experts.join(" / "));
      assert.ok(experts[0].startsWith(`${m.drop}: `), experts[0]);
      assert.match(experts[0], m.detail);
      const text = lwarSection(verbose.get(i + 1));
      assert.ok(text.startsWith(`lwar Rev 1 [dropped: ${m.drop}]\n`), text.slice(0, 200));
      assert.ok(text.includes(`[Expert Info (Error/Malformed): ${m.drop}: `), text);
    });
  });

  it("zero padding after the last message is accepted, not flagged", function () {
    const g = got[MALFORMED.length];
    assert.deepEqual(g.get("lwar.drop"), []);
    assert.deepEqual(g.get("_ws.expert.message"), []);
    assert.equal(g.get("lwar.padding")!.length, 1);
    assert.deepEqual(g.get("lwar.input.shooting"), ["1"]);
  });
});

describe("Wireshark dissector: mutated packets, judged as the server judges them (tshark)", function () {
  this.timeout(120_000);
  const CASES = 3000;
  let dir = "";
  const cases: Array<{ bytes: Uint8Array; from: number }> = [];
  let got: Array<Map<string, string[]>> = [];

  before(function () {
    skipWithoutTshark(this);
    dir = mkdtempSync(join(tmpdir(), "lwar-wireshark-"));
    const rec = recordMatch({ players: 3, seconds: 4, seed: 9 });
    const rng = new Random(12345);
    const pcap = new PcapWriter();
    for (let i = 0; i < CASES; i++) {
      const d = rec.datagrams[rng.below(rec.datagrams.length)];
      const fromServer = d.src === rec.serverAddress;
      let b = d.bytes.slice();
      const kind = rng.below(4);
      if (kind === 0) {
        // 1..3 bits flipped
        for (let n = 1 + rng.below(3); n > 0; n--) {
          const bit = rng.below(b.length * 8);
          b[bit >> 3] ^= 1 << (bit & 7);
        }
      } else if (kind === 1) {
        b = b.slice(0, rng.below(b.length));
      } else if (kind === 2) {
        // 1..64 bytes appended, zero or not
        const extra = new Uint8Array(1 + rng.below(64));
        if (rng.next() < 0.5) for (let k = 0; k < extra.length; k++) extra[k] = rng.below(256);
        const grown = new Uint8Array(b.length + extra.length);
        grown.set(b);
        grown.set(extra, b.length);
        b = grown;
      } else {
        // a message count or a type byte replaced
        const at = rng.next() < 0.5 ? 12 + rng.below(2) : 14 + rng.below(Math.max(1, b.length - 14));
        if (at < b.length) b[at] = rng.below(256);
      }
      cases.push({ bytes: b, from: fromServer ? FROM_SERVER : FROM_CLIENT });
      pcap.udp(i, d.src, d.srcPort, d.dst, d.dstPort, b);
    }
    const file = join(dir, "mutated.pcap");
    writeFileSync(file, pcap.bytes());
    got = tsharkFields(file, ["lwar.drop", "_ws.expert.message"]);
  });

  after(function () {
    if (dir !== "") rmSync(dir, { recursive: true, force: true });
  });

  it(`${CASES} mutants: the dissector flags exactly the packets the server drops, with its counter's name`, function () {
    assert.equal(got.length, CASES);
    const tally = new Map<string, number>();
    for (let i = 0; i < CASES; i++) {
      const counters = createCounters();
      const c = cases[i];
      const valid = validatePacket(c.bytes, c.bytes.length, c.from, counters);
      let want = "";
      if (!valid) for (let k = Counter.TooShort; k <= Counter.TrailingBytes; k++) if (counters[k] !== 0) want = COUNTER_NAMES[k];
      // Wireshark never hands an empty UDP payload to a dissector; the server counts it as tooShort.
      if (c.bytes.length === 0) want = "";
      const drop = got[i].get("lwar.drop")!;
      assert.deepEqual(drop, want === "" ? [] : [want], `case ${i}: ${Buffer.from(c.bytes).toString("hex")}`);
      // A Lua error would show as an expert message of its own; ours each start with a drop name.
      const experts = got[i].get("_ws.expert.message")!;
      for (const e of experts) assert.match(e, /^[a-zA-Z]+: /, `case ${i}: ${e}`);
      assert.equal(experts.length > 0 ? experts[0].split(":")[0] : "", want, `case ${i}: the first problem flagged`);
      tally.set(want || "valid", (tally.get(want || "valid") ?? 0) + 1);
    }
    // The mutants reach most reasons, and some stay valid.
    assert.ok(tally.size >= 8, JSON.stringify([...tally]));
  });
});
