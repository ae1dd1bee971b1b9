/**
 * The hot loops on Node: dist/web/kernels.wasm (`npm run build:wasm`), read and compiled once,
 * with one instance and one fixed memory per match (modules/native-wasm.ts).
 * `installNodeKernels()` makes them the platform's (`globalThis.lwarNative`), so that every
 * match made after it, by the server, a tool or a test, runs them.
 */
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Config } from "../../modules/config";
import type { MemoryFactory, NativeFactory, NativeOptions } from "../../modules/native";
import { compileKernels, type CompiledKernels, wasmMemory, wasmNative } from "../../modules/native-wasm";

/** dist/web/kernels.wasm, with the page: beside the server's bundle (dist/lwar-xs.js), or two folders up from this file. */
export const KERNELS_WASM = new URL(import.meta.url.endsWith(".ts") ? "../../dist/web/kernels.wasm" : "./web/kernels.wasm", import.meta.url);

let compiled: CompiledKernels | null = null;

/** dist/web/kernels.wasm, compiled on first use. */
export function nodeKernels(): CompiledKernels {
  if (compiled === null) {
    let bytes: Uint8Array;
    try {
      bytes = readFileSync(KERNELS_WASM);
    } catch {
      throw new Error(`the native loops are missing: ${fileURLToPath(KERNELS_WASM)} (npm run build:wasm)`);
    }
    compiled = compileKernels(bytes);
  }
  return compiled;
}

/** Native options for one match of `config`: a new instance, its memory sized for the config. */
export function nodeNative(config: Config): NativeOptions {
  return wasmNative(nodeKernels(), config);
}

/** Native options with `bytes` of memory for an owner that is not a match (a client, the chat relay): a new instance. */
export function nodeMemory(bytes: number): NativeOptions {
  return wasmMemory(nodeKernels(), bytes);
}

/** Make the WebAssembly loops the platform's for every match, client and endpoint made from now on. */
export function installNodeKernels(): void {
  nodeKernels();
  (globalThis as { lwarNative?: NativeFactory }).lwarNative = nodeNative;
  (globalThis as { lwarMemory?: MemoryFactory }).lwarMemory = nodeMemory;
}
