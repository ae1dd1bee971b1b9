/**
 * Frame boundaries of the bytes a WebSocket client sends (RFC 6455, section 5.2), read
 * alongside `ws`, which reassembles fragmented messages and does not say it did. The
 * tracker sees every byte of the connection before `ws` does, and records for each data
 * message, in order, whether it came in more than one frame. The host takes one record per
 * message `ws` delivers. It only finds boundaries: `ws` checks everything else and closes
 * the connection on a protocol error.
 *
 *   byte 0   FIN (0x80), RSV1-3, opcode (low 4 bits: 0 continuation, 1 text, 2 binary, 8+ control)
 *   byte 1   MASK (0x80), payload length 0..125, or 126 (16-bit length follows), or 127 (64-bit)
 *   then     the extended length, the 4-byte masking key if MASK, the payload
 */
export class FrameTracker {
  readonly #head = new Uint8Array(14);
  #headLength = 0;
  /** Header bytes wanted: 2 until byte 1 tells the rest. */
  #headWanted = 2;
  /** Payload bytes of the current frame still to pass over. */
  #skip = 0;
  #fragmented = false;
  /** One entry per complete data message: true if it was fragmented. */
  readonly #done: boolean[] = [];

  /** Bytes as they arrive on the socket. */
  feed(chunk: Uint8Array): void {
    const head = this.#head;
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      if (this.#skip > 0) {
        const step = Math.min(this.#skip, n - i);
        this.#skip -= step;
        i += step;
        continue;
      }
      head[this.#headLength++] = chunk[i++];
      if (this.#headLength === 2) {
        const len7 = head[1] & 0x7f;
        this.#headWanted = 2 + (len7 === 126 ? 2 : len7 === 127 ? 8 : 0) + (head[1] & 0x80 ? 4 : 0);
      }
      if (this.#headLength === this.#headWanted) {
        this.#frame();
        this.#headLength = 0;
        this.#headWanted = 2;
      }
    }
  }

  #frame(): void {
    const head = this.#head;
    const len7 = head[1] & 0x7f;
    let length = len7;
    if (len7 === 126) length = (head[2] << 8) | head[3];
    else if (len7 === 127) {
      // 64-bit length: ws closes the connection past its maxPayload, long before 2^53.
      length = 0;
      for (let k = 2; k < 10; k++) length = length * 256 + head[k];
    }
    this.#skip = length;
    const fin = (head[0] & 0x80) !== 0;
    const opcode = head[0] & 0x0f;
    if (opcode >= 8) return; // control frames sit between fragments and carry no message
    if (opcode !== 0) this.#fragmented = !fin;
    if (fin) {
      this.#done.push(opcode === 0 || this.#fragmented);
      this.#fragmented = false;
    }
  }

  /** Whether the oldest message not yet taken came in fragments (false if none is known). */
  take(): boolean {
    return this.#done.length > 0 ? (this.#done.shift() as boolean) : false;
  }

  /** Messages seen but not yet taken. */
  get pending(): number {
    return this.#done.length;
  }
}
