/**
 * Microseconds from a monotonic clock on the Linux simulator, where the SDK has no
 * `Time.microseconds`; undefined on other platforms.
 */
export default function microseconds(): number | undefined;
