/**
 * A reliable chat relay over UDP, built from the transport (modules/transport) and the
 * lwar codec (modules/protocol) alone: no game, no server. Its messages are lwar's, so an
 * lwar client can chat through it too.
 *
 *   client → relay   Connect (its first reliable message), Chat, Disconnect
 *   relay → client   Join(id) of each newcomer (a client's first Join is its own id),
 *                    Chat(sender id, text) of every line to every client, sender included,
 *                    Leave(id) when a client goes
 *
 * Every line reaches every client connected when the relay took it, exactly once and in the
 * relay's one order: the transport resends until acknowledged and hands messages on in
 * seqno order. A client whose queue overflows, or that falls silent for timeoutMs, is
 * dropped. Clients send an empty packet every keepaliveMs when they have nothing else.
 *
 * Host-free: a host gives datagrams to `receive` and calls `tick` every few ms (main.ts on
 * Moddable, the in-memory link in the tests). Everything is allocated in the constructors.
 */
import { Endpoint, EndpointTable, finishPacket, ReceiveStep, type Receiving, SHAPE_ANY } from "../../modules/transport/index";
import {
  Counter, CHAT_LENGTH, chatPayloadSize, createCounters, Fields, FROM_CLIENT, FROM_SERVER, getU32, headerRel,
  lwarChannel, MAX_MESSAGES, MAX_PACKET, Msg, readChat, readId, RELIABLE_HEADER, validatePacket, writeChat, writeId,
} from "../../modules/protocol/index";

/** What the relay and its clients need of a host: datagrams out, and a monotonic ms clock. */
export interface ChatHost {
  send(bytes: Uint8Array, length: number, address: string, port: number): void;
  now(): number;
}

export interface ChatOptions {
  /** Clients at once (relay). */
  maxClients?: number;
  /** Bytes of each reliable queue. */
  queueBytes?: number;
  /** Unacknowledged messages go again after this long, ms. */
  resendMs?: number;
  /** A client not heard for this long is dropped, ms (relay). */
  timeoutMs?: number;
  /** A client with nothing to send sends an empty packet this often, ms. */
  keepaliveMs?: number;
}

const DEFAULTS = { maxClients: 8, queueBytes: 4096, resendMs: 100, timeoutMs: 10000, keepaliveMs: 1000 };

export class ChatRelay implements Receiving {
  readonly counters: Uint32Array = createCounters();
  /** Lines relayed, and clients dropped (queue overflow or silence). */
  linesRelayed = 0;
  clientsDropped = 0;
  readonly #host: ChatHost;
  readonly #timeoutMs: number;
  readonly #endpoints: Endpoint[] = [];
  readonly #address: string[] = [];
  /** -1: a free slot. */
  readonly #port: Int32Array;
  readonly #id: Uint32Array;
  /** 1: to be dropped at the next tick (its queue overflowed). */
  readonly #drop: Uint8Array;
  #nextId = 1;
  readonly #tx = new Uint8Array(MAX_PACKET);
  readonly #offsets = new Uint16Array(MAX_MESSAGES);
  readonly #fields = new Fields();
  /** The transport's receive step (its packet is the datagram being received), and the clock at it. */
  readonly #step: ReceiveStep;
  #now = 0;

  constructor(host: ChatHost, options: ChatOptions = {}) {
    const o = { ...DEFAULTS, ...options };
    this.#host = host;
    this.#timeoutMs = o.timeoutMs;
    this.#port = new Int32Array(o.maxClients).fill(-1);
    this.#id = new Uint32Array(o.maxClients);
    this.#drop = new Uint8Array(o.maxClients);
    this.#step = new ReceiveStep(new DataView(this.#tx.buffer), this.#tx, this.#offsets, this.counters, this);
    // The clients' delivery state and queues, one table (on Node, one WebAssembly memory).
    const table = new EndpointTable(lwarChannel(o.queueBytes, o.resendMs), o.maxClients);
    for (let s = 0; s < o.maxClients; s++) {
      this.#endpoints.push(table.endpoints[s]);
      this.#address.push("");
    }
  }

  /** Clients connected. */
  clientCount(): number {
    let n = 0;
    for (let s = 0; s < this.#port.length; s++) if (this.#port[s] >= 0) n++;
    return n;
  }

  /** Reliable messages queued and not yet acknowledged, over all clients. */
  pending(): number {
    let n = 0;
    for (let s = 0; s < this.#port.length; s++) if (this.#port[s] >= 0) n += this.#endpoints[s].count;
    return n;
  }

  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    const counters = this.counters;
    counters[Counter.PacketsIn]++;
    counters[Counter.BytesIn] += length;
    const offsets = this.#offsets;
    if (!validatePacket(bytes, length, FROM_CLIENT, counters, offsets)) return;
    const now = this.#host.now();
    const rel = headerRel(bytes);
    let slot = this.#find(address, port);
    if (slot < 0) {
      // A newcomer's first packet carries Connect under seqno 0.
      if (rel === 0 || bytes[offsets[0] - 1] !== Msg.Connect || getU32(bytes, offsets[0] - RELIABLE_HEADER) !== 0) {
        counters[Counter.UnknownPeer]++;
        return;
      }
      slot = this.#free();
      if (slot < 0) {
        counters[Counter.Rejects]++;
        return;
      }
      this.#address[slot] = address;
      this.#port[slot] = port;
      this.#id[slot] = this.#nextId;
      this.#nextId = (this.#nextId + 1) >>> 0;
      this.#drop[slot] = 0;
      this.#endpoints[slot].reset(now);
      counters[Counter.Joins]++;
    }
    // The transport's receive step: the ack, then each reliable message in order (to
    // `reliable` below), counted.
    const step = this.#step;
    step.use(bytes);
    this.#now = now;
    step.run(this.#endpoints[slot], SHAPE_ANY, now, slot);
  }

  /** Receiving: a reliable message from the client in `slot`, in order. False once it has left. */
  reliable(slot: number, type: number, p: number): boolean {
    const bytes = this.#step.packet;
    if (type === Msg.Connect) this.#broadcast(Msg.Join, this.#id[slot], bytes, 0, 0);
    else if (type === Msg.Chat) {
      const f = this.#fields;
      readChat(bytes, p, f);
      this.linesRelayed++;
      this.#broadcast(Msg.Chat, this.#id[slot], bytes, f.textOffset, f.textLength);
    } else if (type === Msg.Disconnect) {
      // One last packet that acknowledges the Disconnect, then the slot is free.
      this.#send(slot, this.#now);
      this.#remove(slot);
      this.counters[Counter.Leaves]++;
      return false;
    }
    return true;
  }

  /** Receiving: clients send the relay no unreliable message it acts on. */
  unreliable(): void {}

  tick(now: number): void {
    for (let s = 0; s < this.#port.length; s++) {
      if (this.#port[s] < 0) continue;
      const ep = this.#endpoints[s];
      if (this.#drop[s] !== 0 || now - ep.lastHeard > this.#timeoutMs) {
        this.counters[this.#drop[s] !== 0 ? Counter.Kicks : Counter.Timeouts]++;
        this.clientsDropped++;
        this.#remove(s);
      } else if (ep.due(now)) this.#send(s, now);
    }
  }

  #find(address: string, port: number): number {
    for (let s = 0; s < this.#port.length; s++) if (this.#port[s] === port && this.#address[s] === address) return s;
    return -1;
  }

  #free(): number {
    for (let s = 0; s < this.#port.length; s++) if (this.#port[s] < 0) return s;
    return -1;
  }

  #send(slot: number, now: number): void {
    const tx = this.#tx;
    const o = this.#endpoints[slot].fill(tx, now, now);
    finishPacket(tx, 0);
    this.counters[Counter.PacketsOut]++;
    this.counters[Counter.BytesOut] += o;
    this.#host.send(tx, o, this.#address[slot], this.#port[slot]);
  }

  #remove(slot: number): void {
    const id = this.#id[slot];
    this.#port[slot] = -1;
    this.#address[slot] = "";
    this.#drop[slot] = 0;
    this.#broadcast(Msg.Leave, id, this.#tx, 0, 0);
  }

  /** Queue Join/Leave(id), or Chat(id, text), to every client; a full queue marks its client for dropping. */
  #broadcast(type: number, id: number, text: Uint8Array, from: number, length: number): void {
    const payload = type === Msg.Chat ? chatPayloadSize(length) : 4;
    for (let s = 0; s < this.#port.length; s++) {
      if (this.#port[s] < 0 || this.#drop[s] !== 0) continue;
      const ep = this.#endpoints[s];
      const o = ep.queue(type, payload);
      if (o < 0) {
        this.counters[Counter.QueueOverflows]++;
        this.#drop[s] = 1;
      } else if (type === Msg.Chat) writeChat(ep.buf, o, id, text, from, length);
      else writeId(ep.buf, o, id);
    }
  }
}

export class ChatClient implements Receiving {
  readonly counters: Uint32Array = createCounters();
  readonly endpoint: Endpoint;
  /** Our id, from the relay's first Join; -1 until then. */
  selfId = -1;
  /** Each line relayed to us (our own included): the sender's id and the text's bytes. */
  onLine: ((from: number, text: Uint8Array, offset: number, length: number) => void) | null = null;
  readonly #host: ChatHost;
  readonly #address: string;
  readonly #port: number;
  readonly #keepaliveMs: number;
  #lastSend = 0;
  #connected = false;
  readonly #tx = new Uint8Array(MAX_PACKET);
  readonly #text = new Uint8Array(CHAT_LENGTH);
  readonly #offsets = new Uint16Array(MAX_MESSAGES);
  readonly #fields = new Fields();
  /** The transport's receive step (its packet is the datagram being received). */
  readonly #step: ReceiveStep;

  constructor(host: ChatHost, relayAddress: string, relayPort: number, options: ChatOptions = {}) {
    const o = { ...DEFAULTS, ...options };
    this.#host = host;
    this.#address = relayAddress;
    this.#port = relayPort;
    this.#keepaliveMs = o.keepaliveMs;
    this.endpoint = new Endpoint(lwarChannel(o.queueBytes, o.resendMs));
    this.#step = new ReceiveStep(new DataView(this.#tx.buffer), this.#tx, this.#offsets, this.counters, this);
  }

  /** Queue Connect and send it. */
  connect(): void {
    const now = this.#host.now();
    this.endpoint.reset(now);
    this.endpoint.queue(Msg.Connect, 0);
    this.#connected = true;
    this.#send(now);
  }

  /** Queue Disconnect (the relay acknowledges it and forgets us). */
  disconnect(): boolean {
    return this.#connected && this.endpoint.queue(Msg.Disconnect, 0) >= 0;
  }

  /** Queue a line of `length` ASCII bytes (1..127); false before our Join or when the queue is full. */
  sayBytes(text: Uint8Array, from: number, length: number): boolean {
    if (this.selfId < 0 || length === 0 || length >= CHAT_LENGTH) return false;
    const o = this.endpoint.queue(Msg.Chat, chatPayloadSize(length));
    if (o < 0) return false;
    writeChat(this.endpoint.buf, o, this.selfId, text, from, length);
    return true;
  }

  /** Queue a line of ASCII text (up to 127 characters). */
  say(text: string): boolean {
    const n = text.length < CHAT_LENGTH ? text.length : CHAT_LENGTH - 1;
    for (let i = 0; i < n; i++) this.#text[i] = text.charCodeAt(i) & 0x7f;
    return this.sayBytes(this.#text, 0, n);
  }

  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    const counters = this.counters;
    counters[Counter.PacketsIn]++;
    if (port !== this.#port || address !== this.#address) {
      counters[Counter.UnknownPeer]++;
      return;
    }
    const offsets = this.#offsets;
    if (!this.#connected || !validatePacket(bytes, length, FROM_SERVER, counters, offsets)) return;
    // The transport's receive step: the ack, then each reliable message in order (to `reliable` below), counted.
    const step = this.#step;
    step.use(bytes);
    step.run(this.endpoint, SHAPE_ANY, this.#host.now(), 0);
  }

  /** Receiving: a reliable message from the relay, in order. */
  reliable(_tag: number, type: number, p: number): boolean {
    const bytes = this.#step.packet;
    if (type === Msg.Join && this.selfId < 0) this.selfId = readId(bytes, p);
    else if (type === Msg.Chat && this.onLine !== null) {
      const f = this.#fields;
      readChat(bytes, p, f);
      this.onLine(f.id, bytes, f.textOffset, f.textLength);
    }
    return true;
  }

  /** Receiving: the relay sends no unreliable message. */
  unreliable(): void {}

  tick(now: number): void {
    if (!this.#connected) return;
    if (this.endpoint.due(now) || now - this.#lastSend >= this.#keepaliveMs) this.#send(now);
  }

  #send(now: number): void {
    const tx = this.#tx;
    const o = this.endpoint.fill(tx, now, now);
    finishPacket(tx, 0);
    this.#lastSend = now;
    this.counters[Counter.PacketsOut]++;
    this.#host.send(tx, o, this.#address, this.#port);
  }
}
