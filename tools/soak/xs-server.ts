/**
 * The soak's XS server: the lwar server with the game inside lwxs, on a loopback UDP socket
 * (xs.udpOpen / xs.udpSend as its Host, xs.run for ticks), in the ESP32 heaps. Bundled and
 * started by tools/soak.ts, which puts the impairing relay and the bots in front of it.
 *
 * Arguments (after `--`): port (0: any), seed, players to wait for, time limit in ms, and
 * the heap sample period in ms. Prints `listening PORT` first. Once every expected player
 * has been in for a second, it collects garbage and reads both heaps every sample period
 * (`heap MS SLOTS CHUNKS COLLECTIONS`, usage above the base): a server that allocates
 * nothing in steady state reads the same every time. When the players have come and all
 * have gone again, or at the time limit, it prints one JSON line and stops.
 */
import { makeConfig } from "../../modules/config";
import type { Host } from "../../modules/host";
import { createServer } from "../../modules/server/server";
import { GameCounter } from "../../modules/game/game";
import { createGame } from "../../modules/match";
import { Counter, COUNTER_NAMES } from "../../modules/protocol/counters";
import { LogEvent } from "../../modules/server/events";
import type { Lwxs, LwxsPrint } from "../xs/lwxs";

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
const limitMs = Number(xs.args[3] ?? 60000);
const sampleMs = Number(xs.args[4] ?? 10000);

const config = makeConfig();
const host = new XsHost();
const server = createServer(config, host);
const game = createGame(config, server, seed);
const rx = new Uint8Array(1500);
const start = xs.now();

let everyoneSince = -1;
let nextSample = -1;
let samples = 0;
let peak = 0;
let done = false;

function finish(reason: string): void {
  done = true;
  xs.run(null);
  xs.udpClose();
  const counters: Record<string, number> = {};
  for (let i = 0; i < COUNTER_NAMES.length; i++) if (server.counters[i] !== 0) counters[COUNTER_NAMES[i]] = server.counters[i];
  print(JSON.stringify({
    reason,
    seconds: (xs.now() - start) / 1000,
    peakPlayers: peak,
    players: server.playerCount(),
    samples,
    counters,
    events: { joins: host.events[LogEvent.Join], leaves: host.events[LogEvent.Leave], kicks: host.events[LogEvent.Kick], timeouts: host.events[LogEvent.Timeout] },
    game: { steps: game.counters[GameCounter.Steps], shotsFired: game.counters[GameCounter.ShotsFired], spawns: game.counters[GameCounter.Spawns] },
    sendFailures: host.sendFailures,
    budget: { slots: xs.maxSlots - xs.baseSlots, chunks: xs.maxChunks - xs.baseChunks },
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
    if (everyoneSince < 0) {
      everyoneSince = now;
      if (nextSample < 0) nextSample = now + 1000;
    }
  } else everyoneSince = -1;
  if (nextSample >= 0 && now >= nextSample && players > 0) {
    nextSample += sampleMs;
    // Read into locals right after the collection: what print builds is garbage by the next one.
    xs.gc();
    const slots = xs.slotsUsed() - xs.baseSlots;
    const chunks = xs.chunksUsed() - xs.baseChunks;
    const collections = xs.collections();
    samples++;
    print("heap", Math.round(now - start), slots, chunks, collections);
  }
  if (peak === expected && players === 0 && server.counters[Counter.Leaves] + server.counters[Counter.Timeouts] + server.counters[Counter.Kicks] >= expected) finish("all left");
  else if (now - start > limitMs) finish("time limit");
}

const port = xs.udpOpen(listenPort, rx.buffer, (length, address, from) => server.receive(rx, length, address, from));
xs.run(tick, 10);
print("listening", port);
