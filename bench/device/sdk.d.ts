/**
 * The Moddable SDK modules the device bench app imports, declared so that `npm run
 * typecheck` (which includes bench/) checks bench/device/main.ts without the SDK. mcconfig
 * does not read this file: it compiles main.ts against the SDK's own typings, so these
 * declarations must stay a subset of those. They cover hosts/moddable/host.ts too, which the
 * app imports for the board's receive path.
 */

declare module "Resource" {
  class Resource extends ArrayBuffer {
    constructor(path: string);
    static exists(path: string): boolean;
  }
  export default Resource;
}

declare module "time" {
  const Time: {
    /** Milliseconds from an arbitrary origin. */
    readonly ticks: number;
    /** A microsecond counter, on hosts whose build includes the SDK's microseconds module. */
    readonly microseconds?: number;
    /** `end - start` in ms, across the counter's wrap. */
    delta(start: number, end?: number): number;
  };
  export default Time;
}

declare module "timer" {
  class Timer {
    private constructor();
    private brand: boolean;
    static set(callback: (timer: Timer) => void, delay?: number, repeat?: number): Timer;
    static repeat(callback: (timer: Timer) => void, interval: number): Timer;
    static clear(timer: Timer | undefined | null): void;
  }
  export default Timer;
}

declare module "instrumentation" {
  const Instrumentation: {
    /** The value of item `what` (1-based), or undefined. */
    get(what: number | undefined): number | undefined;
    /** The index of a named item, or undefined when this host does not have it. */
    map(name: "XS Chunk Heap Used" | "XS Slot Heap Used" | "System Free Memory"): number | undefined;
  };
  export default Instrumentation;
}

declare module "debug" {
  const Debug: {
    /** Collect garbage now. */
    gc(enable?: boolean): void;
  };
  export default Debug;
}

declare module "mc/config" {
  const config: Readonly<Record<string, unknown>>;
  export default config;
}
