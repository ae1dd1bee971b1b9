/**
 * A corrupting link: 8 client-library players fight (the game on, all hunting, chatting)
 * for 60 simulated seconds while 2 % of the packets each way are corrupted (bits flipped,
 * cut short, extended past 512 bytes) and 250 garbage datagrams a second reach the server,
 * 200 of them naming real players' addresses and ports.
 *
 * Accounting. The link classifies every corrupted or garbage datagram it delivers with the
 * receiver's validation (harness/link.ts): the invalid ones must show up in the
 * receiver's drop counters, reason by reason, exactly. Garbage is invalid by construction.
 * A corrupted packet can still be valid by chance (a flipped bit in a timestamp, an input
 * byte, an Update entry, an ack): the link counts those as `slipped` and reports which
 * seqnos they carried. Nothing can tell such a packet from a real one, so the checks excuse
 * exactly what they carried, and nothing more: a reliable message that differs from what
 * the server sent under its seqno must have come in a slipped packet, and a chat may go
 * missing only by a slipped client packet that carried it.
 */
import assert from "node:assert/strict";
import { ClientState } from "../../modules/client/client";
import { createGame } from "../../modules/match";
import { GameCounter, type Game } from "../../modules/game/game";
import { Counter, COUNTER_NAMES } from "../../modules/protocol/counters";
import { FROM_CLIENT, FROM_SERVER, Msg } from "../../modules/protocol/constants";
import { headerRel } from "../../modules/protocol/codec";
import { LogEvent } from "../../modules/server/events";
import { Random } from "../../modules/random";
import { behaviourInput } from "../../harness/behaviours";
import { TestMatch } from "../../harness/match";
import { reliableSeqnos, SentStreams } from "../helpers/streams";

const SECONDS = 60;

describe("a corrupting link: 8 players, the game, 2 % corruption and 250 garbage datagrams a second", function () {
  this.timeout(120_000);
  let m: TestMatch;
  let game: Game;
  let sent: SentStreams;
  const tainted: Set<number>[] = [];
  const chatsSent: number[] = [];
  let slippedWithReliable = 0;
  let updates0: number[] = [];
  let updates1: number[] = [];

  before(function () {
    m = new TestMatch({}, { seed: 21, delayMs: 2, jitterMs: 6, corrupt: 0.02 });
    game = createGame(m.config, m.server, 21);
    sent = new SentStreams(m.serverHost);
    m.serverHost.receives = FROM_CLIENT;
    m.serverHost.onSlip = (b) => {
      if (headerRel(b) > 0) slippedWithReliable++;
    };
    const rng = new Random(21);
    let chatting = true;
    for (let k = 0; k < 8; k++) {
      const c = m.client();
      const h = m.hosts[k];
      const bad = new Set<number>();
      tainted.push(bad);
      chatsSent.push(0);
      h.receives = FROM_SERVER;
      h.onSlip = (b, n) => {
        for (const seq of reliableSeqnos(b, n, FROM_SERVER)) bad.add(seq);
      };
      let nextChat = 1000 + rng.below(2000);
      h.core = {
        receive: (b, n, a, p) => c.receive(b, n, a, p),
        tick: (now) => {
          if (c.state === ClientState.Connected) {
            c.setInput(behaviourInput("hunt", c, now));
            if (chatting && now >= nextChat) {
              // A human pace: two lines a second.
              nextChat = now + 350 + rng.below(300);
              if (c.chat(`line ${chatsSent[k] + 1} from ${k}`)) chatsSent[k]++;
            }
          }
          c.tick(now);
        },
      };
      c.connect();
    }
    assert.ok(m.until(() => m.clients.every((c) => c.state === ClientState.Connected && c.playerCount() === 8), 10_000), "all 8 in");
    m.net.garbageTo(m.serverHost, 250, m.hosts.slice(), 0.8);
    const start = m.net.now;
    updates0 = m.recorders.map((r) => r.updateTicks);
    m.run(SECONDS * 1000);
    updates1 = m.recorders.map((r, k) => (r.updateTicks - updates0[k]) / ((m.net.now - start) / 1000));
    // Calm again: no corruption, no garbage, no new chats; let every queue drain.
    m.net.corrupt = 0;
    m.net.garbageTo(m.serverHost, 0);
    chatting = false;
    const drained = () => m.server.endpoints.every((e) => e.count === 0) && m.clients.every((c) => c.endpoint.count === 0);
    assert.ok(m.until(drained, 5000), "queues drained");
    m.run(300);
    // The game goes on queueing Adds and Removes: end where nothing queued is unacknowledged.
    assert.ok(m.until(drained, 5000), "queues drained again");
  });

  it("was hostile: packets corrupted every way, garbage from real players' addresses and others", function () {
    const n = m.net;
    assert.ok(n.flipped > 300 && n.truncated > 300 && n.extended > 300, `flipped ${n.flipped}, truncated ${n.truncated}, extended ${n.extended}`);
    assert.ok(n.corrupted > 0.015 * n.sent && n.corrupted < 0.025 * n.sent, `${n.corrupted} of ${n.sent} corrupted`);
    assert.ok(n.garbage >= 250 * SECONDS - 1, `${n.garbage} garbage datagrams`);
    const s = m.server.counters;
    for (const reason of [Counter.TooShort, Counter.TooLong, Counter.BadAppId, Counter.UnknownType, Counter.Truncated, Counter.TrailingBytes])
      assert.ok(s[reason] > 10, `${COUNTER_NAMES[reason]} ${s[reason]}`);
  });

  it("nothing threw, nobody was kicked or timed out, and every player kept getting its Updates", function () {
    const s = m.server.counters;
    assert.equal(s[Counter.Kicks], 0);
    assert.equal(s[Counter.Timeouts], 0);
    assert.equal(s[Counter.HandshakeTimeouts], 0);
    assert.equal(s[Counter.QueueOverflows], 0);
    assert.equal(m.server.playerCount(), 8);
    for (const [k, c] of m.clients.entries()) assert.equal(c.state, ClientState.Connected, `player ${k}`);
    // A real fight went on meanwhile.
    assert.ok(game.counters[GameCounter.ShotsFired] > 300, `${game.counters[GameCounter.ShotsFired]} shots`);
    assert.ok(game.counters[GameCounter.Kills] > 0);
    // An update tick every 66 ms, less the 2 % corrupted. (A corrupted packet whose timestamp
    // still validated once made some players ignore every Update after it: see the cases
    // "a timestamp far ahead" in test/server/bad-input.test.ts and test/client/client.test.ts.)
    const cycle = 1000 / m.config.updateIntervalMs;
    for (const [k, u] of updates1.entries()) assert.ok(u > 0.9 * cycle && u <= cycle + 0.1, `player ${k}: ${u.toFixed(2)} update ticks/s`);
    // And the server kept taking every player's Input: none went 500 ms without one.
    assert.equal(s[Counter.StaleInputs], 0);
    if (process.env.LWAR_REPORT) console.log(`      update ticks: ${updates1.map((u) => u.toFixed(1)).join(" ")} per second`);
  });

  it("every bad datagram lands in its counter: the drop counters equal, reason by reason, what the link injected", function () {
    const hosts = [m.serverHost, ...m.hosts];
    const cores = [m.server.counters, ...m.clients.map((c) => c.counters)];
    for (const [k, h] of hosts.entries()) {
      const who = k === 0 ? "server" : `player ${k - 1}`;
      let injected = 0;
      for (let i = Counter.TooShort; i <= Counter.TrailingBytes; i++) {
        assert.equal(cores[k][i], h.injected[i], `${who}: ${COUNTER_NAMES[i]}`);
        injected += h.injected[i];
      }
      assert.equal(injected + h.slipped, h.corruptedIn + h.garbageIn, `${who}: every injected datagram classified`);
      assert.ok(h.corruptedIn > 0, who);
    }
    assert.equal(m.serverHost.garbageIn, m.net.garbage);
    // Garbage never validates; corrupted packets sometimes do, and are reported.
    const slippedShare = m.serverHost.slipped / m.serverHost.corruptedIn;
    assert.ok(slippedShare < 0.5, `${m.serverHost.slipped} of ${m.serverHost.corruptedIn} corrupted client packets still validated`);
    if (process.env.LWAR_REPORT) {
      const c = m.clients.reduce((n, x) => n + x.counters[Counter.TooShort], 0);
      console.log(`      server: ${m.serverHost.corruptedIn} corrupted and ${m.serverHost.garbageIn} garbage in, ${m.serverHost.slipped} validated by chance; clients: ${m.hosts.reduce((n, h) => n + h.corruptedIn, 0)} corrupted in, ${m.hosts.reduce((n, h) => n + h.slipped, 0)} validated (${c} too short)`);
    }
  });

  it("the server sent only valid packets, each seqno always with the same message", function () {
    assert.equal(sent.invalid, 0);
    assert.equal(sent.changed, 0);
  });

  it("reliable delivery to each player stays exactly once and in order", function () {
    for (const [k, c] of m.clients.entries()) {
      const r = m.recorders[k];
      const ep = m.server.endpoints[c.selfSlot];
      assert.equal(r.seqs.length, ep.nextSeq, `player ${k} processed every message the server sent it`);
      assert.deepEqual(sent.check(m.hosts[k].port, r, tainted[k]), [], `player ${k}`);
    }
  });

  it("every chat line sent at a human pace went to every player once, in one order, unless a corrupted packet that validated mangled it", function () {
    const log = m.serverHost.logEvents;
    let accepted = 0;
    for (let i = 0; i < log.length; i += 3) if (log[i] === LogEvent.Chat) accepted++;
    // What the server sent each player (what each processed is checked against it above).
    const orders = m.clients.map((_c, k) => {
      const stream = sent.byPort.get(m.hosts[k].port)!;
      const chats: string[] = [];
      for (let seq = 0; stream.has(seq); seq++) if (stream.get(seq)!.startsWith(`${Msg.Chat}:`)) chats.push(stream.get(seq)!);
      return chats;
    });
    for (const [k, o] of orders.entries()) assert.deepEqual(o, orders[0], `player ${k}'s chats in the server's order`);
    assert.equal(orders[0].length, accepted);
    const s = m.server.counters;
    const total = chatsSent.reduce((a, b) => a + b, 0);
    assert.ok(total > 8 * 20, `${total} chats sent`);
    // A chat is accepted or refused once processed. One turned into another player's id or
    // into bad text (or another message) by a corrupted packet that still validated is
    // dropped as such.
    const mangled = s[Counter.SpoofedId] + s[Counter.BadChat] + s[Counter.BadName] + s[Counter.BadSelection];
    assert.equal(s[Counter.Refused], 0, "at a human pace no line is refused");
    assert.equal(accepted + mangled, total);
    assert.ok(mangled <= slippedWithReliable, `${mangled} mangled chats, ${slippedWithReliable} corrupted client packets with reliable messages validated`);
  });
});
