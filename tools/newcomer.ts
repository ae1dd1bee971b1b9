/**
 * `npm run newcomer -- --seeds 10`: how long a newcomer lives against the server's bots.
 * For each seed, a match with `--bots` bots of `--skill` runs in memory (harness/match.ts);
 * once the bots fly, a scripted newcomer joins that holds its fire, never thrusts and turns
 * at random (a new choice of left, right or straight every 400 ms). Its first life is the
 * time from its first ship's Add to that ship's Remove, as the newcomer saw them; a ship
 * alive at the end of `--seconds` counts as that long. Prints each seed and the median.
 */
import { pathToFileURL } from "node:url";
import { defineCommand, EXIT_FAILURE, EXIT_OK } from "../cli";
import { BOT_SKILLS } from "../modules/config";
import { ClientState } from "../modules/client/client";
import { Msg } from "../modules/protocol/constants";
import { Fields, INPUT_LEFT, INPUT_RIGHT, readAdd, readId } from "../modules/protocol/codec";
import { Kind, kindOf } from "../modules/game/templates";
import { Random } from "../modules/random";
import { BOT_FILL_MS } from "../modules/server/server";
import { TestMatch } from "../harness/match";
import { installNodeKernels } from "../hosts/node/kernels";

export interface NewcomerOptions {
  seed: number;
  bots: number;
  /** Index into BOT_SKILLS. */
  skill: number;
  /** Longest life measured, s. */
  seconds: number;
}

/** The newcomer's first life in ms (capped at `seconds`), and whether it died. */
export interface FirstLife {
  seed: number;
  ms: number;
  died: boolean;
}

/** One match: the newcomer's first life. */
export function firstLife(o: NewcomerOptions): FirstLife {
  const m = new TestMatch({ bots: o.bots, botSkill: o.skill }, { seed: o.seed, delayMs: 20, jitterMs: 5 });
  m.withGame(o.seed, null);
  m.run(BOT_FILL_MS + 500);
  // Let the bots settle into the fight before the newcomer arrives.
  m.run(5000);
  const c = m.client();
  const host = m.hosts[m.hosts.length - 1];
  const rng = new Random(o.seed * 7919 + 1);
  let turn = 0;
  let nextTurn = 0;
  host.core = {
    receive: (b, n, a, p) => c.receive(b, n, a, p),
    tick: (now) => {
      if (c.state === ClientState.Connected) {
        if (now >= nextTurn) {
          const r = rng.nextU32() % 3;
          turn = r === 0 ? INPUT_LEFT : r === 1 ? INPUT_RIGHT : 0;
          nextTurn = now + 400;
        }
        c.setInput(turn);
      }
      c.tick(now);
    },
  };
  const f = new Fields();
  let ship = -1;
  let bornAt = -1;
  let diedAt = -1;
  c.listener = {
    reliable: (_c, type, _seq, b, off) => {
      if (type === Msg.Add && bornAt < 0) {
        readAdd(b, off, f);
        if (f.other === c.selfId && kindOf(f.a) === Kind.Ship) {
          ship = f.id;
          bornAt = m.net.now;
        }
      } else if (type === Msg.Remove && ship >= 0 && diedAt < 0 && readId(b, off) === ship) diedAt = m.net.now;
    },
    unreliable: () => {},
  };
  c.connect();
  m.until(() => bornAt >= 0, 5000);
  if (bornAt < 0) throw new Error(`seed ${o.seed}: the newcomer never got a ship`);
  m.until(() => diedAt >= 0, o.seconds * 1000);
  const died = diedAt >= 0;
  return { seed: o.seed, ms: died ? diedAt - bornAt : o.seconds * 1000, died };
}

/** The median of `ms`. */
export function median(ms: number[]): number {
  const s = ms.slice().sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return 0;
  return n % 2 === 1 ? s[n >> 1] : (s[(n >> 1) - 1] + s[n >> 1]) / 2;
}

export const newcomerCommand = defineCommand({
  name: "newcomer",
  script: "npm run newcomer",
  summary: "measure a newcomer's first life against the server's bots (holds fire, turns at random).",
  options: {
    seeds: { type: "int", default: 10, min: 1, max: 1000, arg: "N", help: "matches, seeds 1..N" },
    bots: { type: "int", default: 3, min: 1, max: 7, help: "bots in the match" },
    skill: { type: "choice", choices: BOT_SKILLS, default: "normal", help: "the bots' skill" },
    seconds: { type: "number", default: 60, min: 1, max: 600, arg: "S", help: "longest life measured" },
    min: { type: "number", default: 0, min: 0, max: 600, arg: "S", help: "a median below this fails" },
  },
  notes: "Each match runs in memory on a virtual clock (20 ± 5 ms each way), faster than real time. The newcomer joins 5 s after the bots.",
  failure: "the median first life was below --min",
});

function main(): void {
  installNodeKernels();
  const v = newcomerCommand.parse();
  const lives: number[] = [];
  for (let seed = 1; seed <= v.seeds; seed++) {
    const r = firstLife({ seed, bots: v.bots, skill: BOT_SKILLS.indexOf(v.skill), seconds: v.seconds });
    lives.push(r.ms);
    console.log(`seed ${seed}: ${(r.ms / 1000).toFixed(1)} s${r.died ? "" : " (alive at the end)"}`);
  }
  const med = median(lives) / 1000;
  console.log(`median first life: ${med.toFixed(1)} s over ${v.seeds} seeds, against ${v.bots} ${v.skill} bots`);
  process.exit(med >= v.min ? EXIT_OK : EXIT_FAILURE);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
