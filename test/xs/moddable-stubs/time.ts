/**
 * Stand-in for the Moddable SDK's `time` module, so that hosts/moddable/host.ts runs in
 * lwxs (test/xs/moddable-host.ts). Only what the host uses: `Time.ticks`, `Time.delta` and
 * `Time.microseconds`.
 *
 * `clock.ticks` is set by the test. `Time.delta(start, end)` computes what the SDK's
 * natives compute (modules/base/time/{esp,lin}/modTime.c in SDK 8.2):
 *   - ESP32 (`clock.esp32`, the default): both arguments converted to unsigned 32-bit
 *     integers, subtracted, and the result returned as a signed 32-bit integer. Ticks there
 *     are a signed 32-bit millisecond count, so a difference stays right across the wrap
 *     from 0x7FFFFFFF to -0x80000000, and a step back comes out negative.
 *   - Linux (the simulator): ticks are wall-clock milliseconds as a double; end - start.
 * The SDK's time.js passes both arguments on to the native even when `end` is left out,
 * so the native never sees a single argument and reads `end` as undefined: 0 on ESP32,
 * NaN on Linux. The documentation says `end` defaults to the current ticks; the stand-in
 * does what the code does, so a caller that leaves `end` out gets caught here.
 *
 * `Time.microseconds` is undefined unless `clock.micro` is set (the host looks at it once,
 * when it is made); then each reading is `clock.usStep` µs after the one before, so that
 * every tick the host times with it costs exactly that.
 */
export const clock = {
  ticks: 0,
  esp32: true,
  micro: false,
  us: 0,
  usStep: 123,
};

export default class Time {
  static get ticks(): number {
    return clock.ticks;
  }

  static get microseconds(): number | undefined {
    if (!clock.micro) return undefined;
    clock.us += clock.usStep;
    return clock.us;
  }

  static delta(start: number, end?: number): number {
    if (clock.esp32) return (((end as number) >>> 0) - (start >>> 0)) | 0;
    return (end as number) - start;
  }
}
