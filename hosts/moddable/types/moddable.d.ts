/**
 * The few Moddable SDK APIs this project uses, declared for type-checking without the
 * SDK (`npm run typecheck:moddable`). The real build (mcconfig) checks against the SDK's
 * own typings instead, so everything here must stay a subset of those.
 *
 * Resizable ArrayBuffers (ES2024: `new ArrayBuffer(n, { maxByteLength })`, `resize`) come
 * from TypeScript's own lib, which the SDK's builds include (they compile with es2025).
 */
/// <reference lib="es2024.arraybuffer" />

/** Prints to xsbug, or to stdout when no debugger is connected. */
declare function trace(...items: (string | number | boolean)[]): void;

declare module "embedded:io/socket/udp" {
  /** A datagram from read(): the payload plus where it came from. */
  type Datagram = ArrayBuffer & { readonly address: string; readonly port: number };

  interface UDPOptions {
    /** Local port to bind; 0 or absent picks one. */
    port?: number;
    /** Copied onto the socket as `socket.target`. */
    target?: unknown;
    /** Called with the socket as `this` and the number of datagrams waiting. */
    onReadable?: (this: UDP, count: number) => void;
    format?: "buffer";
  }

  class UDP {
    constructor(options: UDPOptions);
    /** The next waiting datagram, or undefined when there is none. */
    read(): Datagram;
    /** Send all of `buffer` (an ArrayBuffer or a byte view) to address:port. */
    write(buffer: ArrayBuffer | Uint8Array | DataView, address: string, port: number): void;
    format: "buffer";
  }
  export default UDP;
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

declare module "time" {
  const Time: {
    /** Milliseconds from an arbitrary origin; a signed 32-bit count on ESP32. */
    readonly ticks: number;
    /** A monotonic microsecond count, on the platforms that have one (undefined elsewhere). */
    readonly microseconds?: number;
    /** end - start in ms, correct across a wrap of ticks; end defaults to now. */
    delta(start: number, end?: number): number;
  };
  export default Time;
}

declare module "mc/config" {
  /** The manifest's "config" object; `name=value` arguments of mcconfig arrive as strings. */
  const config: Readonly<Record<string, unknown>>;
  export default config;
}

declare module "net" {
  class Net {
    /** "IP" of the station interface, or of `iface` ("ap", "station"). */
    static get(property: "IP" | "MAC" | "SSID", iface?: string): string | undefined;
  }
  export default Net;
}

declare module "wifi" {
  interface AccessPointOptions {
    ssid: string;
    /** 8..64 characters; absent means an open network. */
    password?: string;
    channel?: number;
    hidden?: boolean;
    /** Most stations at once. */
    max?: number;
  }
  interface StationOptions {
    ssid: string;
    password?: string;
  }
  class WiFi {
    /** Join `options` (when given), and tell `onNotify` of what happens: WiFi.gotIP, WiFi.disconnected... */
    constructor(options: StationOptions | undefined, onNotify: (message: string, value?: number) => void);
    close(): void;
    static accessPoint(options: AccessPointOptions): void;
    static connect(options?: StationOptions): void;
    static disconnect(): void;
    static readonly gotIP: string;
    static readonly lostIP: string;
    static readonly connected: string;
    static readonly disconnected: string;
  }
  export default WiFi;
}

declare module "preference" {
  /** Values kept in flash (NVS on ESP32), by domain and name (each at most 15 characters). */
  class Preference {
    static set(domain: string, name: string, value: string | number | boolean | ArrayBuffer): void;
    static get(domain: string, name: string): string | number | boolean | ArrayBuffer | undefined;
    static delete(domain: string, name: string): void;
    static keys(domain: string): string[];
  }
  export default Preference;
}

declare module "ota" {
  /** Writes a new app image into the next app slot (ESP32); `complete` checks it and boots it next. */
  class OTA {
    constructor();
    write(data: ArrayBuffer | Uint8Array): void;
    cancel(): void;
    complete(): void;
  }
  export default OTA;
}

/** Read-only bytes outside the heap (a resource in flash). */
declare class HostBuffer {
  readonly byteLength: number;
  private brand: boolean;
}
interface ArrayBufferTypes {
  HostBuffer: HostBuffer;
}

/** XS has the ES2025 base64 methods of Uint8Array. */
interface Uint8Array<TArrayBuffer extends ArrayBufferLike = ArrayBufferLike> {
  toBase64(): string;
}

declare module "Resource" {
  interface ResourceConstructor {
    /** A file of the manifest's "resources", in flash. */
    new (path: string): HostBuffer;
    exists(path: string): boolean;
  }
  const Resource: ResourceConstructor;
  export default Resource;
}

declare module "crypt" {
  class Digest {
    constructor(type: "SHA1" | "SHA256");
    write(message: string | ArrayBuffer): void;
    /** The digest; the object is done. */
    close(): ArrayBuffer;
  }
}

declare module "http" {
  /** The SDK's HTTP server: one callback per request, with the request object as `this`. */
  class Server {
    constructor(options?: { port?: number });
    close(): void;
    callback: unknown;
    static readonly connection: 1;
    static readonly status: 2;
    static readonly header: 3;
    static readonly headersComplete: 4;
    static readonly prepareResponse: 8;
    static readonly responseFragment: 9;
    static readonly responseComplete: 10;
    static readonly error: -1;
  }
}

declare module "mdns" {
  interface MDNSService {
    name: string;
    protocol: string;
    port: number;
    txt: Record<string, string>;
  }
  class MDNS {
    constructor(options: { hostName: string }, callback?: (message: number, value?: string) => void);
    add(service: MDNSService): void;
  }
  export default MDNS;
}

declare module "debug" {
  const Debug: {
    /** A full collection now. */
    gc(): void;
  };
  export default Debug;
}

declare module "instrumentation" {
  const Instrumentation: {
    /** The index of a named counter ("XS Chunk Heap Used", ...), undefined when the build has none. */
    map(name: "XS Chunk Heap Used" | "XS Slot Heap Used" | "System Free Memory"): number | undefined;
    get(what: number | undefined): number | undefined;
  };
  export default Instrumentation;
}
