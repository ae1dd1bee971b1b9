/**
 * The WebSocket protocol as the board's web transport needs it (RFC 6455), free of any
 * SDK module so that Node tests can run it: the upgrade request's headers, the
 * Sec-WebSocket-Accept input, and a reader for the frames a client sends.
 *
 * A frame:
 *   byte 0   FIN (0x80), RSV1-3 (0x70), opcode (low 4 bits: 0 continuation, 1 text,
 *            2 binary, 8 close, 9 ping, 10 pong)
 *   byte 1   MASK (0x80), payload length 0..125, or 126 (16-bit length follows), or 127 (64-bit)
 *   then     the extended length, the 4-byte masking key (always there from a client), the payload
 */

/** Appended to Sec-WebSocket-Key before hashing with SHA-1 (RFC 6455, section 1.3). */
export const WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

/** What the reader found; `FrameReader.step` stops after each of these but `None`. */
export const Frame = Object.freeze({
  /** Nothing complete yet: all bytes given were consumed. */
  None: 0,
  /** A binary message in one frame: `length` bytes, in `payload` when `length <= capacity`. */
  Binary: 1,
  /** A text message (dropped: packets travel as binary messages). */
  Text: 2,
  /** The last frame of a message that came in more than one (dropped). */
  Fragmented: 3,
  /** Ping: answer Pong with the `length` bytes in `payload`. */
  Ping: 4,
  /** Pong: nothing to do. */
  Pong: 5,
  /** The client closes: `code` is its status code (1005 when it gave none). */
  Close: 6,
  /** A protocol error: close the connection with `code`. The reader passes over anything after. */
  Error: 7,
} as const);

/** Close codes of RFC 6455, section 7.4.1, that the reader gives. */
export const Status = Object.freeze({
  NoStatus: 1005,
  ProtocolError: 1002,
  PolicyViolation: 1008,
  TooBig: 1009,
} as const);

/** A message longer than this closes the connection (1009), as the Node host's `ws` does. */
export const MAX_MESSAGE = 65536;
/** A message in more frames than this closes the connection (1008), as on the Node host. */
export const MAX_FRAGMENTS = 64;

const HEAD_MAX = 14;
const CONTROL_MAX = 125;

/**
 * Reads the bytes a client sends, in pieces as the socket gives them, and finds its
 * frames. Binary payloads up to `capacity` bytes are unmasked into `payload`; anything
 * else is passed over without being stored, so the reader's memory is fixed: one
 * ArrayBuffer of HEAD_MAX + capacity bytes, allocated in the constructor.
 */
export class FrameReader {
  /** The last binary message, ping or close payload, unmasked. */
  readonly payload: Uint8Array;
  /** Payload length of the message `step` stopped for. */
  length = 0;
  /** Close or error code of the event `step` stopped for. */
  code = 0;
  readonly #head: Uint8Array;
  #headLength = 0;
  #headWanted = 2;
  /** Payload bytes of the current frame still to come. */
  #remaining = 0;
  /** Where the next payload byte goes in `payload`; -1 passes it over. */
  #at = -1;
  /** What the current frame ends in. */
  #event: number = Frame.None;
  /** Frames of the fragmented message under way; 0 when none is. */
  #fragments = 0;
  #fragmentBytes = 0;
  #dead = false;
  /** What `step` stopped for. */
  event: number = Frame.None;

  constructor(capacity: number) {
    const buffer = new ArrayBuffer(HEAD_MAX + Math.max(capacity, CONTROL_MAX));
    this.#head = new Uint8Array(buffer, 0, HEAD_MAX);
    this.payload = new Uint8Array(buffer, HEAD_MAX);
  }

  /** Ready for a new connection: no frame under way, not dead. The buffer is kept. */
  reset(): void {
    this.#headLength = 0;
    this.#headWanted = 2;
    this.#remaining = 0;
    this.#at = -1;
    this.#event = Frame.None;
    this.#fragments = 0;
    this.#fragmentBytes = 0;
    this.#dead = false;
    this.event = Frame.None;
    this.length = 0;
    this.code = 0;
  }

  /** Whether the reader stopped for good after a protocol error. */
  get dead(): boolean {
    return this.#dead;
  }

  /**
   * Reads `bytes[from .. to)` until the end or the first event. Returns where it stopped;
   * `event` says what it found there (Frame.None when it reached `to` with nothing complete).
   */
  step(bytes: Uint8Array, from: number, to: number): number {
    this.event = Frame.None;
    // After an error, bytes are passed over unread.
    if (this.#dead) return to;
    let i = from;
    while (i < to) {
      if (this.#headLength < this.#headWanted) {
        const head = this.#head;
        head[this.#headLength++] = bytes[i++];
        if (this.#headLength === 2) {
          const len7 = head[1] & 0x7f;
          this.#headWanted = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (head[1] & 0x80 ? 4 : 0);
        }
        if (this.#headLength === this.#headWanted && this.#begin()) return i;
        continue;
      }
      // Payload bytes of the current frame.
      let n = to - i;
      if (n > this.#remaining) n = this.#remaining;
      const at = this.#at;
      if (at >= 0) {
        const head = this.#head;
        const m = this.#headWanted - 4;
        const payload = this.payload;
        for (let k = 0; k < n; k++) payload[at + k] = bytes[i + k] ^ head[m + ((at + k) & 3)];
        this.#at = at + n;
      }
      i += n;
      this.#remaining -= n;
      if (this.#remaining === 0 && this.#end()) return i;
    }
    return i;
  }

  /** The header is complete: decide what to do with the payload. Returns true on an event. */
  #begin(): boolean {
    const head = this.#head;
    const fin = (head[0] & 0x80) !== 0;
    const opcode = head[0] & 0x0f;
    const len7 = head[1] & 0x7f;
    let length = len7;
    if (len7 === 126) length = (head[2] << 8) | head[3];
    else if (len7 === 127) {
      // Over 2^32 is too big whatever the low half says.
      const high = (head[2] << 24) | (head[3] << 16) | (head[4] << 8) | head[5];
      length = high !== 0 ? MAX_MESSAGE + 1 : ((head[6] << 24) | (head[7] << 16) | (head[8] << 8) | head[9]) >>> 0;
    }
    this.#remaining = length;
    this.#at = -1;
    this.#event = Frame.None;
    if ((head[0] & 0x70) !== 0 || (head[1] & 0x80) === 0) return this.#fail(Status.ProtocolError);
    if (opcode >= 8) {
      if (!fin || length > CONTROL_MAX || opcode > 10) return this.#fail(Status.ProtocolError);
      this.#event = opcode === 8 ? Frame.Close : opcode === 9 ? Frame.Ping : Frame.Pong;
      this.#at = 0;
    } else if (opcode === 0) {
      if (this.#fragments === 0) return this.#fail(Status.ProtocolError);
      if (++this.#fragments > MAX_FRAGMENTS) return this.#fail(Status.PolicyViolation);
      this.#fragmentBytes += length;
      if (this.#fragmentBytes > MAX_MESSAGE) return this.#fail(Status.TooBig);
      if (fin) this.#event = Frame.Fragmented;
    } else if (opcode === 1 || opcode === 2) {
      if (this.#fragments !== 0) return this.#fail(Status.ProtocolError);
      if (length > MAX_MESSAGE) return this.#fail(Status.TooBig);
      if (!fin) {
        this.#fragments = 1;
        this.#fragmentBytes = length;
      } else if (opcode === 1) this.#event = Frame.Text;
      else {
        this.#event = Frame.Binary;
        if (length <= this.payload.length) this.#at = 0;
      }
    } else return this.#fail(Status.ProtocolError);
    this.length = length;
    return length === 0 ? this.#end() : false;
  }

  /** The payload is complete. Returns true on an event. */
  #end(): boolean {
    this.#headLength = 0;
    this.#headWanted = 2;
    const event = this.#event;
    if (event === Frame.None) return false;
    if (event === Frame.Fragmented) {
      this.length = this.#fragmentBytes;
      this.#fragments = 0;
      this.#fragmentBytes = 0;
    } else if (event === Frame.Close) {
      const n = this.#at;
      this.length = n;
      if (n === 1) return this.#fail(Status.ProtocolError);
      this.code = n >= 2 ? (this.payload[0] << 8) | this.payload[1] : Status.NoStatus;
    } else if (event === Frame.Ping || event === Frame.Pong) this.length = this.#at;
    this.event = event;
    return true;
  }

  #fail(code: number): boolean {
    this.#dead = true;
    this.code = code;
    this.event = Frame.Error;
    return true;
  }
}

/** The headers of an upgrade request that matter, read by `upgradeRequest`. */
export interface Upgrade {
  /** Sec-WebSocket-Key, or "" when the request is not a valid WebSocket upgrade. */
  key: string;
  /** Why not, for a 400 response. */
  problem: string;
}

/**
 * Reads the header lines of an upgrade request (the request line already read), up to the
 * empty line. Header names are case-insensitive; Connection may list several tokens.
 */
export function upgradeRequest(head: string): Upgrade {
  let upgrade = false;
  let connection = false;
  let version = false;
  let key = "";
  for (const line of head.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (name === "upgrade") upgrade = value.toLowerCase() === "websocket";
    else if (name === "connection") {
      for (const token of value.split(",")) if (token.trim().toLowerCase() === "upgrade") connection = true;
    } else if (name === "sec-websocket-version") version = value === "13";
    else if (name === "sec-websocket-key") key = value;
  }
  const problem = !upgrade ? "no Upgrade: websocket" : !connection ? "no Connection: Upgrade" : !version ? "not Sec-WebSocket-Version 13" : key.length !== 24 ? "no Sec-WebSocket-Key" : "";
  return { key: problem === "" ? key : "", problem };
}
