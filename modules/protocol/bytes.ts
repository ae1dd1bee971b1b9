/** Big-endian field access on plain byte arrays. No views, no allocation. */

export function getU8(b: Uint8Array, o: number): number {
  return b[o];
}
export function getU16(b: Uint8Array, o: number): number {
  return (b[o] << 8) | b[o + 1];
}
export function getI16(b: Uint8Array, o: number): number {
  return (((b[o] << 8) | b[o + 1]) << 16) >> 16;
}
export function getU32(b: Uint8Array, o: number): number {
  return ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0;
}
export function setU8(b: Uint8Array, o: number, v: number): void {
  b[o] = v;
}
export function setU16(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 8;
  b[o + 1] = v;
}
export function setU32(b: Uint8Array, o: number, v: number): void {
  b[o] = v >>> 24;
  b[o + 1] = v >>> 16;
  b[o + 2] = v >>> 8;
  b[o + 3] = v;
}
/** Clamp to int16 and store. Used for quantised positions and velocities. */
export function setI16Clamped(b: Uint8Array, o: number, v: number): void {
  let n = Math.round(v);
  if (n > 32767) n = 32767;
  else if (n < -32768) n = -32768;
  else if (n !== n) n = 0;
  b[o] = n >>> 8;
  b[o + 1] = n;
}
