/**
 * Rev 1 conformance, black box over real UDP: byte-literal packets in, every packet out
 * parsed by the spec's tables (peer.ts). Runs against the Node server here, and against
 * the emulated ESP32 in `npm run test:esp32` (LWAR_TARGET=HOST:PORT).
 */
import assert from "node:assert/strict";
import { chatPayload, chatText, idOf, NO_ACK, nameOf, namePayload, packet, RawPeer, startTarget, T, type Target, u32 } from "./peer";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("Rev 1 conformance (black box over UDP)", function () {
  this.timeout(30000);
  let target: Target;
  const peers: RawPeer[] = [];
  const open = async (): Promise<RawPeer> => {
    const p = await new RawPeer(target).open();
    peers.push(p);
    return p;
  };

  before(async () => {
    target = await startTarget();
  });
  afterEach(async () => {
    // Leave cleanly, so the next test finds the slots free; then check what arrived parsed.
    for (const p of peers.splice(0)) {
      if (p.selfId >= 0) await p.disconnect().catch(() => {});
      p.close();
      assert.deepEqual(p.errors, [], "every packet from the server parses by the spec");
    }
    await sleep(300); // the admission bucket gets a token back every 250 ms
  });
  after(async () => {
    await target.close();
  });

  it("Connect is answered with the player's own Join, Name and Selection at seqnos 0, 1, 2, acknowledging the Connect", async () => {
    const a = await open();
    const id = await a.connect();
    assert.ok((id & 0xffff) < target.maxPlayers, `slot ${id & 0xffff}`);
    assert.ok(id >>> 16 >= 1, "generation starts at 1");
    const name = await a.expect((m) => m.type === T.Name && idOf(m) === id, 2000, "Name of its own");
    const sel = await a.expect((m) => m.type === T.Selection && idOf(m) === id, 2000, "Selection of its own");
    const join = a.reliable[0];
    assert.deepEqual([join.seq, join.type], [0, T.Join]);
    assert.deepEqual([name.seq, sel.seq], [1, 2]);
    assert.equal(nameOf(name), `Player ${(id & 0xffff) + 1}`);
    assert.deepEqual([...sel.payload.subarray(4)], [0, 0], "ship 0, weapon 0");
    assert.ok(a.packets.some((p) => p.ack === 0), "a packet acknowledges the Connect (seqno 0)");
  });

  it("a packet with another app id gets no answer", async () => {
    const a = await open();
    a.send(packet(NO_ACK, 1, [[0, T.Connect, []]], [], 0xf27087c4));
    assert.equal(await a.packetAfter(0, 600), null);
  });

  it("a datagram shorter than the header gets no answer", async () => {
    const a = await open();
    a.send(Buffer.from([0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 1, 1]));
    assert.equal(await a.packetAfter(0, 600), null);
  });

  it("a stranger's packet that does not open with Connect at seqno 0 gets no answer", async () => {
    const a = await open();
    a.send(packet(NO_ACK, 1, [[0, T.Chat, chatPayload(0x10000, "hi")]]));
    a.send(packet(NO_ACK, 2, [[1, T.Connect, []]]));
    assert.equal(await a.packetAfter(0, 600), null);
  });

  it("a packet whose sections disagree with its counts gets no answer, and the player carries on", async () => {
    const a = await open();
    const id = await a.connect();
    // rel = 2 but one Chat only: the packet runs short and is dropped whole.
    const bad = packet(a.ack, a.now(), [[a.nextSeq, T.Chat, chatPayload(id, "never")]]);
    bad[12] = 2;
    a.send(bad);
    await sleep(300);
    a.sendMessages([[T.Chat, chatPayload(id, "after the bad one")]]);
    const m = await a.expect((x) => x.type === T.Chat, 3000, "the echo of the valid line");
    assert.equal(chatText(m), "after the bad one");
  });

  it("Chat goes to every player, the sender included, under the sender's id", async () => {
    const a = await open();
    const b = await open();
    const ida = await a.connect();
    await b.connect();
    await b.expect((m) => m.type === T.Join && idOf(m) === ida, 3000, "Join of the other player");
    a.sendMessages([[T.Chat, chatPayload(ida, "hello from a conformance test")]]);
    for (const p of [a, b]) {
      const m = await p.expect((x) => x.type === T.Chat, 3000, "the chat line");
      assert.equal(idOf(m), ida);
      assert.equal(chatText(m), "hello from a conformance test");
    }
  });

  it("Chat under another player's id is delivered to nobody", async () => {
    const a = await open();
    const b = await open();
    const ida = await a.connect();
    const idb = await b.connect();
    a.sendMessages([[T.Chat, chatPayload(idb, "spoofed")]]);
    await sleep(400);
    a.sendMessages([[T.Chat, chatPayload(ida, "genuine")]]);
    const m = await b.expect((x) => x.type === T.Chat, 3000, "a chat line");
    assert.equal(chatText(m), "genuine");
  });

  it("a reliable message sent again is processed once", async () => {
    const a = await open();
    const id = await a.connect();
    const seq = a.nextSeq++;
    const copy = packet(a.ack, a.now(), [[seq, T.Chat, chatPayload(id, "only once")]]);
    a.send(copy);
    a.send(copy);
    await sleep(300);
    a.send(copy);
    await a.expect((x) => x.type === T.Chat, 3000, "the echo");
    await sleep(600);
    a.acknowledge();
    await sleep(300);
    assert.equal(a.reliable.filter((x) => x.type === T.Chat).length, 1);
  });

  it("a newcomer is announced to the others (Join, Name, Selection) once it acknowledges its Join", async () => {
    const a = await open();
    await a.connect();
    const b = await open();
    const idb = await b.connect();
    await a.expect((m) => m.type === T.Join && idOf(m) === idb, 3000, "Join of the newcomer");
    const name = await a.expect((m) => m.type === T.Name && idOf(m) === idb, 3000, "Name of the newcomer");
    await a.expect((m) => m.type === T.Selection && idOf(m) === idb, 3000, "Selection of the newcomer");
    assert.equal(nameOf(name), `Player ${(idb & 0xffff) + 1}`);
  });

  it("Name: the final name goes to everyone; a name someone has gets a suffix", async () => {
    const a = await open();
    const b = await open();
    const ida = await a.connect();
    const idb = await b.connect();
    a.sendMessages([[T.Name, namePayload(ida, "Conformer")]]);
    const na = await b.expect((m) => m.type === T.Name && idOf(m) === ida && nameOf(m) === "Conformer", 3000, "a's new name");
    assert.equal(nameOf(na), "Conformer");
    await sleep(100);
    b.sendMessages([[T.Name, namePayload(idb, "conformer")]]);
    const nb = await a.expect((m) => m.type === T.Name && idOf(m) === idb && nameOf(m) !== `Player ${(idb & 0xffff) + 1}`, 3000, "b's new name");
    assert.equal(nameOf(nb), "conformer-2");
  });

  it("Update about 15 times a second and Stats about twice, unreliable, with newer timestamps", async () => {
    const a = await open();
    await a.connect();
    const from = a.packets.length;
    for (let k = 0; k < 20; k++) {
      a.send(packet(a.ack, a.now(), [], [[T.Input, [...u32(0), 0]]]));
      await sleep(100);
    }
    const got = a.packets.slice(from);
    const updates = got.flatMap((p) => p.unrel.filter((m) => m.type === T.Update).map(() => p.timestamp));
    const stats = got.filter((p) => p.unrel.some((m) => m.type === T.Stats)).length;
    const ticks = new Set(updates).size;
    assert.ok(ticks >= 22 && ticks <= 40, `${ticks} Update ticks in 2 s`);
    assert.ok(stats >= 2 && stats <= 7, `${stats} Stats in 2 s`);
    const stamps = got.filter((p) => p.unrel.length > 0).map((p) => p.timestamp);
    for (let k = 1; k < stamps.length; k++) assert.ok(((stamps[k] - stamps[k - 1]) | 0) >= 0, "timestamps do not go back");
  });

  it("Disconnect is acknowledged, and the others get Leave with the leaver's id", async () => {
    const a = await open();
    const b = await open();
    const ida = await a.connect();
    await b.connect();
    await b.expect((m) => m.type === T.Join && idOf(m) === ida, 3000, "Join of a");
    await a.disconnect();
    a.selfId = -1;
    await b.expect((m) => m.type === T.Leave && idOf(m) === ida, 3000, "Leave of a");
  });

  it("a full server answers Connect with Reject (reason 1) and creates nothing", async () => {
    const players: RawPeer[] = [];
    for (let k = 0; k < target.maxPlayers; k++) players.push(await open());
    await Promise.all(players.map((p) => p.connect(8000)));
    const late = await open();
    late.send(packet(NO_ACK, 1, [[0, T.Connect, []]]));
    const p = await late.packetAfter(0, 3000);
    assert.ok(p !== null, "an answer to the Connect");
    assert.deepEqual(p.rel, []);
    assert.deepEqual(p.unrel.map((m) => [m.type, ...m.payload]), [[T.Reject, 1]]);
    // Nobody was told of the late peer.
    await sleep(300);
    for (const q of players) assert.equal(q.reliable.filter((m) => m.type === T.Join).length, target.maxPlayers);
  });

  it("Connect sent again by an admitted player creates no second player", async () => {
    const a = await open();
    const id = await a.connect();
    a.send(packet(a.ack, a.now(), [[0, T.Connect, []]]));
    await sleep(600);
    a.acknowledge();
    await sleep(200);
    assert.deepEqual(a.reliable.filter((m) => m.type === T.Join).map(idOf), [id], "one Join, its own");
  });
});
