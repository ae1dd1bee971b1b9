/**
 * net.c's UDP ring, filled by the device bench instead of lwIP's thread (built only with
 * the define lwar.bench.ring, which bench/device/manifest.json sets).
 */

/** The ring of `slots` datagrams alone, bound to no socket: true; false where udpNext() reads a socket instead (the simulator). */
export function benchRingOpen(slots: number): boolean;
/** `bytes[offset .. offset + length)` from `ip` (network byte order, as an int32) and `port` into the ring's next slot; udpNext() sees it only when `publish`. */
export function benchRingPut(bytes: Uint8Array, offset: number, length: number, ip: number, port: number, publish: boolean): void;
