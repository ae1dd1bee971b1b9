/**
 * `npm run replay -- FILE`: replay a recording (`npm start -- --record FILE`, or a bench
 * trace) through a fresh server and game, and show what happened: the joins, leaves, kills
 * and chat, a summary for every second (checked against the recorded hash), and the final
 * state hash. `--watch` draws the match in the terminal (tools/watch.ts's renderer) at
 * real speed or `--speed N`; `--at SECONDS` stops there and prints the world as JSON.
 *
 * Exit codes: 0 the replay matched, 1 it diverged or the file is bad, 2 bad usage.
 */
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import type { Client } from "../modules/client/client";
import { Kind, kindOf, TEMPLATE_NAME } from "../modules/game/templates";
import { NAME_LENGTH } from "../modules/protocol/constants";
import { Counter } from "../modules/protocol/counters";
import { Reporter } from "../modules/report";
import { describeEndReason, Rec, RecordingError } from "../modules/recording/format";
import { hex, Replayer, stateHash } from "../modules/recording/replay";
import { bytesToAscii } from "../modules/text";
import { toWireAngle, toWirePosition, toWu, toWuPerSecond } from "../modules/units";
import { defineCommand, EXIT_FAILURE, EXIT_OK, UsageError } from "../cli";
import { renderFrame } from "./watch";
import { installNodeKernels } from "../hosts/node/kernels";

const OPTIONS = {
  watch: { type: "flag", help: "draw the match in the terminal as it replays, at the recorded pace" },
  speed: { type: "number", min: 0.01, max: 10000, default: 1, help: "with --watch: replay this many times faster than real time" },
  fps: { type: "int", min: 1, max: 60, default: 10, help: "with --watch: frames per second of replayed time" },
  at: { type: "number", min: 0, max: 1e9, arg: "SECONDS", defaultText: "the end", help: "stop this many seconds into the recording and print the world (players, scores, entities) as JSON" },
  quiet: { type: "flag", help: "leave out the event lines and the per-second summary: only the end" },
  "no-color": { type: "flag", help: "with --watch: plain text" },
} as const;

export const replayCommand = defineCommand({
  name: "replay",
  script: "npm run replay",
  summary: "replays a recorded match (npm start -- --record FILE) through a fresh server and game, and checks that it comes out the same.",
  usage: "FILE [options]",
  options: OPTIONS,
  failure: "the replay diverged from the recording (it says at which tick), or the file is not a readable recording",
  notes: `Prints the joins, leaves, kills and chat as they happen, a line for every recorded second (players, entities, packets, kills, and the world's hash against the recorded one), and at the end the final state hash, which is the one the server printed when it shut down.

The format is in docs/recorder.md.`,
});

/** A peer as the server's log shows it. */
function describePeer(address: string, port: number): string {
  return port > 0x10000 ? `${address}#${port - 0x10000}` : `${address}:${port}`;
}

function seconds(ms: number): string {
  return (ms / 1000).toFixed(3).padStart(9);
}

/** What a replay came to. */
export interface ReplayOutcome {
  /** The replay reached End (or --at) with every hash matching. */
  ok: boolean;
  /** The world's hash where the replay stopped. */
  hash: number;
  ticks: number;
  /** Recorded time at the stop, s from the start. */
  seconds: number;
  /** Set when the replay diverged: the message, and the tick. */
  divergence: string | null;
  divergedTick: number;
  /** Set when the file could not be read. */
  error: string | null;
  /** With `at`: the world as JSON-ready data. */
  world: WorldDump | null;
}

export interface ReplayOptions {
  /** Stop at the first tick this many seconds (recorded time) into the recording. */
  at?: number;
  /** The first line, the end lines and the scoreboard. */
  say: (line: string) => void;
  /** The event lines and the per-second summary; none when not given. */
  events?: (line: string) => void;
  /** Called after every tick, e.g. to draw; may wait (for real-time pacing). */
  onTick?: (r: Replayer) => void | Promise<void>;
}

export interface WorldDump {
  atSeconds: number;
  tick: number;
  hash: string;
  players: Array<{ slot: number; id: number; name: string; peer: string; score: number; kills: number; deaths: number; ship: number; weapon: number; pingMs: number }>;
  entities: Array<{ index: number; type: number; kind: string; owner: number | null; x: number; y: number; vx: number; vy: number; rot: number; health: number }>;
  counters: { packetsIn: number; packetsOut: number; bytesIn: number; bytesOut: number };
}

const KIND_NAMES: Record<number, string> = { [Kind.Sun]: "sun", [Kind.Planet]: "planet", [Kind.Ship]: "ship", [Kind.Shot]: "shot" };

/** The world now: players by slot, live entities in world units, the server's totals. */
export function dumpWorld(r: Replayer): WorldDump {
  const s = r.server;
  const g = r.game;
  const e = s.entities;
  const players: WorldDump["players"] = [];
  for (let slot = 0; slot < s.config.maxPlayers; slot++) {
    if (s.active[slot] === 0) continue;
    players.push({
      slot,
      id: s.playerId(slot),
      name: bytesToAscii(s.names, slot * NAME_LENGTH, s.nameLength[slot]),
      peer: describePeer(s.address[slot], s.port[slot]),
      score: s.scores[slot],
      kills: g !== null ? g.kills[slot] : 0,
      deaths: g !== null ? g.deaths[slot] : 0,
      ship: s.ship[slot],
      weapon: s.weapon[slot],
      pingMs: s.pings[slot],
    });
  }
  const entities: WorldDump["entities"] = [];
  for (let i = 0; i < e.capacity; i++) {
    if (e.alive[i] === 0) continue;
    entities.push({
      index: i,
      type: e.type[i],
      kind: KIND_NAMES[kindOf(e.type[i])] ?? TEMPLATE_NAME[e.type[i]] ?? "other",
      owner: e.owner[i] === 0xffffffff ? null : e.owner[i],
      x: toWu(e.x[i]),
      y: toWu(e.y[i]),
      vx: toWuPerSecond(e.vx[i]),
      vy: toWuPerSecond(e.vy[i]),
      rot: toWireAngle(e.rot[i]) / 100,
      health: e.health[i],
    });
  }
  const c = s.counters;
  return {
    atSeconds: (r.now - r.reader.header.start) / 1000,
    tick: r.reader.ticks,
    hash: hex(stateHash(g)),
    players,
    entities,
    counters: { packetsIn: c[Counter.PacketsIn], packetsOut: c[Counter.PacketsOut], bytesIn: c[Counter.BytesIn], bytesOut: c[Counter.BytesOut] },
  };
}

/**
 * The server and game as tools/watch.ts's renderFrame reads a client: the same arrays where
 * the server has them, positions and headings converted to the wire's units on each update.
 */
export class ReplayView {
  readonly #r: Replayer;
  readonly entityCapacity: number;
  readonly x: Int16Array;
  readonly y: Int16Array;
  readonly rot: Uint16Array;
  readonly selfSlot = -1;
  readonly state = 2; // connected, as far as the renderer is concerned
  constructor(r: Replayer) {
    this.#r = r;
    this.entityCapacity = r.server.entities.capacity;
    this.x = new Int16Array(this.entityCapacity);
    this.y = new Int16Array(this.entityCapacity);
    this.rot = new Uint16Array(this.entityCapacity);
  }
  get alive(): Uint8Array { return this.#r.server.entities.alive; }
  get type(): Uint8Array { return this.#r.server.entities.type; }
  get owner(): Uint32Array { return this.#r.server.entities.owner; }
  get present(): Uint8Array { return this.#r.server.active; }
  get names(): Uint8Array { return this.#r.server.names; }
  get nameLength(): Uint8Array { return this.#r.server.nameLength; }
  get scores(): Uint16Array { return this.#r.server.scores; }
  get pings(): Uint16Array { return this.#r.server.pings; }
  get ship(): Uint8Array { return this.#r.server.ship; }
  get weapon(): Uint8Array { return this.#r.server.weapon; }
  get entityCount(): number { return this.#r.server.entities.count; }
  playerCount(): number {
    return this.#r.server.playerCount();
  }
  /** Copy the positions and headings from the server's entity table. */
  update(): void {
    const e = this.#r.server.entities;
    for (let i = 0; i < this.entityCapacity; i++) {
      if (e.alive[i] === 0) continue;
      this.x[i] = toWirePosition(e.x[i]);
      this.y[i] = toWirePosition(e.y[i]);
      this.rot[i] = toWireAngle(e.rot[i]);
    }
  }
  /** The view, typed as the renderer wants it: it reads only the fields above. */
  asClient(): Client {
    return this as unknown as Client;
  }
}

/** Replay `file` to its end (or `o.at`), saying what happens. Never throws on a bad file. */
export async function replay(file: Uint8Array, o: ReplayOptions): Promise<ReplayOutcome> {
  let r: Replayer;
  let report: Reporter | null = null;
  const say = o.events ?? (() => {});
  let kills = 0;
  const at = (ms: number): string => `[${seconds(ms - (r?.reader.header.start ?? 0))} s]`;
  try {
    r = new Replayer(file, (event, slot, value) => {
      if (report === null) return;
      const line = report.event(event, slot, value);
      if (line !== null) {
        if (line.event === "kill") kills++;
        say(`${at(r.now)} ${line.text}`);
      }
    });
  } catch (err) {
    if (!(err instanceof RecordingError)) throw err;
    return { ok: false, hash: 0, ticks: 0, seconds: 0, divergence: null, divergedTick: -1, error: err.message, world: null };
  }
  const h = r.reader.header;
  report = new Reporter({
    server: r.server, game: r.game, tickCost: null, seed: h.seed, describePeer, now: () => r.now, host: "replay",
  });
  o.say(
    `replay: ${h.source ?? "a recording"}${h.startedAt !== undefined ? ` started ${h.startedAt}` : ""}, seed ${h.seed ?? "none (no game)"}, ` +
      `${h.config.maxPlayers} player slots, ${h.config.maxEntities} entities, ${file.length} bytes`,
  );
  const c = r.server.counters;
  let lastIn = 0;
  let lastOut = 0;
  let lastKills = 0;
  const target = o.at === undefined ? Infinity : h.start + o.at * 1000;
  let stoppedAtTarget = false;
  try {
    for (;;) {
      const kind = r.step(true);
      if (kind === Rec.Tick) {
        if (o.onTick !== undefined) await o.onTick(r);
        if (r.now >= target) {
          stoppedAtTarget = true;
          break;
        }
      } else if (kind === Rec.Hash) {
        say(
          `${at(r.now)} second  players ${r.server.playerCount()}, entities ${r.server.entities.count}, ` +
            `in ${c[Counter.PacketsIn] - lastIn} pkt, out ${c[Counter.PacketsOut] - lastOut} pkt, kills ${kills - lastKills}, ` +
            `hash ${hex(r.reader.hash)} ${r.diverged ? "DIFFERS" : "ok"}`,
        );
        lastIn = c[Counter.PacketsIn];
        lastOut = c[Counter.PacketsOut];
        lastKills = kills;
      }
      if (r.diverged || kind === Rec.End) break;
    }
  } catch (err) {
    if (!(err instanceof RecordingError)) throw err;
    return { ok: false, hash: stateHash(r.game), ticks: r.reader.ticks, seconds: (r.now - h.start) / 1000, divergence: null, divergedTick: -1, error: err.message, world: null };
  }
  const outcome: ReplayOutcome = {
    ok: !r.diverged,
    hash: stateHash(r.game),
    ticks: r.reader.ticks,
    seconds: (r.now - h.start) / 1000,
    divergence: r.diverged ? r.divergence : null,
    divergedTick: r.divergedTick,
    error: null,
    world: null,
  };
  if (r.diverged) {
    o.say(
      `replay: diverged at tick ${r.divergedTick} (${outcome.seconds.toFixed(3)} s): ${r.divergence}; ` +
        (r.lastGoodTick > 0 ? `the last recorded hash that matched was at tick ${r.lastGoodTick}` : "no recorded hash matched before it"),
    );
    return outcome;
  }
  if (o.at !== undefined) {
    if (!stoppedAtTarget) o.say(`replay: the recording ends at ${outcome.seconds.toFixed(3)} s, before ${o.at} s: the world at its end`);
    outcome.world = dumpWorld(r);
    return outcome;
  }
  o.say(report.scoreboard().text);
  o.say(
    `replay: end (${describeEndReason(r.reader.reason)}) at ${outcome.seconds.toFixed(3)} s after ${outcome.ticks} ticks, ` +
      `${r.hashesChecked} recorded hashes matched; state hash ${hex(outcome.hash)}, as recorded`,
  );
  return outcome;
}

/** Split off the FILE argument: the one word that is neither an option nor an option's value. */
function splitArgs(argv: readonly string[]): { file: string | null; rest: string[] } {
  const rest: string[] = [];
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a.startsWith("-")) {
      rest.push(a);
      const name = a.replace(/^--?/, "");
      const spec = (OPTIONS as Record<string, { type: string }>)[name];
      if (spec !== undefined && spec.type !== "flag" && !a.includes("=") && i + 1 < argv.length) rest.push(argv[++i]);
    } else files.push(a);
  }
  if (files.length > 1) throw new UsageError(`one recording at a time, got ${files.length}: ${files.join(" ")}`);
  return { file: files[0] ?? null, rest };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  installNodeKernels();
  let split;
  try {
    split = splitArgs(process.argv.slice(2));
  } catch (err) {
    if (err instanceof UsageError) replayCommand.usage(err.message);
    throw err;
  }
  const v = replayCommand.parse(split.rest);
  const path = split.file ?? replayCommand.usage("which recording? give FILE (written by npm start -- --record FILE)");
  if (v.watch && v.at !== undefined) replayCommand.usage("--watch and --at do not go together");
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (err) {
    return replayCommand.fail(`${path}: ${(err as Error).message}`);
  }
  const tty = process.stdout.isTTY === true;
  const color = !v["no-color"] && tty;
  let onTick: ((r: Replayer) => Promise<void> | void) | undefined;
  let view: ReplayView | null = null;
  const recent: string[] = [];
  if (v.watch) {
    const frameMs = 1000 / v.fps;
    const wallStart = performance.now();
    let recordedStart = -1;
    let nextFrame = -Infinity;
    if (tty) process.stdout.write("\x1b[?1049h\x1b[?25l");
    const restore = (): void => {
      if (tty) process.stdout.write("\x1b[?25h\x1b[?1049l");
    };
    process.on("exit", restore);
    process.on("SIGINT", () => process.exit(130));
    onTick = async (r: Replayer): Promise<void> => {
      if (recordedStart < 0) recordedStart = r.now;
      if (r.now < nextFrame) return;
      nextFrame = r.now + frameMs;
      // Real time, or N times it: wait until the wall clock catches up with the recording.
      const due = wallStart + (r.now - recordedStart) / v.speed;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      if (view === null) view = new ReplayView(r);
      view.update();
      if (!tty) return;
      const cols = process.stdout.columns ?? 120;
      const rows = (process.stdout.rows ?? 40) - 4;
      const frame = renderFrame(view.asClient(), { cols, rows, color });
      const status = `replay ${path}: ${((r.now - r.reader.header.start) / 1000).toFixed(1)} s, tick ${r.reader.ticks}, ×${v.speed}` +
        (r.diverged ? `, DIVERGED at tick ${r.divergedTick}` : `, ${r.hashesChecked} hashes matched`);
      process.stdout.write("\x1b[H" + [frame, status, ...recent.slice(-3)].join("\x1b[K\n") + "\x1b[K\x1b[J");
    };
  }
  const lines: string[] = [];
  const outcome = await replay(bytes, {
    at: v.at,
    // With --at, stdout is the JSON alone; the lines go to stderr.
    say(line) {
      if (v.watch) lines.push(line);
      else if (v.at !== undefined) console.error(line);
      else console.log(line);
    },
    events: v.quiet ? undefined : v.watch ? (line) => void (recent.push(line) > 3 && recent.shift()) : v.at !== undefined ? (line) => console.error(line) : (line) => console.log(line),
    onTick,
  });
  if (v.watch) {
    if (tty) process.stdout.write("\x1b[?25h\x1b[?1049l");
    else if (view !== null) console.log(renderFrame((view as ReplayView).asClient(), { cols: 120, rows: 40, color: false }));
    for (const l of lines) console.log(l);
  }
  if (outcome.error !== null) replayCommand.fail(`${path}: ${outcome.error}`);
  if (outcome.world !== null) console.log(JSON.stringify(outcome.world, null, 2));
  process.exit(outcome.ok ? EXIT_OK : EXIT_FAILURE);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
