/**
 * The Moddable host (hosts/moddable/host.ts) on the XS engine, in lwxs, against stand-ins
 * for the modules it imports (test/xs/moddable-stubs/: net.ts for the host's `./net`, the
 * bindings of net.c; `timer`; `time`; test/xs/zero-alloc.test.ts bundles this file with
 * esbuild aliases for them). A small core stands in for the server: it sends packets of
 * every length from 0 to MAX_PACKET out of a buffer shaped like the server's (a MAX_PACKET
 * view at an offset into a larger ArrayBuffer) and checks each one byte for byte on the
 * stand-in's wire, checks the time of every tick, and checks every datagram it receives:
 * length, bytes, sender address and port. It comes as a plain Core (`receive`, the host's
 * own buffer) and as a DirectCore (`rxBuffer` + `received`, the host's udpNext writing
 * straight into the core's buffer).
 *
 * Measured with lwxs's exact heap readings, each window after a full, compacting collection:
 *   send      windows of 1000 sends of varying length, the core calling host.send;
 *   tick      windows of 1000 timer ticks (the host's Timer callback: the drain with
 *             nothing waiting, now(), the core's tick, which sends a packet), Time.ticks
 *             stepping 10 ms and crossing the signed 32-bit wrap half-way;
 *   receive   for the plain core, then the direct one: a measured warm-up (one datagram
 *             from each of 3 senders, in which the host makes their address strings),
 *             then windows of 100 ticks with 0 to 3 datagrams waiting at each, from the 3
 *             senders in turn;
 *   error     windows of a send that udpSend refuses, a read of sendErrors, then 1000 sends;
 *   micro     windows of 1000 ticks of a second host made while Time.microseconds exists
 *             (the device's way of timing a tick).
 * Controls, measured the same way, which must grow: the direct core making a Uint8Array
 * view of each datagram; 20 senders in turn, more than the host's 16 address strings, so
 * that it makes a new string for every datagram.
 * Also, before any of that, the clock: now() over scripted Time.ticks sequences across
 * the ESP32 wrap (0x7FFFFFFF to -0x80000000, and -1 to 0), with steps back, and on the
 * simulator's wall-clock ticks.
 *
 * Arguments (after `--`): send windows, tick windows, receive windows. Prints one JSON line.
 *
 * The host comes in as an argument of `runHostProof`: test/xs/zero-alloc.test.ts bundles
 * an entry that imports both. That keeps hosts/moddable/host.ts, whose imports only the
 * Moddable typings (`npm run typecheck:moddable`) declare, out of the Node typecheck.
 */
import type { Core, DirectCore, Host } from "../../modules/host";
import { MAX_PACKET } from "../../modules/protocol/constants";
import { ipOf, wire } from "./moddable-stubs/net";
import Timer, { timers } from "./moddable-stubs/timer";
import { clock } from "./moddable-stubs/time";
import type { Lwxs, LwxsPrint } from "../../tools/xs/lwxs";

declare const xs: Lwxs;
declare const print: LwxsPrint;

/** What the proof uses of hosts/moddable/host.ts's ModdableHost. */
export interface ModdableHostLike extends Host {
  readonly sendErrors: number;
  readonly tickCost: { readonly count: number; readonly sumUs: number; readonly clock: string };
  attach(core: Core): void;
  detach(): void;
}
export type ModdableHostClass = new (options: { port: number; tickMs?: number; udpSlots?: number }) => ModdableHostLike;

const ADDRESS = "192.0.2.7";
const PORT = 40007;
const TICK_MS = 10;

const sendWindows = Number(xs.args[0] ?? 20);
const tickWindows = Number(xs.args[1] ?? 30);
const receiveWindows = Number(xs.args[2] ?? 10);

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
  result(): { windows: number; slots: number; chunks: number; collections: number; worstSlots: number; worstChunks: number; leastSlots: number; leastChunks: number } {
    return {
      windows: this.windows, slots: this.slots, chunks: this.chunks, collections: this.collections,
      worstSlots: this.worstSlots, worstChunks: this.worstChunks, leastSlots: this.leastSlots, leastChunks: this.leastChunks,
    };
  }
}

// ------------------------------------------------------------------ senders and datagrams

interface Sender {
  /** Network byte order, as net.c gives it. */
  ip: number;
  address: string;
  port: number;
}

/** Three senders, one with an octet of 128 or more in every place the host shifts. */
const SENDERS: Sender[] = [
  { ip: ipOf(10, 0, 0, 7), address: "10.0.0.7", port: 41007 },
  { ip: ipOf(192, 168, 1, 200), address: "192.168.1.200", port: 65535 },
  { ip: ipOf(172, 16, 254, 129), address: "172.16.254.129", port: 1 },
];

/** More senders than the host keeps address strings for (16). */
const MANY: Sender[] = [];
for (let i = 0; i < 20; i++) MANY.push({ ip: ipOf(198, 51, 100, 10 + i), address: `198.51.100.${10 + i}`, port: 50000 + i });

/** Datagrams queued and checked so far (one sequence for every core), and whom they come from. */
const seq = { queued: 0, checked: 0, senders: SENDERS };

/** The length of the n-th datagram the test queues: 1..MAX_PACKET, varying. */
function datagramLength(n: number): number {
  return 1 + ((n * 97) % MAX_PACKET);
}

const payload = new Uint8Array(MAX_PACKET);

/** The next datagram of the sequence arrives in net.c's ring. */
function queueOne(): void {
  const n = seq.queued++;
  const length = datagramLength(n);
  for (let i = 0; i < length; i++) payload[i] = (n + i) & 255;
  const sender = seq.senders[n % seq.senders.length];
  if (!wire.queue(payload, length, sender.ip, sender.port)) throw new Error("stand-in net: the ring dropped a datagram");
}

// ------------------------------------------------------------------ the cores

/** Stands in for the server: sends, ticks and receives, and checks all three. A plain Core. */
class TestCore implements Core {
  host: Host | null = null;
  readonly #arena = new Uint8Array(3 * MAX_PACKET);
  /** Shaped like the server's transmit buffer: a MAX_PACKET view at an offset. */
  readonly tx = this.#arena.subarray(MAX_PACKET, 2 * MAX_PACKET);
  #k = 0;
  sends = 0;
  /** Sends that did not reach the wire exactly: wrong length, peer or bytes. */
  badSends = 0;
  readonly perLength = new Uint32Array(MAX_PACKET + 1);
  sendsPerTick = 1;
  ticks = 0;
  firstNow = -1;
  lastNow = -1;
  /** Ticks whose time was not the previous one plus TICK_MS. */
  badTicks = 0;
  /** Datagrams checked, and how they came: `receive` calls. */
  datagrams = 0;
  receives = 0;
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
    // Mark the wire's copy stale, so that a send that never reaches it is caught.
    wire.lastLength = -1;
  }

  receive(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.receives++;
    this.check(bytes, length, address, port);
  }

  /** The datagram must be the next of the sequence, from its sender. */
  check(bytes: Uint8Array, length: number, address: string, port: number): void {
    const n = seq.checked++;
    this.datagrams++;
    this.receivedBytes += length;
    const sender = seq.senders[n % seq.senders.length];
    if (length !== datagramLength(n) || bytes.length < length || address !== sender.address || port !== sender.port) {
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

/** The same, lending the host its receive buffer as the server does (DirectCore). */
class DirectTestCore extends TestCore implements DirectCore {
  readonly #rxArena = new Uint8Array(3 * MAX_PACKET);
  /** A MAX_PACKET view at an offset, so that a copy that ignores the offset is caught. */
  readonly rxBuffer = this.#rxArena.subarray(MAX_PACKET, 2 * MAX_PACKET);
  /** `received` calls. */
  directs = 0;
  /** The control: a new view of each datagram, as a host that made one would. */
  allocate = false;

  /** The clock reading `received` was given since the last tick, or -1. */
  drainNow = -1;

  received(length: number, address: string, port: number, now: number): void {
    this.directs++;
    // One reading for the whole drain.
    if (this.drainNow >= 0 && now !== this.drainNow) this.badReceives++;
    this.drainNow = now;
    const rx = this.rxBuffer;
    this.check(this.allocate ? new Uint8Array(rx.buffer, rx.byteOffset, length) : rx, length, address, port);
  }

  /** The drain's reading is the clock the tick after it reads (the scripted clock moves between ticks only). */
  override tick(now: number): void {
    if (this.drainNow >= 0 && this.drainNow !== now) this.badReceives++;
    this.drainNow = -1;
    super.tick(now);
  }
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

// ------------------------------------------------------------------ the proof

let wrapped = false;
/** Datagrams still in the ring after a tick (the host drains every one). */
let undrained = 0;

/** Time.ticks 10 ms on (wrapping as a signed 32-bit count), then the timers fire: one host tick. */
function step(): void {
  const before = clock.ticks;
  clock.ticks = (before + TICK_MS) | 0;
  if (clock.ticks < before) wrapped = true;
  timers.fire();
  if (wire.waiting !== 0) undrained++;
}

/** Feed `core` through `host`, measured: a warm-up of one datagram per sender, then windows of 100 ticks. */
function receivePhase(host: ModdableHostLike, core: TestCore, windows: number) {
  host.detach();
  core.host = host;
  host.attach(core);
  const datagrams0 = core.datagrams;
  const warm = new Meter();
  warm.open();
  for (let i = 0; i < seq.senders.length; i++) {
    queueOne();
    step();
  }
  warm.close();
  const warmDatagrams = core.datagrams - datagrams0;
  const meter = new Meter();
  for (let w = 0; w < windows; w++) {
    meter.open();
    for (let i = 0; i < 100; i++) {
      const burst = i & 3;
      for (let b = 0; b < burst; b++) queueOne();
      step();
    }
    meter.close();
  }
  return {
    ...meter.result(),
    datagrams: core.datagrams - datagrams0 - warmDatagrams,
    warmDatagrams, warmSlots: warm.slots, warmChunks: warm.chunks,
    badReceives: core.badReceives, badSends: core.badSends, badTicks: core.badTicks,
  };
}

export function runHostProof(ModdableHost: ModdableHostClass): void {
  const clockRuns = {
    // Across 0x7FFFFFFF -> -0x80000000: forward steps, a repeat, steps back, an hour.
    esp32Wrap: clockRun(ModdableHost, true, 0x7fffffff - 25, [10, 10, 5, 1, 9, 0, -50, 20, 7, -1, 1, 3_600_000, 10]),
    // Across -1 -> 0 (0xFFFFFFFF -> 0 as unsigned).
    esp32Zero: clockRun(ModdableHost, true, -25, [10, 10, 4, 1, 1, 9, -30, 31, 10]),
    // The simulator: wall-clock milliseconds, stepped back 5 s (an NTP correction) and on.
    lin: clockRun(ModdableHost, false, 1_763_800_000_000, [10, 10, 10, -5000, 10, 10, 60_000, 10]),
  };

  // ------------------------------------------------------------------ send and tick

  const core = new TestCore();
  clock.esp32 = true;
  // The tick windows cross the wrap half-way.
  clock.ticks = (0x7fffffff - TICK_MS * 500 * tickWindows + 1) | 0;
  const opens0 = wire.opens;
  const host = new ModdableHost({ port: 32422, tickMs: TICK_MS });
  const bound = { port: wire.boundPort, slots: wire.slots, opens: wire.opens - opens0 };
  host.attach(core);
  core.host = host;

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
  const badSendsSend = core.badSends;

  const tick = new Meter();
  const firstTicks = clock.ticks;
  const nexts0 = wire.nexts;
  for (let w = 0; w < tickWindows; w++) {
    tick.open();
    for (let i = 0; i < 1000; i++) step();
    tick.close();
  }
  const lastTicks = clock.ticks;
  const tickNexts = wire.nexts - nexts0;
  const tickTimers = timers.count;
  const tickInterval = timers.count > 0 ? Timer.interval(timers.list[0] as Timer) : -1;
  const tickCost = { count: host.tickCost.count, sumUs: host.tickCost.sumUs, clock: host.tickCost.clock };
  const ticked = { ticks: core.ticks, badTicks: core.badTicks, firstNow: core.firstNow, lastNow: core.lastNow, badSends: core.badSends - badSendsSend };

  // ------------------------------------------------------------------ receive

  const taken0 = wire.taken;
  const plain = { ...receivePhase(host, core, receiveWindows), receives: core.receives };
  const direct = new DirectTestCore();
  const directResult = receivePhase(host, direct, receiveWindows);
  const directCounts = { receives: direct.receives, directs: direct.directs, plainReceivesAfter: core.receives - plain.receives };
  const taken = wire.taken - taken0;

  // Control: the direct core makes a view of each datagram.
  direct.allocate = true;
  const viewControl = new Meter();
  const viewDatagrams0 = direct.datagrams;
  for (let w = 0; w < 2; w++) {
    viewControl.open();
    for (let i = 0; i < 100; i++) {
      const burst = i & 3;
      for (let b = 0; b < burst; b++) queueOne();
      step();
    }
    viewControl.close();
  }
  direct.allocate = false;
  const views = { ...viewControl.result(), datagrams: direct.datagrams - viewDatagrams0 };

  // Control: 20 senders in turn, more than the host's 16 address strings. The sequence
  // restarts on a multiple of 20 so that datagram n comes from sender n % 20.
  while (seq.queued % MANY.length !== 0) {
    queueOne();
    step();
  }
  seq.senders = MANY;
  const manyControl = new Meter();
  const manyDatagrams0 = direct.datagrams;
  const manyBad0 = direct.badReceives;
  for (let w = 0; w < 2; w++) {
    manyControl.open();
    for (let i = 0; i < 100; i++) {
      queueOne();
      step();
    }
    manyControl.close();
  }
  seq.senders = SENDERS;
  const many = { ...manyControl.result(), datagrams: direct.datagrams - manyDatagrams0, badReceives: direct.badReceives - manyBad0 };
  const counters = Array.from(wire.counters);

  // ------------------------------------------------------------------ a refused send

  const badSends0 = direct.badSends;
  const errors0 = host.sendErrors;
  const wireErrors0 = wire.counters[3];
  const failed = new Meter();
  let sendErrorsSeen = 0;
  for (let w = 0; w < 5; w++) {
    failed.open();
    wire.failWrites = 1;
    direct.sendOne(100);
    sendErrorsSeen = host.sendErrors - errors0;
    for (let i = 0; i < 1000; i++) direct.sendOne(direct.nextLength());
    failed.close();
  }
  const error = {
    ...failed.result(),
    sendErrors: host.sendErrors - errors0,
    sendErrorsSeen,
    wireSendErrors: wire.counters[3] - wireErrors0,
    badSends: direct.badSends - badSends0,
  };

  // ------------------------------------------------------------------ ticks timed with Time.microseconds

  host.detach();
  clock.micro = true;
  const microCore = new TestCore();
  const microHost = new ModdableHost({ port: 32423, tickMs: TICK_MS });
  microCore.host = microHost;
  microHost.attach(microCore);
  const micro = new Meter();
  for (let w = 0; w < 10; w++) {
    micro.open();
    for (let i = 0; i < 1000; i++) step();
    micro.close();
  }
  clock.micro = false;
  const microCost = { count: microHost.tickCost.count, sumUs: microHost.tickCost.sumUs, clock: microHost.tickCost.clock, usStep: clock.usStep };

  print(JSON.stringify({
    bound,
    send: {
      ...send.result(), warmSends, sends: windowSends, badSends: badSendsSend, lengthsCovered,
    },
    tick: {
      ...tick.result(), ...ticked, wrapped, firstTicks, lastTicks,
      timers: tickTimers, timerInterval: tickInterval, nexts: tickNexts, tickCost,
    },
    receive: { plain, direct: { ...directResult, ...directCounts }, taken, undrained, counters },
    controls: { views, many },
    error,
    micro: { ...micro.result(), ticks: microCore.ticks, badTicks: microCore.badTicks, badSends: microCore.badSends, tickCost: microCost },
    clock: clockRuns,
  }));
}
