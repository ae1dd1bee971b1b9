/**
 * The truthful join (client side): the client library sends the name and selection chosen
 * with joinAs() in the packet that acknowledges its Join, so the others first hear of it
 * under that name; and it tells a player's first Name (onPlayerJoined) from a rename.
 */
import assert from "node:assert/strict";
import { Client, ClientState } from "../../modules/client/client";
import { makeConfig } from "../../modules/config";
import { getU32, setU32 } from "../../modules/protocol/bytes";
import { HEADER_SIZE, Msg, NAME_LENGTH, RELIABLE_HEADER } from "../../modules/protocol/constants";
import { headerAck, headerRel, writeHeader, writeId, writeName, writeSelection } from "../../modules/protocol/codec";
import { bytesToAscii } from "../../modules/text";
import { TestMatch } from "../../harness/match";
import { FakeHost } from "../helpers/fake-host";
import { ascii } from "../helpers/bytes";

const SERVER = "10.0.0.9";
const PORT = 32422;
const SELF = 0x00010002;

/** The reliable messages of a client packet: [type, first u32 of the payload]. */
function reliables(p: Uint8Array): number[][] {
  const out: number[][] = [];
  let o = HEADER_SIZE;
  for (let m = 0; m < headerRel(p); m++) {
    const type = p[o + 4];
    out.push([type, getU32(p, o + RELIABLE_HEADER)]);
    o += RELIABLE_HEADER + (type === Msg.Name ? 4 + NAME_LENGTH : type === Msg.Selection ? 6 : 0);
  }
  return out;
}

/** A scripted server's packets: reliable messages numbered from 0 across packets. */
class Script {
  seq = 0;
  readonly b = new Uint8Array(512);
  packet(c: Client, ...msgs: [number, number, string?, number?, number?][]): void {
    const b = this.b;
    let o = writeHeader(b, 0, 1000 + this.seq, msgs.length, 0);
    for (const [type, id, name, ship, weapon] of msgs) {
      setU32(b, o, this.seq++);
      b[o + 4] = type;
      o += 5;
      if (type === Msg.Name) {
        const t = ascii(name ?? "");
        o = writeName(b, o, id, t, 0, t.length);
      } else if (type === Msg.Selection) o = writeSelection(b, o, id, ship ?? 0, weapon ?? 0);
      else o = writeId(b, o, id);
    }
    c.receive(b, o, SERVER, PORT);
  }
}

/** The server's first packet: our Join, our default Name and Selection, seqnos 0..2, and `rest`. */
function admit(c: Client, s = new Script(), ...rest: [number, number, string?, number?, number?][]): Script {
  s.packet(c, [Msg.Join, SELF], [Msg.Name, SELF, "Player 3"], [Msg.Selection, SELF, undefined, 0, 0], ...rest);
  return s;
}

function names(c: Client): { joined: string[]; renamed: string[] } {
  const joined: string[] = [];
  const renamed: string[] = [];
  c.onPlayerJoined = (id, b, o, n) => joined.push(`${id & 0xffff}:${bytesToAscii(b, o, n)}`);
  c.onRename = (id, b, o, n) => renamed.push(`${id & 0xffff}:${bytesToAscii(b, o, n)}`);
  return { joined, renamed };
}

describe("client: joining under a chosen name", function () {
  it("the packet that acknowledges its Join carries the Name and Selection given to joinAs", function () {
    const host = new FakeHost();
    host.t = 1000;
    const c = new Client(makeConfig(), host, SERVER, PORT);
    assert.equal(c.joinAs("Ana", 2, 1), true);
    c.connect();
    admit(c);
    assert.equal(c.state, ClientState.Connected);
    const before = host.sent.length;
    host.t += 10;
    c.tick(host.t);
    const p = host.sent[before].bytes;
    assert.equal(headerAck(p), 2, "it acknowledges the Join (and the rest of the packet)");
    assert.deepEqual(reliables(p), [[Msg.Name, SELF], [Msg.Selection, SELF]]);
    const o = HEADER_SIZE + RELIABLE_HEADER + 4;
    assert.equal(bytesToAscii(p, o, 3), "Ana");
    assert.equal(p[o + 3], 0);
    const sel = HEADER_SIZE + RELIABLE_HEADER + 4 + NAME_LENGTH + RELIABLE_HEADER + 4;
    assert.deepEqual([p[sel], p[sel + 1]], [2, 1]);
  });

  it("without joinAs it sends neither; a name of 0 or 32 characters is refused", function () {
    const host = new FakeHost();
    const c = new Client(makeConfig(), host, SERVER, PORT);
    assert.equal(c.joinAs(""), false);
    assert.equal(c.joinAs("n".repeat(32)), false);
    c.connect();
    admit(c);
    const before = host.sent.length;
    host.t += 10;
    c.tick(host.t);
    assert.deepEqual(reliables(host.sent[before].bytes), []);
  });

  it("a newcomer's first Name is its join, later ones renames; those in the packet that admitted us are no joins", function () {
    const host = new FakeHost();
    const c = new Client(makeConfig(), host, SERVER, PORT);
    const { joined, renamed } = names(c);
    c.connect();
    const OLD = 0x00010000;
    const s = admit(c, undefined, [Msg.Join, OLD], [Msg.Name, OLD, "Cy"], [Msg.Selection, OLD, undefined, 1, 1]);
    assert.deepEqual(joined, []);
    assert.equal(c.named[0], 1);
    // Announced under its chosen name (it sent it with its acknowledgement): a join, no rename.
    const ANA = 0x00010004;
    s.packet(c, [Msg.Join, ANA], [Msg.Name, ANA, "Ana"], [Msg.Selection, ANA, undefined, 2, 1]);
    assert.deepEqual(joined, ["4:Ana"]);
    assert.deepEqual(renamed, []);
    // One that did not: announced as "Player 6", then its name is a rename.
    const BO = 0x00010005;
    s.packet(c, [Msg.Join, BO], [Msg.Name, BO, "Player 6"], [Msg.Selection, BO, undefined, 0, 0]);
    s.packet(c, [Msg.Name, BO, "Bo"]);
    assert.deepEqual(joined, ["4:Ana", "5:Player 6"]);
    assert.deepEqual(renamed, ["5:Bo"]);
    // The slot taken again by someone new: a join again.
    const BO2 = 0x00020005;
    s.packet(c, [Msg.Leave, BO], [Msg.Join, BO2], [Msg.Name, BO2, "Dee"]);
    assert.deepEqual(joined, ["4:Ana", "5:Player 6", "5:Dee"]);
    // Our own: the server's default and the echo of our join name are quiet, a rename is not.
    s.packet(c, [Msg.Name, SELF, "Eve"]);
    assert.deepEqual(renamed, ["5:Bo", "2:Eve"]);
  });

  it("with joinAs, our own default Name and the echo of the join name are no rename", function () {
    const host = new FakeHost();
    const c = new Client(makeConfig(), host, SERVER, PORT);
    const { joined, renamed } = names(c);
    c.joinAs("Ana");
    c.connect();
    const s = admit(c);
    s.packet(c, [Msg.Name, SELF, "Ana"]);
    assert.deepEqual(renamed, []);
    s.packet(c, [Msg.Name, SELF, "Bo"]);
    assert.deepEqual(renamed, ["2:Bo"]);
    assert.deepEqual(joined, []);
  });

  it("a renamer's old name is still in the roster while onRename runs", function () {
    const c = new Client(makeConfig(), new FakeHost(), SERVER, PORT);
    c.connect();
    const s = admit(c, undefined, [Msg.Join, 0x00010000], [Msg.Name, 0x00010000, "Cy"]);
    let old = "";
    c.onRename = () => {
      old = bytesToAscii(c.names, 0, c.nameLength[0]);
    };
    s.packet(c, [Msg.Name, 0x00010000, "Cyd"]);
    assert.equal(old, "Cy");
    assert.equal(bytesToAscii(c.names, 0, c.nameLength[0]), "Cyd");
  });

  it("against the server: the others learn the newcomer once, with its chosen name and selection", function () {
    const m = new TestMatch({}, { seed: 7, delayMs: 5, jitterMs: 2 });
    const a = m.join();
    const { joined, renamed } = names(a);
    const b = m.client();
    b.joinAs("Ana", 2, 1);
    b.connect();
    m.until(() => b.state === ClientState.Connected, 2000);
    m.run(500);
    const slot = b.selfSlot;
    // The server applies the Name and Selection that came with the acknowledgement of the
    // Join before it announces: the first Name the others hear is the chosen one.
    assert.deepEqual(joined, [`${slot}:Ana`]);
    assert.deepEqual(renamed, [], "no rename: the default name never reached the others");
    assert.equal(bytesToAscii(a.names, slot * NAME_LENGTH, a.nameLength[slot]), "Ana");
    assert.deepEqual([a.ship[slot], a.weapon[slot]], [2, 1]);
    assert.equal(a.named[slot], 1);
    assert.equal(b.named[a.selfSlot], 1);
  });
});
