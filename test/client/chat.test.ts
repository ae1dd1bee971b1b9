/**
 * Our own chat lines against the real server over the seeded in-memory link
 * (harness/scenario.ts): each line sent is reported once, in order, delivered if the
 * server echoed it and not delivered otherwise, within 2 RTT + 100 ms of being sent.
 * The assertions hold whatever the server's flood rule is: they compare the outcomes
 * with the echoes the sender actually got.
 */
import assert from "node:assert/strict";
import { CHAT_DEFAULT_RTT_MS, CHAT_MARGIN_MS, type Client } from "../../modules/client/client";
import { Msg } from "../../modules/protocol/constants";
import { Fields, readChat } from "../../modules/protocol/codec";
import { bytesToAscii } from "../../modules/text";
import { Scenario } from "../../harness/scenario";
import type { LinkOptions } from "../../harness/link";

const TICK_MS = 10;

interface Outcome {
  delivered: boolean;
  text: string;
  at: number;
  /** The deadline the client applied: 2 RTT + 100 ms, with the RTT it knew then. */
  limit: number;
}

/** Two players, connected and announced, their chat observed. */
function match(link?: LinkOptions): {
  m: Scenario;
  a: Client;
  outcomes: Outcome[];
  /** Chat lines of a's that a and b received, in order. */
  echoes: string[];
  heard: string[];
} {
  const m = new Scenario({ players: 2, social: false, link });
  for (let t = 0; !m.ready(); t += TICK_MS) {
    assert.ok(t < 5000, "both players connect");
    m.net.run(TICK_MS, TICK_MS);
  }
  m.net.run(500, TICK_MS); // the initial sync acknowledged: the server announces them
  const [a, b] = m.clients;
  const outcomes: Outcome[] = [];
  const echoes: string[] = [];
  const heard: string[] = [];
  a.onChatOutcome = (delivered, text, o, n) => {
    const srtt = a.endpoint.srtt;
    outcomes.push({ delivered, text: bytesToAscii(text, o, n), at: m.net.now, limit: 2 * (srtt > 0 ? srtt : CHAT_DEFAULT_RTT_MS) + CHAT_MARGIN_MS });
  };
  const f = new Fields();
  const observe = (into: string[]) => ({
    reliable(_c: Client, type: number, _seq: number, bytes: Uint8Array, o: number): void {
      if (type !== Msg.Chat) return;
      readChat(bytes, o, f);
      if (f.id === a.selfId) into.push(bytesToAscii(bytes, f.textOffset, f.textLength));
    },
    unreliable(): void {},
  });
  a.listener = observe(echoes);
  b.listener = observe(heard);
  return { m, a, outcomes, echoes, heard };
}

/** Sends `lines` at `gapMs` apart (0: all at one instant), then lets everything settle. */
function send(m: Scenario, a: Client, lines: number, gapMs: number): { texts: string[]; sentAt: number[] } {
  const texts: string[] = [];
  const sentAt: number[] = [];
  for (let i = 0; i < lines; i++) {
    const text = "line " + i + " from a";
    assert.equal(a.chat(text), true, text);
    texts.push(text);
    sentAt.push(m.net.now);
    if (gapMs > 0) m.net.run(gapMs, TICK_MS);
  }
  m.net.run(2000, TICK_MS);
  return { texts, sentAt };
}

/** What holds for any flood rule: one outcome per line, in order, matching the echoes, in time. */
function checkOutcomes(r: ReturnType<typeof match>, sent: { texts: string[]; sentAt: number[] }): void {
  const { a, outcomes, echoes, heard } = r;
  assert.deepEqual(outcomes.map((o) => o.text), sent.texts, "each line reported once, in the order sent");
  assert.equal(a.chatsPending, 0);
  assert.equal(a.chatsDelivered + a.chatsNotDelivered, sent.texts.length);
  assert.deepEqual(outcomes.filter((o) => o.delivered).map((o) => o.text), echoes, "delivered: exactly the lines the server echoed");
  assert.deepEqual(heard, echoes, "the other player got the same lines");
  assert.equal(outcomes.filter((o) => o.delivered).length, a.chatsDelivered);
  for (let i = 0; i < outcomes.length; i++) {
    const o = outcomes[i];
    if (o.delivered) continue;
    const age = o.at - sent.sentAt[i];
    assert.ok(age <= o.limit + TICK_MS, `'${o.text}' reported not delivered ${age} ms after it was sent, limit ${o.limit} ms`);
  }
}

describe("client: the fate of its own chat lines, against the server", function () {
  it("lines at a human pace (one every 600 ms) are all reported delivered", function () {
    const r = match();
    const sent = send(r.m, r.a, 6, 600);
    checkOutcomes(r, sent);
    assert.equal(r.a.chatsDelivered, 6);
    assert.equal(r.a.chatsNotDelivered, 0);
  });

  it("10 lines in one burst: the echoed ones are delivered, the rest not, within 2 RTT + 100 ms", function () {
    const r = match();
    const sent = send(r.m, r.a, 10, 0);
    checkOutcomes(r, sent);
    assert.ok(r.a.chatsNotDelivered >= 1, "the server refuses some of a burst");
    assert.ok(r.a.chatsDelivered >= 1, "and accepts its first line");
  });

  it("10 lines 100 ms apart over a slower link (30 ms each way, 10 ms jitter): outcomes match the echoes", function () {
    const r = match({ seed: 7, delayMs: 30, jitterMs: 10 });
    const sent = send(r.m, r.a, 10, 100);
    checkOutcomes(r, sent);
    assert.ok(r.a.chatsNotDelivered >= 1, "faster than the server allows");
  });
});
