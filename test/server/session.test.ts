/**
 * The session ring (modules/server/session.ts): entries are copied into it, and from it
 * into each player's queue, as blocks, in two pieces where an entry crosses the ring's end.
 * Chat lines of every length, and renames between them, put those ends at every offset of
 * an entry; each player must still get every payload byte for byte, in order.
 */
import assert from "node:assert/strict";
import { Msg, NAME_LENGTH } from "../../modules/protocol/constants";
import { Counter } from "../../modules/protocol/counters";
import type { Client } from "../../modules/client/client";
import { BROADCAST_BYTES, CHAT_REFILL_MS } from "../../modules/server/session";
import { MessageLog, TestMatch } from "../../harness/match";

/** The log, plus each Chat and Name payload as a string of its bytes. */
class PayloadLog extends MessageLog {
  readonly payloads: string[] = [];
  override reliable(c: Client, type: number, seq: number, b: Uint8Array, o: number): void {
    super.reliable(c, type, seq, b, o);
    if (type !== Msg.Chat && type !== Msg.Name) return;
    let n = 4;
    if (type === Msg.Name) n += NAME_LENGTH;
    else while (b[o + n] !== 0) n++;
    this.payloads.push(`${type}:${Array.from(b.subarray(o, o + n)).join(",")}`);
  }
}

/**
 * Player 0 sends chat lines of every length from 1 to 127, player 1 renames after every
 * tenth; every player must get each payload byte for byte, in order. With `deaf`, player 2
 * hears nothing for three spans of lines and its small queue fills: it then takes the rest
 * from the ring (#pump), in two pieces where they cross the ring's end.
 */
function everyLength(deaf: boolean): void {
  const m = new TestMatch(deaf ? { reliableQueueBytes: 700 } : {}, { seed: 7, delayMs: 2 });
  for (let k = 0; k < 3; k++) m.join();
  m.run(500);
  const logs: PayloadLog[] = [];
  for (const c of m.clients) {
    const log = new PayloadLog();
    c.listener = log;
    logs.push(log);
  }
  const [a, b] = m.clients;
  let bytes = 0;
  for (let n = 1; n <= 127; n++) {
    const line = String.fromCharCode(0x21 + (n % 90)).repeat(n);
    assert.ok(a.chat(line), `line ${n} queued`);
    bytes += 3 + 4 + n + 1;
    if (n % 10 === 0) {
      assert.ok(b.rename(`Name ${n}`));
      bytes += 3 + 4 + NAME_LENGTH;
    }
    // Deaf for three spans of lines, each more than its queue holds and less than it and the ring.
    if (deaf) m.hosts[2].deaf = (n >= 30 && n < 50) || (n >= 70 && n < 90) || (n >= 105 && n < 120);
    m.run(CHAT_REFILL_MS);
  }
  m.run(1000);
  assert.ok(bytes > 4 * BROADCAST_BYTES, `${bytes} bytes through the ring`);
  assert.equal(m.server.counters[Counter.Refused], 0);
  assert.equal(m.server.counters[Counter.Laggards], 0);
  assert.equal(m.server.counters[Counter.Timeouts], 0);
  for (const log of logs) {
    assert.equal(log.count(Msg.Chat, a.selfId), 127);
    assert.deepEqual(log.payloads, logs[2].payloads);
  }
  // Every chat payload is the id and the line (up to its NUL); the lines arrive in order.
  const chats = logs[0].payloads.filter((p) => p.startsWith(`${Msg.Chat}:`));
  for (let n = 1; n <= 127; n++) {
    const id = a.selfId;
    const expected = [id >>> 24, (id >>> 16) & 0xff, (id >>> 8) & 0xff, id & 0xff];
    for (let i = 0; i < n; i++) expected.push(0x21 + (n % 90));
    assert.equal(chats[n - 1], `${Msg.Chat}:${expected.join(",")}`, `line ${n}`);
  }
}

describe("the session ring", function () {
  this.timeout(120_000);

  it("chat lines of every length from 1 to 127 and renames between them cross the ring's end and reach every player byte for byte, in order", function () {
    everyLength(false);
  });

  it("the same where one player's queue is full and it takes the lines from the ring after", function () {
    everyLength(true);
  });
});
