/*
	Memory readings for the heap probe: heap.c.
*/

export function peakChunk() @ "xs_lwar_heap_peak_chunk";
export function peakSlot() @ "xs_lwar_heap_peak_slot";
export function internalFree() @ "xs_lwar_heap_internal_free";
export function internalLowest() @ "xs_lwar_heap_internal_lowest";
