/**
 * The recorded match's peers as the board sees its senders, for timing the board's receive
 * path (board-receive.ts). Host-free, so that the tests check it on Node.
 */
import type { Replay } from "../../harness/trace";
import { HEADER_REL, HEADER_SIZE, HEADER_UNREL } from "../../modules/transport/frame";
import { RecordingReader, Rec } from "../../modules/recording/format";

/** A client packet's header (docs/protocol.md); a bare ack is only that. */
const HEADER_BYTES = HEADER_SIZE;

/** Peer `p`'s IPv4 address on the board's network (192.168.4.2 and up), in network byte order as net.c keeps it (an int32). */
export function peerIp(p: number): number {
  if (p < 0 || p > 125) throw new RangeError(`peer ${p}: the bench gives addresses to peers 0 to 125`);
  return 192 | (168 << 8) | (4 << 16) | ((2 + p) << 24);
}

/**
 * Name every peer of the replay as the board's host names a sender (`name`: host.ts's
 * ipText on the device), so that the server knows the players by the strings the drain
 * hands it. The server only compares addresses, so the replay is otherwise the same. Call
 * it before `warm`.
 */
export function useBoardAddresses(r: Replay, name: (ip: number) => string): void {
  const address = r.replayer.reader.address;
  for (let p = 0; p < address.length; p++) address[p] = name(peerIp(p));
}

/** A header and nothing else: an ack. */
export function isBareAck(b: Uint8Array): boolean {
  return b.length === HEADER_BYTES && b[HEADER_REL] === 0 && b[HEADER_UNREL] === 0;
}

/** Per client, its last bare ack in the `ticks` ticks from the window's start: the offsets of their Datagram records. */
export function lastBareAcks(r: Replay, ticks: number): number[] {
  const reader = new RecordingReader(r.trace);
  while (reader.pos < r.windowStart) reader.next();
  const last = new Int32Array(8).fill(-1);
  const t0 = reader.ticks;
  while (reader.ticks - t0 < ticks) {
    const kind = reader.file[reader.pos];
    if (kind === Rec.End || kind === Rec.Mark) break;
    if (reader.next() !== Rec.Datagram) continue;
    const d = r.datagramAt(reader.at);
    if (d.client >= 0 && d.client < 8 && isBareAck(d.bytes)) last[d.client] = reader.at;
  }
  const out: number[] = [];
  for (const at of last) if (at >= 0) out.push(at);
  return out;
}
