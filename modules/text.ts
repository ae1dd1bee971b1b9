/**
 * ASCII helpers. Names and chat stay bytes in the core; these turn them into text for
 * log lines and tools, and text into bytes for the client library. They allocate, so
 * they are never on a per-tick path.
 */
export function bytesToAscii(b: Uint8Array, offset: number, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(b[offset + i]);
  return s;
}

/** Writes the string's char codes (each & 0x7f) and returns the count written. */
export function asciiToBytes(text: string, out: Uint8Array, offset: number, max: number): number {
  const n = text.length < max ? text.length : max;
  for (let i = 0; i < n; i++) out[offset + i] = text.charCodeAt(i) & 0x7f;
  return n;
}

/** Printable ASCII: 0x20..0x7e. */
export function isPrintable(c: number): boolean {
  return c >= 0x20 && c <= 0x7e;
}
