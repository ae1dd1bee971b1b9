/**
 * ASCII helpers. Names and chat stay bytes in the core; these turn them into text for
 * log lines and tools. They allocate, so they are never on a per-tick path (the client
 * library encodes text itself, without allocating: see `encode` in modules/client/client.ts).
 */
export function bytesToAscii(b: Uint8Array, offset: number, length: number): string {
  let s = "";
  for (let i = 0; i < length; i++) s += String.fromCharCode(b[offset + i]);
  return s;
}
