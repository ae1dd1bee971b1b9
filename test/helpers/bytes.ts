/** Byte literals and counter readings for tests that speak in packets. */
import assert from "node:assert/strict";
import { COUNTER_NAMES, Counter } from "../../modules/protocol/counters";

/** Bytes from hex strings; spaces are for the reader. */
export function hex(...parts: string[]): Uint8Array {
  const s = parts.join("").replace(/\s+/g, "");
  assert.equal(s.length % 2, 0, "hex literal has an odd number of digits");
  const b = new Uint8Array(s.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(s.slice(2 * i, 2 * i + 2), 16);
  return b;
}

/** The non-zero counters, by name. */
export function nonZero(counters: Uint32Array): Record<string, number> {
  const r: Record<string, number> = {};
  for (let i = 0; i < counters.length; i++) if (counters[i] !== 0) r[COUNTER_NAMES[i]] = counters[i];
  return r;
}

/** The non-zero drop counters (whole packets and single messages), by name. */
export function drops(counters: Uint32Array): Record<string, number> {
  const r: Record<string, number> = {};
  for (let i = Counter.TooShort; i <= Counter.BadChat; i++) if (counters[i] !== 0) r[COUNTER_NAMES[i]] = counters[i];
  return r;
}

export function ascii(text: string): Uint8Array {
  const b = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) b[i] = text.charCodeAt(i);
  return b;
}

export function text(b: Uint8Array, o: number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[o + i]);
  return s;
}
