/**
 * The zero-allocation proof, run inside lwxs (bundled by test/xs/zero-alloc.test.ts).
 *
 * A busy match (harness/scenario.ts): the server with the game and 8 client-library
 * clients on the in-memory link, steering, shooting, chatting, renaming and changing
 * selection, ships dying and respawning. After a warm-up it collects garbage, reads the
 * heaps, runs the measured steps (each one server tick, and one tick of every client),
 * and reads the heaps again. Everything the harness needs is built before the first
 * reading; the loop itself only calls into the match and bumps typed-array counters.
 *
 * Arguments (after `--`): seed, warm-up steps, measured steps, then a mode:
 *   native           the server and game run the native loops (xs.kernels), as on a device;
 *   probe            also split the heap growth by where it happened: each core's
 *                    receive and tick, and the rest (the harness and the link);
 *   array, closure, concat
 *                    a control: put one array literal, one closure or one string
 *                    concatenation into every server tick, to show the proof sees it.
 * Prints `key value...` lines, then one JSON line with everything.
 */
import { Scenario } from "../../harness/scenario";
import type { Client, ClientListener } from "../../modules/client/client";
import { ClientState } from "../../modules/client/client";
import type { Core } from "../../modules/host";
import { GAME_COUNTER_COUNT, GameCounter, type Game } from "../../modules/game/game";
import { getU32 } from "../../modules/protocol/bytes";
import { Counter, COUNTER_COUNT } from "../../modules/protocol/counters";
import { Msg } from "../../modules/protocol/constants";
import { LogEvent } from "../../modules/server/events";
import type { Lwxs, LwxsPrint } from "../../tools/xs/lwxs";

declare const xs: Lwxs;
declare const print: LwxsPrint;

/**
 * Every reliable and unreliable message the 8 clients apply, by type; Chat, Name and
 * Selection also by the slot of the player they are about.
 */
class Tally implements ClientListener {
  readonly reliableByType = new Uint32Array(256);
  readonly unreliableByType = new Uint32Array(256);
  readonly chatFrom = new Uint32Array(8);
  readonly nameOf = new Uint32Array(8);
  readonly selectionOf = new Uint32Array(8);
  reliable(_c: Client, type: number, _seq: number, b: Uint8Array, o: number): void {
    this.reliableByType[type]++;
    if (type === Msg.Chat) this.chatFrom[getU32(b, o) & 7]++;
    else if (type === Msg.Name) this.nameOf[getU32(b, o) & 7]++;
    else if (type === Msg.Selection) this.selectionOf[getU32(b, o) & 7]++;
  }
  unreliable(_c: Client, type: number): void {
    this.unreliableByType[type]++;
  }
}

/** The server's log events, counted (the in-memory host would otherwise push them into an array). */
class Events {
  readonly count = new Uint32Array(16);
  readonly log = (event: number, _slot: number, _value: number): void => {
    this.count[event]++;
  };
}

/** Wraps a core and adds up the heap growth and the time inside its receive and tick. */
class Probe implements Core {
  slots = 0;
  chunks = 0;
  ms = 0;
  tickSlots = 0;
  tickChunks = 0;
  tickMs = 0;
  constructor(readonly inner: Core) {}
  reset(): void {
    this.slots = this.chunks = this.ms = this.tickSlots = this.tickChunks = this.tickMs = 0;
  }
  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    const s = xs.slotsUsed();
    const c = xs.chunksUsed();
    const t = xs.now();
    this.inner.receive(bytes, length, address, port);
    this.ms += xs.now() - t;
    this.slots += xs.slotsUsed() - s;
    this.chunks += xs.chunksUsed() - c;
  }
  tick(now: number): void {
    const s = xs.slotsUsed();
    const c = xs.chunksUsed();
    const t = xs.now();
    this.inner.tick(now);
    this.tickMs += xs.now() - t;
    this.tickSlots += xs.slotsUsed() - s;
    this.tickChunks += xs.chunksUsed() - c;
  }
}

/**
 * The controls: the server's tick with one allocation of the given kind added in front.
 * Each result is used, so no engine could drop it, and read without a property access
 * on a string (on XS that alone would box the string and allocate slots).
 */
class Injected implements Core {
  sink = 0;
  constructor(readonly inner: Core, readonly kind: string) {}
  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.inner.receive(bytes, length, address, port);
  }
  tick(now: number): void {
    if (this.kind === "array") {
      const pair = [now, this.sink];
      this.sink = pair[1] + 1;
    } else if (this.kind === "closure") {
      const later = (): number => now + this.sink;
      this.sink = later() - now + 1;
    } else if (this.kind === "concat") {
      const line = "tick " + now;
      if (line !== "") this.sink++;
    }
    this.inner.tick(now);
  }
}

const seed = Number(xs.args[0] ?? 1);
const warm = Number(xs.args[1] ?? 1500);
const steps = Number(xs.args[2] ?? 10000);
const mode = xs.args[3] ?? "";
const probing = mode === "probe";

// The server and game run the C loops lwxs carries, as on the device.
if (xs.kernels === undefined) throw new Error("this lwxs has no xs.kernels: rebuild it (npm run build:xs)");
const match = new Scenario({ game: true, seed, players: 8 });
const server = match.server;
const game = server.simulation as Game;
const tally = new Tally();
const events = new Events();
match.serverHost.log = events.log;
for (const c of match.clients) c.listener = tally;
const probes: Probe[] = [];
if (mode === "array" || mode === "closure" || mode === "concat") match.serverHost.core = new Injected(server, mode);
if (probing) {
  for (const h of match.net.hosts) {
    const p = new Probe(h.core as Core);
    h.core = p;
    probes.push(p);
  }
}

// Input changes the server applied, found by comparing its input table step to step.
const lastInput = new Uint8Array(8);
let inputChanges = 0;
function step(): void {
  match.step();
  const input = server.input;
  for (let s = 0; s < 8; s++) {
    if (input[s] !== lastInput[s]) {
      lastInput[s] = input[s];
      inputChanges++;
    }
  }
}

// Copies of every counter at the start of the measured window, taken before gc().
const serverAt = new Uint32Array(COUNTER_COUNT);
const gameAt = new Uint32Array(GAME_COUNTER_COUNT);
const eventsAt = new Uint32Array(16);
const reliableAt = new Uint32Array(256);
const unreliableAt = new Uint32Array(256);
const kills = new Uint32Array(8);
const deaths = new Uint32Array(8);
const chatsAt = new Uint32Array(8);
const namesAt = new Uint32Array(8);
const selectionsAt = new Uint32Array(8);

/** Slots whose count grew by more than `floor` since `then` (or from zero). */
function countSlots(now: ArrayLike<number>, then: ArrayLike<number> | null, floor = 0): number {
  let n = 0;
  for (let s = 0; s < 8; s++) if (now[s] - (then === null ? 0 : then[s]) > floor) n++;
  return n;
}

const tWarm = xs.now();
for (let i = 0; i < warm; i++) step();
const warmMs = xs.now() - tWarm;
serverAt.set(server.counters);
gameAt.set(game.counters);
eventsAt.set(events.count);
reliableAt.set(tally.reliableByType);
unreliableAt.set(tally.unreliableByType);
kills.set(game.kills);
deaths.set(game.deaths);
chatsAt.set(tally.chatFrom);
namesAt.set(tally.nameOf);
selectionsAt.set(tally.selectionOf);
// What the warm-up covered. Every client applies each player's default name once when
// it joins: 8 Names per player, so a rename shows as more than 8.
const warmUp = {
  ms: Math.round(warmMs),
  ready: match.ready(),
  playersChatted: countSlots(tally.chatFrom, null),
  playersRenamed: countSlots(tally.nameOf, null, 8),
  playersDied: countSlots(game.deaths, null),
  spawns: game.counters[GameCounter.Spawns],
  kills: game.counters[GameCounter.Kills],
  inputChanges,
};
inputChanges = 0;
for (const p of probes) p.reset();

// ---------------------------------------------------------------- the measured window
xs.gc();
const slots0 = xs.slotsUsed();
const chunks0 = xs.chunksUsed();
const collections0 = xs.collections();
const t0 = xs.now();
for (let i = 0; i < steps; i++) step();
const t1 = xs.now();
const slots1 = xs.slotsUsed();
const chunks1 = xs.chunksUsed();
const collections1 = xs.collections();
// ---------------------------------------------------------------- (allocation is fine from here on)

function since(now: ArrayLike<number>, then: ArrayLike<number>, i: number): number {
  return now[i] - then[i];
}

let connected = 0;
for (const c of match.clients) if (c.state === ClientState.Connected) connected++;

const result = {
  seed, warm, steps,
  slots: [slots0, slots1], chunks: [chunks0, chunks1], collections: collections1 - collections0,
  measuredMs: Math.round(t1 - t0), msPerTick: (t1 - t0) / steps, virtualMs: steps * 10,
  mode, connected, players: server.playerCount(),
  warmUp,
  window: {
    chats: since(events.count, eventsAt, LogEvent.Chat),
    renames: since(events.count, eventsAt, LogEvent.Rename),
    chatsApplied: since(tally.reliableByType, reliableAt, Msg.Chat),
    namesApplied: since(tally.reliableByType, reliableAt, Msg.Name),
    selectionsApplied: since(tally.reliableByType, reliableAt, Msg.Selection),
    addsApplied: since(tally.reliableByType, reliableAt, Msg.Add),
    removesApplied: since(tally.reliableByType, reliableAt, Msg.Remove),
    updatesApplied: since(tally.unreliableByType, unreliableAt, Msg.Update),
    statsApplied: since(tally.unreliableByType, unreliableAt, Msg.Stats),
    inputChanges,
    shotsFired: since(game.counters, gameAt, GameCounter.ShotsFired),
    shotHits: since(game.counters, gameAt, GameCounter.ShotHits),
    kills: since(game.counters, gameAt, GameCounter.Kills),
    suicides: since(game.counters, gameAt, GameCounter.Suicides),
    environmentDeaths: since(game.counters, gameAt, GameCounter.EnvironmentDeaths),
    spawns: since(game.counters, gameAt, GameCounter.Spawns),
    // Players (of 8) who did it in the window; Chat, Name and Selection as the 8 clients applied them.
    playersChatted: countSlots(tally.chatFrom, chatsAt),
    playersRenamed: countSlots(tally.nameOf, namesAt),
    playersSelected: countSlots(tally.selectionOf, selectionsAt),
    playersKilled: countSlots(game.kills, kills),
    playersDied: countSlots(game.deaths, deaths),
    packetsIn: since(server.counters, serverAt, Counter.PacketsIn),
    packetsOut: since(server.counters, serverAt, Counter.PacketsOut),
    reliableSent: since(server.counters, serverAt, Counter.ReliableSent),
    reliableResent: since(server.counters, serverAt, Counter.ReliableResent),
    joins: since(server.counters, serverAt, Counter.Joins),
    leaves: since(server.counters, serverAt, Counter.Leaves),
    kicks: since(server.counters, serverAt, Counter.Kicks),
    timeouts: since(server.counters, serverAt, Counter.Timeouts),
    queueOverflows: since(server.counters, serverAt, Counter.QueueOverflows),
    misbehaviour: since(server.counters, serverAt, Counter.Misbehaviour),
  },
  probes: probes.map((p, k) => ({
    core: k === 0 ? "server" : `client ${k - 1}`,
    receiveSlots: p.slots, receiveChunks: p.chunks, receiveMs: Math.round(p.ms),
    tickSlots: p.tickSlots, tickChunks: p.tickChunks, tickMs: Math.round(p.tickMs),
  })),
  /** With probes: what grew outside every core's receive and tick (the harness, the link). */
  elsewhere: probing ? {
    slots: slots1 - slots0 - probes.reduce((sum, p) => sum + p.slots + p.tickSlots, 0),
    chunks: chunks1 - chunks0 - probes.reduce((sum, p) => sum + p.chunks + p.tickChunks, 0),
  } : null,
};

print("slots", slots0, slots1, "delta", slots1 - slots0);
print("chunks", chunks0, chunks1, "delta", chunks1 - chunks0);
print("collections", collections1 - collections0);
print("ticks", steps, "in", Math.round(t1 - t0), "ms");
print(JSON.stringify(result));
