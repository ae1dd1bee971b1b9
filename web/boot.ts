/**
 * The page's entry point: kernels.wasm first, then the game (./main.ts). The client's
 * transport runs the same C as the server (modules/kernels/transport.c, as WebAssembly), so
 * the page compiles kernels.wasm before it makes its first client; each client, and the own
 * ship's prediction, then takes an instance of its own, made at once from the compiled module
 * (`globalThis.lwarMemory`, modules/native.ts). A browser that cannot load it is told so.
 */
import type { MemoryFactory } from "../modules/native";
import { type CompiledKernels, compileKernelsAsync, wasmMemory } from "../modules/native-wasm";

/** kernels.wasm compiled, for ./main.ts's prediction (set before it runs). */
export let pageKernels: CompiledKernels | null = null;

async function boot(): Promise<void> {
  try {
    const response = await fetch("/kernels.wasm");
    if (!response.ok) throw new Error(`kernels.wasm: HTTP ${response.status}`);
    const compiled = await compileKernelsAsync(new Uint8Array(await response.arrayBuffer()));
    pageKernels = compiled;
    (globalThis as { lwarMemory?: MemoryFactory }).lwarMemory = (bytes) => wasmMemory(compiled, bytes);
  } catch (e) {
    const note = document.createElement("p");
    note.className = "fatal";
    note.textContent = `The game cannot start in this browser: ${e instanceof Error ? e.message : String(e)} (it needs WebAssembly).`;
    document.body.prepend(note);
    return;
  }
  await import("./main");
}

void boot();
