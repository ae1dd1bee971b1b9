/**
 * Recordings: everything a server was given, so that a fresh server and game can be driven
 * through it again and end in the same world. docs/recorder.md has the byte layout; this
 * file implements it, once, for the Node recorder (hosts/node/recorder.ts), the replay tool,
 * the bench and the device bench. Host-free: it also runs on XS.
 *
 * File, little-endian:
 *   0     "LWRC"
 *   4     u8 version (1), 3 bytes zero
 *   8     u32 H, the header's length
 *   12    H bytes of ASCII JSON: RecordingHeader (config, seed, start time, ...)
 *   12+H  records, each a kind byte and its fields, up to and including an End record;
 *         anything after End is ignored (the bench pads a recording to 32-bit words)
 *
 * Records:
 *   Tick      1  time                                    server.tick(time)
 *   Datagram  2  time, peer vu, length vu, bytes         server.receive(bytes, length, peer) at time
 *   Peer      3  peer vu, port u32, n u8, n bytes ASCII  declares peer id `peer` (address, port)
 *   Hash      4  hash u32                                the world's hash after the Tick before it
 *   Gone      5  time, peer vu                           server.disconnectPeer(peer) at time
 *   Mark      6                                          the bench's timed window starts here
 *   End       7  reason u8, time, hash u32, packets out u32, bytes out u32
 *
 * vu: unsigned LEB128, at most 4 bytes (28 bits).
 * time, in ms: a vu v. v even: the previous record's time plus (v >> 1) / 1024 ms (the
 * first record counts from the header's `start`). v = 1: an f64 follows, the time itself.
 * The even form is only used where both times are whole multiples of 1/1024 ms, so every
 * time comes back bit for bit; the Node recorder gives its server such times.
 */
import { ConfigError, makeConfig, type Config } from "../config";

export const RECORDING_VERSION = 1;
const MAGIC: readonly number[] = Object.freeze([0x4c, 0x57, 0x52, 0x43]); // "LWRC"
/** Magic, version, header length. */
export const PREFIX_BYTES = 12;

/** Record kinds. */
export const Rec = Object.freeze({ Tick: 1, Datagram: 2, Peer: 3, Hash: 4, Gone: 5, Mark: 6, End: 7 } as const);
const KIND_NAMES: readonly string[] = Object.freeze(["?", "tick", "datagram", "peer", "hash", "gone", "mark", "end"]);

/** Why a recording ended (the End record's reason). */
export const EndReason = Object.freeze({
  /** The server shut down. */
  Shutdown: 0,
  /** The file reached its size limit; the match went on unrecorded. */
  SizeLimit: 1,
  /** The recording program stopped (the bench, a test). */
  Finished: 2,
} as const);
const REASON_NAMES: readonly string[] = Object.freeze(["shutdown", "size limit", "finished"]);

export function describeEndReason(reason: number): string {
  return REASON_NAMES[reason] ?? `reason ${reason}`;
}

/** Times are kept as whole multiples of 1 / TIME_UNITS ms where they can be. */
export const TIME_UNITS = 1024;
/** Recorded time between Hash records. */
export const HASH_EVERY_MS = 1000;
/** Longest datagram a recording holds (UDP's limit). */
export const MAX_DATAGRAM = 65535;
/** The longest End record: kind, reason, a time with its f64, hash, packets out, bytes out. */
export const END_BYTES = 1 + 1 + 9 + 12;
/** Longest record other than a datagram's bytes: kind, time with f64, peer, length. */
const RECORD_OVERHEAD = 1 + 9 + 4 + 4;
const PEER_BYTES = 1 + 4 + 4 + 1 + 255;
/** A delta of this many time units or more is written as an f64. */
const DELTA_LIMIT = 1 << 27;

export interface RecordingHeader {
  /** The server's config, as makeConfig checked it. */
  config: Config;
  /** The game's seed; null: the server ran without the game. */
  seed: number | null;
  /** The server's clock (ms) when it was made; the first record's time counts from it. */
  start: number;
  /** Recorded time between Hash records, ms. */
  hashEveryMs: number;
  /** Wall-clock time at `start`, ISO 8601, where known: a record's date is this plus (time − start). */
  startedAt?: string;
  /** What made the recording, e.g. "lwar-xs server" or "bench". */
  source?: string;
  /** The server's UDP address and port, where known. */
  server?: { address: string; port: number };
  /** Whatever the maker adds (the bench: its case and totals). */
  extra?: unknown;
}

/** A recording that cannot be read: what is wrong and at which byte of the file. */
export class RecordingError extends RangeError {
  // A field, not an assignment: on XS, Error.prototype is frozen after preload.
  override name = "RecordingError";
  readonly offset: number;
  constructor(message: string, offset: number) {
    super(message);
    this.offset = offset;
  }
}

// ------------------------------------------------------------------ header

/** The file's first bytes: prefix and header. */
export function encodeHeader(header: RecordingHeader): Uint8Array {
  const json = JSON.stringify(header);
  let ascii = "";
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    ascii += c < 0x7f ? json[i] : "\\u" + (0x10000 + c).toString(16).slice(1);
  }
  const h = ascii.length;
  const out = new Uint8Array(PREFIX_BYTES + h);
  for (let i = 0; i < 4; i++) out[i] = MAGIC[i];
  out[4] = RECORDING_VERSION;
  out[8] = h & 0xff;
  out[9] = (h >> 8) & 0xff;
  out[10] = (h >> 16) & 0xff;
  out[11] = (h >>> 24) & 0xff;
  for (let i = 0; i < h; i++) out[PREFIX_BYTES + i] = ascii.charCodeAt(i);
  return out;
}

/** Read and check the prefix and header. Throws RecordingError. */
export function decodeHeader(file: Uint8Array): { header: RecordingHeader; bodyStart: number } {
  if (file.length < PREFIX_BYTES) throw new RecordingError(`too short: ${file.length} bytes, not even a recording's prefix`, 0);
  for (let i = 0; i < 4; i++) if (file[i] !== MAGIC[i]) throw new RecordingError("not a lwar-xs recording (bad magic)", i);
  if (file[4] !== RECORDING_VERSION) throw new RecordingError(`version ${file[4]}, expected ${RECORDING_VERSION}: record it again`, 4);
  const h = (file[8] | (file[9] << 8) | (file[10] << 16) | (file[11] << 24)) >>> 0;
  if (PREFIX_BYTES + h > file.length) throw new RecordingError(`truncated: the ${h}-byte header runs past the end of the ${file.length}-byte file`, 8);
  let json = "";
  for (let i = 0; i < h; i++) json += String.fromCharCode(file[PREFIX_BYTES + i]);
  let header: RecordingHeader;
  try {
    header = JSON.parse(json) as RecordingHeader;
  } catch (err) {
    throw new RecordingError(`the header is not JSON: ${(err as Error).message}`, PREFIX_BYTES);
  }
  if (header === null || typeof header !== "object") throw new RecordingError("the header is not a JSON object", PREFIX_BYTES);
  try {
    header.config = makeConfig(header.config);
  } catch (err) {
    if (err instanceof ConfigError) throw new RecordingError(`the header's config: ${err.message}`, PREFIX_BYTES);
    throw err;
  }
  const seed = header.seed;
  if (seed !== null && (typeof seed !== "number" || !Number.isInteger(seed) || seed < 0 || seed > 0xffffffff))
    throw new RecordingError(`the header's seed must be null or an integer in 0..4294967295, got ${String(seed)}`, PREFIX_BYTES);
  if (typeof header.start !== "number" || !Number.isFinite(header.start)) throw new RecordingError(`the header's start must be a time in ms, got ${String(header.start)}`, PREFIX_BYTES);
  if (typeof header.hashEveryMs !== "number" || !(header.hashEveryMs > 0)) throw new RecordingError(`the header's hashEveryMs must be positive, got ${String(header.hashEveryMs)}`, PREFIX_BYTES);
  return { header, bodyStart: PREFIX_BYTES + h };
}

// ------------------------------------------------------------------ writing

/** Where a writer's bytes go: `length` bytes from the start of `bytes`, which it reuses. */
export type Sink = (bytes: Uint8Array, length: number) => void;

export interface WriterOptions {
  /** The file's first bytes (encodeHeader), written first. */
  header: Uint8Array;
  /** The header's `start`: the time the first record counts from. */
  start: number;
  sink: Sink;
  /** Bytes buffered before they go to the sink (default 64 KiB; at least one largest record). */
  bufferBytes?: number;
  /** The file never grows past this; the last room is kept for the End record. */
  limitBytes?: number;
}

/**
 * Writes records into one buffer allocated up front and hands it to the sink when full
 * and on `flush`. A record that would take the file past its limit is not written: the
 * method returns false and `full` is set; the caller then writes End.
 */
export class RecordWriter {
  /** Bytes handed to the sink or buffered: the file's size once flushed. */
  written = 0;
  /** Set when a record did not fit under the limit. */
  full = false;
  /** Set once End is written: nothing more is. */
  ended = false;
  readonly limit: number;
  /** The peer table: address and port of each peer id. */
  readonly address: string[] = [];
  readonly port: number[] = [];
  readonly #buf: Uint8Array;
  #n = 0;
  /** Offset in the buffer where the record being written began. */
  #start = 0;
  readonly #sink: Sink;
  /** Peer ids by port. */
  readonly #byPort = new Map<number, number[]>();
  #last: number;
  #units: number;
  #onGrid: boolean;
  readonly #f64 = new Float64Array(1);
  readonly #b64 = new Uint8Array(this.#f64.buffer);

  constructor(o: WriterOptions) {
    this.#sink = o.sink;
    this.limit = o.limitBytes ?? Number.MAX_SAFE_INTEGER;
    if (this.limit < o.header.length + END_BYTES) throw new RangeError(`a ${this.limit}-byte limit leaves no room for the records`);
    this.#buf = new Uint8Array(Math.max(o.bufferBytes ?? 65536, MAX_DATAGRAM + RECORD_OVERHEAD + PEER_BYTES, o.header.length));
    this.#buf.set(o.header);
    this.#n = o.header.length;
    this.#start = this.#n;
    this.written = o.header.length;
    this.#last = o.start;
    this.#units = o.start * TIME_UNITS;
    this.#onGrid = Number.isInteger(this.#units);
  }

  /** server.tick(time). */
  tick(time: number): boolean {
    if (!this.#room(1 + 9)) return false;
    this.#buf[this.#n++] = Rec.Tick;
    this.#time(time);
    this.#done();
    return true;
  }

  /** server.receive(bytes, length, address, port) at `time`. */
  datagram(time: number, bytes: Uint8Array, length: number, address: string, port: number): boolean {
    if (length > MAX_DATAGRAM) throw new RangeError(`a ${length}-byte datagram: at most ${MAX_DATAGRAM}`);
    const peer = this.#peer(address, port);
    if (peer < 0 || !this.#room(RECORD_OVERHEAD + length)) return false;
    const b = this.#buf;
    b[this.#n++] = Rec.Datagram;
    this.#time(time);
    this.#vu(peer);
    this.#vu(length);
    if (bytes.length === length) b.set(bytes, this.#n);
    else for (let i = 0; i < length; i++) b[this.#n + i] = bytes[i];
    this.#n += length;
    this.#done();
    return true;
  }

  /** server.disconnectPeer(address, port) at `time`. */
  gone(time: number, address: string, port: number): boolean {
    const peer = this.#peer(address, port);
    if (peer < 0 || !this.#room(1 + 9 + 4)) return false;
    this.#buf[this.#n++] = Rec.Gone;
    this.#time(time);
    this.#vu(peer);
    this.#done();
    return true;
  }

  /** The world's hash, after the last Tick. */
  hash(hash: number): boolean {
    if (!this.#room(5)) return false;
    this.#buf[this.#n++] = Rec.Hash;
    this.#u32(hash);
    this.#done();
    return true;
  }

  /** The bench's window starts here. */
  mark(): boolean {
    if (!this.#room(1)) return false;
    this.#buf[this.#n++] = Rec.Mark;
    this.#done();
    return true;
  }

  /** The last record: why, when, and the world's hash and the server's totals then. Flushes. */
  end(reason: number, time: number, hash: number, packetsOut: number, bytesOut: number): void {
    if (this.ended) return;
    // Room for it was kept under the limit.
    if (this.#n + END_BYTES > this.#buf.length) this.flush();
    this.#buf[this.#n++] = Rec.End;
    this.#buf[this.#n++] = reason;
    this.#time(time);
    this.#u32(hash);
    this.#u32(packetsOut);
    this.#u32(bytesOut);
    this.#done();
    this.ended = true;
    this.flush();
  }

  /** Hand what is buffered to the sink. */
  flush(): void {
    if (this.#n === 0) return;
    this.#sink(this.#buf, this.#n);
    this.#n = 0;
    this.#start = 0;
  }

  /** Room for `n` more bytes under the limit (End's kept aside), flushing if the buffer lacks it. */
  #room(n: number): boolean {
    if (this.ended || this.full) return false;
    if (this.written + n + END_BYTES > this.limit) {
      this.full = true;
      return false;
    }
    if (this.#n + n > this.#buf.length) this.flush();
    return true;
  }

  #done(): void {
    // Keep `written` exact: everything up to #n is part of the file.
    this.written += this.#n - this.#start;
    this.#start = this.#n;
  }

  #peer(address: string, port: number): number {
    const ids = this.#byPort.get(port);
    if (ids !== undefined) for (let i = 0; i < ids.length; i++) if (this.address[ids[i]] === address) return ids[i];
    if (address.length > 255) throw new RangeError(`a peer address of ${address.length} characters: at most 255`);
    if (!this.#room(1 + 4 + 4 + 1 + address.length)) return -1;
    const id = this.address.length;
    this.address.push(address);
    this.port.push(port);
    if (ids !== undefined) ids.push(id);
    else this.#byPort.set(port, [id]);
    const b = this.#buf;
    b[this.#n++] = Rec.Peer;
    this.#vu(id);
    this.#u32(port);
    b[this.#n++] = address.length;
    for (let i = 0; i < address.length; i++) {
      const c = address.charCodeAt(i);
      b[this.#n++] = c < 0x80 ? c : 0x3f;
    }
    this.#done();
    return id;
  }

  #time(t: number): void {
    if (!(t >= this.#last)) throw new RangeError(`a record's time went backwards: ${t} after ${this.#last}`);
    const u = t * TIME_UNITS;
    const whole = Number.isInteger(u);
    if (this.#onGrid && whole && u - this.#units < DELTA_LIMIT) {
      this.#vu((u - this.#units) * 2);
    } else {
      this.#buf[this.#n++] = 1;
      this.#f64[0] = t;
      for (let i = 0; i < 8; i++) this.#buf[this.#n++] = this.#b64[i];
      this.#onGrid = whole && Math.abs(u) <= Number.MAX_SAFE_INTEGER;
    }
    this.#units = u;
    this.#last = t;
  }

  #vu(v: number): void {
    const b = this.#buf;
    while (v >= 0x80) {
      b[this.#n++] = (v & 0x7f) | 0x80;
      v = Math.floor(v / 128);
    }
    b[this.#n++] = v;
  }

  #u32(v: number): void {
    const b = this.#buf;
    b[this.#n++] = v & 0xff;
    b[this.#n++] = (v >>> 8) & 0xff;
    b[this.#n++] = (v >>> 16) & 0xff;
    b[this.#n++] = v >>> 24;
  }
}

// ------------------------------------------------------------------ reading

/**
 * Reads records one at a time into its own fields, allocating nothing but a string per
 * peer. Every read is checked against the end of the file first; a record that runs past
 * it, an unknown kind, a peer never declared or a malformed time throws a RecordingError
 * that names the byte and the tick.
 */
export class RecordingReader {
  readonly file: Uint8Array;
  readonly header: RecordingHeader;
  /** Offset of the first record. */
  readonly bodyStart: number;
  /** Offset of the next record. */
  pos: number;
  /** The record just read: its kind and offset. */
  kind = 0;
  at = 0;
  /** Time of the last record that had one, ms (whole ms as an integer). */
  time: number;
  /** Ticks read so far. */
  ticks = 0;
  /** Datagram and Gone: the peer id (see address, port). */
  peer = 0;
  /** Datagram: where its bytes are in `file`, and how many. */
  dataAt = 0;
  dataLength = 0;
  /** Hash and End: the world's hash. */
  hash = 0;
  /** End: why, and the server's totals. */
  reason = 0;
  packetsOut = 0;
  bytesOut = 0;
  /** Set once End is read. */
  ended = false;
  readonly address: string[] = [];
  readonly port: number[] = [];
  #units = 0;
  #onGrid = true;
  readonly #f64 = new Float64Array(1);
  readonly #b64 = new Uint8Array(this.#f64.buffer);

  constructor(file: Uint8Array) {
    const { header, bodyStart } = decodeHeader(file);
    this.file = file;
    this.header = header;
    this.bodyStart = bodyStart;
    this.pos = bodyStart;
    this.time = header.start;
    this.#setUnits(header.start * TIME_UNITS);
  }

  /** Back to `pos`, a record's offset, where the time was `time` and `ticks` ticks had been read. */
  seek(pos: number, time: number, ticks: number): void {
    this.pos = pos;
    this.time = time;
    this.ticks = ticks;
    this.#setUnits(time * TIME_UNITS);
    this.ended = false;
  }

  /** Read the record at `pos` and step past it; returns its kind. After End, returns End again. */
  next(): number {
    if (this.ended) return Rec.End;
    const f = this.file;
    const end = f.length;
    const at = this.pos;
    this.at = at;
    if (at >= end) throw this.#error(`truncated: the file ends after tick ${this.ticks} without an end record`, at);
    const kind = f[at];
    let p = at + 1;
    this.kind = kind;
    switch (kind) {
      case Rec.Tick:
        this.pos = this.#time(p, kind, at);
        this.ticks++;
        return kind;
      case Rec.Datagram: {
        p = this.#peerAt(this.#time(p, kind, at), kind, at);
        p = this.#vu(p, kind, at);
        const n = this.#v;
        if (n > MAX_DATAGRAM) throw this.#error(`a datagram record's length, ${n}, is over ${MAX_DATAGRAM} bytes`, at);
        if (p + n > end) throw this.#cut(kind, at);
        this.dataAt = p;
        this.dataLength = n;
        this.pos = p + n;
        return kind;
      }
      case Rec.Gone:
        this.pos = this.#peerAt(this.#time(p, kind, at), kind, at);
        return kind;
      case Rec.Hash:
        if (p + 4 > end) throw this.#cut(kind, at);
        this.hash = this.#u32(p);
        this.pos = p + 4;
        return kind;
      case Rec.Peer: {
        p = this.#vu(p, kind, at);
        const id = this.#v;
        if (p + 5 > end) throw this.#cut(kind, at);
        const port = this.#u32(p);
        const n = f[p + 4];
        p += 5;
        if (p + n > end) throw this.#cut(kind, at);
        if (id > this.address.length) throw this.#error(`peer ${id} is declared before peer ${this.address.length}`, at);
        if (id === this.address.length) {
          let a = "";
          for (let i = 0; i < n; i++) a += String.fromCharCode(f[p + i]);
          this.address.push(a);
          this.port.push(port);
        }
        this.peer = id;
        this.pos = p + n;
        return kind;
      }
      case Rec.Mark:
        this.pos = p;
        return kind;
      case Rec.End:
        if (p >= end) throw this.#cut(kind, at);
        this.reason = f[p];
        p = this.#time(p + 1, kind, at);
        if (p + 12 > end) throw this.#cut(kind, at);
        this.hash = this.#u32(p);
        this.packetsOut = this.#u32(p + 4);
        this.bytesOut = this.#u32(p + 8);
        this.pos = p + 12;
        this.ended = true;
        return kind;
    }
    throw this.#error(`unknown record kind ${kind} (0x${kind.toString(16)})`, at);
  }

  /**
   * Read the Datagram record at `p` (a record's offset, its peer declared before) into
   * peer, dataAt and dataLength, leaving the position and the time as they are.
   */
  datagramAt(p: number): void {
    const f = this.file;
    if (p >= f.length || f[p] !== Rec.Datagram) throw this.#error("no datagram record here", p);
    let q = p + 1;
    if (q < f.length && f[q] === 1) q += 9;
    else q = this.#vu(q, Rec.Datagram, p);
    q = this.#vu(this.#peerAt(q, Rec.Datagram, p), Rec.Datagram, p);
    if (q + this.#v > f.length) throw this.#cut(Rec.Datagram, p);
    this.dataAt = q;
    this.dataLength = this.#v;
  }

  /** Value of the last #vu. */
  #v = 0;

  /** A vu at `p` into #v; returns the offset after it. */
  #vu(p: number, kind: number, at: number): number {
    const f = this.file;
    let v = 0;
    for (let shift = 0; ; shift += 7) {
      if (p >= f.length) throw this.#cut(kind, at);
      if (shift > 21) throw this.#error(`a ${KIND_NAMES[kind]} record has a number over 4 bytes long`, at);
      const b = f[p++];
      v |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    this.#v = v;
    return p;
  }

  /** A time field at `p` into `time`; returns the offset after it. */
  #time(p: number, kind: number, at: number): number {
    const f = this.file;
    if (p < f.length && f[p] === 1) {
      if (p + 9 > f.length) throw this.#cut(kind, at);
      const b = this.#b64;
      for (let i = 0; i < 8; i++) b[i] = f[p + 1 + i];
      const t = this.#f64[0];
      if (!(t >= this.time) || t === Infinity) throw this.#error(`a ${KIND_NAMES[kind]} record's time, ${t}, is before the last one's, ${this.time}`, at);
      this.#setUnits(t * TIME_UNITS);
      // A device's clock is whole ms; a Float64Array read is a double on XS even when whole.
      this.time = (t | 0) === t ? t | 0 : t;
      return p + 9;
    }
    p = this.#vu(p, kind, at);
    const v = this.#v;
    if ((v & 1) !== 0) throw this.#error(`a ${KIND_NAMES[kind]} record's time field is ${v}: of the odd values only 1 is used`, at);
    if (v === 0) return p;
    if (!this.#onGrid) throw this.#error(`a ${KIND_NAMES[kind]} record's time counts from one that is not a multiple of 1/${TIME_UNITS} ms`, at);
    const u = this.#units + (v >> 1);
    this.#units = u;
    this.time = u <= 0x7fffffff && u >= 0 && (u & (TIME_UNITS - 1)) === 0 ? u >> 10 : u / TIME_UNITS;
    return p;
  }

  /**
   * The time in units, and whether it is on the grid. Kept as an integer where it fits: on XS
   * a product read from a Float64Array is a double even when whole, and the sums and
   * comparisons of the next deltas would then be emulated floating-point operations,
   * more or fewer depending on how the reader got here (read on, or sought).
   */
  #setUnits(u: number): void {
    if ((u | 0) === u) {
      this.#units = u | 0;
      this.#onGrid = true;
    } else {
      this.#units = u;
      this.#onGrid = Number.isInteger(u) && Math.abs(u) <= 9007199254740991;
    }
  }

  #u32(p: number): number {
    const f = this.file;
    const v = f[p] | (f[p + 1] << 8) | (f[p + 2] << 16) | (f[p + 3] << 24);
    // Below 2^31 it stays an integer: on XS `>>> 0` makes a double, and a peer's port that is
    // a double would make every comparison the server makes with it a floating-point one.
    return v >= 0 ? v : v >>> 0;
  }

  /** A peer id at `p`, which must have been declared; returns the offset after it. */
  #peerAt(p: number, kind: number, at: number): number {
    p = this.#vu(p, kind, at);
    const id = this.#v;
    if (id >= this.address.length) throw this.#error(`a ${KIND_NAMES[kind]} record names peer ${id}, but only ${this.address.length} ${this.address.length === 1 ? "is" : "are"} declared`, at);
    this.peer = id;
    return p;
  }

  #cut(kind: number, at: number): RecordingError {
    return this.#error(`truncated: the ${KIND_NAMES[kind]} record runs past the end of the file`, at);
  }

  #error(what: string, at: number): RecordingError {
    return new RecordingError(`${what} (byte ${at}, after tick ${this.ticks})`, at);
  }
}
