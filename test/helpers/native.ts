/**
 * The platform's native loops for a test that builds parts of a match by hand (a planner,
 * a game without a server): the options, and typed arrays carved from their memory, so that
 * the loops reach them (WebAssembly on Node; on XS any buffer does).
 */
import { makeConfig, type Config } from "../../modules/config";
import { type NativeOptions, platformNative } from "../../modules/native";

export function testNative(overrides?: Partial<Config>): NativeOptions {
  const native = platformNative(makeConfig(overrides));
  if (native === null) throw new Error("no native loops installed (test/native-setup.ts installs Node's)");
  return native;
}

export function nativeI32(native: NativeOptions, n: number): Int32Array {
  const m = native.memory;
  return m != null ? new Int32Array(m.buffer, m.take(4 * n), n) : new Int32Array(n);
}

export function nativeU8(native: NativeOptions, n: number): Uint8Array {
  const m = native.memory;
  return m != null ? new Uint8Array(m.buffer, m.take(n), n) : new Uint8Array(n);
}

export function nativeU16(native: NativeOptions, n: number): Uint16Array {
  const m = native.memory;
  return m != null ? new Uint16Array(m.buffer, m.take(2 * n), n) : new Uint16Array(n);
}
