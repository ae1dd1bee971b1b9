/*
	The device bench's way into net.c's UDP ring without a network (net.c, built with
	lwar.bench.ring defined: bench/device/manifest.json). ESP32 only.
*/

export function benchRingOpen() @ "xs_lwar_bench_ring_open";
export function benchRingPut() @ "xs_lwar_bench_ring_put";
