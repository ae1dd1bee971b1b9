/**
 * `npm start -- --record FILE`: the flight recorder. It stands between the NodeHost (and
 * the WebSocket transport) and the server: every tick, datagram and lost WebSocket peer
 * is written to FILE (modules/recording/format.ts, docs/recorder.md) before the server
 * gets it, with the world's hash every second of server time, so that `npm run replay`
 * can drive a fresh server and game through the same match.
 *
 * The server reads the time from the recorder, not from the clock: during a call it is
 * the call's recorded time, rounded to 1/1024 ms, so a replay gives it the very same
 * numbers. Records go into one buffer allocated up front and reach the file once a second
 * and when the buffer fills; nothing is allocated per packet but what the server already
 * had (a new peer's table entry aside).
 */
import { closeSync, openSync, writeSync } from "node:fs";
import type { Host } from "../../modules/host";
import type { Game } from "../../modules/game/game";
import type { LogRecord } from "../../modules/report";
import { Counter } from "../../modules/protocol/counters";
import type { Server } from "../../modules/server/server";
import {
  encodeHeader, EndReason, HASH_EVERY_MS, RecordWriter, TIME_UNITS, describeEndReason, type RecordingHeader,
} from "../../modules/recording/format";
import { hex, stateHash } from "../../modules/recording/replay";
import type { NodeHost } from "./host";
import type { PeerCore } from "../../modules/carriage";

export const DEFAULT_RECORD_MAX_MB = 64;
const MB = 1024 * 1024;

/** What serve() lets stand between the sockets and the match. */
export interface MatchTap {
  /** The host to build the match on, in place of `inner`. */
  host(inner: NodeHost): Host;
  /** Once the sockets are bound: what they feed, in place of the server. */
  core(server: Server, game: Game | null, seed: number | null, udp: { address: string; port: number }): PeerCore;
}

export interface RecorderOptions {
  /** Where to write; created or truncated now. */
  file: string;
  /** The file stops growing here (End included); default 64 MiB. */
  maxBytes?: number;
  /** Lines for the log: the size limit reached, a failed write. */
  say?: (record: LogRecord) => void;
}

/** What a finished recording holds. */
export interface RecordingSummary {
  file: string;
  bytes: number;
  ticks: number;
  /** Recorded time, s. */
  seconds: number;
  hash: number;
  /** Why it ended: "shutdown", "size limit", or a write error's message. */
  ended: string;
}

/** Rounded to whole 1/1024 ms: exact in a double, so a replay gives the server the same number. */
function quantize(t: number): number {
  return Math.round(t * TIME_UNITS) / TIME_UNITS;
}

export class Recorder implements MatchTap, Host, PeerCore {
  readonly file: string;
  readonly maxBytes: number;
  #fd: number;
  readonly #say: (record: LogRecord) => void;
  #inner: NodeHost | null = null;
  #server: Server | null = null;
  #game: Game | null = null;
  #writer: RecordWriter | null = null;
  /** The time the server sees. */
  #time = 0;
  #start = 0;
  #nextHash = 0;
  #ticks = 0;
  /** Recording stopped (limit, error, shutdown): calls go straight through. */
  #stopped = false;
  #ended = "";
  #error: Error | null = null;

  /** Opens (creates or truncates) the file: a bad path throws here, before anything runs. */
  constructor(o: RecorderOptions) {
    this.file = o.file;
    this.maxBytes = o.maxBytes ?? DEFAULT_RECORD_MAX_MB * MB;
    this.#say = o.say ?? (() => {});
    this.#fd = openSync(o.file, "w");
  }

  // ---------------------------------------------------------------- MatchTap

  host(inner: NodeHost): Host {
    this.#inner = inner;
    this.#time = quantize(inner.now());
    this.#start = this.#time;
    this.#nextHash = this.#start + HASH_EVERY_MS;
    return this;
  }

  core(server: Server, game: Game | null, seed: number | null, udp: { address: string; port: number }): PeerCore {
    this.#server = server;
    this.#game = game;
    const inner = this.#inner!;
    const header: RecordingHeader = {
      config: server.config,
      seed,
      start: this.#start,
      hashEveryMs: HASH_EVERY_MS,
      startedAt: new Date(Date.now() - (inner.now() - this.#start)).toISOString(),
      source: "lwar-xs server (Node)",
      server: udp,
    };
    this.#writer = new RecordWriter({
      header: encodeHeader(header),
      start: this.#start,
      limitBytes: this.maxBytes,
      sink: (bytes, length) => this.#write(bytes, length),
    });
    return this;
  }

  // ---------------------------------------------------------------- Host, for the server

  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.#inner!.send(bytes, length, address, port);
  }

  now(): number {
    return this.#time;
  }

  log(event: number, slot: number, value: number): void {
    this.#inner!.log(event, slot, value);
  }

  // ---------------------------------------------------------------- PeerCore, for the sockets

  get port(): ArrayLike<number> {
    return this.#server!.port;
  }

  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    const t = this.#advance(this.#inner!.now());
    if (!this.#stopped && !this.#writer!.datagram(t, bytes, length, address, port)) this.#check();
    this.#server!.receive(bytes, length, address, port);
  }

  tick(now: number): void {
    const t = this.#advance(now);
    if (!this.#stopped) {
      if (this.#writer!.tick(t)) this.#ticks++;
      else this.#check();
    }
    this.#server!.tick(t);
    if (t >= this.#nextHash) {
      while (this.#nextHash <= t) this.#nextHash += HASH_EVERY_MS;
      // Once a second: the world's hash, and the buffer to the file.
      if (!this.#stopped) {
        if (this.#writer!.hash(stateHash(this.#game))) this.#writer!.flush();
        this.#check();
      }
    }
  }

  disconnectPeer(address: string, port: number): boolean {
    const t = this.#advance(this.#inner!.now());
    if (!this.#stopped && !this.#writer!.gone(t, address, port)) this.#check();
    return this.#server!.disconnectPeer(address, port);
  }

  // ---------------------------------------------------------------- the end

  /**
   * Write End (the world's hash and the server's totals now) and close the file, before
   * the server shuts down. Returns what the file holds; again later, the same.
   */
  finish(): RecordingSummary {
    if (!this.#stopped) {
      this.#advance(this.#inner !== null ? this.#inner.now() : this.#time);
      this.#end(EndReason.Shutdown);
    }
    return this.summary();
  }

  summary(): RecordingSummary {
    const w = this.#writer;
    return {
      file: this.file,
      bytes: w === null ? 0 : w.written,
      ticks: this.#ticks,
      seconds: (this.#time - this.#start) / 1000,
      hash: stateHash(this.#game),
      ended: this.#ended,
    };
  }

  /** The server's time for a call at `now`: rounded, and never before the last. */
  #advance(now: number): number {
    const t = quantize(now);
    if (t > this.#time) this.#time = t;
    return this.#time;
  }

  /** A record was refused or a write failed: stop, and say why. */
  #check(): void {
    const w = this.#writer!;
    if (this.#stopped) return;
    if (this.#error !== null) {
      this.#stop(`write error: ${this.#error.message}`);
      this.#say({
        event: "recording",
        text: `lwar-xs: recording to ${this.file} stopped: ${this.#error.message}; the match goes on unrecorded`,
        fields: { file: this.file, stopped: "write error", error: this.#error.message },
      });
      return;
    }
    if (!w.full) return;
    this.#end(EndReason.SizeLimit);
    const s = this.summary();
    this.#say({
      event: "recording",
      text: `lwar-xs: recording to ${this.file} stopped at its ${(this.maxBytes / MB).toFixed(this.maxBytes % MB === 0 ? 0 : 2)} MB limit ` +
        `(${s.bytes} bytes, ${s.seconds.toFixed(1)} s of play); the match goes on unrecorded`,
      fields: { file: this.file, stopped: "size limit", bytes: s.bytes, seconds: s.seconds, limit: this.maxBytes },
    });
  }

  #end(reason: number): void {
    const w = this.#writer;
    if (w !== null && this.#error === null) {
      const c = this.#server!.counters;
      w.end(reason, this.#time, stateHash(this.#game), c[Counter.PacketsOut], c[Counter.BytesOut]);
    }
    this.#stop(this.#error !== null ? `write error: ${this.#error.message}` : describeEndReason(reason));
  }

  #stop(why: string): void {
    this.#stopped = true;
    this.#ended = why;
    if (this.#fd >= 0) {
      try {
        closeSync(this.#fd);
      } catch {
        // Closed or gone: nothing more to write anyway.
      }
      this.#fd = -1;
    }
  }

  #write(bytes: Uint8Array, length: number): void {
    if (this.#error !== null || this.#fd < 0) return;
    try {
      let done = 0;
      while (done < length) done += writeSync(this.#fd, bytes, done, length - done);
    } catch (err) {
      this.#error = err as Error;
    }
  }
}

/** The shutdown line: the world's hash, and what the recording holds when there is one. */
export function stateHashRecord(game: Game | null, recorder: Recorder | null): LogRecord {
  const hash = stateHash(game);
  if (recorder === null) return { event: "state", text: `state hash ${hex(hash)}`, fields: { hash: hex(hash) } };
  const s = recorder.finish();
  return {
    event: "state",
    text: `state hash ${hex(hash)}; recorded ${s.ticks} ticks, ${s.seconds.toFixed(1)} s, ${s.bytes} bytes to ${s.file} (ended: ${s.ended})`,
    fields: { hash: hex(hash), file: s.file, ticks: s.ticks, seconds: s.seconds, bytes: s.bytes, ended: s.ended },
  };
}
