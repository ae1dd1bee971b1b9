/**
 * A seeded impairing UDP relay on real sockets, for machines without netem.
 *
 * Clients send to the relay's front port. For each client (address and port) the relay
 * opens a socket of its own towards the server, so the server sees one peer per client as
 * it would without the relay, and carries the server's answers back to that client. Both
 * ways, each datagram may be lost, duplicated, delayed by `delayMs ± jitterMs`, and
 * reordered (held `reorderMs` longer, so packets sent after it overtake it).
 *
 * `npm run relay -- --to HOST:PORT [options]` runs one from the command line.
 */
import dgram from "node:dgram";
import { pathToFileURL } from "node:url";
import { Random } from "../modules/random";
import { defineCommand } from "../cli";

export interface Impairment {
  /** Probabilities, 0..1. */
  loss: number;
  duplicate: number;
  reorder: number;
  /** One-way delay and its jitter: each datagram waits delayMs + uniform(−jitterMs, +jitterMs). */
  delayMs: number;
  jitterMs: number;
  /** Extra wait of a reordered datagram. */
  reorderMs: number;
}

/** The soak's conditions: 20 % loss, 10 % duplication, 20 % reordering, 20 ± 10 ms. */
export const HOSTILE: Readonly<Impairment> = Object.freeze({ loss: 0.2, duplicate: 0.1, reorder: 0.2, delayMs: 20, jitterMs: 10, reorderMs: 30 });

export interface RelayOptions extends Partial<Impairment> {
  /** Where the server listens. */
  serverHost: string;
  serverPort: number;
  seed?: number;
  /** Clients at most; datagrams from further new clients are dropped and counted. */
  maxClients?: number;
}

/** Counts of one direction. */
export class Flow {
  /** Datagrams that reached the relay, and their bytes. */
  received = 0;
  bytes = 0;
  lost = 0;
  duplicated = 0;
  reordered = 0;
  /** Copies handed to the kernel (received − lost + duplicated), and send errors. */
  sent = 0;
  sendErrors = 0;
}

class Upstream {
  readonly socket = dgram.createSocket("udp4");
  readonly up: Random;
  readonly down: Random;
  constructor(readonly address: string, readonly port: number, seed: number) {
    this.up = new Random(seed);
    this.down = new Random(seed ^ 0x5bd1e995);
  }
}

export class Relay {
  readonly impairment: Impairment;
  readonly serverHost: string;
  readonly serverPort: number;
  /** Client → server and server → client. */
  readonly up = new Flow();
  readonly down = new Flow();
  /** Datagrams dropped because `maxClients` clients were already known. */
  refused = 0;
  readonly #front = dgram.createSocket("udp4");
  readonly #clients = new Map<string, Upstream>();
  readonly #seed: number;
  readonly #maxClients: number;
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(o: RelayOptions) {
    this.impairment = {
      loss: o.loss ?? 0, duplicate: o.duplicate ?? 0, reorder: o.reorder ?? 0,
      delayMs: o.delayMs ?? 0, jitterMs: o.jitterMs ?? 0, reorderMs: o.reorderMs ?? 30,
    };
    for (const k of ["loss", "duplicate", "reorder"] as const) {
      const p = this.impairment[k];
      if (!(p >= 0 && p <= 1)) throw new RangeError(`relay: ${k} must be in 0..1, got ${p}`);
    }
    if (this.impairment.jitterMs > this.impairment.delayMs) throw new RangeError("relay: jitterMs must not exceed delayMs");
    this.serverHost = o.serverHost;
    this.serverPort = o.serverPort;
    this.#seed = (o.seed ?? 1) >>> 0;
    this.#maxClients = o.maxClients ?? 256;
    this.#front.on("message", (msg, rinfo) => this.#fromClient(msg, rinfo.address, rinfo.port));
    this.#front.on("error", () => this.up.sendErrors++);
  }

  /** Bind the front socket; resolves with its port. */
  listen(port = 0, address = "127.0.0.1"): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#front.once("error", reject);
      this.#front.bind(port, address, () => {
        this.#front.off("error", reject);
        resolve(this.#front.address().port);
      });
    });
  }

  /** Clients seen so far. */
  get clients(): number {
    return this.#clients.size;
  }

  #fromClient(msg: Buffer, address: string, port: number): void {
    const key = `${address}:${port}`;
    let u = this.#clients.get(key);
    if (u === undefined) {
      if (this.#clients.size >= this.#maxClients) {
        this.refused++;
        return;
      }
      u = new Upstream(address, port, (this.#seed + Math.imul(this.#clients.size + 1, 0x9e3779b1)) >>> 0);
      const upstream = u;
      upstream.socket.on("message", (m) => this.#impair(this.down, upstream.down, m, this.#front, upstream.port, upstream.address));
      upstream.socket.on("error", () => this.down.sendErrors++);
      upstream.socket.bind(0, "127.0.0.1");
      this.#clients.set(key, upstream);
    }
    this.#impair(this.up, u.up, msg, u.socket, this.serverPort, this.serverHost);
  }

  #impair(flow: Flow, rng: Random, msg: Buffer, via: dgram.Socket, port: number, address: string): void {
    if (this.#closed) return;
    flow.received++;
    flow.bytes += msg.length;
    const im = this.impairment;
    if (rng.next() < im.loss) {
      flow.lost++;
      return;
    }
    const copies = rng.next() < im.duplicate ? 2 : 1;
    if (copies === 2) flow.duplicated++;
    for (let c = 0; c < copies; c++) {
      let delay = im.delayMs + (2 * rng.next() - 1) * im.jitterMs;
      if (rng.next() < im.reorder) {
        delay += im.reorderMs;
        flow.reordered++;
      }
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        if (this.#closed) return;
        flow.sent++;
        via.send(msg, port, address, (err) => {
          if (err) flow.sendErrors++;
        });
      }, delay);
      this.#timers.add(timer);
    }
  }

  /** Close every socket; datagrams still held are dropped. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    const closing = [this.#front, ...[...this.#clients.values()].map((u) => u.socket)].map(
      (s) => new Promise<void>((resolve) => {
        try {
          s.close(() => resolve());
        } catch {
          resolve();
        }
      }),
    );
    await Promise.all(closing);
  }
}

/** One line on both directions' counts. */
export function describeFlows(r: Relay): string {
  const f = (name: string, x: Flow): string =>
    `${name} ${x.received} in, ${x.lost} lost (${pct(x.lost, x.received)}), ${x.duplicated} of the rest duplicated (${pct(x.duplicated, x.received - x.lost)}), ` +
    `${x.reordered} reordered, ${x.sent} out`;
  return `${f("up", r.up)}; ${f("down", r.down)}`;
}

function pct(n: number, of: number): string {
  return of === 0 ? "0 %" : `${((100 * n) / of).toFixed(1)} %`;
}

// ------------------------------------------------------------------ command line

export const relayCommand = defineCommand({
  name: "relay",
  script: "npm run relay",
  summary: "an impairing UDP relay between clients and a server.",
  usage: "--to HOST:PORT [options]",
  options: {
    to: { type: "string", arg: "HOST:PORT", help: "the server (required)" },
    port: { type: "int", default: 0, min: 0, max: 65535, help: "front port the clients send to, 0 = any (printed)" },
    loss: { type: "number", default: HOSTILE.loss, min: 0, max: 1, arg: "P", help: "probability a datagram is lost" },
    duplicate: { type: "number", default: HOSTILE.duplicate, min: 0, max: 1, arg: "P", help: "probability it is sent twice" },
    reorder: { type: "number", default: HOSTILE.reorder, min: 0, max: 1, arg: "P", help: "probability it is held back --reorder-ms" },
    delay: { type: "number", default: HOSTILE.delayMs, min: 0, max: 10000, arg: "MS", help: "one-way delay" },
    jitter: { type: "number", default: HOSTILE.jitterMs, min: 0, max: 10000, arg: "MS", help: "uniform jitter around the delay, at most the delay" },
    "reorder-ms": { type: "number", default: HOSTILE.reorderMs, min: 0, max: 10000, arg: "MS", help: "extra delay of a reordered datagram" },
    seed: { type: "int", default: 1, min: 0, max: 0xffffffff, help: "random seed" },
  },
  notes: "Runs until SIGINT or SIGTERM, then prints one summary line.",
  failure: "the relay could not start",
});

async function main(): Promise<void> {
  const v = relayCommand.parse();
  const to = /^(.+):(\d+)$/.exec(v.to ?? "");
  if (to === null) return relayCommand.usage("--to HOST:PORT is required");
  const serverPort = Number(to[2]);
  if (serverPort < 1 || serverPort > 65535) relayCommand.usage(`--to: the port must be in 1..65535, got ${serverPort}`);
  if (v.jitter > v.delay) relayCommand.usage(`--jitter must be at most --delay (${v.delay}), got ${v.jitter}`);
  const relay = new Relay({
    serverHost: to[1], serverPort, loss: v.loss, duplicate: v.duplicate, reorder: v.reorder, delayMs: v.delay, jitterMs: v.jitter,
    reorderMs: v["reorder-ms"], seed: v.seed,
  });
  const port = await relay.listen(v.port);
  const im = relay.impairment;
  console.log(`relay: 127.0.0.1:${port} → ${relay.serverHost}:${relay.serverPort}, loss ${im.loss}, duplicate ${im.duplicate}, ` +
    `reorder ${im.reorder} (+${im.reorderMs} ms), delay ${im.delayMs} ± ${im.jitterMs} ms`);
  const stop = (signal: string): void => {
    void relay.close().then(() => {
      console.log(`relay: ${signal}: ${relay.clients} clients; ${describeFlows(relay)}`);
      process.exit(0);
    });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
