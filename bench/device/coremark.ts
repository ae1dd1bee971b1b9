/**
 * `npm run bench:coremark -- --coremark DIR`: calibrates the device bench's cycle model
 * (cycles.ts) against CoreMark, run in the same emulated ESP32.
 *
 * CoreMark's sources are not part of this project: DIR is a checkout of
 * github.com/eembc/coremark. The script writes a small ESP-IDF app into a work folder outside
 * the project (a port layer of its own, core_portme.h/.c, an app_main that calls CoreMark,
 * an sdkconfig for QEMU), builds it with the kit's idf.py and toolchain, CoreMark's files with
 * `-O3 -fjump-tables -ftree-switch-conversion` as Espressif's CoreMark component does, and
 * boots it twice in QEMU's esp32 machine (`-icount`, as the device bench's timed run) under the
 * kit's cycle-model plugin, once with a 2-way and once with a 4-way flash cache. The plugin
 * counts exactly CoreMark's timed loop: the port's start_time() and stop_time() call two
 * marker functions whose addresses open and close the plugin's window.
 *
 * Printed: CoreMark's iterations and its own check of its results, the Xtensa instructions of
 * the loop (and per iteration), the modelled cycles at 2 and 4 ways, the cycles per
 * instruction they give, the CoreMark/MHz those cycles imply next to Espressif's published
 * figure for the ESP32, and the cycles per instruction the published figure implies for the
 * counted instructions.
 *
 * The parsing and the arithmetic are pure and exported for the test.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { defineCommand, EXIT_FAILURE } from "../../cli";
import { buildEnv, ROOT, runLogged, tail, which } from "../../tools/board/kit";
import { Board, bootFailure, mergeFlash } from "../../tools/board/qemu";
import { type CacheWindow, CacheSimReader, cycleModel, MISS_CYCLES } from "./cycles";

/**
 * Espressif's published CoreMark for the ESP32 (ESP32 Series Datasheet, "CPU and Memory"):
 * one core at 240 MHz, 504.85 CoreMark, 2.10 CoreMark/MHz.
 */
export const PUBLISHED = { coremark: 504.85, mhz: 240, perMhz: 2.1, source: "Espressif, ESP32 Series Datasheet (CPU and Memory): 1 core at 240 MHz" } as const;

/** The factor the device bench uses today (bench/device/esp32.ts, CPI.mid). */
export const BENCH_CPI = 1.73;

/** CoreMark's sources that the build compiles, relative to its checkout. */
export const COREMARK_SOURCES = ["core_list_join.c", "core_main.c", "core_matrix.c", "core_state.c", "core_util.c"] as const;

/** Compiler flags for CoreMark's files (Espressif's CoreMark component's choice). */
export const COREMARK_FLAGS = ["-O3", "-fjump-tables", "-ftree-switch-conversion"] as const;

/** CoreMark's known results for the 2K performance run (seeds 0, 0, 0x66; 666 bytes an algorithm). */
export const PERFORMANCE_RUN = { seedcrc: 0xe9f5, crclist: 0xe714, crcmatrix: 0x1fd7, crcstate: 0x8e3a } as const;

/** Marker functions of the port layer: the plugin's window opens and closes at their first instruction. */
export const WINDOW_OPEN = "coremark_window_open";
export const WINDOW_CLOSE = "coremark_window_close";

/** What CoreMark printed. */
export interface CoreMarkReport {
  size: number | null;
  ticks: number | null;
  seconds: number | null;
  iterations: number | null;
  compiler: string | null;
  flags: string | null;
  memory: string | null;
  seedcrc: number | null;
  crclist: number | null;
  crcmatrix: number | null;
  crcstate: number | null;
  crcfinal: number | null;
  /** CoreMark's own "ERROR!" lines. */
  errors: string[];
  /** Only the "at least 10 secs" rule failed (a run this short is not a reportable score). */
  tooShortOnly: boolean;
  /** The run is the 2K performance run and its list, matrix and state CRCs are the known ones. */
  validated: boolean;
}

const hex = (text: string | undefined): number | null => (text === undefined ? null : Number.parseInt(text, 16));

/** Reads CoreMark's report from its output lines (UART lines, any prefix before the field names is ignored). */
export function parseCoreMark(lines: readonly string[]): CoreMarkReport {
  const r: CoreMarkReport = {
    size: null,
    ticks: null,
    seconds: null,
    iterations: null,
    compiler: null,
    flags: null,
    memory: null,
    seedcrc: null,
    crclist: null,
    crcmatrix: null,
    crcstate: null,
    crcfinal: null,
    errors: [],
    tooShortOnly: false,
    validated: false,
  };
  for (const raw of lines) {
    const line = raw.replace(/\r$/, "");
    const field = /^\s*(?:\[0\])?([A-Za-z /()]+?)\s*:\s*(.*)$/.exec(line);
    if (/ERROR!/.test(line)) r.errors.push(line.trim());
    if (field === null) continue;
    const [, name, value] = field;
    switch (name) {
      case "CoreMark Size":
        r.size = Number(value);
        break;
      case "Total ticks":
        r.ticks = Number(value);
        break;
      case "Total time (secs)":
        r.seconds = Number(value);
        break;
      case "Iterations":
        r.iterations = Number(value);
        break;
      case "Compiler version":
        r.compiler = value;
        break;
      case "Compiler flags":
        r.flags = value;
        break;
      case "Memory location":
        r.memory = value;
        break;
      case "seedcrc":
        r.seedcrc = hex(/0x([0-9a-f]+)/i.exec(value)?.[1]);
        break;
      case "crclist":
        r.crclist = hex(/0x([0-9a-f]+)/i.exec(value)?.[1]);
        break;
      case "crcmatrix":
        r.crcmatrix = hex(/0x([0-9a-f]+)/i.exec(value)?.[1]);
        break;
      case "crcstate":
        r.crcstate = hex(/0x([0-9a-f]+)/i.exec(value)?.[1]);
        break;
      case "crcfinal":
        r.crcfinal = hex(/0x([0-9a-f]+)/i.exec(value)?.[1]);
        break;
    }
  }
  r.tooShortOnly = r.errors.length > 0 && r.errors.every((e) => /at least 10 secs/.test(e));
  r.validated =
    r.seedcrc === PERFORMANCE_RUN.seedcrc &&
    r.crclist === PERFORMANCE_RUN.crclist &&
    r.crcmatrix === PERFORMANCE_RUN.crcmatrix &&
    r.crcstate === PERFORMANCE_RUN.crcstate &&
    r.errors.every((e) => /at least 10 secs/.test(e));
  return r;
}

/** The calibration for one cache geometry. */
export interface Calibration {
  ways: number;
  iterations: number;
  instructions: number;
  instructionsPerIteration: number;
  misses: number;
  /** Modelled cycles of the counted loop, at 215 cycles a miss. */
  cycles: number;
  cpi: number;
  cpiNoMiss: number;
  /** CoreMark/MHz the modelled cycles imply, and CoreMark at the published clock. */
  perMhz: number;
  coremark: number;
  /** Cycles per instruction the published CoreMark/MHz implies for the counted instructions. */
  publishedCpi: number;
  /** Modelled against published CoreMark/MHz, as a ratio (1 = the model agrees). */
  ratio: number;
  /** The mix, as the device bench prints it: shares of the instructions (%), misses per 1000. */
  loadsPct: number;
  takenPct: number;
  loadUsePct: number;
  missesPerK: number;
}

/** Prices one window of the plugin as CoreMark iterations. */
export function calibrate(window: CacheWindow, iterations: number, published: { perMhz: number } = PUBLISHED): Calibration {
  if (!(iterations > 0)) throw new RangeError("no CoreMark iteration was counted");
  const m = cycleModel(window);
  const cycles = m.cpi * m.instructions;
  const perIteration = m.instructions / iterations;
  const perMhz = (iterations * 1e6) / cycles;
  return {
    ways: m.ways,
    iterations,
    instructions: m.instructions,
    instructionsPerIteration: perIteration,
    misses: m.misses,
    cycles,
    cpi: m.cpi,
    cpiNoMiss: m.cpiNoMiss,
    perMhz,
    coremark: perMhz * PUBLISHED.mhz,
    publishedCpi: 1e6 / (published.perMhz * perIteration),
    ratio: perMhz / published.perMhz,
    loadsPct: m.loadsPct,
    takenPct: m.takenPct,
    loadUsePct: m.loadUsePct,
    missesPerK: m.missesPerK,
  };
}

/**
 * Guest time of the loop by CoreMark's own clock (esp_timer, µs) as instructions: under
 * `-icount shift=N` one instruction is 2^N ns. A cross-check of the plugin's count, not ESP32 time.
 */
export function ticksAsInstructions(ticksUs: number, shift: number): number {
  return (ticksUs * 1000) / 2 ** shift;
}

/** The `NNN T name` address of a function in `nm`'s output (hex, no 0x). */
export function symbolAddress(nm: string, name: string): string | null {
  const m = new RegExp(`^([0-9a-f]+) [TtW] ${name}$`, "m").exec(nm);
  return m === null ? null : m[1];
}

/** Progress of a ninja build from one of its lines: "[12/345] ...". */
export function ninjaProgress(line: string): { done: number; total: number } | null {
  const m = /^\[(\d+)\/(\d+)\]/.exec(line);
  return m === null ? null : { done: Number(m[1]), total: Number(m[2]) };
}

export interface PortOptions {
  coremark: string;
  iterations: number;
  /** CoreMark's code in internal RAM (Espressif's component does so) instead of flash. */
  iram: boolean;
}

/** The ESP-IDF app's files, by path relative to the work folder. */
export function appFiles(o: PortOptions): Map<string, string> {
  const files = new Map<string, string>();
  const cm = o.coremark.replace(/\\/g, "/");
  const flags = COREMARK_FLAGS.join(" ");
  files.set(
    "CMakeLists.txt",
    `# Written by lwar-xs bench/device/coremark.ts: CoreMark as an ESP-IDF app for QEMU's esp32 machine.
cmake_minimum_required(VERSION 3.16)
set(COMPONENTS main)
include($ENV{IDF_PATH}/tools/cmake/project.cmake)
project(coremark_esp32)
`,
  );
  files.set(
    "sdkconfig.defaults",
    `# One core and DIO flash at 40 MHz, as the device bench's emulator build; 240 MHz; no watchdog
# (CoreMark holds the core for the whole loop); a stack for CoreMark's 2 KB block.
CONFIG_IDF_TARGET="esp32"
CONFIG_FREERTOS_UNICORE=y
CONFIG_ESP_DEFAULT_CPU_FREQ_MHZ_240=y
CONFIG_ESPTOOLPY_FLASHMODE_DIO=y
CONFIG_ESPTOOLPY_FLASHFREQ_40M=y
CONFIG_ESPTOOLPY_FLASHSIZE_4MB=y
CONFIG_ESP_TASK_WDT_INIT=n
CONFIG_ESP_INT_WDT=n
CONFIG_ESP_MAIN_TASK_STACK_SIZE=16384
CONFIG_COMPILER_OPTIMIZATION_PERF=y
# The kit's toolchain has newlib (Moddable's builds choose it too), not picolibc.
CONFIG_LIBC_NEWLIB=y
`,
  );
  const sources = COREMARK_SOURCES.map((s) => `"${cm}/${s}"`).join("\n    ");
  files.set(
    "main/CMakeLists.txt",
    `set(CM_SRCS
    ${sources})
idf_component_register(SRCS \${CM_SRCS} "core_portme.c" "app.c"
                       INCLUDE_DIRS "." "${cm}"
                       PRIV_REQUIRES esp_timer${o.iram ? `\n                       LDFRAGMENTS "coremark.lf"` : ""})
set_source_files_properties(\${CM_SRCS} PROPERTIES COMPILE_OPTIONS "${COREMARK_FLAGS.join(";")}")
set_source_files_properties("${cm}/core_main.c" PROPERTIES COMPILE_DEFINITIONS "main=coremark_main")
`,
  );
  if (o.iram)
    files.set(
      "main/coremark.lf",
      `[mapping:coremark]
archive: libmain.a
entries:
${COREMARK_SOURCES.map((s) => `    ${s.replace(/\.c$/, "")} (noflash)`).join("\n")}
`,
    );
  files.set(
    "main/core_portme.h",
    `/* CoreMark's port layer for an ESP-IDF app on the ESP32 (one core), written by lwar-xs
 * bench/device/coremark.ts. The 2K performance run: seeds 0, 0, 0x66, data on the stack. */
#ifndef CORE_PORTME_H
#define CORE_PORTME_H

#include <stddef.h>
#include <stdint.h>

#define ITERATIONS ${o.iterations}
#define HAS_FLOAT 1
#define HAS_TIME_H 0
#define USE_CLOCK 0
#define HAS_STDIO 1
#define HAS_PRINTF 1
#define COMPILER_VERSION "GCC" __VERSION__
#define COMPILER_FLAGS "${flags}"
#define MEM_LOCATION "STACK, code in ${o.iram ? "IRAM" : "flash"}"

typedef int16_t ee_s16;
typedef uint16_t ee_u16;
typedef int32_t ee_s32;
typedef double ee_f32;
typedef uint8_t ee_u8;
typedef uint32_t ee_u32;
typedef uintptr_t ee_ptr_int;
typedef size_t ee_size_t;

/* Rounds a pointer up to 4 bytes. */
#define align_mem(x) (void *)(4 + (((ee_ptr_int)(x) - 1) & ~3))

/* Ticks are microseconds of esp_timer. */
#define CORETIMETYPE ee_u32
typedef ee_u32 CORE_TICKS;

#define SEED_METHOD SEED_VOLATILE
#define MEM_METHOD MEM_STACK
#define MULTITHREAD 1
#define USE_PTHREAD 0
#define USE_FORK 0
#define USE_SOCKET 0
#define MAIN_HAS_NOARGC 1
#define MAIN_HAS_NORETURN 0

extern ee_u32 default_num_contexts;

typedef struct CORE_PORTABLE_S {
	ee_u8 portable_id;
} core_portable;

void portable_init(core_portable *p, int *argc, char *argv[]);
void portable_fini(core_portable *p);

#if !defined(PROFILE_RUN) && !defined(PERFORMANCE_RUN) && !defined(VALIDATION_RUN)
#define PERFORMANCE_RUN 1
#endif

#endif
`,
  );
  files.set(
    "main/core_portme.c",
    `/* CoreMark's port layer (see core_portme.h). start_time() and stop_time() call the two
 * marker functions whose first instructions open and close the cycle model's window, so the
 * plugin counts CoreMark's timed loop and nothing else. */
#include <stdio.h>
#include "coremark.h"
#include "esp_timer.h"

volatile ee_s32 seed1_volatile = 0;
volatile ee_s32 seed2_volatile = 0;
volatile ee_s32 seed3_volatile = 0x66;
volatile ee_s32 seed4_volatile = ITERATIONS;
volatile ee_s32 seed5_volatile = 0;
ee_u32 default_num_contexts = 1;

static int64_t started, stopped;
/* Distinct bodies, so that the linker cannot fold the two markers into one address. */
static volatile uint32_t opened, closed;

__attribute__((noinline, used)) void ${WINDOW_OPEN}(void)
{
	opened++;
}

__attribute__((noinline, used)) void ${WINDOW_CLOSE}(void)
{
	closed += 2;
}

void start_time(void)
{
	started = esp_timer_get_time();
	${WINDOW_OPEN}();
}

void stop_time(void)
{
	${WINDOW_CLOSE}();
	stopped = esp_timer_get_time();
}

CORE_TICKS get_time(void)
{
	return (CORE_TICKS)(stopped - started);
}

secs_ret time_in_secs(CORE_TICKS ticks)
{
	return (secs_ret)ticks / 1000000.0;
}

void portable_init(core_portable *p, int *argc, char *argv[])
{
	(void)argc;
	(void)argv;
	if (sizeof(ee_ptr_int) != sizeof(void *) || sizeof(ee_u32) != 4)
		printf("ERROR! the port's types do not fit this target\\n");
	p->portable_id = 1;
}

void portable_fini(core_portable *p)
{
	p->portable_id = 0;
}
`,
  );
  files.set(
    "main/app.c",
    `#include <stdio.h>

int coremark_main(void);

void app_main(void)
{
	printf("coremark: start, %d iterations\\n", ITERATIONS_TEXT);
	coremark_main();
	printf("coremark: done\\n");
	fflush(stdout);
}
`.replace("ITERATIONS_TEXT", String(o.iterations)),
  );
  return files;
}

export const coremarkCommand = defineCommand({
  name: "bench:coremark",
  script: "npm run bench:coremark",
  usage: "--coremark DIR [options]",
  summary:
    "calibrates the device bench's cycle model: builds CoreMark (sources outside the project) as an ESP-IDF app with the ESP32 kit, runs it in the same QEMU esp32 machine under the kit's cycle-model plugin (2-way and 4-way flash cache), and prints its instructions, modelled cycles, cycles per instruction and the CoreMark/MHz they imply next to Espressif's published figure.",
  options: {
    coremark: { type: "string", arg: "DIR", help: "a checkout of github.com/eembc/coremark (core_main.c, coremark.h, ...); required" },
    iterations: { type: "int", default: 1000, min: 10, max: 100000, help: "CoreMark iterations (the plugin counts every one; 1000 is about 0.3 G instructions a run)" },
    iram: { type: "flag", help: "place CoreMark's code in internal RAM, as Espressif's CoreMark component does (default: flash, through the modelled cache, like XS)" },
    shift: { type: "int", default: 3, min: 0, max: 8, help: "QEMU -icount shift: one instruction is 2^shift ns of guest time (as the device bench)" },
    timeout: { type: "int", default: 1800, min: 30, max: 14400, arg: "S", help: "give up on a QEMU run after S seconds" },
    work: { type: "string", arg: "DIR", defaultText: "<tmp>/lwar-xs-coremark", help: "work folder for the ESP-IDF app and its build, outside the project (kept: a second build takes seconds)" },
  },
  notes:
    "Needs the ESP32 kit (ESP-IDF with idf.py, the xtensa-esp32-elf toolchain, qemu-system-xtensa and its plugins/esp32-cachesim.so); reads the kit's env.sh where IDF_PATH is not set. CoreMark's sources stay where they are; nothing is written into the project. A run this short is not a reportable CoreMark score (CoreMark asks for 10 s): the script checks CoreMark's CRCs and uses the plugin's counts.",
  failure: "the kit or CoreMark is missing, the build failed, or CoreMark's results did not validate",
});

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** What is missing to build and run CoreMark on the emulated ESP32, one line each. */
function missingKit(env: NodeJS.ProcessEnv): { missing: string[]; qemu: string; plugin: string } {
  const missing: string[] = [];
  if (env.IDF_PATH === undefined || !fs.existsSync(env.IDF_PATH)) missing.push("IDF_PATH is not set to ESP-IDF (the ESP32 kit's env.sh sets it; no kit at /opt/esp32?)");
  if (which("idf.py", env) === null) missing.push("idf.py is not on PATH (ESP-IDF's tools)");
  if (which("xtensa-esp32-elf-gcc", env) === null) missing.push("xtensa-esp32-elf-gcc is not on PATH (the ESP-IDF toolchain)");
  if (which("xtensa-esp32-elf-nm", env) === null) missing.push("xtensa-esp32-elf-nm is not on PATH (the ESP-IDF toolchain)");
  const qemu = which("qemu-system-xtensa", env);
  let plugin = "";
  if (qemu === null) missing.push("qemu-system-xtensa is not on PATH (the ESP32 kit's QEMU with the esp32 machine)");
  else {
    plugin = path.join(path.dirname(path.dirname(qemu)), "plugins", "esp32-cachesim.so");
    if (!fs.existsSync(plugin)) missing.push(`no cycle-model plugin at ${plugin} (an older ESP32 kit)`);
  }
  return { missing, qemu: qemu ?? "", plugin };
}

/** Writes the files whose text changed (so that a second build is incremental). */
function writeFiles(dir: string, files: Map<string, string>): number {
  let written = 0;
  for (const [rel, text] of files) {
    const p = path.join(dir, rel);
    if (fs.existsSync(p) && fs.readFileSync(p, "utf8") === text) continue;
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
    // New defaults apply to a fresh sdkconfig only.
    if (rel === "sdkconfig.defaults") fs.rmSync(path.join(dir, "sdkconfig"), { force: true });
    written++;
  }
  return written;
}

/** idf.py build, its output in a log, a progress line every 15 s. */
async function idfBuild(work: string, env: NodeJS.ProcessEnv): Promise<void> {
  const log = path.join(work, "build.log");
  const t0 = Date.now();
  say(`bench:coremark: idf.py build in ${work} (log ${log}); the first build takes several minutes`);
  await runLogged({
    command: "idf.py", args: ["-C", work, "-B", path.join(work, "build"), "build"], cwd: work, env: { ...env, IDF_TARGET: "esp32" }, log, say,
    prefix: "bench:coremark: build",
    progress: () => {
      const lines = tail(log, 40).split("\n").reverse();
      const step = lines.find((l) => ninjaProgress(l) !== null) ?? lines[0] ?? "";
      const p = ninjaProgress(step);
      return p === null ? step.slice(0, 100) : `${p.done}/${p.total} build steps`;
    },
  });
  say(`bench:coremark: built in ${Math.round((Date.now() - t0) / 1000)} s`);
}

interface RunResult {
  window: CacheWindow;
  report: CoreMarkReport;
}

/** One boot under the plugin: CoreMark's report and the plugin's window. */
async function runOnce(o: { qemu: string; plugin: string; flash: string; start: string; stop: string; ways: number; shift: number; log: string; timeout: number; env: NodeJS.ProcessEnv }): Promise<RunResult> {
  const reader = new CacheSimReader();
  const uart: string[] = [];
  let failed: string | null = null;
  let counted = false;
  let finished = false;
  let settle: () => void = () => {};
  const settled = new Promise<void>((r) => (settle = r));
  const check = () => {
    if (failed !== null || (counted && finished)) settle();
  };
  const t0 = Date.now();
  const board = new Board({
    qemu: o.qemu,
    flash: o.flash,
    icountShift: o.shift,
    log: o.log,
    env: o.env,
    plugin: `${o.plugin},start=${o.start},stop=${o.stop},ways=${o.ways}`,
    onLine: (line) => {
      uart.push(line);
      if (line.startsWith("coremark:")) say(`board | ${line}`);
      if (bootFailure(line) !== null) failed = line;
      if (line === "coremark: done") finished = true;
      check();
    },
    onError: (line) => {
      if (line.startsWith("CACHESIM start")) say(`bench:coremark: ${o.ways}-way: the plugin's window opened (CoreMark's timed loop)`);
      if (line.startsWith("CACHESIM periodic")) {
        const n = /insns (\d+)/.exec(line);
        if (n !== null) say(`bench:coremark: ${o.ways}-way: ${(Number(n[1]) / 1e6).toFixed(0)} M instructions counted, ${Math.round((Date.now() - t0) / 1000)} s`);
      }
      if (reader.line(line)) counted = true;
      check();
    },
  });
  const onExit = () => board.killNow();
  process.on("exit", onExit);
  const outcome = await Promise.race([
    settled.then(() => "done"),
    board.done.then(() => "exit"),
    new Promise<string>((r) => setTimeout(() => r("timeout"), o.timeout * 1000).unref()),
  ]);
  await board.stop();
  process.removeListener("exit", onExit);
  if (failed !== null) throw new Error(`the board failed: ${failed}; see ${o.log}`);
  if (outcome !== "done" || reader.last === null) throw new Error(`${outcome === "timeout" ? `no result within ${o.timeout} s` : "QEMU stopped before CoreMark finished"}; see ${o.log}`);
  say(`bench:coremark: ${o.ways}-way run done in ${Math.round((Date.now() - t0) / 1000)} s`);
  return { window: reader.last, report: parseCoreMark(uart) };
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });

async function main(): Promise<void> {
  const v = coremarkCommand.parse();
  if (v.coremark === undefined) return coremarkCommand.usage("--coremark DIR is required: a checkout of github.com/eembc/coremark");
  const coremark = path.resolve(v.coremark);
  if (!fs.existsSync(coremark) || !fs.statSync(coremark).isDirectory()) coremarkCommand.fail(`no CoreMark source tree at ${coremark} (--coremark: a checkout of github.com/eembc/coremark)`);
  const absent = [...COREMARK_SOURCES, "coremark.h"].filter((f) => !fs.existsSync(path.join(coremark, f)));
  if (absent.length > 0) coremarkCommand.fail(`${coremark} is not a CoreMark source tree: no ${absent.join(", ")}`);
  const work = path.resolve(v.work ?? path.join(os.tmpdir(), "lwar-xs-coremark"));
  const inside = (p: string) => !path.relative(ROOT, p).startsWith("..") && !path.isAbsolute(path.relative(ROOT, p));
  if (inside(work)) coremarkCommand.usage(`--work ${work} is inside the project; CoreMark is built outside it`);
  if (inside(coremark)) coremarkCommand.usage(`--coremark ${coremark} is inside the project; CoreMark's sources stay outside it`);

  const env = buildEnv();
  const kit = missingKit(env);
  if (kit.missing.length > 0) coremarkCommand.fail(`cannot build and run CoreMark on the emulated ESP32:\n  ${kit.missing.join("\n  ")}`);

  let rev = "";
  try {
    rev = execFileSync("git", ["-C", coremark, "rev-parse", "--short", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    // not a git checkout
  }
  say(`bench:coremark: CoreMark from ${coremark}${rev === "" ? "" : ` (${rev})`}, ${v.iterations} iterations, code in ${v.iram ? "IRAM" : "flash"}; work folder ${work}`);
  fs.mkdirSync(work, { recursive: true });
  const written = writeFiles(work, appFiles({ coremark, iterations: v.iterations, iram: v.iram }));
  say(`bench:coremark: the ESP-IDF app and its port layer: ${written === 0 ? "unchanged" : `${written} files written`}`);
  try {
    await idfBuild(work, env);
  } catch (e) {
    coremarkCommand.fail((e as Error).message);
  }
  const build = path.join(work, "build");
  const elf = path.join(build, "coremark_esp32.elf");
  const nm = execFileSync("xtensa-esp32-elf-nm", [elf], { env, encoding: "utf8", maxBuffer: 64 << 20 });
  const start = symbolAddress(nm, WINDOW_OPEN);
  const stop = symbolAddress(nm, WINDOW_CLOSE);
  if (start === null || stop === null || start === stop) return coremarkCommand.fail(`the markers ${WINDOW_OPEN} and ${WINDOW_CLOSE} are not two functions of ${elf}`);
  const flash = path.join(work, "flash.bin");
  mergeFlash(build, flash, env);
  say(`bench:coremark: flash image ${flash}; window ${WINDOW_OPEN} 0x${start} .. ${WINDOW_CLOSE} 0x${stop}`);

  const results: { ways: number; run: RunResult; cal: Calibration }[] = [];
  for (const ways of [2, 4]) {
    const log = path.join(work, `qemu-${ways}way.log`);
    say(`bench:coremark: booting in QEMU (esp32 machine, -icount shift=${v.shift}) under the cycle model with a ${ways}-way flash cache (UART and plugin log ${log})`);
    let run: RunResult;
    try {
      run = await runOnce({ qemu: kit.qemu, plugin: kit.plugin, flash, start, stop, ways, shift: v.shift, log, timeout: v.timeout, env });
    } catch (e) {
      return coremarkCommand.fail((e as Error).message);
    }
    const iterations = run.report.iterations ?? v.iterations;
    results.push({ ways, run, cal: calibrate(run.window, iterations) });
  }

  const r = results[0].run.report;
  say("");
  say(`CoreMark: ${r.iterations ?? "?"} iterations, size ${r.size ?? "?"}, ${r.compiler ?? "?"} ${r.flags ?? ""}, ${r.memory ?? "?"}`);
  const crc = (n: number | null) => (n === null ? "?" : `0x${n.toString(16).padStart(4, "0")}`);
  say(
    `CoreMark's check: seedcrc ${crc(r.seedcrc)}, list ${crc(r.crclist)}, matrix ${crc(r.crcmatrix)}, state ${crc(r.crcstate)}, final ${crc(r.crcfinal)}: ` +
      (r.validated ? "the 2K performance run's known CRCs" : "NOT the known CRCs of the 2K performance run") +
      (r.tooShortOnly ? " (CoreMark also flags the run as shorter than its 10 s rule: a calibration, not a reportable score)" : ""),
  );
  const cal = results.map((x) => x.cal);
  const n = cal[0].instructions;
  say(`Xtensa instructions of the timed loop: ${fmt(n)} (${fmt(cal[0].instructionsPerIteration)} an iteration)${cal[1].instructions !== n ? `; the 4-way run counted ${fmt(cal[1].instructions)}` : ""}`);
  if (r.ticks !== null) {
    const guess = ticksAsInstructions(r.ticks, v.shift);
    say(`CoreMark's own clock: ${fmt(r.ticks)} µs of guest time = ${fmt(guess)} instructions at ${2 ** v.shift} ns each (${((100 * (guess - n)) / n).toFixed(2)} % from the plugin's count; QEMU's time, not the ESP32's)`);
  }
  const c0 = cal[0];
  say(`instruction mix: loads ${c0.loadsPct.toFixed(1)} %, taken transfers ${c0.takenPct.toFixed(1)} %, load-use pairs ${c0.loadUsePct.toFixed(1)} %; flash-cache misses ${cal.map((c) => `${c.missesPerK.toFixed(4)} per 1000 (${c.ways}-way)`).join(", ")}`);
  for (const c of cal) {
    say(
      `cycle model, ${c.ways}-way cache: ${fmt(c.cycles)} cycles (${fmt(c.misses)} flash-cache misses at ${MISS_CYCLES.mid}), ${c.cpi.toFixed(3)} cycles an instruction (${c.cpiNoMiss.toFixed(3)} before misses): ` +
        `${c.perMhz.toFixed(2)} CoreMark/MHz, ${c.coremark.toFixed(1)} CoreMark at ${PUBLISHED.mhz} MHz`,
    );
  }
  const pub = cal[0].publishedCpi;
  say(`published: ${PUBLISHED.coremark} CoreMark, ${PUBLISHED.perMhz.toFixed(2)} CoreMark/MHz (${PUBLISHED.source}); with the instructions counted here that is ${pub.toFixed(3)} cycles an instruction`);
  say(
    `model against published: ${cal.map((c) => `${c.ways}-way ${c.perMhz.toFixed(2)} CoreMark/MHz (${(100 * (c.ratio - 1)).toFixed(1)} %)`).join(", ")}; ` +
      `the device bench uses ${BENCH_CPI} cycles an instruction, the published figure gives ${pub.toFixed(2)} and the model ${cal.map((c) => c.cpi.toFixed(2)).join(" and ")} for these instructions`,
  );
  if (!r.validated) coremarkCommand.fail("CoreMark's results did not validate (see its CRCs above)");
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    say(`bench:coremark: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(EXIT_FAILURE);
  });
}
