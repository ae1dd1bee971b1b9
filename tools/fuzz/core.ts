/**
 * The fuzzer's host-free core: runs on Node (tools/fuzz.ts, test/tools/fuzz.test.ts) and,
 * bundled, on XS (tools/fuzz/xs-entry.ts).
 *
 * A live match on the in-memory link (harness/link.ts): the server with the game and
 * four client-library players who fly, chat, rename and reselect, and start a new session
 * every few seconds. Their packets, both ways, feed a corpus of valid packets. Each case
 * takes one, mutates it, and hands it either to the server (client → server: from a
 * player's address and port, or from a stranger's) or to a player's client library
 * (server → client, from the server's address, now and then from elsewhere). The match
 * moves on 10 ms every few cases, so timeouts, resends, kicks and the game all happen.
 *
 * Mutations (mutate.ts, shared with the fuzzing relay): bit flips, random and boundary
 * bytes, truncation, extension (also past 512 bytes), copied ranges, splices of two
 * packets, new message counts, types and timestamps, and, aware of the target's state,
 * acks and seqnos the target would take, so that the mutated messages get past the
 * reliable layer and are acted on.
 *
 * What must hold: nothing throws; every packet the server and the clients send validates
 * and fits 512 bytes; every player slot, queue and entity table stays consistent; no queue
 * overflows. Two witnesses play along whom no mutant reaches: they chat at a human pace
 * (two lines a second each) while the garbage, the sessions and the admissions run, and
 * at the end (`finish`) each must have every line of both exactly once, in order, and
 * still be connected. Each case's outcome is the first counter it moved at its target (a drop
 * reason, or what was acted on); the report tallies them.
 */
import { makeConfig, type Config } from "../../modules/config";
import { type Client, ClientState, createClient } from "../../modules/client/client";
import { createServer, type Server } from "../../modules/server/server";
import { createGame } from "../../modules/match";
import type { Game } from "../../modules/game/game";
import { Counter, COUNTER_COUNT, COUNTER_NAMES, createCounters } from "../../modules/protocol/counters";
import { FROM_CLIENT, FROM_SERVER, HEADER_SIZE, MAX_PACKET, MAX_PLAYERS, Msg } from "../../modules/protocol/constants";
import { Fields, readChat, validatePacket } from "../../modules/protocol/codec";
import { bytesToAscii } from "../../modules/text";
import { Random } from "../../modules/random";
import { Network, type MemHost } from "../../harness/link";
import { behaviourInput } from "../../harness/behaviours";
import { Corpus, Mutator } from "./mutate";

const SERVER_ADDRESS = "mem:server";
const SERVER_PORT = 32422;
const PLAYERS = 4;
/** Players no mutant reaches, who chat at a human pace and must lose nothing. */
const WITNESSES = 2;
const WITNESS_CHAT_MS = 500;
/** Cases between two 10 ms steps of the match. */
const CASES_PER_STEP = 16;
/** A player starts a new session this often, ms of match time. */
const SESSION_MS = 8000;
/** Failures kept (each with its case and bytes, to reproduce). */
const FAILURES_KEPT = 8;

const CHATS = Object.freeze(["gg", "nice shot", "left flank", "~".repeat(127), "a", "regroup at the planet"]);
const NAMES = Object.freeze(["Ace", "ace", "Nova", "n".repeat(31), "Player 1", "Vega"]);
/** Outcome rows of the report: the counters a case can move at its target, in the order they are looked at. */
const OUTCOMES: readonly number[] = Object.freeze([
  Counter.TooShort, Counter.TooLong, Counter.BadAppId, Counter.UnknownType, Counter.WrongChannel, Counter.WrongDirection, Counter.Truncated, Counter.UnterminatedChat,
  Counter.UnterminatedName, Counter.TrailingBytes, Counter.UnknownPeer, Counter.BadAck, Counter.AdmissionsDeferred, Counter.Kicks, Counter.Leaves, Counter.Joins, Counter.Rejects,
  Counter.SpoofedId, Counter.BadName, Counter.BadSelection, Counter.BadChat, Counter.Refused, Counter.ReliableReceived, Counter.DuplicateReliable, Counter.OutOfOrderReliable,
  Counter.FutureTimestamp, Counter.StaleUnreliable,
]);

export interface FuzzFailure {
  case: number;
  what: string;
  /** The mutant, as hex, when the failure came while handling it. */
  bytes: string;
}

export interface FuzzSide {
  cases: number;
  /** Outcome name → cases. "applied": valid and acted on without moving any counter above. */
  outcomes: Record<string, number>;
}

export interface FuzzReport {
  seed: number;
  cases: number;
  /** Mutants to the server and to the client library. */
  server: FuzzSide;
  client: FuzzSide;
  /** Match time covered, ms, and what happened meanwhile. */
  matchMs: number;
  sessions: number;
  kicks: number;
  joins: number;
  timeouts: number;
  handshakeTimeouts: number;
  serverPackets: number;
  clientPackets: number;
  /** Chat lines the witnesses sent (each checked by `finish`). */
  witnessLines: number;
  failures: FuzzFailure[];
  failureCount: number;
  /**
   * The game's state hash folded with the server's counters at the end: the same seed and
   * case count give the same number on every engine.
   */
  hash: number;
}

interface Witness {
  client: Client;
  /** Lines sent, and the lines received as "sender id:text", in order. */
  sent: string[];
  got: string[];
}

interface Player {
  host: MemHost;
  client: Client;
  startedAt: number;
  /** When a session that ended may be followed by a new one. */
  retryAt: number;
}

export class Fuzzer {
  readonly seed: number;
  readonly config: Config;
  readonly net: Network;
  readonly server: Server;
  readonly game: Game;
  readonly players: Player[] = [];
  readonly witnesses: Witness[] = [];
  #nextWitnessChat = 0;
  #finished = false;
  readonly #rng: Random;
  readonly #up = new Corpus();
  readonly #down = new Corpus();
  readonly #mutator: Mutator;
  readonly #m: Uint8Array;
  readonly #before = createCounters();
  readonly #check = createCounters();
  readonly #serverOutcomes = new Uint32Array(COUNTER_COUNT + 1);
  readonly #clientOutcomes = new Uint32Array(COUNTER_COUNT + 1);
  #serverCases = 0;
  #clientCases = 0;
  #cases = 0;
  #nextPort = 41000;
  #sessions = 0;
  #serverPackets = 0;
  #clientPackets = 0;
  /** The case being handled, for failures found in the sends it causes. */
  #current = -1;
  #currentLength = 0;
  readonly failures: FuzzFailure[] = [];
  failureCount = 0;

  constructor(seed: number) {
    this.seed = seed >>> 0;
    this.#rng = new Random(this.seed);
    this.#mutator = new Mutator(this.#rng);
    this.#m = this.#mutator.buffer;
    this.config = makeConfig({ timeoutMs: 5000 });
    this.net = new Network({ seed: this.seed, delayMs: 1, jitterMs: 2, capacity: 2048 });
    const sh = this.net.host(SERVER_ADDRESS, SERVER_PORT);
    this.server = createServer(this.config, sh);
    this.game = createGame(this.config, this.server, this.seed);
    const fuzzer = this;
    sh.core = this.server;
    const send = sh.send;
    sh.send = function (b: Uint8Array, n: number, a: string, p: number): void {
      fuzzer.#sent(b, n, FROM_SERVER);
      send.call(sh, b, n, a, p);
    };
    for (let k = 0; k < PLAYERS; k++) {
      const host = this.net.host(`mem:player${k}`, this.#nextPort++);
      const hostSend = host.send;
      host.send = function (b: Uint8Array, n: number, a: string, p: number): void {
        fuzzer.#sent(b, n, FROM_CLIENT);
        hostSend.call(host, b, n, a, p);
      };
      this.players.push(this.#player(host));
    }
    for (let k = 0; k < WITNESSES; k++) {
      // Their sends are not wrapped: they feed no corpus, and no mutant is aimed at them.
      const host = this.net.host(`mem:witness${k}`, 43000 + k);
      const client = createClient(this.config, host, SERVER_ADDRESS, SERVER_PORT);
      const w: Witness = { client, sent: [], got: [] };
      const fields = new Fields();
      client.listener = {
        reliable(_c: Client, type: number, _seq: number, b: Uint8Array, o: number): void {
          if (type !== Msg.Chat) return;
          readChat(b, o, fields);
          w.got.push(`${fields.id}:${bytesToAscii(b, fields.textOffset, fields.textLength)}`);
        },
        unreliable(): void {},
      };
      host.core = client;
      client.connect();
      this.witnesses.push(w);
    }
  }

  /** The witnesses chat, two lines a second each, once both are in. */
  #witnessChat(now: number): void {
    if (this.#finished || now < this.#nextWitnessChat) return;
    for (const w of this.witnesses) if (w.client.state !== ClientState.Connected) return;
    this.#nextWitnessChat = now + WITNESS_CHAT_MS;
    for (const [k, w] of this.witnesses.entries()) {
      const line = `witness ${k} line ${w.sent.length}`;
      if (w.client.chat(line)) w.sent.push(`${w.client.selfId}:${line}`);
    }
  }

  /**
   * After the cases: three seconds of match with no mutants, then the witnesses' check:
   * each has every line of both exactly once, in the order sent, and is still connected.
   */
  finish(): void {
    if (this.#finished) return;
    this.#finished = true;
    this.#current = -1;
    for (let t = 0; t < 3000; t += 10) this.net.run(10, 10);
    for (const [k, w] of this.witnesses.entries()) {
      if (w.client.state !== ClientState.Connected) this.#fail(`witness ${k} is not connected at the end`, null, 0);
      for (const other of this.witnesses) {
        const prefix = `${other.client.selfId}:`;
        const got = w.got.filter((x) => x.startsWith(prefix));
        if (got.length !== other.sent.length || got.some((x, i) => x !== other.sent[i]))
          this.#fail(`witness ${k} got ${got.length} of the ${other.sent.length} lines of witness ${this.witnesses.indexOf(other)}, or not once each in order`, null, 0);
      }
    }
  }

  #player(host: MemHost): Player {
    const client = createClient(this.config, host, SERVER_ADDRESS, SERVER_PORT);
    const rng = this.#rng;
    const config = this.config;
    host.core = {
      receive(b: Uint8Array, n: number, a: string, p: number): void {
        client.receive(b, n, a, p);
      },
      tick(now: number): void {
        if (client.state === ClientState.Connected) {
          client.setInput(behaviourInput("wander", client, now));
          const r = rng.next();
          if (r < 0.004) client.chat(CHATS[rng.below(CHATS.length)]);
          else if (r < 0.006) client.rename(NAMES[rng.below(NAMES.length)]);
          else if (r < 0.008) client.select(rng.below(config.shipTypes + 1), rng.below(config.weaponTypes + 1));
        }
        client.tick(now);
      },
    };
    client.connect();
    this.#sessions++;
    return { host, client, startedAt: this.net.now, retryAt: -1 };
  }

  /** Every packet either side sends: it must be valid, and it feeds the corpus. */
  #sent(b: Uint8Array, n: number, from: number): void {
    if (from === FROM_SERVER) this.#serverPackets++;
    else this.#clientPackets++;
    if (n > MAX_PACKET || !validatePacket(b, n, from, this.#check)) {
      this.#fail(`${from === FROM_SERVER ? "the server" : "a client"} sent an invalid packet of ${n} bytes`, b, n);
      return;
    }
    const corpus = from === FROM_SERVER ? this.#down : this.#up;
    // Keep most packets with reliable messages, and a few of the rest. Connects are many
    // (every new session resends one until admitted) and say little: keep few of them.
    const connect = b[12] !== 0 && b[HEADER_SIZE + 4] === 101;
    if ((b[12] !== 0 && (!connect || this.#rng.next() < 0.05)) || this.#rng.next() < 0.05) corpus.add(b, n);
  }

  #fail(what: string, b: Uint8Array | null, n: number): void {
    this.failureCount++;
    if (this.failures.length >= FAILURES_KEPT) return;
    let hex = "";
    if (b !== null) for (let i = 0; i < n; i++) hex += (b[i] < 16 ? "0" : "") + b[i].toString(16);
    this.failures.push({ case: this.#current, what, bytes: hex });
  }

  /** Run `cases` more cases; `progress(done)` is called every `every` cases. */
  run(cases: number, progress?: (done: number) => void, every = 10000): void {
    for (let k = 0; k < cases; k++) {
      if (this.#cases % CASES_PER_STEP === 0) this.#step();
      this.#current = this.#cases;
      try {
        if (this.#rng.next() < 0.5) this.#toServer();
        else this.#toClient();
      } catch (error) {
        this.#fail(`threw ${String(error)}`, this.#m, this.#currentLength);
      }
      this.#cases++;
      if (progress !== undefined && (k + 1) % every === 0) progress(k + 1);
    }
  }

  #step(): void {
    this.#current = -1;
    try {
      this.net.run(10, 10);
    } catch (error) {
      this.#fail(`the match threw ${String(error)}`, null, 0);
    }
    const now = this.net.now;
    this.#witnessChat(now);
    for (let k = 0; k < PLAYERS; k++) {
      const p = this.players[k];
      const c = p.client;
      const over = c.state !== ClientState.Connecting && c.state !== ClientState.Connected && c.state !== ClientState.Disconnecting;
      if (over || now - p.startedAt > SESSION_MS + k * 1000) {
        if (c.isOpen()) c.disconnect();
        else if (p.retryAt < 0) p.retryAt = now + (c.state === ClientState.Rejected ? 1000 : 100);
        else if (now >= p.retryAt) {
          // A new session from a new port.
          p.host.port = this.#nextPort++;
          if (this.#nextPort > 65000) this.#nextPort = 41000;
          this.players[k] = this.#player(p.host);
        }
      }
    }
    this.#invariants();
  }

  #invariants(): void {
    const s = this.server;
    let active = 0;
    for (let k = 0; k < this.config.maxPlayers; k++) {
      active += s.active[k];
      const ep = s.endpoints[k];
      if (ep.usedBytes > ep.capacityBytes || ep.count < 0 || ep.sentCount > ep.count) this.#fail(`slot ${k}'s queue is inconsistent`, null, 0);
    }
    if (active !== s.playerCount()) this.#fail(`${active} active slots, playerCount ${s.playerCount()}`, null, 0);
    if (s.counters[Counter.QueueOverflows] !== 0) this.#fail("a queue overflowed", null, 0);
    const e = s.entities;
    let alive = 0;
    for (let i = 0; i < e.capacity; i++) alive += e.alive[i];
    if (alive !== e.count) this.#fail(`${alive} live entities, count ${e.count}`, null, 0);
    for (let k = 0; k < PLAYERS; k++) {
      const c = this.players[k].client;
      let held = 0;
      for (let i = 0; i < c.entityCapacity; i++) held += c.alive[i];
      if (held !== c.entityCount) this.#fail(`a client holds ${held} entities, entityCount ${c.entityCount}`, null, 0);
      if (c.playerCount() > MAX_PLAYERS) this.#fail("a client's roster is too long", null, 0);
    }
  }

  /** Copy a corpus packet into the mutant buffer; returns its length, or -1 when the corpus is empty. */
  #pick(corpus: Corpus): number {
    if (corpus.count === 0) return -1;
    const rng = this.#rng;
    // Favour packets with reliable messages: they reach the most code.
    let k = rng.below(corpus.count);
    if (corpus.reliable[k] === 0 && rng.next() < 0.6) k = rng.below(corpus.count);
    const n = corpus.length[k];
    const base = k * MAX_PACKET;
    for (let i = 0; i < n; i++) this.#m[i] = corpus.bytes[base + i];
    return n;
  }

  #toServer(): void {
    const rng = this.#rng;
    let n = this.#pick(this.#up);
    if (n < 0) return;
    const s = this.server;
    // From a player (its slot's state makes acks and seqnos worth guessing), or a stranger.
    const p = this.players[rng.below(PLAYERS)];
    const stranger = rng.next() < 0.15;
    let slot = -1;
    if (!stranger) for (let k = 0; k < this.config.maxPlayers; k++) if (s.active[k] !== 0 && s.port[k] === p.host.port && s.address[k] === p.host.address) slot = k;
    const ep = slot >= 0 ? s.endpoints[slot] : null;
    const ack = ep !== null ? (ep.firstSeq + ep.sentCount - 1) >>> 0 : 0xffffffff;
    const next = ep !== null ? (ep.lastProcessed + 1) >>> 0 : 0;
    n = this.#mutator.mutate(n, this.#up, ack, next, ep !== null ? ep.newestTimestamp >>> 0 : 0);
    this.#currentLength = n;
    this.#before.set(s.counters);
    if (stranger) s.receive(this.#m, n, "mem:stranger", 1 + rng.below(65535));
    else s.receive(this.#m, n, p.host.address, p.host.port);
    this.#serverCases++;
    this.#tally(this.#serverOutcomes, s.counters);
  }

  #toClient(): void {
    const rng = this.#rng;
    let n = this.#pick(this.#down);
    if (n < 0) return;
    const c = this.players[rng.below(PLAYERS)].client;
    const ep = c.endpoint;
    n = this.#mutator.mutate(n, this.#down, (ep.firstSeq + ep.sentCount - 1) >>> 0, (ep.lastProcessed + 1) >>> 0, ep.newestTimestamp >>> 0);
    this.#currentLength = n;
    this.#before.set(c.counters);
    const elsewhere = rng.next() < 0.05;
    c.receive(this.#m, n, elsewhere ? "mem:stranger" : SERVER_ADDRESS, elsewhere ? 1 + rng.below(65535) : SERVER_PORT);
    this.#clientCases++;
    this.#tally(this.#clientOutcomes, c.counters);
  }

  #tally(outcomes: Uint32Array, counters: Uint32Array): void {
    const before = this.#before;
    for (let k = 0; k < OUTCOMES.length; k++) {
      const i = OUTCOMES[k];
      if (counters[i] !== before[i]) {
        outcomes[i]++;
        return;
      }
    }
    outcomes[COUNTER_COUNT]++;
  }

  report(): FuzzReport {
    const side = (cases: number, o: Uint32Array): FuzzSide => {
      const outcomes: Record<string, number> = {};
      for (let i = 0; i < COUNTER_COUNT; i++) if (o[i] !== 0) outcomes[COUNTER_NAMES[i]] = o[i];
      if (o[COUNTER_COUNT] !== 0) outcomes.applied = o[COUNTER_COUNT];
      return { cases, outcomes };
    };
    const s = this.server.counters;
    return {
      seed: this.seed, cases: this.#cases,
      server: side(this.#serverCases, this.#serverOutcomes), client: side(this.#clientCases, this.#clientOutcomes),
      matchMs: this.net.now, sessions: this.#sessions, kicks: s[Counter.Kicks], joins: s[Counter.Joins], timeouts: s[Counter.Timeouts],
      handshakeTimeouts: s[Counter.HandshakeTimeouts], serverPackets: this.#serverPackets, clientPackets: this.#clientPackets,
      witnessLines: this.witnesses.reduce((n, w) => n + w.sent.length, 0),
      failures: this.failures.slice(), failureCount: this.failureCount, hash: this.#hash(),
    };
  }

  #hash(): number {
    let h = this.game.hash() | 0;
    const c = this.server.counters;
    for (let i = 0; i < c.length; i++) h = Math.imul(h ^ c[i], 0x01000193);
    return h >>> 0;
  }
}

/** Names that a healthy run's outcomes should include, at the server and at a client. */
export const EXPECTED_SERVER_OUTCOMES: readonly string[] = Object.freeze([
  "tooShort", "tooLong", "badAppId", "unknownType", "wrongChannel", "wrongDirection", "truncated", "trailingBytes",
  "unknownPeer", "badAck", "duplicateReliable", "outOfOrderReliable", "futureTimestamp", "reliableReceived", "applied",
]);
export const EXPECTED_CLIENT_OUTCOMES: readonly string[] = Object.freeze([
  "tooShort", "tooLong", "badAppId", "unknownType", "wrongChannel", "wrongDirection", "truncated", "trailingBytes",
  "unknownPeer", "badAck", "duplicateReliable", "outOfOrderReliable", "futureTimestamp", "reliableReceived", "applied",
]);
