/**
 * Microseconds from a monotonic clock on the Linux simulator, where the SDK has no
 * `Time.microseconds`; undefined on other platforms.
 */
export default function microseconds(): number | undefined;

/** Opens the cycle model's window: the kit's QEMU plugin counts from this function's entry (bench/device/esp32.ts, --cycles). */
export function windowOpen(): void;
/** Closes it: the plugin prints its counts for the window. */
export function windowClose(): void;
