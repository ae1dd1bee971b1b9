/**
 * The reliable streams a server sends: every reliable message it puts on the wire, by the
 * port it goes to, as seqno → "type:first u32 of the payload". A resend carries the same
 * bytes as the first copy; `changed` counts any that did not. Tests compare what each
 * client processed (harness/match.ts `MessageLog`) against it.
 */
import { getU32 } from "../../modules/protocol/bytes";
import { FROM_SERVER, Msg, RELIABLE_HEADER } from "../../modules/protocol/constants";
import { createCounters } from "../../modules/protocol/counters";
import { headerRel, MAX_MESSAGES, validatePacket } from "../../modules/protocol/codec";
import type { MessageLog } from "../../harness/match";
import type { MemHost } from "../../harness/link";

/** "type:id" of a reliable message whose payload is at `o`. */
export function describeReliable(type: number, b: Uint8Array, o: number): string {
  return type === Msg.Connect || type === Msg.Disconnect ? `${type}` : `${type}:${getU32(b, o)}`;
}

/** The seqnos of the reliable messages in a valid packet. */
export function reliableSeqnos(b: Uint8Array, length: number, from: number): number[] {
  const offsets = new Uint16Array(MAX_MESSAGES);
  if (!validatePacket(b, length, from, createCounters(), offsets)) return [];
  const seqs: number[] = [];
  for (let m = 0; m < headerRel(b); m++) seqs.push(getU32(b, offsets[m] - RELIABLE_HEADER));
  return seqs;
}

export class SentStreams {
  readonly byPort = new Map<number, Map<number, string>>();
  changed = 0;
  invalid = 0;
  /** Packets seen and the longest of them, in bytes. */
  packets = 0;
  longest = 0;
  readonly #offsets = new Uint16Array(MAX_MESSAGES);
  readonly #counters = createCounters();

  /** Wraps `host.send` (the server's host). */
  constructor(host: MemHost) {
    const send = host.send.bind(host);
    host.send = (bytes, length, address, port) => {
      this.#record(bytes, length, port);
      send(bytes, length, address, port);
    };
  }

  #record(b: Uint8Array, length: number, port: number): void {
    this.packets++;
    if (length > this.longest) this.longest = length;
    if (!validatePacket(b, length, FROM_SERVER, this.#counters, this.#offsets)) {
      this.invalid++;
      return;
    }
    let stream = this.byPort.get(port);
    if (stream === undefined) this.byPort.set(port, (stream = new Map()));
    for (let m = 0; m < headerRel(b); m++) {
      const p = this.#offsets[m];
      const seq = getU32(b, p - RELIABLE_HEADER);
      const what = describeReliable(b[p - 1], b, p);
      const before = stream.get(seq);
      if (before === undefined) stream.set(seq, what);
      else if (before !== what) this.changed++;
    }
  }

  /**
   * Compare what `r` processed with what went to `port`: the seqnos it processed must run
   * 0, 1, 2, … (nothing skipped, nothing twice), and each message must be the one sent
   * under that seqno, except at the seqnos in `excused`. Returns the problems found.
   */
  check(port: number, r: MessageLog, excused: ReadonlySet<number> = new Set()): string[] {
    const stream = this.byPort.get(port) ?? new Map<number, string>();
    const problems: string[] = [];
    for (let k = 0; k < r.seqs.length; k++) {
      if (r.seqs[k] !== k) {
        problems.push(`message ${k} processed with seqno ${r.seqs[k]}`);
        break;
      }
      const got = r.types[k] === Msg.Connect || r.types[k] === Msg.Disconnect ? `${r.types[k]}` : `${r.types[k]}:${r.ids[k] >>> 0}`;
      const sent = stream.get(k);
      if (got !== sent && !excused.has(k)) problems.push(`seqno ${k}: processed ${got}, sent ${sent}`);
    }
    return problems;
  }
}
