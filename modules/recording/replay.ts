/**
 * Replaying a recording (modules/recording/format.ts): a fresh server and game built from
 * the header's config and seed, on a host whose clock is the record's time and whose
 * `send` goes nowhere, driven record by record. At each Hash record, and at End, the world's
 * hash is compared with the recorded one. Host-free: the replay tool, the bench, the
 * device bench and the cross-engine tests (on XS) all replay through this.
 */
import type { Host } from "../host";
import type { Game } from "../game/game";
import { createMatch } from "../match";
import { Counter } from "../protocol/counters";
import { deathValue, LogEvent } from "../server/events";
import type { Server } from "../server/server";
import { Rec, RecordingReader } from "./format";

/** The world's state hash: the game's (0 for a server without the game). */
export function stateHash(game: Game | null): number {
  return game === null ? 0 : game.hash();
}

export type ReplayLog = (event: number, slot: number, value: number) => void;


class ReplayHost implements Host {
  time = 0;
  sink: ReplayLog | null = null;
  send(_bytes: Uint8Array, _length: number, _address: string, _port: number): void {}
  now(): number {
    return this.time;
  }
  log(event: number, slot: number, value: number): void {
    if (this.sink !== null) this.sink(event, slot, value);
  }
}

/** Receive buffer: datagrams up to this long are replayed from views made once per length. */
const RX_BYTES = 2048;

export class Replayer {
  readonly reader: RecordingReader;
  readonly server: Server;
  readonly game: Game | null;
  /** Compare the world with each Hash record (the bench turns this off in its timed walks). */
  verify = true;
  /** Hash records compared, and the tick of the last that matched (0: none yet). */
  hashesChecked = 0;
  lastGoodTick = 0;
  /** Set at the first mismatch: the tick after which the recorded and replayed worlds differed. */
  diverged = false;
  divergedTick = -1;
  /** The recorded and the replayed hash at that tick (or the totals, see `divergence`). */
  expected = 0;
  actual = 0;
  /** What differed, in words. */
  divergence = "";
  readonly #host = new ReplayHost();
  readonly #rx = new Uint8Array(RX_BYTES);
  /**
   * Views of exactly n bytes of #rx, made the first time a length comes up: a host hands the
   * server a datagram of its own length (Node's Buffer, Moddable's new Uint8Array(packet)),
   * so the replay does too, and only the lengths that occur take memory (a device's heap).
   */
  readonly #exact: Uint8Array[] = [];

  constructor(file: Uint8Array, log: ReplayLog | null = null) {
    this.reader = new RecordingReader(file);
    const h = this.reader.header;
    this.#host.time = h.start;
    this.#host.sink = log;
    const { server, game } = createMatch(h.config, this.#host, h.seed);
    this.server = server;
    this.game = game;
    // Deaths reach the log as they do on the hosts.
    if (game !== null) game.onDeath = (slot, killer, cause) => this.#host.log(LogEvent.Death, slot, deathValue(killer, cause));
  }

  /** The replayed server's clock: the time of the last record that had one. */
  get now(): number {
    return this.#host.time;
  }

  /**
   * Read one record and apply it: a tick, a datagram, a lost peer go to the server (with
   * `live` false they are decoded, and a datagram copied, without calling it). Returns the
   * record's kind; Rec.End at the end. Throws RecordingError on a bad file.
   */
  step(live = true): number {
    const r = this.reader;
    const kind = r.next();
    const host = this.#host;
    if (kind === Rec.Tick) {
      host.time = r.time;
      if (live) this.server.tick(r.time);
    } else if (kind === Rec.Datagram) {
      host.time = r.time;
      const n = r.dataLength;
      const bytes = this.datagram(n);
      const f = r.file;
      const from = r.dataAt;
      for (let i = 0; i < n; i++) bytes[i] = f[from + i];
      if (live) this.server.receive(bytes, n, r.address[r.peer], r.port[r.peer]);
    } else if (kind === Rec.Gone) {
      host.time = r.time;
      if (live) this.server.disconnectPeer(r.address[r.peer], r.port[r.peer]);
    } else if (kind === Rec.Hash) {
      if (live && this.verify && !this.diverged) this.#check(r.hash);
    } else if (kind === Rec.End) {
      host.time = r.time;
      if (live && this.verify && !this.diverged) {
        this.#check(r.hash);
        const c = this.server.counters;
        if (!this.diverged && (c[Counter.PacketsOut] !== r.packetsOut || c[Counter.BytesOut] !== r.bytesOut)) {
          this.diverged = true;
          this.divergedTick = r.ticks;
          this.divergence = `the server sent ${c[Counter.PacketsOut]} packets, ${c[Counter.BytesOut]} bytes; the recording's sent ${r.packetsOut}, ${r.bytesOut}`;
        }
      }
    }
    return kind;
  }

  /** Replay up to End, or to the first divergence when `stopAtDivergence`. Returns the kind last read. */
  run(stopAtDivergence = true): number {
    for (;;) {
      const kind = this.step(true);
      if (kind === Rec.End || (stopAtDivergence && this.diverged)) return kind;
    }
  }

  /** A view of exactly `n` bytes for a datagram (the receive buffer's, up to 2048 bytes). */
  datagram(n: number): Uint8Array {
    if (n > RX_BYTES) return new Uint8Array(n); // a rare oversize datagram, which the server drops unread
    let v = this.#exact[n];
    if (v === undefined) {
      v = new Uint8Array(this.#rx.buffer, 0, n);
      this.#exact[n] = v;
    }
    return v;
  }

  #check(expected: number): void {
    const actual = stateHash(this.game);
    const r = this.reader;
    this.hashesChecked++;
    if (actual === expected) {
      this.lastGoodTick = r.ticks;
      return;
    }
    this.diverged = true;
    this.divergedTick = r.ticks;
    this.expected = expected;
    this.actual = actual;
    this.divergence = `the world's hash is ${hex(actual)}, the recording's ${hex(expected)}`;
  }
}

export function hex(h: number): string {
  return "0x" + (h >>> 0).toString(16).padStart(8, "0");
}
