/**
 * lwar Rev 1 packets and messages: validation, and each message's write and read
 * under the layout it implements. All integers are big-endian. See docs/protocol.md.
 *
 * Writers take (buffer, offset, ...) and return the offset after what they wrote;
 * they are used on packet buffers and on the reliable queues alike. Readers fill a
 * preallocated `Fields` object. Nothing here allocates.
 */
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../input";
import { HEADER_ACK, HEADER_APP_ID, HEADER_REL, HEADER_TIMESTAMP, HEADER_UNREL } from "../transport/frame";
import { ONE_UNRELIABLE_AT, SHAPE_ANY, SHAPE_NONE, SHAPE_ONE_UNRELIABLE } from "../transport/receive";
import { getU16, getU32, setU16, setU32, getI16 } from "./bytes";
import { Counter } from "./counters";
import {
  APP_ID, CHAT_LENGTH, HEADER_SIZE, MAX_PACKET, MAX_PLAYERS, Msg, NAME_LENGTH,
  RELIABLE_HEADER, TYPE_BASE, TYPE_ROWS, UNRELIABLE_HEADER, UPDATE_ENTRY, UPDATE_HEALTH_MAX, typeTable, types,
} from "./constants";

/* Packet header, 14 bytes
 *  0  uint32  appId      0xf27087c5
 *  4  uint32  ack        seqno of the last reliable message processed, 0xFFFFFFFF before any
 *  8  uint32  timestamp  sender's monotonic ms (mod 2^32)
 * 12  uint8   rel        number of reliable messages
 * 13  uint8   unrel      number of unreliable messages
 * then rel × { uint32 seqno, uint8 type, payload }, then unrel × { uint8 type, payload }
 */
export function writeHeader(b: Uint8Array, ack: number, timestamp: number, rel: number, unrel: number): number {
  setU32(b, HEADER_APP_ID, APP_ID);
  setU32(b, HEADER_ACK, ack);
  setU32(b, HEADER_TIMESTAMP, timestamp);
  b[HEADER_REL] = rel;
  b[HEADER_UNREL] = unrel;
  return HEADER_SIZE;
}
// The header's fields, read: the transport's framing (modules/transport/frame.ts).
export { headerAck, headerRel, headerTimestamp, headerUnrel } from "../transport/frame";

/** Payload size of a message of a known type starting at `o`, or -1 if it runs past `end`
 * (for Chat: -2 when no NUL is found before the 128-byte limit or the packet's end;
 * for Name: -3 when unterminated). */
export function payloadSize(b: Uint8Array, o: number, type: number, end: number): number {
  const fixed = typeTable().size[type - TYPE_BASE];
  if (fixed >= 0) {
    if (type === Msg.Name) return nameSize(b, null, o, end);
    return o + fixed > end ? -1 : fixed;
  }
  if (type === Msg.Update) {
    if (o + 1 > end) return -1;
    const size = 1 + b[o] * UPDATE_ENTRY;
    return o + size > end ? -1 : size;
  }
  return chatSize(b, null, o, end);
}

/** A Chat's payload size at `o` (id, then at most CHAT_LENGTH bytes including the NUL): -1 past `end`, -2 unterminated. */
function chatSize(b: Uint8Array, v: DataView | null, o: number, end: number): number {
  if (o + 4 > end) return -1;
  const limit = o + 4 + CHAT_LENGTH;
  const at = nulAt(b, v, o + 4, end < limit ? end : limit);
  return at < 0 ? -2 : at + 1 - o;
}

/** A Name's payload size at `o` (id, then NAME_LENGTH bytes holding a NUL): -1 past `end`, -3 unterminated. */
function nameSize(b: Uint8Array, v: DataView | null, o: number, end: number): number {
  if (o + 4 + NAME_LENGTH > end) return -1;
  return nulAt(b, v, o + 4, o + 4 + NAME_LENGTH) < 0 ? -3 : 4 + NAME_LENGTH;
}

/**
 * Where the first NUL of `b` in [from, stop) is, or -1. `v`, a DataView of `b` from its
 * byte 0 (made here when null), reads four bytes a call until a word holds the NUL: on XS a
 * call costs about what one byte's read does.
 */
function nulAt(b: Uint8Array, v: DataView | null, from: number, stop: number): number {
  let i = from;
  if (i + 4 <= stop) {
    const view = v !== null ? v : new DataView(b.buffer, b.byteOffset, b.byteLength);
    // A word with a zero byte has (w - 0x01010101) & ~w & 0x80808080 set.
    for (; i + 4 <= stop; i += 4) {
      const w = view.getInt32(i, true);
      if (((w - ONES) & ~w & TOP_BITS) !== 0) break;
    }
  }
  for (; i < stop; i++) if (b[i] === 0) return i;
  return -1;
}

/** Bumps the counter for a bad payloadSize() result. */
function countBadSize(size: number, counters: Uint32Array): void {
  if (size === -2) counters[Counter.UnterminatedChat]++;
  else if (size === -3) counters[Counter.UnterminatedName]++;
  else counters[Counter.Truncated]++;
}

/** Most messages one valid packet can hold: 512 bytes of 2-byte Updates after the header. */
export const MAX_MESSAGES = (MAX_PACKET - HEADER_SIZE) >> 1;

/** APP_ID as a signed 32-bit integer, as DataView.getInt32 reads it. */
const APP_ID_I32 = APP_ID | 0;
/** Bytes 12..14 (HEADER_REL, HEADER_UNREL, the first type) of an ack + Input packet: 0 reliable, 1 unreliable, type Input. */
const INPUT_SHAPE = (1 << 8) | Msg.Input;
/** An ack alone: the header. An ack with one Input: then the Input's type, and its five booleans at INPUT_AT. */
const ACK_LENGTH = HEADER_SIZE;
/** Where the Input of an ack + Input datagram starts (its payload: the five booleans). */
export const INPUT_AT = ONE_UNRELIABLE_AT;
const ACK_INPUT_LENGTH = INPUT_AT + 5;

/**
 * What shapeFromClient found: an ack alone; an ack + Input; anything else, which
 * validatePacket (FROM_CLIENT) is still to check, recording its offsets. They are the
 * transport's shapes, as its receive step (transport/receive.ts) takes them.
 */
export const SHAPE_ACK = SHAPE_NONE;
export const SHAPE_ACK_INPUT = SHAPE_ONE_UNRELIABLE;
export const SHAPE_OTHER = SHAPE_ANY;

/*
 * What clients send most, checked first:
 * an ack alone, 14 bytes: the header with 0 reliable and 0 unreliable messages;
 * an ack and one Input, 20 bytes: the header with 0 reliable and 1 unreliable, then
 *   14  uint8  type (Input)  15..19  the Input's five booleans.
 * Both are valid exactly when the app id and the counts and type bytes match: two DataView
 * reads tell (on XS each typed-array access is costly), and the shape returned lets the
 * receiver act on them without reading the counts again. Any other is SHAPE_OTHER, and
 * valid only if validatePacket says so. `v` views the datagram from its byte 0.
 *
 * Only `v` and the length: the receive buffer and the offsets validatePacket needs are read
 * by the caller only for another shape (on XS each read of a field of the server's state is
 * about as costly as a typed-array access).
 */
export function shapeFromClient(v: DataView, length: number): number {
  if ((length === ACK_LENGTH || length === ACK_INPUT_LENGTH) && v.getInt32(HEADER_APP_ID) === APP_ID_I32) {
    const shape = v.getInt32(HEADER_REL) >> 8;
    if (length === ACK_LENGTH) {
      if (shape >> 8 === 0) return SHAPE_ACK;
    } else if (shape === INPUT_SHAPE) return SHAPE_ACK_INPUT;
  }
  return SHAPE_OTHER;
}

/**
 * Check a whole packet before anything in it is acted on. `from` is FROM_CLIENT or
 * FROM_SERVER: the side that sent it. Returns false, with one counter bumped, on:
 * too short, too long, wrong appId, unknown type, a type in the wrong section, a type the
 * sender may not send, a truncated message, an unterminated chat or name, or non-zero
 * bytes after the last message (zero padding is accepted).
 *
 * With `offsets` (MAX_MESSAGES long), the payload offset of each message is recorded as
 * it is checked, so the receiver walks the messages from there instead of measuring them
 * again: message m's type is b[offsets[m] - 1], and a reliable one's seqno the 4 bytes
 * before that. This is the one walk over a received packet, for server and client alike.
 * `view`, a DataView of `b` from its byte 0, lets a Chat's text be read four bytes a call
 * (the receiver's own; without it one is made for each Chat).
 */
export function validatePacket(b: Uint8Array, length: number, from: number, counters: Uint32Array, offsets?: Uint16Array, view: DataView | null = null): boolean {
  if (length < HEADER_SIZE) {
    counters[Counter.TooShort]++;
    return false;
  }
  if (length > MAX_PACKET) {
    counters[Counter.TooLong]++;
    return false;
  }
  // APP_ID 0xf27087c5, byte by byte: as one number it is above 2^31, a double on XS.
  const id = HEADER_APP_ID;
  if (b[id] !== 0xf2 || b[id + 1] !== 0x70 || b[id + 2] !== 0x87 || b[id + 3] !== 0xc5) {
    counters[Counter.BadAppId]++;
    return false;
  }
  const t = types !== null ? types : typeTable();
  const sizes = t.size;
  const senders = t.senders;
  const reliableRow = t.reliable;
  let o = HEADER_SIZE;
  const rel = b[HEADER_REL];
  const total = rel + b[HEADER_UNREL];
  for (let m = 0; m < total; m++) {
    const reliable = m < rel;
    const p = o + (reliable ? RELIABLE_HEADER : UNRELIABLE_HEADER);
    if (p > length) {
      counters[Counter.Truncated]++;
      return false;
    }
    const type = b[p - 1];
    const row = type - TYPE_BASE;
    const sender = row >= 0 && row < TYPE_ROWS ? senders[row] : 0;
    if (sender === 0) {
      counters[Counter.UnknownType]++;
      return false;
    }
    if ((reliableRow[row] === 1) !== reliable) {
      counters[Counter.WrongChannel]++;
      return false;
    }
    if ((sender & from) === 0) {
      counters[Counter.WrongDirection]++;
      return false;
    }
    let size: number;
    if (type === Msg.Chat) size = chatSize(b, view, p, length);
    else if (type === Msg.Name) size = nameSize(b, view, p, length);
    else {
      size = sizes[row];
      if (size < 0) size = payloadSize(b, p, type, length);
      else if (p + size > length) size = -1;
    }
    if (size < 0) {
      countBadSize(size, counters);
      return false;
    }
    if (offsets !== undefined) offsets[m] = p;
    o = p + size;
  }
  for (; o < length; o++) {
    if (b[o] !== 0) {
      counters[Counter.TrailingBytes]++;
      return false;
    }
  }
  return true;
}

/** Printable ASCII, what chat lines and names may hold: PRINTABLE_FIRST..PRINTABLE_LAST. */
export const PRINTABLE_FIRST = 0x20;
export const PRINTABLE_LAST = 0x7e;

/** Scratch fields filled by the readers below; one instance per endpoint. */
export class Fields {
  id = 0;
  other = 0;
  a = 0;
  b = 0;
  /** Offset and length of a byte string (chat text without NUL, name without padding). */
  textOffset = 0;
  textLength = 0;
  /** Non-zero when that string holds a byte outside printable ASCII (PRINTABLE_FIRST..PRINTABLE_LAST), found in the same walk. */
  unprintable = 0;
  /**
   * The bytes the text readers last read and a DataView of them, through which they read
   * four bytes at a time: made once for each buffer this Fields reads (an owner that reads
   * one buffer makes it once), or given with `use`.
   */
  bytes: Uint8Array | null = null;
  view: DataView | null = null;
  /** The view's byteLength (on XS a getter costs about a call). */
  viewLength = 0;

  /** Read `bytes` through `view` (a DataView of the same bytes from the same offset 0), which the owner already has. */
  use(bytes: Uint8Array, view: DataView): void {
    this.bytes = bytes;
    this.view = view;
    this.viewLength = view.byteLength;
  }

  /** A DataView of `b` from its offset 0: the one made for it when `b` was the last buffer read, else a new one. */
  viewOf(b: Uint8Array): DataView {
    if (this.bytes !== b) this.use(b, new DataView(b.buffer, b.byteOffset, b.byteLength));
    return this.view as DataView;
  }
}

/** Bytes 0x80 and up, 0x7f (+1 reaches 0x80) and below 0x20 (−0x20 borrows) set their byte's top bit. */
const TOP_BITS = 0x80808080 | 0;
const ONES = 0x01010101;
const SPACES = 0x20202020;

/**
 * A NUL-terminated string at `from` in `v`'s bytes, at most `max` bytes before its NUL (a
 * multiple of 4): its length, and whether a byte before the NUL is outside printable
 * ASCII, into `f`. Four bytes a read: on XS a DataView read costs about as much as one
 * typed-array element, and a word whose bytes are all printable costs a few integer
 * operations more; a word with a NUL or a byte outside is then looked at byte by byte.
 * Past the end of the bytes, the string is unterminated: its length runs to the end and
 * it counts as unprintable (the readers are for validated messages, which never do this).
 */
function readText(v: DataView, from: number, max: number, f: Fields): void {
  const stop = from + max;
  const length = f.viewLength;
  const last = length - 4;
  let bad = 0;
  let at = from;
  for (; at < stop; at += 4) {
    // Little-endian: the string's first byte is the word's lowest. Near the end of the
    // bytes, the last word shifted down to `at`, and past the end nothing: the zeros read
    // as a NUL at or past the end.
    const w = at <= last ? v.getInt32(at, true) : at < length ? v.getInt32(last, true) >>> ((at - last) << 3) : 0;
    if (((w | (w - SPACES) | (w + ONES)) & TOP_BITS) === 0) continue;
    for (let k = 0; k < 32; k += 8) {
      const c = (w >> k) & 0xff;
      if (c === 0) {
        const n = at + (k >> 3) - from;
        f.textLength = n;
        f.unprintable = bad | (at + (k >> 3) >= length ? 1 : 0);
        return;
      }
      if (c < PRINTABLE_FIRST || c > PRINTABLE_LAST) bad = 1;
    }
  }
  f.textLength = max;
  f.unprintable = bad;
}

/* Connect, Disconnect: no payload. */

/* Join, Leave, Remove: 4 bytes
 * 0  uint32(Id)  playerId (Join, Leave) or entityId (Remove)
 */
export function writeId(b: Uint8Array, o: number, id: number): number {
  setU32(b, o, id);
  return o + 4;
}
export function readId(b: Uint8Array, o: number): number {
  return getU32(b, o);
}

/* Chat: 5..132 bytes
 * 0  uint32(Id)  playerId
 * 4  uint8[]     message, ASCII, NUL-terminated, at most 128 bytes with the NUL
 */
export function chatPayloadSize(textLength: number): number {
  return 4 + textLength + 1;
}
/** Writes id, `length` bytes of `text` from `from`, and the NUL. `length` must be < 128. */
export function writeChat(b: Uint8Array, o: number, id: number, text: Uint8Array, from: number, length: number): number {
  if (length >= CHAT_LENGTH) throw new RangeError(`chat text of ${length} bytes exceeds ${CHAT_LENGTH - 1}`);
  setU32(b, o, id);
  o += 4;
  for (let i = 0; i < length; i++) b[o + i] = text[from + i];
  b[o + length] = 0;
  return o + length + 1;
}
export function readChat(b: Uint8Array, o: number, f: Fields): void {
  const v = f.bytes === b ? (f.view as DataView) : f.viewOf(b);
  f.id = v.getUint32(o);
  f.textOffset = o + 4;
  readText(v, o + 4, CHAT_LENGTH, f);
}

/* Add: 9 bytes
 * 0  uint32(Id)  entityId
 * 4  uint32(Id)  playerId (0xFFFFFFFF: no owner)
 * 8  uint8       typeId
 */
export function writeAdd(b: Uint8Array, o: number, entityId: number, playerId: number, typeId: number): number {
  setU32(b, o, entityId);
  setU32(b, o + 4, playerId);
  b[o + 8] = typeId;
  return o + 9;
}
export function readAdd(b: Uint8Array, o: number, f: Fields): void {
  f.id = getU32(b, o);
  f.other = getU32(b, o + 4);
  f.a = b[o + 8];
}

/* Selection: 6 bytes
 * 0  uint32(Id)  playerId
 * 4  uint8       shipType
 * 5  uint8       weaponType
 */
export function writeSelection(b: Uint8Array, o: number, id: number, ship: number, weapon: number): number {
  setU32(b, o, id);
  b[o + 4] = ship;
  b[o + 5] = weapon;
  return o + 6;
}
export function readSelection(b: Uint8Array, o: number, f: Fields): void {
  f.id = getU32(b, o);
  f.a = b[o + 4];
  f.b = b[o + 5];
}

/* Name: 36 bytes
 * 0  uint32(Id)  playerId
 * 4  uint8[32]   name, ASCII, NUL-terminated, NUL-padded
 */
export function writeName(b: Uint8Array, o: number, id: number, name: Uint8Array, from: number, length: number): number {
  if (length >= NAME_LENGTH) throw new RangeError(`name of ${length} bytes exceeds ${NAME_LENGTH - 1}`);
  setU32(b, o, id);
  o += 4;
  for (let i = 0; i < NAME_LENGTH; i++) b[o + i] = i < length ? name[from + i] : 0;
  return o + NAME_LENGTH;
}
export function readName(b: Uint8Array, o: number, f: Fields): void {
  const v = f.bytes === b ? (f.view as DataView) : f.viewOf(b);
  f.id = v.getUint32(o);
  f.textOffset = o + 4;
  readText(v, o + 4, NAME_LENGTH, f);
}

/* Stats: 32 bytes, indexed by player slot, 0 for empty slots
 *  0  uint16[8]  scores
 * 16  uint16[8]  pings (smoothed round-trip time, ms)
 */
export function writeStats(b: Uint8Array, o: number, scores: Uint16Array, pings: Uint16Array): number {
  for (let i = 0; i < MAX_PLAYERS; i++) {
    setU16(b, o + 2 * i, scores[i]);
    setU16(b, o + 2 * MAX_PLAYERS + 2 * i, pings[i]);
  }
  return o + 4 * MAX_PLAYERS;
}
export function readStats(b: Uint8Array, o: number, scores: Uint16Array, pings: Uint16Array): void {
  for (let i = 0; i < MAX_PLAYERS; i++) {
    scores[i] = getU16(b, o + 2 * i);
    pings[i] = getU16(b, o + 2 * MAX_PLAYERS + 2 * i);
  }
}

/* Update: 1 + 15 × num bytes
 * 0  uint8  num
 * then num × {
 *  0  uint32(Id)  entityId
 *  4  int16       x        world units
 *  6  int16       y
 *  8  int16       vx       world units per second
 * 10  int16       vy
 * 12  uint16      rot      degrees × 100, 0..35999
 * 14  uint8       health   0..100
 * }
 * The writer is split: writeUpdateStart reserves `num` and returns where the first entry
 * goes; the entries follow (writeUpdateEntry, or copies of entries it wrote before);
 * writeUpdateNum writes `num` last, once the caller knows it.
 */
export function writeUpdateStart(b: Uint8Array, o: number): number {
  b[o] = 0;
  return o + 1;
}
/** `num` of the Update whose payload starts at `o` (writeUpdateStart's `o`). */
export function writeUpdateNum(b: Uint8Array, o: number, num: number): void {
  b[o] = num;
}
export function writeUpdateEntry(
  b: Uint8Array, o: number, id: number, x: number, y: number, vx: number, vy: number, rot: number, health: number,
): number {
  // Integers in, wire units already (modules/units.ts converts); only clamped here. Hand-
  // inlined: on XS each call costs more than this arithmetic.
  b[o] = id >>> 24;
  b[o + 1] = id >>> 16;
  b[o + 2] = id >>> 8;
  b[o + 3] = id;
  let n = x < -32768 ? -32768 : x > 32767 ? 32767 : x;
  b[o + 4] = n >> 8;
  b[o + 5] = n;
  n = y < -32768 ? -32768 : y > 32767 ? 32767 : y;
  b[o + 6] = n >> 8;
  b[o + 7] = n;
  n = vx < -32768 ? -32768 : vx > 32767 ? 32767 : vx;
  b[o + 8] = n >> 8;
  b[o + 9] = n;
  n = vy < -32768 ? -32768 : vy > 32767 ? 32767 : vy;
  b[o + 10] = n >> 8;
  b[o + 11] = n;
  n = rot < 0 || rot >= 36000 ? 0 : rot;
  b[o + 12] = n >> 8;
  b[o + 13] = n;
  b[o + 14] = health > UPDATE_HEALTH_MAX ? UPDATE_HEALTH_MAX : health;
  return o + UPDATE_ENTRY;
}
/** Update field readers; `o` is the payload offset, `e` an entry's offset (o + 1 + 15 × i). */
export function updateCount(b: Uint8Array, o: number): number {
  return b[o];
}
export function updateEntryId(b: Uint8Array, e: number): number {
  return getU32(b, e);
}
export function updateEntryX(b: Uint8Array, e: number): number {
  return getI16(b, e + 4);
}
export function updateEntryY(b: Uint8Array, e: number): number {
  return getI16(b, e + 6);
}
export function updateEntryVx(b: Uint8Array, e: number): number {
  return getI16(b, e + 8);
}
export function updateEntryVy(b: Uint8Array, e: number): number {
  return getI16(b, e + 10);
}
export function updateEntryRot(b: Uint8Array, e: number): number {
  return getU16(b, e + 12);
}
export function updateEntryHealth(b: Uint8Array, e: number): number {
  return b[e + 14];
}

/* Input: 5 bytes, each a boolean (non-zero = true)
 * 0 forward, 1 backward, 2 left, 3 right, 4 shooting; as bits, modules/input.ts
 */
export { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING };
export function writeInput(b: Uint8Array, o: number, bits: number): number {
  b[o] = bits & INPUT_FORWARD ? 1 : 0;
  b[o + 1] = bits & INPUT_BACKWARD ? 1 : 0;
  b[o + 2] = bits & INPUT_LEFT ? 1 : 0;
  b[o + 3] = bits & INPUT_RIGHT ? 1 : 0;
  b[o + 4] = bits & INPUT_SHOOTING ? 1 : 0;
  return o + 5;
}
/** The five booleans as a bit set (INPUT_*). */
export function readInput(b: Uint8Array, o: number): number {
  return (
    (b[o] ? INPUT_FORWARD : 0) | (b[o + 1] ? INPUT_BACKWARD : 0) | (b[o + 2] ? INPUT_LEFT : 0) |
    (b[o + 3] ? INPUT_RIGHT : 0) | (b[o + 4] ? INPUT_SHOOTING : 0)
  );
}
/**
 * readInput for the server's receive path: the first four booleans with one DataView read
 * (`v` views the same bytes as `b`, from the same offset 0). On XS each typed-array access
 * costs about as much as a call, so this is cheaper than five byte reads.
 */
export function readInputView(v: DataView, b: Uint8Array, o: number): number {
  const w = v.getInt32(o);
  // The top byte by a shift: 0xff000000 is above 2^31, a double on XS, and masking with it
  // is an emulated floating-point operation on a board without an FPU for doubles.
  return (w >> 24 !== 0 ? INPUT_FORWARD : 0) | ((w & 0xff0000) !== 0 ? INPUT_BACKWARD : 0) |
    ((w & 0xff00) !== 0 ? INPUT_LEFT : 0) | ((w & 0xff) !== 0 ? INPUT_RIGHT : 0) | (b[o + 4] !== 0 ? INPUT_SHOOTING : 0);
}

/* Reject (extension, unreliable, server to client): 1 byte
 * 0  uint8  reason   1 = server full
 */
export function writeReject(b: Uint8Array, o: number, reason: number): number {
  b[o] = reason;
  return o + 1;
}
export function readReject(b: Uint8Array, o: number): number {
  return b[o];
}
