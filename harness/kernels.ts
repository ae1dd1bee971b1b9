/** The native loops (modules/native.ts) by name. */
import type { KernelName } from "../modules/native";

export const KERNEL_NAMES: readonly KernelName[] = Object.freeze(["plan", "commit", "notify", "pack", "sync", "mark", "ship", "game"]);
