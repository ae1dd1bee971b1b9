/**
 * `npx tsx tools/watch-cost/run.ts`: what one watch frame (modules/watch.ts) costs on XS.
 * For three matches of 8 server bots (no game: no entities; the game after 3 s; after 20 s),
 * lwxs runs the match and then 0 or 100 frames under callgrind; the difference over 100 is
 * the x86 instructions of one frame. With the ESP32 model of bench/bench.ts (A cycles per
 * x86 instruction, no float ops: the frame has none) that gives milliseconds on a 240 MHz
 * core. Needs valgrind; without it, prints lwxs wall times only.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { bundle } from "../xs/bundle";
import { assertBuilt, xsArguments } from "../xs/run";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const HEAPS = { slots: 400_000, chunks: 48 << 20, keys: 2048, stack: 4096 };
/** The ESP32 model's numbers (bench/bench.ts ESP32, docs/performance.md; tools do not import the bench): cycles per x86 instruction, and the core's MHz. */
const ESP32 = Object.freeze({ a: 2, aLow: 1.5, aHigh: 3, mhz: 240 });

interface Run {
  entities: number;
  bytes: number;
  msPerFrame: number;
  instructions: number;
}

function run(script: string, args: string[], callgrind: boolean): Run {
  const lwxs = assertBuilt();
  const argv = xsArguments([script], { ...HEAPS, args });
  const r = callgrind
    ? spawnSync("valgrind", ["--tool=callgrind", "--callgrind-out-file=/dev/null", lwxs, ...argv], { encoding: "utf8" })
    : spawnSync(lwxs, argv, { encoding: "utf8" });
  const line = r.stdout.split("\n").find((l) => l.startsWith("result "));
  if (line === undefined) throw new Error(`lwxs said: ${r.stdout}\n${r.stderr}`);
  const m = /Collected : (\d+)/.exec(r.stderr);
  return { ...(JSON.parse(line.slice(7)) as Omit<Run, "instructions">), instructions: m === null ? 0 : Number(m[1]) };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lwar-watch-cost-"));
  const script = join(dir, "watch-cost.js");
  await bundle(join(HERE, "entry.ts"), script);
  const callgrind = spawnSync("valgrind", ["--version"]).status === 0;
  console.log("match (8 server bots)          entities  frame bytes  lwxs ms/frame  x86 instr/frame  ESP32 ms/frame (A = 1.5..3)");
  for (const [mode, ms, what] of [["none", "3000", "no game"], ["game", "3000", "game, 3 s in"], ["game", "20000", "game, 20 s in"]]) {
    const timed = run(script, ["100", mode, ms], false);
    let instr = "";
    let esp = "";
    if (callgrind) {
      const per = (run(script, ["100", mode, ms], true).instructions - run(script, ["0", mode, ms], true).instructions) / 100;
      const at = (a: number): string => ((a * per) / (ESP32.mhz * 1000)).toFixed(1);
      instr = `${(per / 1000).toFixed(0)} k`;
      esp = `${at(ESP32.a)} (${at(ESP32.aLow)}..${at(ESP32.aHigh)})`;
    }
    console.log(
      `${what.padEnd(30)} ${String(timed.entities).padStart(8)}  ${String(timed.bytes).padStart(11)}  ${timed.msPerFrame.toFixed(3).padStart(13)}  ${instr.padStart(15)}  ${esp}`,
    );
  }
}

void main();
