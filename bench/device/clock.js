/*
	Microseconds from a monotonic clock on Linux (the simulator); undefined elsewhere.
*/

export default function microseconds() @ "xs_lwar_bench_microseconds";

/* The cycle model's window (bench/device/esp32.ts): the instructions between these two calls. */
export function windowOpen() @ "xs_lwar_bench_window_open";
export function windowClose() @ "xs_lwar_bench_window_close";
