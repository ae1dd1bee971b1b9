/**
 * Nobody holds the match hostage (docs/protocol.md, "Liveness", "Nobody waits for a failing
 * player", "Flood control"): a player whose acknowledgements stall is dropped within
 * timeoutMs of its oldest unacknowledged message however much it sends; nobody's chat,
 * rename, selection or announcement waits for it; a newcomer that acknowledges its Join is
 * announced at once; chat bursts of 4 go through, floods are limited and counted, and the
 * sender's client library reports each refused line as not delivered.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { type Client, ClientState, createClient } from "../../modules/client/client";
import { Msg } from "../../modules/protocol/constants";
import { Counter } from "../../modules/protocol/counters";
import { INPUT_FORWARD } from "../../modules/protocol/codec";
import { BROADCAST_BYTES, CHAT_BURST, CHAT_REFILL_MS } from "../../modules/server/session";
import { TestMatch, MessageLog, SERVER_ADDRESS, SERVER_PORT } from "../../harness/match";
import type { MemHost } from "../../harness/link";

/** A client that keeps sending Input however long it hears nothing (its own timeout is a minute). */
function staller(m: TestMatch): { c: Client; host: MemHost; rec: MessageLog } {
  const host = m.net.host("mem:staller", 41000);
  const c = createClient(makeConfig({ ...m.config, timeoutMs: 60_000 }), host, SERVER_ADDRESS, SERVER_PORT);
  const rec = new MessageLog();
  c.listener = rec;
  host.core = c;
  c.connect();
  return { c, host, rec };
}

/** The chat lines a recorder applied, as "sender-id:text" would be too much: the sender ids in order. */
function chatsFrom(r: MessageLog, id: number): number {
  return r.count(Msg.Chat, id);
}

describe("liveness is acknowledgement", function () {
  this.timeout(60_000);

  it("a player that acknowledges nothing more but keeps sending Input is dropped within timeoutMs + 100 ms of its oldest unacknowledged message; two players chatting lose nothing; a newcomer is announced within 1 s", function () {
    const timeoutMs = 3000;
    const m = new TestMatch({ timeoutMs }, { seed: 3, delayMs: 2 });
    const a = m.join();
    const b = m.join();
    const s = staller(m);
    assert.ok(m.until(() => s.c.state === ClientState.Connected, 2000));
    m.run(500);
    const slot = s.c.selfSlot;
    const ep = m.server.endpoints[slot];
    s.c.setInput(INPUT_FORWARD);
    // From now on it hears nothing, so its ack never moves; it still sends Input every tick.
    s.host.deaf = true;
    const frozen = ep.firstSeq;
    let oldestAt = -1;
    let droppedAt = -1;
    let newcomer: Client | null = null;
    let newcomerAckedAt = -1;
    let announcedAt = -1;
    const lines = { a: 0, b: 0 };
    for (let t = 0; t < 8000; t += 10) {
      if (t % 500 === 0) {
        assert.ok(a.chat(`a says ${lines.a++}`));
        assert.ok(b.chat(`b says ${lines.b++}`));
      }
      if (t === 2000) {
        newcomer = m.client();
        newcomer.connect();
      }
      m.run(10);
      const now = m.net.now;
      if (oldestAt < 0 && m.server.active[slot] !== 0 && ep.count > 0 && ep.firstSeq === frozen) oldestAt = now;
      if (droppedAt < 0 && m.server.active[slot] === 0) droppedAt = now;
      if (newcomer !== null && newcomer.selfSlot >= 0 && newcomerAckedAt < 0 && m.server.endpoints[newcomer.selfSlot].firstSeq !== 0) newcomerAckedAt = now;
      if (newcomer !== null && announcedAt < 0 && newcomer.selfId >= 0 && m.recorders[0].count(Msg.Join, newcomer.selfId) === 1) announcedAt = now;
    }
    m.run(1000);
    assert.ok(oldestAt > 0, "the staller had an unacknowledged message");
    assert.ok(droppedAt > 0, "the staller was dropped");
    assert.ok(droppedAt - oldestAt <= timeoutMs + 100, `dropped ${droppedAt - oldestAt} ms after its oldest unacknowledged message was queued`);
    assert.ok(droppedAt - oldestAt > timeoutMs - 20, `not before its time: ${droppedAt - oldestAt} ms`);
    assert.equal(m.server.counters[Counter.AckStalls], 1);
    assert.equal(m.server.counters[Counter.Refused], 0, "nothing refused for the staller's sake");
    assert.equal(m.server.counters[Counter.Kicks], 0);
    // Everyone else got every line of both, once.
    for (const k of [0, 1]) {
      assert.equal(chatsFrom(m.recorders[k], a.selfId), lines.a, `player ${k}: a's lines`);
      assert.equal(chatsFrom(m.recorders[k], b.selfId), lines.b, `player ${k}: b's lines`);
    }
    assert.ok(newcomer !== null && newcomer.state === ClientState.Connected);
    // The lines sent before it connected (0..1500 ms) went out before it was admitted; it gets every one after.
    assert.equal(chatsFrom(m.recorders[2], a.selfId), lines.a - 4, "the newcomer got a's lines from its arrival on");
    assert.ok(newcomerAckedAt > 0 && announcedAt > 0, "the newcomer acknowledged its Join and was announced");
    assert.ok(announcedAt - newcomerAckedAt <= 1000, `announced ${announcedAt - newcomerAckedAt} ms after it acknowledged its Join`);
    assert.equal(m.server.counters[Counter.HandshakeTimeouts], 0);
    assert.equal(m.recorders[0].count(Msg.Leave, s.c.selfId), 1, "the others heard that the staller left");
  });

  it("a player a whole broadcast ring behind is dropped before its timeout; the others lose nothing", function () {
    const m = new TestMatch({}, { seed: 4, delayMs: 2 });
    const a = m.join();
    const b = m.join();
    const s = staller(m);
    assert.ok(m.until(() => s.c.state === ClientState.Connected, 2000));
    m.run(500);
    s.host.deaf = true;
    const long = (who: string, k: number): string => `${who} ${k} `.padEnd(120, "x");
    let sent = 0;
    // Two lines of 120 characters every 500 ms: the staller's queue and then the ring fill.
    for (let t = 0; t < 12_000 && m.server.counters[Counter.Laggards] === 0; t += 500) {
      assert.ok(a.chat(long("a", sent)));
      assert.ok(b.chat(long("b", sent)));
      sent++;
      m.run(500);
    }
    m.run(1000);
    assert.equal(m.server.counters[Counter.Laggards], 1, "dropped for lagging");
    assert.equal(m.server.counters[Counter.AckStalls], 0, "before its acknowledgement timeout");
    const bytes = sent * 2 * (3 + 4 + 121);
    assert.ok(bytes > BROADCAST_BYTES && bytes < m.config.reliableQueueBytes + BROADCAST_BYTES + 2 * 128 * 2, `lagged ${bytes} bytes of chat behind`);
    for (const k of [0, 1]) assert.equal(m.recorders[k].count(Msg.Chat), 2 * sent, `player ${k} got every line`);
    assert.equal(m.server.counters[Counter.Refused], 0);
  });
});

describe("flood control: a burst goes through, a flood is limited, the sender hears which lines did not", function () {
  it(`${CHAT_BURST} lines in one packet reach everyone once, in order`, function () {
    const m = new TestMatch();
    const a = m.join();
    const b = m.join();
    for (let k = 0; k < CHAT_BURST; k++) assert.ok(a.chat(`burst ${k}`));
    m.run(500);
    assert.equal(m.server.counters[Counter.Refused], 0);
    for (const r of [m.recorders[0], m.recorders[1]]) assert.equal(r.count(Msg.Chat, a.selfId), CHAT_BURST);
    assert.equal(a.chatsDelivered, CHAT_BURST);
    assert.equal(a.chatsNotDelivered, 0);
    assert.equal(b.state, ClientState.Connected);
  });

  it(`${CHAT_BURST} lines within a second reach everyone once`, function () {
    const m = new TestMatch();
    const a = m.join();
    m.join();
    for (let k = 0; k < CHAT_BURST; k++) {
      assert.ok(a.chat(`second ${k}`));
      m.run(230);
    }
    m.run(500);
    assert.equal(m.server.counters[Counter.Refused], 0);
    assert.equal(m.recorders[1].count(Msg.Chat, a.selfId), CHAT_BURST);
    assert.equal(a.chatsDelivered, CHAT_BURST);
  });

  it("20 lines a second for 3 s: the bucket's rate gets through, the rest is refused, counted and reported not delivered", function () {
    const m = new TestMatch();
    const a = m.join();
    m.join();
    let sent = 0;
    for (let t = 0; t < 3000; t += 50) {
      assert.ok(a.chat(`flood ${sent++}`));
      m.run(50);
    }
    m.run(1500);
    const accepted = m.recorders[1].count(Msg.Chat, a.selfId);
    const refused = m.server.counters[Counter.Refused];
    const most = CHAT_BURST + Math.ceil(3000 / CHAT_REFILL_MS) + 1;
    assert.ok(accepted <= most && accepted >= most - 3, `${accepted} of ${sent} accepted (bucket: ${CHAT_BURST} + one per ${CHAT_REFILL_MS} ms)`);
    assert.equal(accepted + refused, sent, "each line accepted or refused");
    assert.equal(a.chatsDelivered, accepted, "the sender's library saw each accepted line delivered");
    assert.equal(a.chatsNotDelivered, refused, "and each refused one not delivered");
  });
});
