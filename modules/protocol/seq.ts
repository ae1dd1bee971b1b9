/**
 * Wrap-safe comparison of 32-bit sequence numbers and timestamps: `a` is newer than
 * `b` when the forward distance from b to a is in 1..2^31-1.
 */
export function seqDiff(a: number, b: number): number {
  return (a - b) | 0;
}
export function seqGreater(a: number, b: number): boolean {
  return ((a - b) | 0) > 0;
}
export function seqGreaterEq(a: number, b: number): boolean {
  return ((a - b) | 0) >= 0;
}
export function seqLess(a: number, b: number): boolean {
  return ((a - b) | 0) < 0;
}
export function seqNext(a: number): number {
  return (a + 1) >>> 0;
}
