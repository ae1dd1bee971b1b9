/**
 * The globals of the lwxs test host (tools/xs/lwxs.c), as the scripts it runs see them. An
 * entry says `declare const xs: Lwxs;` (or `Lwxs | undefined` when it also runs elsewhere)
 * and `declare const print: LwxsPrint;`.
 */
import type { Kernels } from "../../modules/native";

export interface Lwxs {
  /** A full garbage collection. */
  gc(): void;
  /** Slots and chunks in use, and collections so far. */
  slotsUsed(): number;
  chunksUsed(): number;
  collections(): number;
  /** Emulated floating-point operations so far (mxInstrument). */
  floatOps(): number;
  /** Monotonic milliseconds. */
  now(): number;
  /** Run the event loop, calling `tick` every `intervalMs`, until `stop`. */
  run(tick: (() => void) | null, intervalMs?: number): void;
  stop(code?: number): void;
  /** Bind UDP `port` (0: any) on 127.0.0.1; each datagram is read into `buffer` and handed to `handler`. Returns the bound port. */
  udpOpen(port: number, buffer: ArrayBuffer | Uint8Array, handler: (length: number, address: string, port: number) => void): number;
  udpSend(bytes: Uint8Array, length: number, address: string, port: number): number;
  udpClose(): void;
  /** The script's command-line arguments. */
  readonly args: string[];
  /** The heap's limits, and what it held when the script started. */
  readonly maxSlots: number;
  readonly baseSlots: number;
  readonly maxChunks: number;
  readonly baseChunks: number;
  /** The native loops (modules/native.ts), when the host was built with them. */
  readonly kernels?: Kernels;
}

export type LwxsPrint = (...values: unknown[]) => void;
