/**
 * Bots over real UDP: each is a client-library Client on its own NodeHost socket.
 * Used by the bot CLI, the integration tests and the load tools.
 */
import { makeConfig } from "../modules/config";
import { type Client, ClientState, createClient } from "../modules/client/client";
import { Counter } from "../modules/protocol/counters";
import { Msg } from "../modules/protocol/constants";
import { Random } from "../modules/random";
import { NodeHost } from "../hosts/node/host";
import { behaviourInput } from "../harness/behaviours";
import { Reconnect } from "../modules/client/reconnect";
import { COUNTER_COUNT } from "../modules/protocol/counters";
import { RejectReason } from "../modules/protocol/constants";
import type { ClientListener } from "../modules/client/client";

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
  /**
   * After a lost connection (server shutdown, kick, silence) or a full match, try again on
   * the schedule of modules/client/reconnect.ts, under the same name, ship and weapon. Default on.
   */
  reconnect?: boolean;
  /** Bot i joins as `${name}${i + 1}` (default "bot"). */
  name?: string;
  /** Ship and weapon types to join with; -1 (default) keeps the server's. */
  ship?: number;
  weapon?: number;
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
  /** What it joins as, every time. */
  name: string;
  ship: number;
  weapon: number;
  /** The reconnect schedule; connections lost and regained. */
  retry: Reconnect;
  lost: number;
  reconnected: number;
  /** The state that ended the last connection or try (a waiting bot's client is Idle). */
  lastEnd: number;
  /** Counters and Stats of the bot's clients before this one. */
  retired: Uint32Array;
  retiredStats: number;
  everConnected: boolean;
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
  /** Connections lost, and regained by reconnecting. */
  lost: number;
  reconnected: number;
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
  const reconnect = o.reconnect !== false;
  let stopping = false;
  for (let i = 0; i < o.count; i++) {
    const host = new NodeHost({ tickMs: 10 });
    // The same family as the server's address, so replies come from the address we sent to.
    await host.listen(0, o.host.includes(":") ? "::" : "0.0.0.0");
    const client = createClient(config, host, o.host, o.port);
    const rng = new Random(o.seed + i * 7919);
    bots.push({
      client, host, rng, nextChat: 0, chats: 0, maxPlayersSeen: 0, connectedAt: -1, chatsReceived: 0, updateTicks: 0, lastUpdateTimestamp: -1,
      name: `${o.name ?? "bot"}${i + 1}`, ship: o.ship ?? -1, weapon: o.weapon ?? -1, retry: new Reconnect(), lost: 0, reconnected: 0,
      lastEnd: ClientState.Idle, retired: new Uint32Array(COUNTER_COUNT), retiredStats: 0, everConnected: false,
    });
  }
  const start = performance.now();
  for (const b of bots) {
    const listener: ClientListener = {
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
    const fresh = (): Client => {
      const c = createClient(config, b.host, o.host, o.port);
      c.listener = listener;
      c.joinAs(b.name, b.ship, b.weapon);
      return c;
    };
    b.client.listener = listener;
    b.client.joinAs(b.name, b.ship, b.weapon);
    b.host.attach({
      receive: (bytes, length, address, port) => b.client.receive(bytes, length, address, port),
      tick: (now) => {
        if (reconnect && !stopping) keepConnected(b, now, fresh);
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
  stopping = true;
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

/**
 * One tick of a bot's reconnect bookkeeping: a connection or try that ended (kicked, timed
 * out, refused, or a try unanswered for RECONNECT_ATTEMPT_MS) is retired for an idle client,
 * and a new one connects when the schedule says so.
 */
export function keepConnected(b: Bot, now: number, fresh: () => Client): void {
  const c = b.client;
  const st = c.state;
  if (st === ClientState.Connected) {
    // Back after a loss: by the try under way, or by the late answer to a try already given
    // up (its Join reaches the fresh client on the same socket, which takes it).
    if (!b.everConnected) b.everConnected = true;
    else if (b.retry.tryingSince >= 0 || b.retry.failures > 0) b.reconnected++;
    if (b.retry.tryingSince >= 0 || b.retry.failures > 0) b.retry.connected();
    return;
  }
  const ended = st === ClientState.Kicked || st === ClientState.TimedOut || st === ClientState.Rejected;
  if (ended || (st === ClientState.Connecting && b.retry.givenUp(now))) {
    if (c.selfId >= 0) {
      // Joined, even if this connection ended before a tick saw it Connected (a busy machine).
      b.lost++;
      b.everConnected = true;
    }
    b.lastEnd = ended ? st : ClientState.TimedOut;
    b.retry.failed(now, st === ClientState.Rejected && c.rejectReason === RejectReason.ServerFull);
    retire(b);
    b.client = fresh();
    return;
  }
  if (st === ClientState.Idle && b.retry.due(now)) b.client.connect();
}

/** Fold the current client's counters into the bot's before it is replaced. */
function retire(b: Bot): void {
  const c = b.client;
  for (let k = 0; k < b.retired.length; k++) b.retired[k] += c.counters[k];
  b.retiredStats += c.statsReceived;
}

function nextGap(b: Bot, meanS: number): number {
  return meanS > 0 ? (0.5 + b.rng.next()) * meanS * 1000 : Infinity;
}

export function summarize(bots: Bot[], seconds: number): BotSummary {
  const s: BotSummary = {
    bots: bots.length, connected: 0, playersSeen: 0, reliableSent: 0, reliableResent: 0, reliableReceived: 0,
    chatsSent: 0, chatsReceivedMin: bots.length ? Infinity : 0, updatesPerSecond: 0, statsPerSecond: 0, neverConnected: 0, lost: 0, reconnected: 0,
    disconnectedCleanly: 0, kicked: 0, rejected: 0, timedOut: 0, seconds,
  };
  for (const b of bots) {
    const c = b.client;
    // A bot waiting to try again holds an idle client: the state that ended its last try counts.
    const state = c.state === ClientState.Idle && b.lastEnd !== ClientState.Idle ? b.lastEnd : c.state;
    if (c.selfId >= 0 || b.everConnected) s.connected++;
    else if (state !== ClientState.Rejected) s.neverConnected++;
    s.playersSeen = Math.max(s.playersSeen, b.maxPlayersSeen);
    s.reliableSent += c.counters[Counter.ReliableSent] + b.retired[Counter.ReliableSent];
    s.reliableResent += c.counters[Counter.ReliableResent] + b.retired[Counter.ReliableResent];
    s.reliableReceived += c.counters[Counter.ReliableReceived] + b.retired[Counter.ReliableReceived];
    s.chatsSent += b.chats;
    s.chatsReceivedMin = Math.min(s.chatsReceivedMin, b.chatsReceived);
    s.updatesPerSecond += b.updateTicks / seconds / bots.length;
    s.statsPerSecond += (c.statsReceived + b.retiredStats) / seconds / bots.length;
    s.lost += b.lost;
    s.reconnected += b.reconnected;
    if (state === ClientState.Closed && c.selfId >= 0) s.disconnectedCleanly++;
    if (state === ClientState.Kicked) s.kicked++;
    if (state === ClientState.Rejected) s.rejected++;
    if (state === ClientState.TimedOut) s.timedOut++;
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
