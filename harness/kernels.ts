/**
 * Naming the native loops (modules/native.ts) on a command line or in a case's options:
 * `--js ship,shots` runs those kernels in JavaScript (NativeOptions.js).
 */
import type { KernelName } from "../modules/native";

export const KERNEL_NAMES: readonly KernelName[] = Object.freeze(["plan", "commit", "notify", "pack", "sync", "shots", "ship"]);

/** Parse a comma-separated list of kernel names (`all`: every one); throws RangeError on an unknown one. */
export function parseKernelNames(text: string): KernelName[] {
  const names: KernelName[] = [];
  for (const part of text.split(",")) {
    const name = part.trim();
    if (name === "") continue;
    if (name === "all") {
      for (const n of KERNEL_NAMES) names.push(n);
      continue;
    }
    if (KERNEL_NAMES.indexOf(name as KernelName) < 0) throw new RangeError(`unknown kernel "${name}" (one of ${KERNEL_NAMES.join(", ")}, all)`);
    names.push(name as KernelName);
  }
  return names;
}
