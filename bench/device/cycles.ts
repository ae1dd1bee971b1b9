/**
 * The ESP32 kit's cycle model (its QEMU plugin `qemu/plugins/esp32-cachesim.so`), read for
 * the device bench. QEMU counts instructions, not cycles; the plugin counts, between two
 * PCs, the instruction mix, the taken control transfers, the load-use pairs and the misses
 * of a simulated 32 KB flash cache (32-byte lines, 2 or 4 ways). The model turns those into
 * cycles with the kit's published costs (its README, "A cycle model for the emulator",
 * measured against CoreMark's published score):
 *
 *   cycles = instructions + 2.4 × taken transfers + 2 × load-use pairs + 215 × misses
 *
 * a taken transfer (a branch, jump, call or return that leaves the straight line) costs
 * 3.4 cycles in all, a load whose result the next instruction reads stalls 2, and a miss of
 * the flash cache costs 200–230 cycles on 80 MHz quad-SPI flash (215 here; the range is
 * printed). Espressif does not document the cache's associativity: 2 and 4 ways bound it.
 * Host-free: the test feeds it the plugin's lines.
 */

/** Extra cycles of a taken transfer, a load-use stall and a flash-cache miss (low..high for the miss). */
export const TAKEN_CYCLES = 2.4;
export const LOAD_USE_CYCLES = 2;
export const MISS_CYCLES = { mid: 215, low: 200, high: 230 } as const;

/** What the plugin printed for one window. */
export interface CacheWindow {
  ways: number;
  instructions: number;
  /** Instructions fetched from flash (IROM) and from internal RAM. */
  irom: number;
  iram: number;
  /** Instructions by class (load, store, branch, call, …), and the taken transfers after each class. */
  classes: Map<string, { count: number; taken: number }>;
  loadUse: number;
  /** Instruction-fetch and flash-data misses of the simulated cache. */
  instructionMisses: number;
  dataMisses: number;
}

/** Collects `CACHESIM` lines and keeps the last complete window. */
export class CacheSimReader {
  #current: CacheWindow | null = null;
  /** The last window whose counts were printed whole. */
  last: CacheWindow | null = null;

  /** One stderr line; returns true when it completed a window. */
  line(text: string): boolean {
    const head = /^CACHESIM window: insns (\d+) irom (\d+) iram (\d+) ways (\d+) size (\d+)/.exec(text);
    if (head !== null) {
      this.#current = {
        ways: Number(head[4]),
        instructions: Number(head[1]),
        irom: Number(head[2]),
        iram: Number(head[3]),
        classes: new Map(),
        loadUse: 0,
        instructionMisses: 0,
        dataMisses: 0,
      };
      return false;
    }
    const w = this.#current;
    if (w === null) return false;
    const cls = /^CACHESIM class (\S+)\s+(\d+)\s+[0-9.]+%\s+taken\s+(\d+)/.exec(text);
    if (cls !== null) {
      w.classes.set(cls[1], { count: Number(cls[2]), taken: Number(cls[3]) });
      return false;
    }
    const lu = /^CACHESIM loaduse (\d+)/.exec(text);
    if (lu !== null) {
      w.loadUse = Number(lu[1]);
      return false;
    }
    const miss = /^CACHESIM ifetch lines \d+ imiss (\d+) .*dflash loads \d+ dmiss (\d+)/.exec(text);
    if (miss !== null) {
      w.instructionMisses = Number(miss[1]);
      w.dataMisses = Number(miss[2]);
      // The counts end here (only the loads by region follow).
      this.last = w;
      this.#current = null;
      return true;
    }
    return false;
  }
}

export interface CycleModel {
  ways: number;
  instructions: number;
  taken: number;
  loadUse: number;
  misses: number;
  /** Cycles per instruction: before cache misses, and with them at 215 (200..230) cycles a miss. */
  cpiNoMiss: number;
  cpi: number;
  cpiLow: number;
  cpiHigh: number;
  /** Shares of the instructions, %. */
  loadsPct: number;
  takenPct: number;
  loadUsePct: number;
  /** Misses per 1000 instructions. */
  missesPerK: number;
}

/** The model's cycles per instruction for one window. */
export function cycleModel(w: CacheWindow): CycleModel {
  let taken = 0;
  for (const c of w.classes.values()) taken += c.taken;
  const n = w.instructions;
  if (n <= 0) throw new RangeError("the cycle model's window counted no instruction");
  const misses = w.instructionMisses + w.dataMisses;
  const base = n + TAKEN_CYCLES * taken + LOAD_USE_CYCLES * w.loadUse;
  const loads = w.classes.get("load")?.count ?? 0;
  return {
    ways: w.ways,
    instructions: n,
    taken,
    loadUse: w.loadUse,
    misses,
    cpiNoMiss: base / n,
    cpi: (base + MISS_CYCLES.mid * misses) / n,
    cpiLow: (base + MISS_CYCLES.low * misses) / n,
    cpiHigh: (base + MISS_CYCLES.high * misses) / n,
    loadsPct: (100 * loads) / n,
    takenPct: (100 * taken) / n,
    loadUsePct: (100 * w.loadUse) / n,
    missesPerK: (1000 * misses) / n,
  };
}
