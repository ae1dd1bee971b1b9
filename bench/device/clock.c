/*
	A microsecond clock for the device bench where the SDK's Time.microseconds does not
	exist: the Linux simulator, whose Time.ticks counts whole milliseconds. Returns
	undefined elsewhere; the app then uses Time.microseconds or Time.ticks.
*/

#include "xsmc.h"

#if defined(__linux__)
	#include <time.h>
#endif

void xs_lwar_bench_microseconds(xsMachine *the)
{
#if defined(__linux__)
	struct timespec ts;
	if (0 == clock_gettime(CLOCK_MONOTONIC, &ts))
		xsmcSetNumber(xsResult, ((double)ts.tv_sec * 1000000.0) + ((double)ts.tv_nsec / 1000.0));
#endif
}

/*
	The cycle model's window: the kit's QEMU plugin (esp32-cachesim, `start=` and `stop=`)
	counts the instructions executed between entering windowOpen and entering windowClose,
	found by these functions' addresses in the ELF. Each stores a different value, so that
	the linker can never fold them into one.
*/
volatile int gLwarBenchWindow = 0;

void __attribute__((noinline)) xs_lwar_bench_window_open(xsMachine *the)
{
	gLwarBenchWindow = 1;
}

void __attribute__((noinline)) xs_lwar_bench_window_close(xsMachine *the)
{
	gLwarBenchWindow = 2;
}
