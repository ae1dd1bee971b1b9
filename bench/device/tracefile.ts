/**
 * The file that carries a recorded match to the device bench: a small header, then a trace
 * in the format of bench/driver.ts. Host-free: the generator (Node), the device app (XS)
 * and the tests all use it.
 *
 * Layout, little-endian:
 *   0   "LWTR"
 *   4   u8 version (1), 3 bytes zero
 *   8   u32 header length H
 *   12  H bytes of ASCII JSON: TraceHeader
 *   12+H  the trace (bench/driver.ts), to the end of the file
 */
import type { CaseOptions } from "../driver";

/** The resource name the device app reads, and the file the generator writes next to the manifest. */
export const TRACE_RESOURCE = "replay.dat";

const MAGIC: readonly number[] = Object.freeze([0x4c, 0x57, 0x54, 0x52]); // "LWTR"
const VERSION = 1;
const PREFIX = 12;

export interface TraceHeader {
  /** Short name for the summary line, e.g. "8p game192". */
  label: string;
  options: CaseOptions;
  /** The recorded server's totals at the end of the recording: a replay must end with the same. */
  packetsOut: number;
  bytesOut: number;
  /** Mean live entities and datagrams received per second in the window, for the report. */
  liveEntities: number;
  packetsInPerSecond: number;
}

/** The bench's busiest case: 8 players, the game on, the default entity capacity. */
export function defaultDeviceCase(base: Readonly<CaseOptions>): CaseOptions {
  return { ...base, players: 8, entities: 0, game: true, capacity: 192 };
}

export function caseLabel(o: CaseOptions): string {
  return `${o.players}p ${o.game ? `game${o.capacity}` : `static${o.entities}`}`;
}

export function encodeTraceFile(header: TraceHeader, trace: Uint8Array): Uint8Array {
  const json = JSON.stringify(header);
  const out = new Uint8Array(PREFIX + json.length + trace.length);
  for (let i = 0; i < 4; i++) out[i] = MAGIC[i];
  out[4] = VERSION;
  const h = json.length;
  out[8] = h & 0xff;
  out[9] = (h >> 8) & 0xff;
  out[10] = (h >> 16) & 0xff;
  out[11] = (h >>> 24) & 0xff;
  for (let i = 0; i < h; i++) {
    const c = json.charCodeAt(i);
    if (c > 0x7e) throw new RangeError("trace header: ASCII only");
    out[PREFIX + i] = c;
  }
  out.set(trace, PREFIX + h);
  return out;
}

/** Splits a trace file; `trace` is a view into `file` (no copy: on a device it stays in flash). */
export function decodeTraceFile(file: Uint8Array): { header: TraceHeader; trace: Uint8Array } {
  if (file.length < PREFIX) throw new RangeError("trace file: too short");
  for (let i = 0; i < 4; i++) if (file[i] !== MAGIC[i]) throw new RangeError("trace file: not a lwar-xs trace (bad magic)");
  if (file[4] !== VERSION) throw new RangeError(`trace file: version ${file[4]}, expected ${VERSION}: generate it again`);
  const h = (file[8] | (file[9] << 8) | (file[10] << 16) | (file[11] << 24)) >>> 0;
  if (PREFIX + h > file.length) throw new RangeError("trace file: header runs past the end");
  let json = "";
  for (let i = 0; i < h; i++) json += String.fromCharCode(file[PREFIX + i]);
  const header = JSON.parse(json) as TraceHeader;
  return { header, trace: file.subarray(PREFIX + h) };
}
