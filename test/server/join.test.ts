/**
 * The truthful join (server side): a newcomer is announced to the others only after the
 * reliable messages of the packet that acknowledges its Join are applied, so the Name and
 * Selection a client sends with that acknowledgement are the first the others hear of it.
 * The newcomer is a raw peer sending byte literals; the existing player is a real client.
 */
import assert from "node:assert/strict";
import { Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { Counter } from "../../modules/protocol/counters";
import { bytesToAscii } from "../../modules/text";
import { TestMatch, SERVER_ADDRESS, SERVER_PORT } from "../../harness/match";

/** A peer that sends raw byte literals. */
function rawPeer(m: TestMatch, port: number): (bytes: number[]) => void {
  const h = m.net.host("mem:raw", port);
  h.core = { receive: () => {}, tick: () => {} };
  return (bytes) => h.send(Uint8Array.from(bytes), bytes.length, SERVER_ADDRESS, SERVER_PORT);
}

const MAGIC = [0xf2, 0x70, 0x87, 0xc5];
// magic, ack 0xFFFFFFFF, timestamp 0, 1 reliable, 0 unreliable; seqno 0, Connect.
const CONNECT = [...MAGIC, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 101];
/** The newcomer's id: slot 1 (the client took slot 0), generation 1. */
const ID = [0, 1, 0, 1];
const NEWCOMER = 0x00010001;
/** Name "Ana": seqno 1, type 109, id, 32 bytes of name, NUL-padded. */
const NAME_ANA = [0, 0, 0, 1, 109, ...ID, 0x41, 0x6e, 0x61, ...new Array<number>(NAME_LENGTH - 3).fill(0)];
/** Selection ship 2, weapon 1: seqno 2, type 108, id, ship, weapon. */
const SELECTION = [0, 0, 0, 2, 108, ...ID, 2, 1];
/** Chat "hi": seqno 2, type 105, id, text, NUL. */
const CHAT_HI = [0, 0, 0, 2, 105, ...ID, 0x68, 0x69, 0];
/** Disconnect: seqno 2, type 102, no payload. */
const DISCONNECT = [0, 0, 0, 2, 102];
/** The header of a packet that acknowledges seqno 2 (the newcomer's own Join, Name, Selection) at timestamp 1, with 2 reliables. */
const ACK_JOIN_2_RELIABLES = [...MAGIC, 0, 0, 0, 2, 0, 0, 0, 1, 2, 0];

/** A match with one client, and a raw peer admitted in slot 1 (its Join not acknowledged yet). */
function newcomer(): { m: TestMatch; send: (bytes: number[]) => void } {
  const m = new TestMatch();
  m.join();
  const send = rawPeer(m, 9);
  send(CONNECT);
  m.run(100);
  assert.equal(m.server.playerCount(), 2);
  assert.equal(m.server.playerId(1), NEWCOMER);
  assert.equal(m.recorders[0].count(Msg.Join, NEWCOMER), 0, "not announced before it acknowledges its Join");
  return { m, send };
}

describe("server: a truthful join", function () {
  it("the others' first Name for a newcomer is the one in the packet that acknowledges its Join, and no rename follows", function () {
    const { m, send } = newcomer();
    send([...ACK_JOIN_2_RELIABLES, ...NAME_ANA, ...SELECTION]);
    m.run(300);
    const r = m.recorders[0];
    const k = r.types.findIndex((t, i) => t === Msg.Join && r.ids[i] === NEWCOMER);
    assert.ok(k >= 0, "announced");
    assert.deepEqual(r.types.slice(k, k + 3), [Msg.Join, Msg.Name, Msg.Selection]);
    assert.equal(r.count(Msg.Name, NEWCOMER), 1, "one Name: the chosen one, no default before it");
    assert.equal(r.count(Msg.Selection, NEWCOMER), 1);
    const a = m.clients[0];
    assert.equal(bytesToAscii(a.names, NAME_LENGTH, a.nameLength[1]), "Ana");
    assert.deepEqual([a.ship[1], a.weapon[1]], [2, 1]);
  });

  it("a Chat in the acknowledging packet is accepted and reaches the others after the announcement", function () {
    const { m, send } = newcomer();
    send([...ACK_JOIN_2_RELIABLES, ...NAME_ANA, ...CHAT_HI]);
    m.run(300);
    const r = m.recorders[0];
    const k = r.types.findIndex((t, i) => t === Msg.Join && r.ids[i] === NEWCOMER);
    assert.deepEqual(r.types.slice(k, k + 4), [Msg.Join, Msg.Name, Msg.Selection, Msg.Chat]);
    assert.equal(r.count(Msg.Name, NEWCOMER), 1);
    assert.equal(m.server.counters[Counter.Refused], 0);
    const a = m.clients[0];
    assert.equal(bytesToAscii(a.names, NAME_LENGTH, a.nameLength[1]), "Ana");
  });

  it("a newcomer that leaves in the acknowledging packet is never announced, and no Leave is heard", function () {
    const { m, send } = newcomer();
    send([...ACK_JOIN_2_RELIABLES, ...NAME_ANA, ...DISCONNECT]);
    m.run(300);
    assert.equal(m.server.playerCount(), 1);
    const r = m.recorders[0];
    assert.equal(r.count(Msg.Join, NEWCOMER), 0);
    assert.equal(r.count(Msg.Name, NEWCOMER), 0);
    assert.equal(r.count(Msg.Leave, NEWCOMER), 0);
  });
});
