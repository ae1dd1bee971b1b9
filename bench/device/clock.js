/*
	Microseconds from a monotonic clock on Linux (the simulator); undefined elsewhere.
*/

export default function microseconds() @ "xs_lwar_bench_microseconds";
