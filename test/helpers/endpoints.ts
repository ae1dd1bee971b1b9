/**
 * Endpoints placed as an owner of several peers places them (the server, the chat relay): an
 * EndpointTable whose state and queues are carved from native memory the transport's loops
 * reach, with a free area in the same buffer for the owner's packets and the messages it
 * copies into the queues (`queueCopy`, `broadcast`). On Node the memory is a new WebAssembly
 * instance's; where the loops take any buffer (XS), an ArrayBuffer of its own.
 */
import { type NativeOptions, platformMemory } from "../../modules/native";
import { EndpointWord } from "../../modules/native-words";
import type { Channel } from "../../modules/transport/channel";
import { type EndpointPlace, EndpointTable } from "../../modules/transport/endpoint";

/** Native options whose memory has room for `bytes` of arrays, and the bindings' words beside them. */
export function testMemory(bytes: number): NativeOptions {
  const native = platformMemory(bytes + 4096);
  if (native === null || native.kernels == null) throw new Error("no native loops installed (test/native-setup.ts installs Node's)");
  return native;
}

export interface Carved {
  /** The table's arrays: what `new EndpointTable(channel, n, native, place)` takes. */
  readonly place: EndpointPlace;
  /** `extraBytes` free bytes of the same buffer, at `freeAt` of `place.out`. */
  readonly free: Uint8Array;
  readonly freeAt: number;
}

/** The arrays of a table of `n` peers of `channel` in `native`'s memory, then `extraBytes` free. */
export function carvePlace(native: NativeOptions, channel: Channel, n: number, extraBytes: number): Carved {
  const stateBytes = 4 * n * EndpointWord.Stride;
  const queueBytes = n * channel.queueBytes;
  const memory = native.memory ?? null;
  const buffer = memory !== null ? memory.buffer : new ArrayBuffer(stateBytes + 4 * n + queueBytes + extraBytes);
  const state = memory !== null ? memory.take(stateBytes) : 0;
  const front = memory !== null ? memory.take(4 * n) : stateBytes;
  const queues = memory !== null ? memory.take(queueBytes) : stateBytes + 4 * n;
  const freeAt = memory !== null ? memory.take(extraBytes) : stateBytes + 4 * n + queueBytes;
  return {
    place: {
      state: new Float64Array(buffer, state, stateBytes / 8),
      queues: new Uint8Array(buffer, queues, queueBytes),
      out: new Uint8Array(buffer),
      front: new Int32Array(buffer, front, n),
    },
    free: new Uint8Array(buffer, freeAt, extraBytes),
    freeAt,
  };
}

export interface PlacedTable extends Carved {
  readonly table: EndpointTable;
  readonly native: NativeOptions;
  /** The whole buffer from byte 0 (the table's `out`): `queueCopy` and `broadcast` take offsets in it. */
  readonly whole: Uint8Array;
}

/**
 * A table of `n` peers of `channel`, placed in `native` (new memory when absent; give the one
 * the channel's counters were carved from, `nativeWords`), with `extraBytes` free after it.
 */
export function placedTable(channel: Channel, n: number, extraBytes: number, native: NativeOptions | null = null): PlacedTable {
  const opts = native ?? testMemory(4 * n * EndpointWord.Stride + 4 * n + n * channel.queueBytes + extraBytes + 64);
  const carved = carvePlace(opts, channel, n, extraBytes);
  const table = new EndpointTable(channel, n, opts, carved.place);
  return { ...carved, table, native: opts, whole: carved.place.out };
}
