/**
 * `npm run bench:device:esp32`: the device bench on an emulated ESP32, with time counting
 * instructions.
 *
 * Builds bench/device for esp32 with the emulator's sdkconfig (one core, DIO flash, the
 * UART log; bench/device/emulator/manifest.json), boots it in QEMU with
 * `-icount shift=N,align=off,sleep=off`: every guest instruction then takes 2^N ns of guest
 * time, so the app's microsecond clock counts instructions (µs × 1000 / 2^N). Prints the
 * app's own lines, then Xtensa instructions per 10 ms tick (mean, median, p99, worst) and
 * what they take on a 240 MHz ESP32 core with the calibrated cycles per instruction
 * (docs/performance.md, "On the emulated ESP32"), and per received datagram: by
 * `server.receive` alone, and through the board's own path (net.c's ring, the host's drain,
 * `server.received`).
 *
 * Then, unless --no-cycles, the same firmware twice more under the kit's cycle model
 * (cycles.ts: its QEMU plugin with a 2-way and a 4-way flash cache), counting the untimed
 * replay of the window between the app's windowOpen() and windowClose(): the modelled cycles
 * per instruction of the server's own code, and with them the share of a core and the
 * heaviest tick next to the instruction counts.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { buildEnv, findFile, ROOT, runMcconfig } from "../../tools/board/kit";
import { Board, bootFailure, emulatorTools, mergeFlash } from "../../tools/board/qemu";
import { defineCommand, EXIT_FAILURE } from "../../cli";
import { DEFAULT_CASE } from "../../harness/trace";
import { MODULES_FRAGMENT, deviceTrace, modulesFragment } from "./generate";
import { TRACE_RESOURCE, caseLabel, defaultDeviceCase } from "./tracefile";
import { execFileSync } from "node:child_process";
import { CacheSimReader, type CycleModel, cycleModel } from "./cycles";

/**
 * ESP32 cycles per Xtensa instruction, from CoreMark: instructions per iteration counted in
 * this QEMU, against the published scores of an ESP32 core at 240 MHz
 * (docs/performance.md). `low` and `high` bound the estimate.
 */
export const CPI = { mid: 1.73, low: 1.41, high: 2.45 } as const;
export const MHZ = 240;

export const esp32BenchCommand = defineCommand({
  name: "bench:device:esp32",
  script: "npm run bench:device:esp32",
  summary:
    "the device bench on an emulated ESP32 (QEMU, time counting instructions): Xtensa instructions per 10 ms tick of the recorded 8-player match with the game, and the share of a 240 MHz core they take.",
  options: {
    players: { type: "int", default: 8, min: 1, max: 8, help: "clients" },
    capacity: { type: "int", default: 192, min: 16, max: 4096, help: "entity capacity" },
    seed: { type: "int", default: DEFAULT_CASE.seed, min: 0, max: 0xffffffff, help: "match seed" },
    runs: { type: "int", default: 3, min: 1, max: 99, help: "timed runs (the emulator is deterministic: more runs agree)" },
    shift: { type: "int", default: 3, min: 0, max: 8, help: "QEMU -icount shift: one instruction is 2^shift ns of guest time" },
    "no-cycles": { type: "flag", help: "leave out the two runs under the kit's cycle model (each a few minutes)" },
    release: {
      type: "flag",
      help: "build the bench as a release (mcconfig without -i, as the release images are): no XS instrumentation, so no heap figures",
    },
    timeout: { type: "int", default: 900, min: 30, max: 7200, arg: "S", help: "give up after S seconds" },
    out: { type: "string", arg: "DIR", default: "build/esp32/bench", help: "build output folder (kept: a second build takes seconds; --release builds in DIR-release)" },
  },
  notes: "Needs the ESP32 kit (or MODDABLE, IDF_PATH and the toolchain) and qemu-system-xtensa; reads the kit's env.sh where MODDABLE or IDF_PATH is not set.",
  failure: "the bench did not run, or the replay did not match the recording",
});

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

const SUMMARY = "lwar-xs device bench: ";
const DONE = "lwar-xs device bench: done";

/** "median 1,234 µs" style figures of the app's summary line. */
function figure(line: string, name: string): number | null {
  const m = new RegExp(`${name} ([0-9.,]+) µs`).exec(line);
  return m === null ? null : Number(m[1].replace(/,/g, ""));
}

async function main(): Promise<void> {
  const v = esp32BenchCommand.parse();
  const env = buildEnv();
  const { qemu, missing } = emulatorTools(env);
  if (missing.length > 0) esp32BenchCommand.fail(`cannot run on the emulated ESP32:\n  ${missing.join("\n  ")}`);

  const here = path.join(ROOT, "bench", "device");
  const o = defaultDeviceCase(DEFAULT_CASE);
  o.players = v.players;
  o.capacity = v.capacity;
  o.seed = v.seed;
  const file = deviceTrace(o);
  fs.writeFileSync(path.join(here, TRACE_RESOURCE), file);
  fs.writeFileSync(path.join(here, MODULES_FRAGMENT), `${JSON.stringify(modulesFragment(), null, "\t")}\n`);
  say(`bench:device:esp32: ${caseLabel(o)}: wrote bench/device/${TRACE_RESOURCE} (${file.length} bytes) and bench/device/${MODULES_FRAGMENT}`);

  // A release build in a folder of its own: the two kinds share no object files.
  const out = path.resolve(v.release ? `${v.out}-release` : v.out);
  fs.mkdirSync(out, { recursive: true });
  try {
    await runMcconfig({
      args: [...(v.release ? [] : ["-i"]), "-m", "-p", "esp32", "-t", "build", "-o", out, path.join(here, "emulator", "manifest.json"), `runs=${v.runs}`],
      cwd: here,
      log: path.join(out, "build.log"),
      env,
      say,
    });
  } catch (e) {
    esp32BenchCommand.fail((e as Error).message);
  }
  const args = findFile(path.join(out, "tmp"), "flash_args");
  if (args === null) return esp32BenchCommand.fail(`no flash_args under ${out}/tmp`);
  const flash = path.join(out, "flash.bin");
  mergeFlash(path.dirname(args), flash, env);

  const seen: { summary: string | null; receive: string | null; board: string | null; broadcast: string | null; failed: string | null; warning: boolean } = {
    summary: null,
    receive: null,
    board: null,
    broadcast: null,
    failed: null,
    warning: false,
  };
  let finished: () => void = () => {};
  const done = new Promise<void>((r) => (finished = r));
  const log = path.join(out, "board.log");
  say(`bench:device:esp32: booting in QEMU with -icount shift=${v.shift} (UART log ${log}); the replay takes a few minutes of wall time`);
  const board = new Board({
    qemu,
    flash,
    icountShift: v.shift,
    log,
    env,
    onLine: (line) => {
      if (line.startsWith("instruments")) return;
      const failure = bootFailure(line);
      if (!/^[IWE] \(\d+\)/.test(line)) say(`board | ${line}`);
      if (line.startsWith("WARNING")) seen.warning = true;
      if (line.startsWith(SUMMARY) && line.includes(" µs per 10 ms tick")) seen.summary = line;
      if (line.startsWith(`${SUMMARY}receive `)) seen.receive = line;
      if (line.startsWith(`${SUMMARY}the board's path: ack`)) seen.board = line;
      if (line.startsWith(`${SUMMARY}broadcast `)) seen.broadcast = line;
      if (failure !== null || line.startsWith(`${SUMMARY}failed`) || line.startsWith(`${SUMMARY}no `)) {
        seen.failed = line;
        finished();
      }
      if (line === DONE) finished();
    },
  });
  process.on("exit", () => board.killNow());
  const outcome = await Promise.race([done.then(() => "done"), board.done.then(() => "exit"), new Promise<string>((r) => setTimeout(() => r("timeout"), v.timeout * 1000).unref())]);
  await board.stop();
  if (outcome !== "done" || seen.failed !== null || seen.summary === null) {
    say(`bench:device:esp32: ${outcome === "timeout" ? `no result within ${v.timeout} s` : (seen.failed ?? "the app printed no summary")}; UART log ${log}`);
    process.exit(EXIT_FAILURE);
  }
  const perUs = 1000 / 2 ** v.shift;
  const s = seen.summary;
  const f = { mean: figure(s, "mean"), median: figure(s, "median"), p99: figure(s, "p99"), worst: figure(s, "worst") };
  const instr = (us: number | null) => (us === null ? "?" : `${((us * perUs) / 1e6).toFixed(3)} M`);
  const esp = (us: number | null, cpi: number) => (us === null ? NaN : (us * perUs * cpi) / MHZ / 1000); // ms
  say("");
  say(`summary: ${s}`);
  say(`Xtensa instructions per 10 ms tick (${v.release ? "release build" : "instrumented build"}; guest µs × ${perUs}): mean ${instr(f.mean)}, median ${instr(f.median)}, p99 ${instr(f.p99)}, heaviest ${instr(f.worst)}`);
  const m = seen.receive === null ? null : /receive ([0-9.,]+) µs per datagram/.exec(seen.receive);
  const rx = m === null ? null : Number(m[1].replace(/,/g, ""));
  if (rx !== null) say(`Xtensa instructions per received datagram (an ack + Input, server.receive alone): ${((rx * perUs) / 1000).toFixed(1)} k (${((rx * perUs * CPI.mid) / MHZ).toFixed(0)} µs on the ESP32)`);
  const b = seen.board === null ? null : /ack \+ Input ([0-9.]+) µs, ack ([0-9.]+) µs per datagram \((\d+) and (\d+) waiting.*nothing ([0-9.]+) µs; server.received alone ([0-9.]+) µs/.exec(seen.board);
  if (b !== null) {
    const k = (text: string) => `${((Number(text) * perUs) / 1000).toFixed(1)} k`;
    say(
      `receive through the board's path: ack + Input ${k(b[1])} instructions, ack ${k(b[2])} (each of ${b[3]} and ${b[4]} waiting at a drain: ` +
        `net.c's ring, udpNext, the address table, server.received); a drain that finds nothing ${k(b[5])}; server.received alone ${k(b[6])} an ack + Input`,
    );
  } else say("receive through the board's path: the app printed no figure");
  const bc = seen.broadcast === null ? null : /broadcast (-?[0-9.]+) µs per recipient \(a chat from each of (\d+) players, each to (\d+): ([0-9.]+) µs a chat against ([0-9.]+) µs/.exec(seen.broadcast);
  if (bc !== null) {
    const k = (text: string) => `${((Number(text) * perUs) / 1000).toFixed(1)} k`;
    say(
      `a session broadcast: ${k(bc[1])} instructions a recipient at its receipt (a chat from each of ${bc[2]} players, each to ${bc[3]}: ` +
        `${k(bc[4])} a chat against ${k(bc[5])} a bare ack; sending it is the recipient's next packet)`,
    );
    const rs = /rename (-?[0-9.]+) µs, selection (-?[0-9.]+) µs per recipient \(([0-9.]+) µs a rename, ([0-9.]+) µs a selection\)/.exec(seen.broadcast as string);
    if (rs !== null) say(`a rename: ${k(rs[1])} instructions a recipient (${k(rs[3])} a rename); a selection: ${k(rs[2])} a recipient (${k(rs[4])} a selection)`);
    else say("a rename, a selection: the app printed no figure");
  } else say("a session broadcast: the app printed no figure");
  const share = (cpi: number) => ((100 * esp(f.mean, cpi)) / 10).toFixed(0);
  say(
    `on a ${MHZ} MHz ESP32 core at ${CPI.mid} cycles per instruction (${CPI.low}..${CPI.high}): ` +
      `${share(CPI.mid)} % of the core (${share(CPI.low)}..${share(CPI.high)} %), heaviest step ${esp(f.worst, CPI.mid).toFixed(2)} ms (${esp(f.worst, CPI.low).toFixed(2)}..${esp(f.worst, CPI.high).toFixed(2)})`,
  );
  if (seen.warning) esp32BenchCommand.fail("the replay did not end with the recording's totals: see the WARNING above");
  if (v["no-cycles"]) return;

  // The cycle model: the window's two functions by their addresses in the ELF.
  const elf = findFile(path.join(out, "tmp"), "xs_esp32.elf");
  const plugin = path.join(path.dirname(path.dirname(qemu)), "plugins", "esp32-cachesim.so");
  if (elf === null || !fs.existsSync(plugin)) {
    say(`cycle model: skipped (${elf === null ? `no xs_esp32.elf under ${out}/tmp` : `no ${plugin}: an older ESP32 kit`})`);
    return;
  }
  const symbols = execFileSync("xtensa-esp32-elf-nm", [elf], { env, encoding: "utf8", maxBuffer: 64 << 20 });
  const address = (name: string): string => {
    const m = new RegExp(`^([0-9a-f]+) T ${name}$`, "m").exec(symbols);
    if (m === null) throw new Error(`${name} is not in ${elf}`);
    return m[1];
  };
  const start = address("xs_lwar_bench_window_open");
  const stop = address("xs_lwar_bench_window_close");
  const models: CycleModel[] = [];
  for (const ways of [2, 4]) {
    const reader = new CacheSimReader();
    let counted: () => void = () => {};
    const got = new Promise<void>((r) => (counted = r));
    const clog = path.join(out, `cycles-${ways}way.log`);
    say(`cycle model: ${ways}-way flash cache, counting the untimed replay (UART and plugin log ${clog}); a few minutes`);
    const b = new Board({
      qemu,
      flash,
      log: clog,
      env,
      plugin: `${plugin},start=${start},stop=${stop},ways=${ways}`,
      onLine: (line) => {
        if (bootFailure(line) !== null) counted();
      },
      onError: (line) => {
        if (reader.line(line)) counted();
      },
    });
    const ended = await Promise.race([got.then(() => "counted"), b.done.then(() => "exit"), new Promise<string>((r) => setTimeout(() => r("timeout"), v.timeout * 1000).unref())]);
    await b.stop();
    if (ended !== "counted" || reader.last === null) {
      say(`cycle model: no window counted with ${ways} ways (${ended}); see ${clog}`);
      process.exit(EXIT_FAILURE);
    }
    models.push(cycleModel(reader.last));
  }
  const mean = f.mean === null ? NaN : f.mean * perUs;
  const worst = f.worst === null ? NaN : f.worst * perUs;
  for (const c of models) {
    say(
      `cycle model, ${c.ways}-way cache: ${(c.instructions / 1e6).toFixed(1)} M instructions counted; loads ${c.loadsPct.toFixed(1)} %, taken transfers ${c.takenPct.toFixed(1)} %, ` +
        `load-use pairs ${c.loadUsePct.toFixed(1)} %, flash-cache misses ${c.missesPerK.toFixed(2)} per 1000; ${c.cpiNoMiss.toFixed(2)} cycles an instruction before misses, ` +
        `${c.cpi.toFixed(2)} with them (${c.cpiLow.toFixed(2)}..${c.cpiHigh.toFixed(2)} at 200..230 cycles a miss)`,
    );
  }
  for (const c of models) {
    const ms = (instr: number, cpi: number) => (instr * cpi) / MHZ / 1000;
    say(
      `modelled cycles a 10 ms tick, ${c.ways}-way cache: mean ${((mean * c.cpi) / 1e6).toFixed(2)} M (${ms(mean, c.cpi).toFixed(2)} ms, ${(ms(mean, c.cpi) * 10).toFixed(0)} % of a ${MHZ} MHz core), ` +
        `heaviest ${((worst * c.cpi) / 1e6).toFixed(2)} M (${ms(worst, c.cpi).toFixed(2)} ms; ${ms(worst, c.cpiLow).toFixed(2)}..${ms(worst, c.cpiHigh).toFixed(2)})`,
    );
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    say(`bench:device:esp32: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(EXIT_FAILURE);
  });
}
