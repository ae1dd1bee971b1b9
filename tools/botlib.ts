/**
 * Bots over real UDP: each is a client-library Client on its own NodeHost socket.
 * Used by the bot CLI, the integration tests and the load tools.
 */
import { makeConfig } from "../modules/config";
import { type Client, ClientState, createClient } from "../modules/client/client";
import { C } from "../modules/protocol/counters";
import { Msg } from "../modules/protocol/constants";
import { Random } from "../modules/random";
import { NodeHost } from "../hosts/node/host";
import { behaviourInput } from "../harness/behaviours";

export interface BotOptions {
  host: string;
  port: number;
  count: number;
  durationS: number;
  behaviour: string;
  /** Mean seconds between chat lines per bot; 0 = never. */
  chatEveryS: number;
  seed: number;
  /** Called about once a second with the running bots. */
  onProgress?: (bots: Bot[], elapsedS: number) => void;
  /** Stops the match early (Ctrl-C): the bots still leave cleanly and the summary is still made. */
  signal?: AbortSignal;
  /** Called for every reliable message a bot applies (each once, in order); the payload is at `bytes[offset..]`. */
  onReliable?: (bot: Bot, type: number, seq: number, bytes: Uint8Array, offset: number) => void;
}

export interface Bot {
  client: Client;
  host: NodeHost;
  rng: Random;
  nextChat: number;
  chats: number;
  maxPlayersSeen: number;
  connectedAt: number;
  /** Chat messages received (every chat is broadcast to all, the sender included). */
  chatsReceived: number;
  /** Update ticks received: distinct Update timestamps, however many packets a tick was split into. */
  updateTicks: number;
  lastUpdateTimestamp: number;
}

export interface BotSummary {
  bots: number;
  connected: number;
  playersSeen: number;
  reliableSent: number;
  reliableResent: number;
  reliableReceived: number;
  chatsSent: number;
  /** Fewest chats any bot received; equals chatsSent when nothing was lost. */
  chatsReceivedMin: number;
  /** Update ticks per second per bot (a tick split over several packets counts once). */
  updatesPerSecond: number;
  statsPerSecond: number;
  /** Bots that never got an answer from the server (no Accept, no Reject). */
  neverConnected: number;
  /** Bots that connected and left with a clean Leave. */
  disconnectedCleanly: number;
  kicked: number;
  rejected: number;
  timedOut: number;
  seconds: number;
}

export async function runBots(o: BotOptions): Promise<BotSummary> {
  const config = makeConfig();
  const bots: Bot[] = [];
  for (let i = 0; i < o.count; i++) {
    const host = new NodeHost({ tickMs: 10 });
    // The same family as the server's address, so replies come from the address we sent to.
    await host.listen(0, o.host.includes(":") ? "::" : "0.0.0.0");
    const client = createClient(config, host, o.host, o.port);
    const rng = new Random(o.seed + i * 7919);
    bots.push({ client, host, rng, nextChat: 0, chats: 0, maxPlayersSeen: 0, connectedAt: -1, chatsReceived: 0, updateTicks: 0, lastUpdateTimestamp: -1 });
  }
  const start = performance.now();
  for (const b of bots) {
    b.client.listener = {
      reliable: (_c, type, seq, bytes, offset) => {
        if (type === Msg.Chat) b.chatsReceived++;
        if (o.onReliable) o.onReliable(b, type, seq, bytes, offset);
      },
      unreliable: (_c, type, timestamp) => {
        if (type !== Msg.Update || timestamp === b.lastUpdateTimestamp) return;
        b.lastUpdateTimestamp = timestamp;
        b.updateTicks++;
      },
    };
    b.host.attach({
      receive: (bytes, length, address, port) => b.client.receive(bytes, length, address, port),
      tick: (now) => {
        const c = b.client;
        if (c.state === ClientState.Connected) {
          if (b.connectedAt < 0) {
            b.connectedAt = now;
            if (b.nextChat === 0) b.nextChat = now + nextGap(b, o.chatEveryS);
          }
          c.setInput(behaviourInput(o.behaviour, c, now));
          if (o.chatEveryS > 0 && now >= b.nextChat) {
            if (c.chat(`bot ${c.selfSlot + 1} says hi #${b.chats + 1}`)) {
              b.chats++;
              b.nextChat = now + nextGap(b, o.chatEveryS);
            }
          }
          const seen = c.playerCount();
          if (seen > b.maxPlayersSeen) b.maxPlayersSeen = seen;
        }
        c.tick(now);
      },
    });
    b.client.connect();
  }
  const end = start + o.durationS * 1000;
  let lastProgress = start;
  while (performance.now() < end && o.signal?.aborted !== true) {
    await sleep(Math.min(100, end - performance.now()), o.signal);
    if (o.onProgress && performance.now() - lastProgress >= 1000) {
      lastProgress = performance.now();
      o.onProgress(bots, (lastProgress - start) / 1000);
    }
  }
  const seconds = (performance.now() - start) / 1000;
  // Stop chatting and let every queue drain before leaving; a bot nobody answered has nothing to wait for.
  for (const b of bots) b.nextChat = Infinity;
  const drain = performance.now() + 2000;
  while (performance.now() < drain && bots.some((b) => b.client.state === ClientState.Connected && b.client.endpoint.count > 0)) await sleep(20);
  await sleep(200);
  for (const b of bots) b.client.disconnect();
  const deadline = performance.now() + 2000;
  while (performance.now() < deadline && bots.some((b) => b.client.selfId >= 0 && b.client.state === ClientState.Disconnecting)) await sleep(20);
  const summary = summarize(bots, seconds);
  await Promise.all(bots.map((b) => b.host.close()));
  return summary;
}

function nextGap(b: Bot, meanS: number): number {
  return meanS > 0 ? (0.5 + b.rng.next()) * meanS * 1000 : Infinity;
}

export function summarize(bots: Bot[], seconds: number): BotSummary {
  const s: BotSummary = {
    bots: bots.length, connected: 0, playersSeen: 0, reliableSent: 0, reliableResent: 0, reliableReceived: 0,
    chatsSent: 0, chatsReceivedMin: bots.length ? Infinity : 0, updatesPerSecond: 0, statsPerSecond: 0, neverConnected: 0, disconnectedCleanly: 0,
    kicked: 0, rejected: 0, timedOut: 0, seconds,
  };
  for (const b of bots) {
    const c = b.client;
    if (c.selfId >= 0) s.connected++;
    else if (c.state !== ClientState.Rejected) s.neverConnected++;
    s.playersSeen = Math.max(s.playersSeen, b.maxPlayersSeen);
    s.reliableSent += c.counters[C.ReliableSent];
    s.reliableResent += c.counters[C.ReliableResent];
    s.reliableReceived += c.counters[C.ReliableReceived];
    s.chatsSent += b.chats;
    s.chatsReceivedMin = Math.min(s.chatsReceivedMin, b.chatsReceived);
    s.updatesPerSecond += b.updateTicks / seconds / bots.length;
    s.statsPerSecond += c.statsReceived / seconds / bots.length;
    if (c.state === ClientState.Closed && c.selfId >= 0) s.disconnectedCleanly++;
    if (c.state === ClientState.Kicked) s.kicked++;
    if (c.state === ClientState.Rejected) s.rejected++;
    if (c.state === ClientState.TimedOut) s.timedOut++;
  }
  return s;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((r) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      r();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}
