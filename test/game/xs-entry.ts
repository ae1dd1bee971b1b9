/**
 * A scripted match of the game and the update planner, for XS (bundled into one script
 * and run by tools/xs/build/lwxs) and for Node alike. Under XS it measures the heap
 * around the run and prints one line: `hash H slots A B chunks C D collections N`.
 */
import { Random } from "../../modules/random";
import { PriorityPlanner } from "../../modules/server/updates";
import { makeWorld, playerIdOf, type World } from "./world";

export interface Run {
  w: World;
  planner: PriorityPlanner;
  list: Uint16Array;
  script: Random;
  t: number;
}

export function start(seed: number): Run {
  const w = makeWorld({}, seed);
  for (let s = 0; s < 8; s++) w.game.playerJoined(s, playerIdOf(s));
  const planner = new PriorityPlanner(w.entities, 8, w.game, null, w.native);
  // Announce adds and removes to every slot, as the server does with its Add and Remove.
  const e = w.entities;
  for (let i = 0; i < e.capacity; i++) if (e.alive[i] !== 0) for (let s = 0; s < 8; s++) planner.added(s, i);
  e.listener = {
    entityAdded(i: number): void {
      for (let s = 0; s < 8; s++) planner.added(s, i);
    },
    entityRemoved(i: number): void {
      for (let s = 0; s < 8; s++) planner.removed(s, i);
    },
  };
  return { w, planner, list: planner.list, script: new Random(4242), t: 0 };
}

/** `steps` more steps on scripted inputs, with an update plan for every player every other step. */
export function advance(r: Run, steps: number): void {
  const w = r.w;
  for (let k = 0; k < steps; k++, r.t++) {
    if (r.t % 10 === 0) for (let s = 0; s < 8; s++) w.players.input[s] = r.script.below(32);
    if (r.t % 600 === 0) for (let s = 0; s < 8; s++) w.players.ship[s] = r.script.below(3);
    w.game.step();
    if (r.t % 2 === 0) {
      for (let s = 0; s < 8; s++) {
        const n = r.planner.plan(s, r.list, 0);
        r.planner.commit(s, r.list, n < 60 ? n : 60, 0);
      }
    }
  }
}

declare const xs:
  | { gc(): void; slotsUsed(): number; chunksUsed(): number; collections(): number; args: string[]; run(tick: (() => void) | null, intervalMs?: number): void }
  | undefined;
declare const print: (s: string) => void;

// From the event loop, once the bundle's top level (hundreds of stack slots) has returned,
// as a device's timer calls the core.
function main(): void {
  if (typeof xs === "undefined") return;
  const seed = Number(xs.args[0] ?? 1);
  const warm = Number(xs.args[1] ?? 300);
  const steps = Number(xs.args[2] ?? 2000);
  const r = start(seed);
  advance(r, warm);
  xs.gc();
  const slots = xs.slotsUsed();
  const chunks = xs.chunksUsed();
  const collections = xs.collections();
  advance(r, steps);
  const slots1 = xs.slotsUsed();
  const chunks1 = xs.chunksUsed();
  const collections1 = xs.collections();
  print("hash " + r.w.game.hash() + " slots " + slots + " " + slots1 + " chunks " + chunks + " " + chunks1 + " collections " + (collections1 - collections));
}

if (typeof xs !== "undefined") {
  xs.run(() => {
    xs!.run(null);
    main();
  }, 1);
}
