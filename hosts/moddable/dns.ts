/**
 * The captive portal's DNS answer (RFC 1035), free of any SDK module: every standard query
 * for a name of class IN is answered, authoritatively, with the board's own IPv4 address
 * for type A (and ANY), and with no record, but no error either, for every other type
 * (AAAA above all: a phone that hears nothing waits for a timeout before it tries A).
 */

/** Seconds a phone may keep an answer: short, since the names are only borrowed. */
export const DNS_TTL = 10;
const HEADER = 12;
const TYPE_A = 1;
const TYPE_ANY = 255;
const CLASS_IN = 1;

/** "192.168.4.1" as 4 bytes into `out`; false when it is not a dotted IPv4 address. */
export function ipv4Bytes(address: string, out: Uint8Array): boolean {
  const parts = address.split(".");
  if (parts.length !== 4) return false;
  for (let i = 0; i < 4; i++) {
    const n = Number(parts[i]);
    if (parts[i] === "" || !Number.isInteger(n) || n < 0 || n > 255) return false;
    out[i] = n;
  }
  return true;
}

/**
 * Writes into `out` the answer to the query in `query[0 .. length)`, with `ip` (4 bytes) as
 * the address of every name. Returns the answer's length, or 0 when the datagram gets no
 * answer: a response, not a standard query, not exactly one question, a malformed or
 * compressed name, or one that does not fit `out`.
 */
export function answerQuery(query: Uint8Array, length: number, ip: Uint8Array, out: Uint8Array): number {
  if (length < HEADER + 5) return 0;
  const flags = query[2];
  // QR must be 0 (a query) and the opcode 0 (standard query).
  if ((flags & 0x80) !== 0 || (flags & 0x78) !== 0) return 0;
  if (query[4] !== 0 || query[5] !== 1) return 0;
  let i = HEADER;
  for (;;) {
    if (i >= length) return 0;
    const label = query[i];
    if (label === 0) break;
    if (label > 63) return 0;
    i += 1 + label;
  }
  i++;
  if (i + 4 > length) return 0;
  const type = (query[i] << 8) | query[i + 1];
  const klass = (query[i + 2] << 8) | query[i + 3];
  const questionEnd = i + 4;
  const answer = klass === CLASS_IN && (type === TYPE_A || type === TYPE_ANY);
  const total = questionEnd + (answer ? 16 : 0);
  if (total > out.length) return 0;
  for (let k = 0; k < questionEnd; k++) out[k] = query[k];
  // QR, the opcode and RD as asked, AA; no recursion available; no error.
  out[2] = 0x80 | 0x04 | (flags & 0x01);
  out[3] = 0;
  out[6] = 0;
  out[7] = answer ? 1 : 0;
  out[8] = out[9] = out[10] = out[11] = 0;
  if (!answer) return total;
  let o = questionEnd;
  out[o++] = 0xc0; // the name: a pointer to the question's, at offset 12
  out[o++] = HEADER;
  out[o++] = 0;
  out[o++] = TYPE_A;
  out[o++] = 0;
  out[o++] = CLASS_IN;
  out[o++] = (DNS_TTL >>> 24) & 0xff;
  out[o++] = (DNS_TTL >>> 16) & 0xff;
  out[o++] = (DNS_TTL >>> 8) & 0xff;
  out[o++] = DNS_TTL & 0xff;
  out[o++] = 0;
  out[o++] = 4;
  for (let k = 0; k < 4; k++) out[o++] = ip[k];
  return total;
}
