/** Bytes of XS chunk heap in use at its peak since start. */
export function peakChunk(): number;
/** Bytes of XS slot heap in use at its peak since start. */
export function peakSlot(): number;
/** ESP32: internal RAM free now (heap_caps, MALLOC_CAP_INTERNAL); -1 elsewhere. */
export function internalFree(): number;
/** ESP32: the lowest internal RAM free since boot; -1 elsewhere. */
export function internalLowest(): number;
