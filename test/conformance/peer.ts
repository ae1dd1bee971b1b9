/**
 * A raw Rev 1 peer for the black-box conformance tests: packets built and parsed byte by
 * byte from the tables in docs/protocol.md, with none of the project's codec or client
 * library, so that the tests check the server against the spec rather than against itself.
 *
 * The server under test is LWAR_TARGET (HOST:PORT), e.g. the emulated board that
 * `npm run test:esp32` boots; without it, `startTarget` runs the Node server with the game
 * on a free loopback port.
 */
import assert from "node:assert/strict";
import dgram from "node:dgram";

export const APP_ID = 0xf27087c5;
export const NO_ACK = 0xffffffff;
export const T = { Connect: 101, Disconnect: 102, Join: 103, Leave: 104, Chat: 105, Add: 106, Remove: 107, Selection: 108, Name: 109, Stats: 201, Update: 202, Input: 203, Reject: 204 } as const;

/** Payload bytes per type (docs/protocol.md, "Message types"); Chat and Update are checked apart. */
const SIZE: Record<number, number> = { 101: 0, 102: 0, 103: 4, 104: 4, 106: 9, 107: 4, 108: 6, 109: 36, 201: 32, 203: 5, 204: 1 };
const RELIABLE = new Set([101, 102, 103, 104, 105, 106, 107, 108, 109]);
const FROM_SERVER = new Set([103, 104, 105, 106, 107, 108, 109, 201, 202, 204]);

export interface Message {
  seq: number; // -1 for unreliable
  type: number;
  payload: Buffer;
  /** When it arrived (Date.now()), for reliable messages kept by RawPeer. */
  at?: number;
}

export interface Packet {
  ack: number;
  timestamp: number;
  rel: Message[];
  unrel: Message[];
  bytes: number;
}

/** Parses a server packet; throws (an assertion) on anything the spec does not allow. */
export function parse(b: Buffer): Packet {
  assert.ok(b.length >= 14, `packet of ${b.length} bytes, shorter than the header`);
  assert.ok(b.length <= 512, `packet of ${b.length} bytes, over 512`);
  assert.equal(b.readUInt32BE(0), APP_ID, "appId");
  const p: Packet = { ack: b.readUInt32BE(4), timestamp: b.readUInt32BE(8), rel: [], unrel: [], bytes: b.length };
  const rel = b[12];
  const unrel = b[13];
  let o = 14;
  const payloadSize = (type: number, at: number): number => {
    if (type === T.Chat) {
      const end = b.indexOf(0, at + 4);
      assert.ok(end > at + 4 && end - at + 1 <= 132, "Chat: 1..127 bytes and a NUL");
      for (let k = at + 4; k < end; k++) assert.ok(b[k] >= 0x20 && b[k] <= 0x7e, "Chat: printable ASCII");
      return end - at + 1;
    }
    if (type === T.Update) {
      assert.ok(at < b.length, "Update: num missing");
      return 1 + 15 * b[at];
    }
    const n = SIZE[type];
    assert.ok(n !== undefined, `unknown type ${type}`);
    return n;
  };
  for (let k = 0; k < rel; k++) {
    assert.ok(o + 5 <= b.length, "reliable header past the end");
    const seq = b.readUInt32BE(o);
    const type = b[o + 4];
    assert.ok(RELIABLE.has(type) && FROM_SERVER.has(type), `type ${type} in the reliable section from the server`);
    const n = payloadSize(type, o + 5);
    assert.ok(o + 5 + n <= b.length, `type ${type} runs past the end`);
    p.rel.push({ seq, type, payload: b.subarray(o + 5, o + 5 + n) });
    o += 5 + n;
  }
  for (let k = 0; k < unrel; k++) {
    assert.ok(o + 1 <= b.length, "unreliable header past the end");
    const type = b[o];
    assert.ok(!RELIABLE.has(type) && FROM_SERVER.has(type), `type ${type} in the unreliable section from the server`);
    const n = payloadSize(type, o + 1);
    assert.ok(o + 1 + n <= b.length, `type ${type} runs past the end`);
    p.unrel.push({ seq: -1, type, payload: b.subarray(o + 1, o + 1 + n) });
    o += 1 + n;
  }
  for (; o < b.length; o++) assert.equal(b[o], 0, "only zero padding after the last message");
  return p;
}

/** Header + reliable [seq, type, payload] + unreliable [type, payload]. */
export function packet(ack: number, timestamp: number, rel: [number, number, number[]][], unrel: [number, number[]][] = [], appId = APP_ID): Buffer {
  const parts: number[] = [];
  for (const [seq, type, payload] of rel) parts.push(seq >>> 24, (seq >>> 16) & 255, (seq >>> 8) & 255, seq & 255, type, ...payload);
  for (const [type, payload] of unrel) parts.push(type, ...payload);
  const b = Buffer.alloc(14 + parts.length);
  b.writeUInt32BE(appId >>> 0, 0);
  b.writeUInt32BE(ack >>> 0, 4);
  b.writeUInt32BE(timestamp >>> 0, 8);
  b[12] = rel.length;
  b[13] = unrel.length;
  Buffer.from(parts).copy(b, 14);
  return b;
}

export const u32 = (v: number): number[] => [(v >>> 24) & 255, (v >>> 16) & 255, (v >>> 8) & 255, v & 255];
export const ascii = (s: string): number[] => [...Buffer.from(s, "ascii")];
export const chatPayload = (id: number, text: string): number[] => [...u32(id), ...ascii(text), 0];
export function namePayload(id: number, name: string): number[] {
  const out = new Array<number>(36).fill(0);
  u32(id).forEach((v, k) => (out[k] = v));
  ascii(name).forEach((v, k) => (out[4 + k] = v));
  return out;
}
export const nameOf = (m: Message): string => m.payload.subarray(4, m.payload.indexOf(0, 4)).toString("ascii");
export const chatText = (m: Message): string => m.payload.subarray(4, m.payload.length - 1).toString("ascii");
export const idOf = (m: Message): number => m.payload.readUInt32BE(0);

export interface Target {
  host: string;
  port: number;
  maxPlayers: number;
  close(): Promise<void>;
}

/** LWAR_TARGET, or the Node server with the game on a free loopback port. */
export async function startTarget(): Promise<Target> {
  const env = process.env.LWAR_TARGET;
  const maxPlayers = Number(process.env.LWAR_MAX_PLAYERS ?? 8);
  if (env !== undefined && env !== "") {
    const m = /^(.+):(\d+)$/.exec(env);
    if (m === null) throw new Error(`LWAR_TARGET=${env}: expected HOST:PORT`);
    return { host: m[1], port: Number(m[2]), maxPlayers, close: async () => {} };
  }
  const { NodeHost } = await import("../../hosts/node/host");
  const { makeConfig } = await import("../../modules/config");
  const { createServer } = await import("../../modules/server/server");
  const { createGame } = await import("../../modules/match");
  const host = new NodeHost();
  const { port } = await host.listen(0, "127.0.0.1");
  const config = makeConfig({ maxPlayers });
  const server = createServer(config, host);
  createGame(config, server, 1);
  host.attach(server);
  return { host: "127.0.0.1", port, maxPlayers, close: () => host.close() };
}

/** One UDP socket talking to the target: what it receives, in order, parsed. */
export class RawPeer {
  readonly socket = dgram.createSocket("udp4");
  readonly packets: Packet[] = [];
  readonly errors: string[] = [];
  /** Reliable messages from the server, each seqno once, in arrival order. */
  readonly reliable: Message[] = [];
  readonly #seen = new Set<number>();
  readonly #returned = new Set<Message>();
  /** The next seqno this peer sends, and the highest contiguous server seqno processed. */
  nextSeq = 0;
  ack = NO_ACK;
  selfId = -1;
  readonly #t0 = Date.now();
  #waiters: (() => void)[] = [];

  constructor(readonly target: Target) {
    this.socket.on("message", (msg) => {
      try {
        const p = parse(msg);
        this.packets.push(p);
        for (const m of p.rel) {
          if (this.#seen.has(m.seq)) continue;
          this.#seen.add(m.seq);
          m.at = Date.now();
          this.reliable.push(m);
        }
        while (this.#seen.has((this.ack + 1) >>> 0)) this.ack = (this.ack + 1) >>> 0;
      } catch (e) {
        this.errors.push((e as Error).message);
      }
      for (const w of this.#waiters.splice(0)) w();
    });
  }

  async open(): Promise<this> {
    await new Promise<void>((resolve) => this.socket.bind(0, "127.0.0.1", resolve));
    return this;
  }

  now(): number {
    return (Date.now() - this.#t0 + 1000) >>> 0;
  }

  send(b: Buffer): void {
    this.socket.send(b, this.target.port, this.target.host);
  }

  /** Sends reliable messages with the next seqnos (and unreliable ones), acking what arrived. */
  sendMessages(rel: [number, number[]][], unrel: [number, number[]][] = []): number[] {
    const seqs = rel.map(() => this.nextSeq++);
    this.send(packet(this.ack, this.now(), rel.map(([type, payload], k) => [seqs[k], type, payload]), unrel));
    return seqs;
  }

  /** An ack-only packet. */
  acknowledge(): void {
    this.send(packet(this.ack, this.now(), []));
  }

  /** Waits for a reliable message matching `pred` that no earlier wait returned. */
  async expect(pred: (m: Message) => boolean, ms: number, what: string): Promise<Message> {
    const until = Date.now() + ms;
    for (;;) {
      for (const m of this.reliable) {
        if (this.#returned.has(m) || !pred(m)) continue;
        this.#returned.add(m);
        return m;
      }
      const left = until - Date.now();
      if (left <= 0) throw new Error(`no ${what} within ${ms} ms`);
      await this.#wait(Math.min(left, 100));
      this.acknowledge();
    }
  }

  /** Any packet (parsed) whose arrival index is at least `from`, within `ms`; null if none. */
  async packetAfter(from: number, ms: number): Promise<Packet | null> {
    const until = Date.now() + ms;
    while (this.packets.length <= from) {
      const left = until - Date.now();
      if (left <= 0) return null;
      await this.#wait(left);
    }
    return this.packets[from];
  }

  #wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.#waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Connect (resent every 250 ms) until its Join arrives; acknowledges it. */
  async connect(ms = 5000): Promise<number> {
    assert.equal(this.nextSeq, 0);
    this.nextSeq = 1;
    const until = Date.now() + ms;
    while (this.reliable.length === 0 && Date.now() < until) {
      this.send(packet(this.ack, this.now(), [[0, T.Connect, []]]));
      await this.#wait(250);
    }
    const join = await this.expect((m) => m.type === T.Join, Math.max(1, until - Date.now()), "Join of its own");
    this.selfId = idOf(join);
    this.acknowledge();
    return this.selfId;
  }

  /** Disconnect, resent until a packet acknowledges it. */
  async disconnect(ms = 3000): Promise<void> {
    const [seq] = this.sendMessages([[T.Disconnect, []]]);
    const until = Date.now() + ms;
    for (;;) {
      if (this.packets.some((p) => p.ack !== NO_ACK && ((p.ack - seq) | 0) >= 0)) break;
      if (Date.now() > until) throw new Error("the Disconnect was never acknowledged");
      await this.#wait(200);
      this.send(packet(this.ack, this.now(), [[seq, T.Disconnect, []]]));
    }
  }

  close(): void {
    this.socket.close();
  }
}
