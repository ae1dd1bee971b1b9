/**
 * The file that carries a recorded match to the device bench: a recording (the format of
 * modules/recording/format.ts, docs/recorder.md, as harness/trace.ts records it) whose
 * header's `extra.device` holds a TraceHeader. Host-free: the generator (Node), the device
 * app (XS) and the tests all use it.
 */
import type { CaseOptions } from "../../harness/trace";
import { RecordingError, decodeHeader, encodeHeader } from "../../modules/recording/format";

/** The resource name the device app reads, and the file the generator writes next to the manifest. */
export const TRACE_RESOURCE = "replay.dat";

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

/** The recording with `header` added to its own header's `extra`, as `device`. */
export function encodeTraceFile(header: TraceHeader, recording: Uint8Array): Uint8Array {
  const { header: h, bodyStart } = decodeHeader(recording);
  h.extra = Object.assign({}, h.extra, { device: header });
  const head = encodeHeader(h);
  const out = new Uint8Array(head.length + recording.length - bodyStart);
  out.set(head);
  out.set(recording.subarray(bodyStart), head.length);
  return out;
}

/** The device header of a trace file; `trace` is the file itself (no copy: on a device it stays in flash). */
export function decodeTraceFile(file: Uint8Array): { header: TraceHeader; trace: Uint8Array } {
  const { header } = decodeHeader(file);
  const extra = header.extra as { device?: TraceHeader } | undefined;
  if (extra === undefined || extra === null || typeof extra.device !== "object" || extra.device === null)
    throw new RecordingError("a recording, but not a device bench trace (no extra.device in its header): run `npm run bench:device:trace`", 12);
  return { header: extra.device, trace: file };
}
