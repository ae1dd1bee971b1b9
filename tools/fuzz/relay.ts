/**
 * The fuzzer over real UDP: a relay that carries each client's datagrams to a server (one
 * socket of its own per client, on 127.0.0.1, so the server sees one peer per client) and
 * the answers back, and after a seeded share of the client's datagrams sends a mutant of
 * it from the same socket, made by the fuzzer's own mutations (mutate.ts). It reaches any
 * server we can send UDP to: a Node one, or the emulated board's.
 *
 * The mutants come from the player's own address and port, so that they reach its slot:
 * the acks, seqnos and timestamps they get are what that client and the server last said.
 * The relay judges each mutant with the server's own validation (validatePacket, client to
 * server) before it goes out: those that fail are counted by drop reason, the counts the
 * server's drop counters must show. Of those that pass, the relay spares the clients: a
 * mutant that would take a client's place (a reliable seqno it has not sent yet, an ack of
 * a message the relay has not carried to it, a timestamp that the server would take and
 * that would make the client's next Input stale) is withheld and counted, since nothing in
 * Rev 1 can tell it from the client's own packet. What goes out may be dropped, but can
 * neither strike nor kick a player nor take a chat line's seqno: the players behind the
 * relay must stay connected and lose nothing.
 *
 * `npm run fuzz:relay -- --target HOST:PORT [options]` runs one from the command line.
 */
import dgram from "node:dgram";
import { pathToFileURL } from "node:url";
import { Random } from "../../modules/random";
import { COUNTER_COUNT, COUNTER_NAMES, createCounters } from "../../modules/protocol/counters";
import { FROM_CLIENT, FROM_SERVER, NO_ACK } from "../../modules/protocol/constants";
import { MAX_MESSAGES, validatePacket } from "../../modules/protocol/codec";
import { defineCommand } from "../../cli";
import { Corpus, MUTANT_ROOM, MUTATION_COUNT, MUTATION_NAMES, Mutator } from "./mutate";

/** Wrap-safe "within this far behind": seqnos and acks further back than this count as ahead. */
const BEHIND = 0x40000000;
/** A timestamp further ahead than this the server never believes (it allows about 1 s more than its clock moved). */
const FAR_AHEAD = 1 << 20;

export interface FuzzRelayOptions {
  /** The server. */
  targetHost: string;
  targetPort: number;
  /** Port on 127.0.0.1 the clients send to; 0 (default) = any, told to `onListening`. */
  listenPort?: number;
  /** Share of client → server datagrams followed by a mutant, 0..1 (default 0.1). */
  rate?: number;
  seed?: number;
  /** The relay stops after this long, seconds (or when `signal` aborts). */
  durationS: number;
  /** Clients at most; datagrams from further new ones are dropped and counted (default 64). */
  maxClients?: number;
  /** Called once the front socket is bound. */
  onListening?: (port: number) => void;
  /** Called about once a second with a progress line. */
  onProgress?: (line: string) => void;
  signal?: AbortSignal;
}

export interface FuzzRelayReport {
  seed: number;
  rate: number;
  seconds: number;
  /** Clients seen, and datagrams refused because `maxClients` were known. */
  clients: number;
  refused: number;
  /** Client → server datagrams carried as they came, and server → client answers carried back. */
  genuine: number;
  answers: number;
  /** Mutants sent. */
  mutants: number;
  /** Mutants sent, by kind of mutation (a mutant of several kinds counts under each). */
  byKind: Record<string, number>;
  /** Mutants sent that fail validation, by drop reason (counter name): what the server must count. */
  invalid: Record<string, number>;
  invalidTotal: number;
  /** Mutants sent that pass validation (the server acts on their acks, inputs and duplicates). */
  valid: number;
  /** Valid mutants not sent, because they would take a client's place, by what gave them away. */
  withheld: { ack: number; seqno: number; timestamp: number };
  sendErrors: number;
}

/** What the relay knows of one client's conversation with the server. */
class Peer {
  readonly socket = dgram.createSocket("udp4");
  /** Newest reliable seqno the client sent, and the server sent it (NO_ACK: none yet). */
  newestUp = NO_ACK;
  hasUp = false;
  newestDown = NO_ACK;
  hasDown = false;
  /** Newest timestamp of the client's packets with unreliable messages. */
  newestTimestamp = 0;
  hasTimestamp = false;
  constructor(readonly address: string, readonly port: number) {}
}

export class FuzzRelay {
  readonly targetHost: string;
  readonly targetPort: number;
  readonly rate: number;
  readonly seed: number;
  readonly report: FuzzRelayReport;
  readonly #front = dgram.createSocket("udp4");
  readonly #peers = new Map<string, Peer>();
  readonly #maxClients: number;
  readonly #rng: Random;
  readonly #mutator: Mutator;
  readonly #corpus = new Corpus();
  readonly #scratch = createCounters();
  readonly #offsets = new Uint16Array(MAX_MESSAGES);
  readonly #byKind = new Uint32Array(MUTATION_COUNT);
  readonly #invalid = new Uint32Array(COUNTER_COUNT);
  readonly #started = performance.now();
  #closed = false;

  constructor(o: Omit<FuzzRelayOptions, "durationS" | "listenPort" | "onListening" | "onProgress" | "signal">) {
    const rate = o.rate ?? 0.1;
    if (!(rate >= 0 && rate <= 1)) throw new RangeError(`fuzz relay: rate must be in 0..1, got ${rate}`);
    this.targetHost = o.targetHost;
    this.targetPort = o.targetPort;
    this.rate = rate;
    this.seed = (o.seed ?? 1) >>> 0;
    this.#maxClients = o.maxClients ?? 64;
    this.#rng = new Random(this.seed);
    this.#mutator = new Mutator(this.#rng);
    this.report = {
      seed: this.seed, rate, seconds: 0, clients: 0, refused: 0, genuine: 0, answers: 0, mutants: 0, byKind: {}, invalid: {}, invalidTotal: 0,
      valid: 0, withheld: { ack: 0, seqno: 0, timestamp: 0 }, sendErrors: 0,
    };
    this.#front.on("message", (msg, rinfo) => this.#fromClient(msg, rinfo.address, rinfo.port));
    this.#front.on("error", () => this.report.sendErrors++);
  }

  /** Bind the front socket on 127.0.0.1; resolves with its port. */
  listen(port = 0): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#front.once("error", reject);
      this.#front.bind(port, "127.0.0.1", () => {
        this.#front.off("error", reject);
        resolve(this.#front.address().port);
      });
    });
  }

  #fromClient(msg: Buffer, address: string, port: number): void {
    if (this.#closed) return;
    const key = `${address}:${port}`;
    let peer = this.#peers.get(key);
    if (peer === undefined) {
      if (this.#peers.size >= this.#maxClients) {
        this.report.refused++;
        return;
      }
      const p = new Peer(address, port);
      p.socket.on("message", (m) => this.#fromServer(p, m));
      p.socket.on("error", () => this.report.sendErrors++);
      p.socket.bind(0, "127.0.0.1");
      this.#peers.set(key, p);
      peer = p;
    }
    this.report.genuine++;
    this.#send(peer.socket, msg);
    this.#learnUp(peer, msg);
    if (this.#rng.next() < this.rate && msg.length <= MUTANT_ROOM) this.#mutant(peer, msg);
  }

  #fromServer(peer: Peer, msg: Buffer): void {
    if (this.#closed) return;
    this.report.answers++;
    this.#front.send(msg, peer.port, peer.address, (err) => {
      if (err) this.report.sendErrors++;
    });
    // The newest reliable seqno carried to the client: an ack of it is one the client could send.
    if (!validatePacket(msg, msg.length, FROM_SERVER, this.#scratch, this.#offsets)) return;
    for (let m = 0; m < msg[12]; m++) {
      const seq = seqAt(msg, this.#offsets[m] - 5);
      if (!peer.hasDown || ((seq - peer.newestDown) | 0) > 0) peer.newestDown = seq;
      peer.hasDown = true;
    }
  }

  /** A genuine client packet: what the client has said so far, and the corpus for splices. */
  #learnUp(peer: Peer, msg: Buffer): void {
    if (!validatePacket(msg, msg.length, FROM_CLIENT, this.#scratch, this.#offsets)) return;
    const rel = msg[12];
    for (let m = 0; m < rel; m++) {
      const seq = seqAt(msg, this.#offsets[m] - 5);
      if (!peer.hasUp || ((seq - peer.newestUp) | 0) > 0) peer.newestUp = seq;
      peer.hasUp = true;
    }
    if (msg[13] !== 0) {
      const ts = seqAt(msg, 8);
      if (!peer.hasTimestamp || ((ts - peer.newestTimestamp) | 0) > 0) peer.newestTimestamp = ts;
      peer.hasTimestamp = true;
    }
    if (rel !== 0 || this.#rng.next() < 0.05) this.#corpus.add(msg, msg.length);
  }

  /**
   * A mutant of `msg`, sent after it from the client's socket. Its seqnos are those the
   * server just took (duplicates), its acks the newest carried down, its timestamps the
   * client's newest: they reach the reliable layer and the timestamp check.
   */
  #mutant(peer: Peer, msg: Buffer): void {
    const mu = this.#mutator;
    const m = mu.buffer;
    for (let i = 0; i < msg.length; i++) m[i] = msg[i];
    const n = mu.mutate(msg.length, this.#corpus, peer.newestDown, peer.newestUp, peer.newestTimestamp);
    const scratch = this.#scratch;
    scratch.fill(0);
    const r = this.report;
    if (validatePacket(m, n, FROM_CLIENT, scratch, this.#offsets)) {
      const why = this.#takesPlace(peer, m);
      if (why !== null) {
        r.withheld[why]++;
        return;
      }
      r.valid++;
    } else {
      for (let i = 0; i < COUNTER_COUNT; i++) if (scratch[i] !== 0) this.#invalid[i]++;
      r.invalidTotal++;
    }
    r.mutants++;
    for (let k = 0; k < MUTATION_COUNT; k++) if ((mu.kinds & (1 << k)) !== 0) this.#byKind[k]++;
    this.#send(peer.socket, Buffer.from(m.subarray(0, n)));
  }

  /** What in a valid mutant (offsets from its validation) would take the client's place, or null. */
  #takesPlace(peer: Peer, m: Uint8Array): "ack" | "seqno" | "timestamp" | null {
    const ack = seqAt(m, 4);
    if (ack !== NO_ACK && !(peer.hasDown && ((peer.newestDown - ack) >>> 0) < BEHIND)) return "ack";
    for (let k = 0; k < m[12]; k++) {
      const seq = seqAt(m, this.#offsets[k] - 5);
      if (!(peer.hasUp && ((peer.newestUp - seq) >>> 0) < BEHIND)) return "seqno";
    }
    if (m[13] !== 0) {
      if (!peer.hasTimestamp) return "timestamp";
      const ahead = (seqAt(m, 8) - peer.newestTimestamp) | 0;
      if (ahead > 0 && ahead < FAR_AHEAD) return "timestamp";
    }
    return null;
  }

  #send(socket: dgram.Socket, msg: Buffer): void {
    socket.send(msg, this.targetPort, this.targetHost, (err) => {
      if (err) this.report.sendErrors++;
    });
  }

  /** The report as it stands. */
  snapshot(): FuzzRelayReport {
    const r = this.report;
    r.seconds = (performance.now() - this.#started) / 1000;
    r.clients = this.#peers.size;
    const byKind: Record<string, number> = {};
    for (let k = 0; k < MUTATION_COUNT; k++) if (this.#byKind[k] !== 0) byKind[MUTATION_NAMES[k]] = this.#byKind[k];
    const invalid: Record<string, number> = {};
    for (let i = 0; i < COUNTER_COUNT; i++) if (this.#invalid[i] !== 0) invalid[COUNTER_NAMES[i]] = this.#invalid[i];
    r.byKind = byKind;
    r.invalid = invalid;
    return { ...r, withheld: { ...r.withheld } };
  }

  /** Close every socket. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const sockets = [this.#front, ...[...this.#peers.values()].map((p) => p.socket)];
    await Promise.all(sockets.map((s) => new Promise<void>((resolve) => {
      try {
        s.close(() => resolve());
      } catch {
        resolve();
      }
    })));
  }
}

function seqAt(b: Uint8Array, o: number): number {
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
}

/**
 * Run a fuzzing relay for `durationS` seconds (or until `signal` aborts), with a progress
 * line about once a second; resolves with the report.
 */
export async function fuzzRelay(o: FuzzRelayOptions): Promise<FuzzRelayReport> {
  const relay = new FuzzRelay(o);
  const port = await relay.listen(o.listenPort ?? 0);
  o.onListening?.(port);
  const start = performance.now();
  const end = start + o.durationS * 1000;
  let lastProgress = start;
  try {
    while (performance.now() < end && o.signal?.aborted !== true) {
      await sleep(Math.min(100, end - performance.now()), o.signal);
      if (o.onProgress && performance.now() - lastProgress >= 1000) {
        lastProgress = performance.now();
        o.onProgress(describeFuzzRelay(relay.snapshot(), false));
      }
    }
  } finally {
    await relay.close();
  }
  return relay.snapshot();
}

/** One line: a progress line, or (`final`) the summary. */
export function describeFuzzRelay(r: FuzzRelayReport, final = true): string {
  const list = (o: Record<string, number>): string => Object.entries(o).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(", ") || "none";
  const w = r.withheld;
  const head = `${r.seconds.toFixed(0)} s: ${r.clients} clients, ${r.genuine} genuine datagrams, ${r.answers} answers, ` +
    `${r.mutants} mutants (${r.invalidTotal} invalid, ${r.valid} valid; ${w.ack + w.seqno + w.timestamp} withheld)`;
  if (!final) return `fuzz relay: ${head}`;
  return `fuzz relay: ${head}\n  by kind: ${list(r.byKind)}\n  invalid, by the drop the server must count: ${list(r.invalid)}\n` +
    `  withheld: ack ${w.ack}, seqno ${w.seqno}, timestamp ${w.timestamp}; ${r.refused} refused, ${r.sendErrors} send errors\n` +
    `fuzz relay: ${r.mutants} mutants at rate ${r.rate}, seed ${r.seed}, ${r.genuine} genuine, ${r.answers} answers, in ${r.seconds.toFixed(1)} s`;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

// ------------------------------------------------------------------ command line

export const fuzzRelayCommand = defineCommand({
  name: "fuzz:relay",
  script: "npm run fuzz:relay",
  summary: "a UDP relay that adds the fuzzer's mutants to the clients' traffic.",
  usage: "--target HOST:PORT [options]",
  options: {
    target: { type: "string", arg: "HOST:PORT", help: "the server (required)" },
    listen: { type: "int", default: 0, min: 0, max: 65535, help: "port on 127.0.0.1 the clients send to, 0 = any (printed)" },
    rate: { type: "number", default: 0.1, min: 0, max: 1, arg: "F", help: "share of client datagrams followed by a mutant" },
    seconds: { type: "number", default: 60, min: 1, max: 86400, arg: "S", help: "how long to run" },
    seed: { type: "int", default: 1, min: 0, max: 0xffffffff, help: "random seed" },
  },
  notes: `Each client gets its own socket towards the server; after a share of its datagrams
the relay sends a mutant of it from that socket, made by the fuzzer's mutations. Mutants
that validate but would take the client's place (a new seqno, an ack of what it was not
sent, a newer timestamp) are withheld. Prints a progress line a second and, at the end,
the mutants by kind, the drops the server must count, and a summary line.`,
  failure: "the relay could not start",
});

async function main(): Promise<void> {
  const v = fuzzRelayCommand.parse();
  const to = /^(.+):(\d+)$/.exec(v.target ?? "");
  if (to === null) return fuzzRelayCommand.usage("--target HOST:PORT is required");
  const targetPort = Number(to[2]);
  if (targetPort < 1 || targetPort > 65535) fuzzRelayCommand.usage(`--target: the port must be in 1..65535, got ${targetPort}`);
  const stop = new AbortController();
  process.on("SIGINT", () => stop.abort());
  process.on("SIGTERM", () => stop.abort());
  let report: FuzzRelayReport;
  try {
    report = await fuzzRelay({
      targetHost: to[1], targetPort, listenPort: v.listen, rate: v.rate, seed: v.seed, durationS: v.seconds, signal: stop.signal,
      onListening: (port) => console.log(`fuzz relay: 127.0.0.1:${port} → ${to[1]}:${targetPort}, rate ${v.rate}, seed ${v.seed}, ${v.seconds} s`),
      onProgress: (line) => console.log(line),
    });
  } catch (err) {
    return fuzzRelayCommand.fail(`fuzz relay: ${String(err)}`);
  }
  console.log(describeFuzzRelay(report));
  process.exit(0);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
