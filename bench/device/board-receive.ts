/**
 * Receiving through the board's own path, timed on the device: a datagram waits in net.c's
 * ring as lwIP's thread leaves it, and the XS task's drain (hosts/moddable/drain.ts, the host's own)
 * copies it into the server's receive buffer with udpNext(), finds its sender's address
 * string in the host's table, and calls `server.received`. ESP32 only: the ring is net.c's
 * there (the simulator's udpNext reads a socket).
 *
 * Method, as timeReceive's (harness/trace.ts): after the window, into the server as the
 * window left it, each client's last datagram of a kind is placed in the ring (benchRingPut,
 * in place of lwIP's thread) and drained, round after round; the same rounds walked dry
 * place them without publishing them and do not drain. The difference, over the datagrams,
 * is the XS task's cost of one; the least of three. To tell the host's part from the
 * server's, `server.received` is also timed alone on the same ack + Inputs: each copied into
 * its receive buffer (dry) and then received (for real).
 */
import type { Replay } from "../../harness/trace";
import { Counter } from "../../modules/protocol/counters";
import { ipText } from "../../hosts/moddable/host";
import { BoardDrain } from "../../hosts/moddable/drain";
import { lastBareAcks, peerIp, useBoardAddresses } from "./peers";
import { benchRingOpen, benchRingPut } from "./ring";

/** The ring's slots: the firmware's default `udpSlots`. */
const SLOTS = 16;

/** Name the replay's peers as the board names its senders (peers.ts). Call it before `warm`. */
export function useBoardNames(r: Replay): void {
  useBoardAddresses(r, ipText);
}

/** The datagrams of one kind placed in the ring each round: where each lies in the trace, and its sender. */
interface Batch {
  at: Int32Array;
  length: Int32Array;
  ip: Int32Array;
  port: Int32Array;
}

function batch(r: Replay, offsets: readonly number[]): Batch {
  const reader = r.replayer.reader;
  const n = offsets.length;
  const b: Batch = { at: new Int32Array(n), length: new Int32Array(n), ip: new Int32Array(n), port: new Int32Array(n) };
  for (let i = 0; i < n; i++) {
    reader.datagramAt(offsets[i]);
    b.at[i] = reader.dataAt;
    b.length[i] = reader.dataLength;
    b.ip[i] = peerIp(reader.peer);
    b.port[i] = reader.port[reader.peer];
  }
  return b;
}

export interface BoardReceive {
  /** µs of the XS task per datagram, with `perDrain` datagrams waiting at each drain. */
  ackInputUs: number;
  ackUs: number;
  /** Datagrams waiting at each drain, ack + Input and ack: one from each client, as the recorded clients send in step. */
  perDrain: number;
  ackPerDrain: number;
  /** µs of a drain that finds the ring empty (once a tick on the board). */
  emptyDrainUs: number;
  /** µs of `server.received` alone per ack + Input, the datagram already in its receive buffer: the rest of ackInputUs is the host's. */
  receivedUs: number;
}

/**
 * Time the board's path on `r` (its peers named by useBoardNames before the warm-up, the window walked):
 * about `datagrams` of each kind, three times. Null where net.c has no ring (the simulator).
 */
export function timeBoardReceive(r: Replay, n: number, clock: () => number, datagrams: number): BoardReceive | null {
  if (!benchRingOpen(SLOTS)) return null;
  const ackInputOffsets = r.lastAckInputs(r.windowStart, n);
  const ackInputs = batch(r, ackInputOffsets);
  const acks = batch(r, lastBareAcks(r, n));
  const none = batch(r, []);
  if (ackInputs.at.length === 0 || acks.at.length === 0) throw new Error("no client's last datagrams include an ack + Input and a bare ack");
  const drain = new BoardDrain();
  const server = r.server;
  const trace = r.trace;
  const c = server.counters;
  const before = c.slice();

  // For server.received alone: each datagram's bytes, and its sender as the server knows it.
  const rx = server.rxBuffer;
  const address = r.replayer.reader.address;
  const views: Uint8Array[] = [];
  const names: string[] = [];
  for (let i = 0; i < ackInputs.at.length; i++) {
    views.push(trace.subarray(ackInputs.at[i], ackInputs.at[i] + ackInputs.length[i]));
    names.push(address[r.datagramAt(ackInputOffsets[i]).client]);
  }
  // As the board's host: one clock reading for each drain.
  const host = server.host;
  const alone = (b: Batch, count: number, live: boolean): void => {
    const k = b.at.length;
    for (let j = 0; j < count; j++) {
      const now = host.now();
      for (let i = 0; i < k; i++) {
        rx.set(views[i]);
        if (live) server.received(b.length[i], names[i], b.port[i], now);
      }
    }
  };

  const rounds = (b: Batch, count: number, live: boolean): void => {
    const k = b.at.length;
    for (let j = 0; j < count; j++) {
      for (let i = 0; i < k; i++) benchRingPut(trace, b.at[i], b.length[i], b.ip[i], b.port[i], live);
      if (live) drain.drain(server, host.now());
    }
  };
  /** µs per round, real less dry, the least of three. */
  const time = (b: Batch, count: number, walk = rounds): number => {
    let best = Infinity;
    for (let k = 0; k < 3; k++) {
      const t0 = clock();
      walk(b, count, false);
      const t1 = clock();
      walk(b, count, true);
      const t2 = clock();
      const d = (t2 - t1 - (t1 - t0)) * 1000;
      if (d < best) best = d;
    }
    return best / count;
  };

  const inputRounds = Math.ceil(datagrams / ackInputs.at.length);
  const ackRounds = Math.ceil(datagrams / acks.at.length);
  const ackInputUs = time(ackInputs, inputRounds) / ackInputs.at.length;
  const ackUs = time(acks, ackRounds) / acks.at.length;
  const emptyDrainUs = time(none, datagrams);
  const receivedUs = time(ackInputs, inputRounds, alone) / ackInputs.at.length;

  // Every datagram went the normal way: counted in, and nothing else counted (no unknown
  // peer, stale Input, bad ack or drop).
  const received = 3 * (2 * inputRounds * ackInputs.at.length + ackRounds * acks.at.length);
  for (let i = 0; i < c.length; i++) {
    if (i === Counter.BytesIn) continue;
    const expected = before[i] + (i === Counter.PacketsIn ? received : 0);
    if (c[i] !== expected) throw new Error(`the board's path: counter ${i} went from ${before[i]} to ${c[i]}, expected ${expected}`);
  }
  return { ackInputUs, ackUs, perDrain: ackInputs.at.length, ackPerDrain: acks.at.length, emptyDrainUs, receivedUs };
}
