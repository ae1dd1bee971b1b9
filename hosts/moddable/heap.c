/*
	Memory readings for the heap probe (main.ts, heapProbeSeconds): the XS heaps' peaks
	since start, and on ESP32 the internal RAM ESP-IDF has free now and at its lowest ever
	(heap_caps, MALLOC_CAP_INTERNAL: what Wi-Fi, lwIP and the tasks draw on). -1 where the
	platform has no such figure.
*/

#include "xsAll.h"
#include "xsmc.h"

#if ESP32
	#include "esp_heap_caps.h"
#endif

void xs_lwar_heap_peak_chunk(xsMachine *the)
{
	xsmcSetInteger(xsResult, the->peakChunksSize);
}

void xs_lwar_heap_peak_slot(xsMachine *the)
{
	xsmcSetInteger(xsResult, the->peakHeapCount * sizeof(txSlot));
}

void xs_lwar_heap_internal_free(xsMachine *the)
{
#if ESP32
	xsmcSetInteger(xsResult, heap_caps_get_free_size(MALLOC_CAP_INTERNAL));
#else
	xsmcSetInteger(xsResult, -1);
#endif
}

void xs_lwar_heap_internal_lowest(xsMachine *the)
{
#if ESP32
	xsmcSetInteger(xsResult, heap_caps_get_minimum_free_size(MALLOC_CAP_INTERNAL));
#else
	xsmcSetInteger(xsResult, -1);
#endif
}
