/**
 * Bots that play a server over UDP and the check that follows: each bot applied every
 * reliable message exactly once and in seqno order, received every bot's chat lines exactly
 * once and in order, stayed connected and left cleanly, and the server logged each line
 * once. Shared by `npm run test:sim` (the simulator) and `npm run test:esp32` (the
 * emulated board).
 */
import { ClientState } from "../../modules/client/client";
import { Fields, readChat } from "../../modules/protocol/codec";
import { Msg } from "../../modules/protocol/constants";
import { Counter } from "../../modules/protocol/counters";
import { bytesToAscii } from "../../modules/text";
import { runBots, type Bot, type BotSummary } from "../botlib";

/** Seconds after the start before a bot must be connected. */
const CONNECT_GRACE_S = 5;
/** The last seconds of a match carry no new chat, so every line can arrive. */
const QUIET_S = 3;
const CHAT_TEXT = /^bot (\d+) says hi #(\d+)$/;

export interface Received {
  /** Next seqno expected from the server, and what went wrong. */
  nextSeq: number;
  applied: number;
  seqProblems: string[];
  /** Chat lines as (sender player id, text), in arrival order. */
  chats: { id: number; text: string }[];
  /** Progress checks after the grace period at which the bot was not Connected. */
  notConnectedAt: number[];
}

export function received(map: Map<Bot, Received>, bot: Bot): Received {
  let r = map.get(bot);
  if (r === undefined) {
    r = { nextSeq: 0, applied: 0, seqProblems: [], chats: [], notConnectedAt: [] };
    map.set(bot, r);
  }
  return r;
}

/** Checks that `ks` is exactly 1..n. Returns a description of the first difference, or "". */
export function exactlyOnceInOrder(ks: number[], n: number): string {
  for (let i = 0; i < Math.max(ks.length, n); i++) {
    if (ks[i] !== i + 1) {
      if (i >= ks.length) return `missing #${i + 1}..#${n}`;
      if (i >= n) return `extra #${ks[i]} after #${n}`;
      return `expected #${i + 1}, got #${ks[i]}`;
    }
  }
  return "";
}

/** What the bots saw, for the delivery check. */
export interface Played {
  bots: Bot[];
  byBot: Map<Bot, Received>;
  summary: BotSummary;
}

/** What a server printed, as tools read it from its log lines (modules/report.ts). */
export type Events = { join: number; leave: number; kick: number; timeout: number; reject: number };

export interface PlayOptions {
  host: string;
  port: number;
  count: number;
  behaviour: string;
  chatEveryS: number;
  durationS: number;
  say: (line: string) => void;
  /** Text for the end of each progress line (e.g. heap readings). */
  progress: () => string;
  /** Resolves when the server under test dies: the match stops and null comes back. */
  died: Promise<void>;
}

/** `count` bots play for `durationS`, chatting ("bot N says hi #K"); null if the server dies under them. */
export async function playBots(o: PlayOptions): Promise<Played | null> {
  const { say } = o;
  const byBot = new Map<Bot, Received>();
  let botList: Bot[] = [];
  const fields = new Fields();
  let lastPrinted = 0;
  say(`${o.count} bots, behaviour ${o.behaviour}, a chat line every ~${o.chatEveryS} s each, for ${o.durationS} s`);
  const run = runBots({
    host: o.host,
    port: o.port,
    count: o.count,
    durationS: o.durationS,
    behaviour: o.behaviour,
    chatEveryS: o.chatEveryS,
    seed: 1,
    onReliable: (bot, type, seq, bytes, offset) => {
      const r = received(byBot, bot);
      if (seq !== r.nextSeq && r.seqProblems.length < 5)
        r.seqProblems.push(seq < r.nextSeq ? `seqno ${seq} applied again` : `seqno ${r.nextSeq}..${seq - 1} skipped`);
      r.nextSeq = seq + 1;
      r.applied++;
      if (type === Msg.Chat) {
        readChat(bytes, offset, fields);
        r.chats.push({ id: fields.id, text: bytesToAscii(bytes, fields.textOffset, fields.textLength) });
      }
    },
    onProgress: (bots, t) => {
      botList = bots;
      for (const b of bots) {
        if (t >= o.durationS - QUIET_S) b.nextChat = Infinity;
        if (t >= CONNECT_GRACE_S && b.client.state !== ClientState.Connected) received(byBot, b).notConnectedAt.push(Math.round(t));
      }
      const sec = Math.round(t);
      if (sec % 5 !== 0 || sec === lastPrinted) return;
      lastPrinted = sec;
      const connected = bots.filter((b) => b.client.state === ClientState.Connected).length;
      const sent = bots.reduce((a, b) => a + b.chats, 0);
      const got = bots.reduce((a, b) => a + b.chatsReceived, 0);
      say(`t=${sec}s connected ${connected}/${bots.length} chats sent ${sent} received ${got} | ${o.progress()}`);
    },
  });
  const outcome = await Promise.race([run, o.died.then(() => null)]);
  if (outcome === null) return null;
  return { bots: botList, byBot, summary: outcome };
}

/** Every reliable message applied once and in order, every chat line once and in order, at the bots and in the server's log. */
export function checkDelivery(
  played: Played,
  expected: number,
  udpEvents: Events,
  udpChats: { name: string; text: string }[],
  say: (line: string) => void,
): string[] {
  const failures: string[] = [];
  const { bots, byBot, summary } = played;
  say("");
  say("delivery:");
  if (bots.length !== expected) failures.push(`expected ${expected} bots in the progress reports, saw ${bots.length}`);
  const senders = new Map<number, Bot>(); // chat "bot N" -> bot with selfSlot N-1
  for (const b of bots) if (b.client.selfSlot >= 0) senders.set(b.client.selfSlot + 1, b);
  const totalChats = bots.reduce((a, b) => a + b.chats, 0);
  for (const b of bots) {
    const c = b.client;
    const r = received(byBot, b);
    const name = `bot ${c.selfSlot + 1}`;
    const problems: string[] = [];
    if (c.selfId < 0) problems.push("never connected");
    if (r.notConnectedAt.length > 0) problems.push(`not connected at t=${r.notConnectedAt.slice(0, 5).join(", ")} s`);
    const endState = Object.keys(ClientState).find((k) => ClientState[k as keyof typeof ClientState] === c.state) ?? String(c.state);
    if (c.state !== ClientState.Closed) problems.push(`ended ${endState}, not Closed`);
    problems.push(...r.seqProblems);
    if (r.applied !== c.counters[Counter.ReliableReceived]) problems.push(`listener saw ${r.applied} reliable messages, counter says ${c.counters[Counter.ReliableReceived]}`);
    const bySender = new Map<number, number[]>();
    for (const m of r.chats) {
      const match = CHAT_TEXT.exec(m.text);
      const sender = match !== null ? senders.get(Number(match[1])) : undefined;
      // Lines of players that are not these bots (browser pages playing meanwhile) are theirs to check.
      if (!bots.some((x) => x.client.selfId === m.id)) continue;
      if (match === null || sender === undefined) {
        problems.push(`unexpected chat '${m.text}'`);
        continue;
      }
      if (m.id !== sender.client.selfId) problems.push(`chat '${m.text}' carries id 0x${m.id.toString(16)}, sender is 0x${sender.client.selfId.toString(16)}`);
      const list = bySender.get(Number(match[1])) ?? [];
      list.push(Number(match[2]));
      bySender.set(Number(match[1]), list);
    }
    const perSender: string[] = [];
    for (const [n, s] of senders) {
      const ks = bySender.get(n) ?? [];
      const diff = exactlyOnceInOrder(ks, s.chats);
      if (diff !== "") problems.push(`chats from bot ${n}: ${diff}`);
      perSender.push(`${ks.length}/${s.chats} from bot ${n}`);
    }
    say(
      `  ${name}: ${r.notConnectedAt.length === 0 ? "connected throughout" : "dropped out"}, ended ${endState}; ` +
        `applied ${r.applied} reliable messages (seqno 0..${r.nextSeq - 1}), ${c.counters[Counter.DuplicateReliable]} duplicate copies dropped, ` +
        `${c.counters[Counter.ReliableResent]} of its own resent; chats ${perSender.join(", ")}; sent ${b.chats}`,
    );
    for (const p of problems) failures.push(`${name}: ${p}`);
  }
  if (totalChats < expected * 3) failures.push(`only ${totalChats} chat lines were sent: too few to say anything`);
  // The server side: each chat logged once, in order per sender.
  const serverBySender = new Map<number, number[]>();
  for (const m of udpChats) {
    const match = CHAT_TEXT.exec(m.text);
    if (match === null) continue;
    const list = serverBySender.get(Number(match[1])) ?? [];
    list.push(Number(match[2]));
    serverBySender.set(Number(match[1]), list);
  }
  for (const [n, s] of senders) {
    const diff = exactlyOnceInOrder(serverBySender.get(n) ?? [], s.chats);
    if (diff !== "") failures.push(`server log, chats from bot ${n}: ${diff}`);
  }
  say(
    `  server log: ${udpChats.length} chat lines for ${totalChats} sent, ${udpEvents.join} joins, ${udpEvents.leave} leaves, ` +
      `${udpEvents.kick} kicks, ${udpEvents.timeout} timeouts, ${udpEvents.reject} rejects`,
  );
  if (udpEvents.join !== expected || udpEvents.leave !== expected) failures.push(`server logged ${udpEvents.join} joins and ${udpEvents.leave} leaves, expected ${expected} each`);
  if (udpEvents.kick + udpEvents.timeout + udpEvents.reject > 0) failures.push(`server logged ${udpEvents.kick} kicks, ${udpEvents.timeout} timeouts, ${udpEvents.reject} rejects`);
  say(
    `  bots: ${summary.connected}/${summary.bots} connected, ${summary.disconnectedCleanly} left cleanly, ${summary.kicked} kicked, ` +
      `${summary.timedOut} timed out, ${summary.rejected} rejected; Update ${summary.updatesPerSecond.toFixed(1)}/s, Stats ${summary.statsPerSecond.toFixed(1)}/s per bot`,
  );
  return failures;
}

