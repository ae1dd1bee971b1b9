/**
 * The lwar server with the game, hosted by lwxs on a real loopback UDP socket, as main.ts
 * hosts it on a device: `xs.udpOpen` delivers datagrams to `server.receive`, `xs.udpSend`
 * is the Host's send, `xs.run` ticks it every 10 ms. Bundled and started by
 * test/xs/udp.test.ts, which points bots at the port printed first.
 *
 * Arguments (after `--`): port (0: any), seed, players to wait for, and a time limit in ms.
 * Once that many players have come and all have gone again, or the time is up, it prints
 * one JSON line (counters, heap readings, send failures) and stops.
 *
 * The heap window: a second after the last player joined it collects garbage and reads
 * the heaps; when the first player leaves it reads them again. Nothing is allocated in
 * between, except by lwxs for a datagram from a new peer (its address string).
 */
import { makeConfig } from "../../modules/config";
import type { Host } from "../../modules/host";
import { createServer } from "../../modules/server/server";
import { GameCounter } from "../../modules/game/game";
import { createGame } from "../../modules/match";
import { Counter, COUNTER_NAMES } from "../../modules/protocol/counters";
import { LogEvent } from "../../modules/server/events";
import type { Lwxs, LwxsPrint } from "../../tools/xs/lwxs";

declare const xs: Lwxs;
declare const print: LwxsPrint;

class XsHost implements Host {
  sendFailures = 0;
  readonly events = new Uint32Array(16);
  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    if (xs.udpSend(bytes, length, address, port) !== length) this.sendFailures++;
  }
  now(): number {
    return xs.now();
  }
  log(event: number, _slot: number, _value: number): void {
    this.events[event]++;
  }
}

const listenPort = Number(xs.args[0] ?? 0);
const seed = Number(xs.args[1] ?? 1);
const expected = Number(xs.args[2] ?? 8);
const limitMs = Number(xs.args[3] ?? 30000);

const config = makeConfig();
const host = new XsHost();
const server = createServer(config, host);
const game = createGame(config, server, seed);
const rx = new Uint8Array(1500);
const start = xs.now();

/** Heap growth in the window while everyone is in. */
const heap = { windows: 0, windowMs: 0, slots: 0, chunks: 0, collections: 0 };
let windowOpen = false;
let windowAt = 0;
let slotsAt = 0;
let chunksAt = 0;
let collectionsAt = 0;
let everyoneSince = -1;
let peak = 0;
let done = false;

function closeWindow(now: number): void {
  if (!windowOpen) return;
  windowOpen = false;
  heap.windows++;
  heap.windowMs += now - windowAt;
  heap.slots += xs.slotsUsed() - slotsAt;
  heap.chunks += xs.chunksUsed() - chunksAt;
  heap.collections += xs.collections() - collectionsAt;
}

function finish(reason: string): void {
  done = true;
  closeWindow(xs.now());
  xs.run(null);
  xs.udpClose();
  const counters: Record<string, number> = {};
  for (let i = 0; i < COUNTER_NAMES.length; i++) if (server.counters[i] !== 0) counters[COUNTER_NAMES[i]] = server.counters[i];
  print(JSON.stringify({
    reason,
    seconds: (xs.now() - start) / 1000,
    peakPlayers: peak,
    players: server.playerCount(),
    counters,
    events: { joins: host.events[LogEvent.Join], leaves: host.events[LogEvent.Leave], chats: host.events[LogEvent.Chat], kicks: host.events[LogEvent.Kick], timeouts: host.events[LogEvent.Timeout] },
    game: { steps: game.counters[GameCounter.Steps], shotsFired: game.counters[GameCounter.ShotsFired], spawns: game.counters[GameCounter.Spawns] },
    sendFailures: host.sendFailures,
    heap,
    budget: { slots: xs.maxSlots - xs.baseSlots, chunks: xs.maxChunks - xs.baseChunks },
    used: { slots: xs.slotsUsed() - xs.baseSlots, chunks: xs.chunksUsed() - xs.baseChunks },
  }));
  xs.stop(0);
}

function tick(): void {
  if (done) return;
  const now = xs.now();
  server.tick(now);
  const players = server.playerCount();
  if (players > peak) peak = players;
  if (players === expected) {
    if (everyoneSince < 0) everyoneSince = now;
    else if (!windowOpen && now - everyoneSince >= 1000 && heap.windows === 0) {
      xs.gc();
      windowOpen = true;
      windowAt = xs.now();
      slotsAt = xs.slotsUsed();
      chunksAt = xs.chunksUsed();
      collectionsAt = xs.collections();
    }
  } else {
    everyoneSince = -1;
    closeWindow(now);
  }
  if (peak === expected && players === 0 && server.counters[Counter.Leaves] + server.counters[Counter.Timeouts] + server.counters[Counter.Kicks] >= expected) finish("all left");
  else if (now - start > limitMs) finish("time limit");
}

const port = xs.udpOpen(listenPort, rx.buffer, (length, address, from) => server.receive(rx, length, address, from));
xs.run(tick, 10);
print("listening", port);
