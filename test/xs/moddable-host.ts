/**
 * The Moddable host (hosts/moddable/host.ts) on the XS engine, in lwxs, against stand-ins
 * for the SDK modules it imports (test/xs/moddable-stubs/: `embedded:io/socket/udp`,
 * `timer`, `time`; test/xs/zero-alloc.test.ts bundles this file with esbuild aliases
 * for them). A small core stands in for the server: it sends packets of every length
 * from 0 to MAX_PACKET out of a buffer shaped like the server's (a MAX_PACKET view at an
 * offset into a larger ArrayBuffer) and checks each one byte for byte on the stand-in
 * socket, checks the time of every tick, and checks every datagram it receives.
 *
 * Measured with lwxs's exact heap readings, each window after a full, compacting
 * collection (so a buffer that a collection trimmed would show up as a new chunk):
 *   send     windows of 1000 sends of varying length, the core calling host.send;
 *   tick     windows of 1000 timer ticks (the host's Timer callback: now(), then the
 *            core's tick, which sends a packet), Time.ticks stepping 10 ms and crossing
 *            the signed 32-bit wrap half-way;
 *   receive  windows of 200 datagrams through the socket's onReadable and the host's
 *            read loop into the core; the stand-in's read() measures what it allocates
 *            itself (the device's datagram object), and the rest is the host's;
 *   error    a send whose write() throws after a full collection, then send windows again.
 * Also, before any of that, the clock: now() over scripted Time.ticks sequences across
 * the ESP32 wrap (0x7FFFFFFF to -0x80000000, and -1 to 0), with steps back, and on the
 * simulator's wall-clock ticks.
 *
 * Arguments (after `--`): mode ("" for all of the above, or "subarray": the control,
 * the send windows with the send of the previous host, a 32-entry direct-mapped cache of
 * subarray views), then send windows, tick windows, receive windows.
 * Prints one JSON line.
 *
 * The host comes in as an argument of `runHostProof`: test/xs/zero-alloc.test.ts bundles
 * an entry that imports both. That keeps hosts/moddable/host.ts, whose imports only the
 * Moddable typings (`npm run typecheck:moddable`) declare, out of the Node typecheck.
 */
import type { Core, Host } from "../../modules/host";
import { MAX_PACKET } from "../../modules/protocol/constants";
import UDP, { wire } from "./moddable-stubs/udp";
import Timer, { timers } from "./moddable-stubs/timer";
import { clock } from "./moddable-stubs/time";
import type { Lwxs, LwxsPrint } from "../../tools/xs/lwxs";

declare const xs: Lwxs;
declare const print: LwxsPrint;

/** What the proof uses of hosts/moddable/host.ts's ModdableHost. */
export interface ModdableHostLike extends Host {
  sendErrors: number;
  attach(core: Core): void;
}
export type ModdableHostClass = new (options: { port: number; tickMs?: number }) => ModdableHostLike;

/** ES2024 resizable ArrayBuffers, typed here: the tests' TypeScript lib is ES2022. */
type ResizableArrayBuffer = ArrayBuffer & { resize(byteLength: number): void };
const Resizable = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableArrayBuffer;

const ADDRESS = "192.0.2.7";
const PORT = 40007;
const PEER = 7;
const PEER_ADDRESS = "10.0.0.7";
const PEER_PORT = 41007;
const TICK_MS = 10;

const mode = xs.args[0] ?? "";
const sendWindows = Number(xs.args[1] ?? 20);
const tickWindows = Number(xs.args[2] ?? 30);
const receiveWindows = Number(xs.args[3] ?? 10);

/** Adds up heap growth and collections over windows, each opened after a full collection. */
class Meter {
  windows = 0;
  slots = 0;
  chunks = 0;
  collections = 0;
  /** The largest and the smallest growth of one window, slots and chunks. */
  worstSlots = 0;
  worstChunks = 0;
  leastSlots = 0;
  leastChunks = 0;
  #slots = 0;
  #chunks = 0;
  #collections = 0;
  open(): void {
    xs.gc();
    this.#slots = xs.slotsUsed();
    this.#chunks = xs.chunksUsed();
    this.#collections = xs.collections();
  }
  close(): void {
    const s = xs.slotsUsed() - this.#slots;
    const c = xs.chunksUsed() - this.#chunks;
    const g = xs.collections() - this.#collections;
    this.windows++;
    this.slots += s;
    this.chunks += c;
    this.collections += g;
    if (this.windows === 1 || s > this.worstSlots) this.worstSlots = s;
    if (this.windows === 1 || c > this.worstChunks) this.worstChunks = c;
    if (this.windows === 1 || s < this.leastSlots) this.leastSlots = s;
    if (this.windows === 1 || c < this.leastChunks) this.leastChunks = c;
  }
}

/** The send of hosts/moddable/host.ts before it had a send buffer: the control. */
class SubarrayHost implements Host {
  #udp = new UDP({ port: 0 });
  #views: (Uint8Array | null)[] = new Array(32).fill(null);
  #viewSources: (Uint8Array | null)[] = new Array(32).fill(null);
  misses = 0;
  sendErrors = 0;
  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    let view = bytes;
    if (length !== bytes.length) {
      const i = length & 31;
      const cached = this.#views[i];
      if (cached !== null && cached.length === length && this.#viewSources[i] === bytes) view = cached;
      else {
        view = bytes.subarray(0, length);
        this.#views[i] = view;
        this.#viewSources[i] = bytes;
        this.misses++;
      }
    }
    try {
      this.#udp.write(view, address, port);
    } catch {
      this.sendErrors++;
    }
  }
  now(): number {
    return 0;
  }
  log(): void {}
}

/** Stands in for the server: sends, ticks and receives, and checks all three. */
class TestCore implements Core {
  host: Host | null = null;
  readonly #arena = new Uint8Array(3 * MAX_PACKET);
  /** Shaped like the server's transmit buffer: a MAX_PACKET view at an offset. */
  readonly tx = this.#arena.subarray(MAX_PACKET, 2 * MAX_PACKET);
  #k = 0;
  sends = 0;
  /** Sends that did not reach the socket exactly: wrong length, peer or bytes. */
  badSends = 0;
  readonly perLength = new Uint32Array(MAX_PACKET + 1);
  sendsPerTick = 1;
  ticks = 0;
  firstNow = -1;
  lastNow = -1;
  /** Ticks whose time was not the previous one plus TICK_MS. */
  badTicks = 0;
  received = 0;
  receivedBytes = 0;
  /** Datagrams that did not arrive as queued: length, bytes, address or port. */
  badReceives = 0;

  constructor() {
    for (let i = 0; i < MAX_PACKET; i++) this.tx[i] = (i * 7 + 3) & 255;
  }

  /** Lengths 0..MAX_PACKET in a scrambled order that visits each once per cycle. */
  nextLength(): number {
    this.#k = (this.#k + 157) % (MAX_PACKET + 1);
    return this.#k;
  }

  sendOne(length: number): void {
    const tx = this.tx;
    const mark = this.sends & 255;
    if (length > 0) {
      tx[0] = mark;
      tx[length - 1] = mark ^ 0x5a;
      tx[length >> 1] = mark ^ 0xa5;
    }
    (this.host as Host).send(tx, length, ADDRESS, PORT);
    this.sends++;
    this.perLength[length]++;
    if (wire.lastLength !== length || wire.lastAddress !== ADDRESS || wire.lastPort !== PORT) {
      this.badSends++;
      return;
    }
    const sent = wire.sent;
    for (let i = 0; i < length; i++) {
      if (sent[i] !== tx[i]) {
        this.badSends++;
        return;
      }
    }
    // Mark the socket's copy stale, so that a send that never reaches it is caught.
    wire.lastLength = -1;
  }

  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    const n = this.received++;
    this.receivedBytes += length;
    if (length !== datagramLength(n) || bytes.length !== length || address !== PEER_ADDRESS || port !== PEER_PORT) {
      this.badReceives++;
      return;
    }
    for (let i = 0; i < length; i++) {
      if (bytes[i] !== ((n + i) & 255)) {
        this.badReceives++;
        return;
      }
    }
  }

  tick(now: number): void {
    if (this.firstNow < 0) this.firstNow = now;
    else if (now - this.lastNow !== TICK_MS) this.badTicks++;
    this.lastNow = now;
    this.ticks++;
    for (let i = 0; i < this.sendsPerTick; i++) this.sendOne(this.nextLength());
  }
}

/** The length of the n-th datagram the test queues: 1..MAX_PACKET, varying. */
function datagramLength(n: number): number {
  return 1 + ((n * 97) % MAX_PACKET);
}

// ------------------------------------------------------------------ the clock, scripted

interface ClockRun {
  steps: number[];
  ticks: number[];
  now: number[];
}

/** A host made at `start` ticks; then Time.ticks moves by each step and now() is read. */
function clockRun(ModdableHost: ModdableHostClass, esp32: boolean, start: number, steps: number[]): ClockRun {
  clock.esp32 = esp32;
  clock.ticks = start;
  const host = new ModdableHost({ port: 0 });
  const ticks = [clock.ticks];
  const now = [host.now()];
  for (const step of steps) {
    clock.ticks = esp32 ? (clock.ticks + step) | 0 : clock.ticks + step;
    ticks.push(clock.ticks);
    now.push(host.now());
  }
  return { steps, ticks, now };
}

export function runHostProof(ModdableHost: ModdableHostClass): void {
  const clockRuns = mode === "subarray" ? null : {
    // Across 0x7FFFFFFF -> -0x80000000: forward steps, a repeat, steps back, an hour.
    esp32Wrap: clockRun(ModdableHost, true, 0x7fffffff - 25, [10, 10, 5, 1, 9, 0, -50, 20, 7, -1, 1, 3_600_000, 10]),
    // Across -1 -> 0 (0xFFFFFFFF -> 0 as unsigned).
    esp32Zero: clockRun(ModdableHost, true, -25, [10, 10, 4, 1, 1, 9, -30, 31, 10]),
    // The simulator: wall-clock milliseconds, stepped back 5 s (an NTP correction) and on.
    lin: clockRun(ModdableHost, false, 1_763_800_000_000, [10, 10, 10, -5000, 10, 10, 60_000, 10]),
  };

  // ------------------------------------------------------------------ the measured host

  const core = new TestCore();
  clock.esp32 = true;
  // The tick windows cross the wrap half-way.
  clock.ticks = (0x7fffffff - TICK_MS * 500 * tickWindows + 1) | 0;
  let host: ModdableHostLike | null = null;
  let control: SubarrayHost | null = null;
  if (mode === "subarray") {
    control = new SubarrayHost();
    core.host = control;
  } else {
    host = new ModdableHost({ port: 32422, tickMs: TICK_MS });
    host.attach(core);
    core.host = host;
  }

  // Warm-up: two full cycles of lengths.
  for (let i = 0; i < 2 * (MAX_PACKET + 1); i++) core.sendOne(core.nextLength());
  const warmSends = core.sends;

  const send = new Meter();
  for (let w = 0; w < sendWindows; w++) {
    send.open();
    for (let i = 0; i < 1000; i++) core.sendOne(core.nextLength());
    send.close();
  }
  const windowSends = core.sends - warmSends;
  let lengthsCovered = 0;
  for (let n = 0; n <= MAX_PACKET; n++) if (core.perLength[n] > 0) lengthsCovered++;

  const tick = new Meter();
  const receive = new Meter();
  let firstTicks = 0;
  let lastTicks = 0;
  let wrapped = false;
  let platformSlots = 0;
  let platformChunks = 0;
  const view = new Meter();
  let viewCount = 0;
  let windowDatagrams = 0;
  let badSends = core.badSends;
  const error = {
    sendErrors: 0, badSends: 0, badSendsAfter: 0, windows: 0, slots: 0, chunks: 0, collections: 0,
    worstSlots: 0, worstChunks: 0, leastSlots: 0, leastChunks: 0,
  };

  if (host !== null) {
    firstTicks = clock.ticks;
    for (let w = 0; w < tickWindows; w++) {
      tick.open();
      for (let i = 0; i < 1000; i++) {
        const before = clock.ticks;
        clock.ticks = (before + TICK_MS) | 0;
        if (clock.ticks < before) wrapped = true;
        timers.fire();
      }
      tick.close();
    }
    lastTicks = clock.ticks;

    // Receive: queue datagrams, tell the socket 1, 2 or 3 wait, as lwIP's callback would.
    const payload = new Uint8Array(MAX_PACKET);
    let queued = 0;
    const queueOne = (): void => {
      const n = queued++;
      const length = datagramLength(n);
      for (let i = 0; i < length; i++) payload[i] = (n + i) & 255;
      wire.queue(payload, length, PEER, PEER_PORT);
    };
    for (let i = 0; i < 30; i++) {
      queueOne();
      wire.deliver(1);
    }
    for (let w = 0; w < receiveWindows; w++) {
      const reads0 = wire.readSlots;
      const readChunks0 = wire.readChunks;
      const received0 = core.received;
      receive.open();
      for (let i = 0; i < 100; i++) {
        const burst = 1 + (i % 3);
        for (let b = 0; b < burst; b++) queueOne();
        wire.deliver(burst);
        // One more call with nothing waiting, as a late callback would find.
        if (burst === 3) wire.deliver(0);
      }
      receive.close();
      windowDatagrams += core.received - received0;
      platformSlots += wire.readSlots - reads0;
      platformChunks += wire.readChunks - readChunks0;
    }

    // What one Uint8Array on an ArrayBuffer costs, for comparison.
    const datagram = new ArrayBuffer(64);
    let sink = 0;
    view.open();
    for (let i = 0; i < 100; i++) sink += new Uint8Array(datagram).length;
    view.close();
    viewCount = sink / 64;

    badSends = core.badSends;
    // A send whose write() throws, with a full collection first: the send buffer is shrunk
    // to the packet's length at that moment, so the collection trims its chunk, and growing
    // it back takes a new one. Then the send windows again.
    const errors0 = host.sendErrors;
    wire.failWrites = 1;
    wire.collectOnFail = true;
    core.sendOne(100);
    wire.collectOnFail = false;
    error.sendErrors = host.sendErrors - errors0;
    error.badSends = core.badSends - badSends;
    const after = new Meter();
    for (let w = 0; w < 5; w++) {
      after.open();
      for (let i = 0; i < 1000; i++) core.sendOne(core.nextLength());
      after.close();
    }
    error.windows = after.windows;
    error.slots = after.slots;
    error.chunks = after.chunks;
    error.collections = after.collections;
    error.worstSlots = after.worstSlots;
    error.worstChunks = after.worstChunks;
    error.leastSlots = after.leastSlots;
    error.leastChunks = after.leastChunks;
    error.badSendsAfter = core.badSends - badSends - error.badSends;
  }

  // ------------------------------------------------------------------ what the host keeps

  /** Heap growth of `make`, after a full collection; the result is kept until read. */
  function cost(make: () => unknown): { slots: number; chunks: number } {
    xs.gc();
    const s = xs.slotsUsed();
    const c = xs.chunksUsed();
    const kept = make();
    const slots = xs.slotsUsed() - s;
    const chunks = xs.chunksUsed() - c;
    if (kept === null) print("");
    return { slots, chunks };
  }
  const keeps = {
    // The send buffer and its view.
    sendBuffer: cost(() => {
      const b = new Resizable(MAX_PACKET, { maxByteLength: MAX_PACKET });
      return [b, new Uint8Array(b)];
    }),
    // The previous host's cache, full: two 32-item arrays and 32 views.
    viewCache: cost(() => {
      const tx = core.tx;
      const views: (Uint8Array | null)[] = new Array(32).fill(null);
      const sources: (Uint8Array | null)[] = new Array(32).fill(null);
      for (let i = 0; i < 32; i++) {
        views[i] = tx.subarray(0, i);
        sources[i] = tx;
      }
      return [views, sources];
    }),
    // What a `[b, v]` pair itself costs, to take off the two above.
    pair: cost(() => [null, null]),
  };

  /**
   * Why the host grows its send buffer back before send() returns: a compacting collection
   * trims a chunk to its current size, so a buffer shrunk across a collection needs a new
   * chunk to grow again. Chunk growth of shrink-then-grow, without and with a collection
   * in between.
   */
  function regrow(collect: boolean): number {
    const b = new Resizable(MAX_PACKET, { maxByteLength: MAX_PACKET });
    const later = new ArrayBuffer(64); // a chunk after it, as in a busy heap
    b.resize(100);
    if (collect) xs.gc();
    const c = xs.chunksUsed();
    b.resize(MAX_PACKET);
    const grown = xs.chunksUsed() - c;
    return later.byteLength === 64 ? grown : -1;
  }
  const resize = { regrowSameChunk: regrow(false), regrowAfterCollection: regrow(true) };

  print(JSON.stringify({
    mode,
    send: {
      warmSends, windows: send.windows, sends: windowSends, slots: send.slots, chunks: send.chunks,
      collections: send.collections, worstSlots: send.worstSlots, worstChunks: send.worstChunks,
      leastSlots: send.leastSlots, leastChunks: send.leastChunks,
      badSends, lengthsCovered, wireWriteSlots: wire.writeSlots, wireWriteChunks: wire.writeChunks,
      misses: control !== null ? control.misses : 0,
    },
    tick: {
      windows: tick.windows, ticks: core.ticks, slots: tick.slots, chunks: tick.chunks, collections: tick.collections,
      worstSlots: tick.worstSlots, worstChunks: tick.worstChunks, leastSlots: tick.leastSlots, leastChunks: tick.leastChunks,
      badTicks: core.badTicks, firstTicks, lastTicks, wrapped, firstNow: core.firstNow, lastNow: core.lastNow,
      timers: timers.count, timerInterval: timers.count > 0 ? Timer.interval(timers.list[0] as Timer) : -1,
    },
    receive: {
      windows: receive.windows, datagrams: windowDatagrams, received: core.received, bytes: core.receivedBytes, badReceives: core.badReceives,
      slots: receive.slots, chunks: receive.chunks, collections: receive.collections,
      platformSlots, platformChunks, reads: wire.reads,
      viewSlots: view.slots, viewChunks: view.chunks, viewCount,
    },
    error,
    sendErrors: host !== null ? host.sendErrors : control !== null ? control.sendErrors : 0,
    keeps,
    resize,
    clock: clockRuns,
  }));
}
