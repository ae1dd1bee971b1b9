/**
 * A projectile storm: eight ships that turn, thrust and fire at random (now and then put at
 * the arena's edge, on a planet, in the sun or far over their speed limit), and every step
 * more projectiles thrown in where the game's branches are: at ships (their own and
 * others', young and old), at planets, at the sun, at the arena's edge and past it, fast
 * enough for the speed cap. Host-free: the test runs it on Node (the loops as WebAssembly) and,
 * bundled, on XS (lwxs, the loops compiled in), and compares the world's hash every 25 steps
 * and the game's counters.
 * On XS a script loaded before this one sets STORM_ARGS and this one prints `storm ...`.
 */
import { GameCounter, GAME_COUNTER_COUNT } from "../../modules/game/game";
import { SHOT_BASE, SHOT_TYPES, TEMPLATE_RADIUS, WEAPON_LIFE } from "../../modules/game/templates";
import type { Kernels } from "../../modules/native";
import { INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../../modules/protocol/codec";
import { Random } from "../../modules/random";
import { POS_SHIFT } from "../../modules/units";
import { joinAndSpawn, makeWorld } from "../game/world";

export interface Storm {
  hashes: number[];
  counters: number[];
  /** Game#clearance at 3000 points after the storm, hashed, and how many were short (negative). */
  clearance: number;
  short: number;
}

export function storm(seed: number, steps: number): Storm {
  const w = makeWorld({ maxPlayers: 8, maxEntities: 256 }, seed);
  const { game, entities: e, players } = w;
  for (let s = 0; s < 8; s++) joinAndSpawn(w, s);
  const rng = new Random(seed ^ 0x5eed);
  const hashes: number[] = [];
  const inputs = [0, INPUT_FORWARD, INPUT_SHOOTING, INPUT_FORWARD | INPUT_SHOOTING, INPUT_LEFT | INPUT_SHOOTING, INPUT_RIGHT | INPUT_FORWARD];
  for (let k = 0; k < steps; k++) {
    for (let s = 0; s < 8; s++) players.input[s] = inputs[rng.below(inputs.length)];
    for (let extra = 0; extra < 6; extra++) {
      const weapon = rng.below(SHOT_TYPES);
      // Where: a ship (by slot), a planet or the sun (a body), the edge, beyond it.
      const where = rng.below(5);
      let x = 0;
      let y = 0;
      let owner = 0xffffffff;
      if (where === 0) {
        const slot = rng.below(8);
        const ship = game.focusIndex[slot];
        if (ship < 0) continue;
        x = e.x[ship] + ((rng.below(121) - 60) << POS_SHIFT);
        y = e.y[ship] + ((rng.below(121) - 60) << POS_SHIFT);
        // Half of them the ship's own.
        owner = rng.below(2) === 0 ? game.playerId[slot] : game.playerId[(slot + 1) & 7];
      } else if (where === 1) {
        const body = game.bodyIndex[rng.below(game.bodies)];
        x = e.x[body] + ((rng.below(401) - 200) << POS_SHIFT);
        y = e.y[body] + ((rng.below(401) - 200) << POS_SHIFT);
      } else if (where === 2) {
        x = (rng.below(6001) - 3000) << POS_SHIFT;
        y = (rng.below(6001) - 3000) << POS_SHIFT;
      } else {
        // Near and past the arena's edge (3000 wu), and off the grid (±3072 wu).
        const r = 2900 + rng.below(400);
        x = (rng.below(2) === 0 ? r : -r) << POS_SHIFT;
        y = (rng.below(2 * r + 1) - r) << POS_SHIFT;
      }
      const j = e.add(SHOT_BASE + weapon, owner, x, y);
      if (j < 0) break;
      // Up to 60 wu a step: over the cap (45.2 wu a step) now and then.
      e.vx[j] = (rng.below(121) - 60) << POS_SHIFT;
      e.vy[j] = (rng.below(121) - 60) << POS_SHIFT;
      game.radius[j] = TEMPLATE_RADIUS[SHOT_BASE + weapon];
      game.steady[j] = 1;
      // Ages around the arming time, so that own-ship hits are and are not yet possible.
      game.expires[j] = game.steps + WEAPON_LIFE[weapon] - rng.below(14);
    }
    // Every 10th step a ship is put where the ship loop branches: at the arena's edge moving
    // out, on a planet, into the sun, or moving far over its speed limit.
    if (k % 10 === 0) {
      const slot = rng.below(8);
      const ship = game.focusIndex[slot];
      if (ship >= 0) {
        const where = rng.below(4);
        const speed = (20 + rng.below(80)) << POS_SHIFT;
        if (where === 0) {
          const r = 2960 + rng.below(60);
          e.x[ship] = r << POS_SHIFT;
          e.y[ship] = (rng.below(201) - 100) << POS_SHIFT;
          e.vx[ship] = speed >> 3;
          e.vy[ship] = 0;
        } else if (where === 1) {
          const body = game.bodyIndex[1 + rng.below(game.bodies - 1)];
          e.x[ship] = e.x[body] + ((rng.below(81) - 40) << POS_SHIFT);
          e.y[ship] = e.y[body] + ((rng.below(81) - 40) << POS_SHIFT);
        } else if (where === 2) {
          e.x[ship] = (rng.below(301) - 150) << POS_SHIFT;
          e.y[ship] = (rng.below(301) - 150) << POS_SHIFT;
        } else {
          e.vx[ship] = rng.below(2) === 0 ? speed : -speed;
          e.vy[ship] = speed >> 1;
        }
        game.moved(ship);
      }
    }
    game.step();
    if ((k + 1) % 25 === 0) hashes.push(game.hash());
  }
  const counters: number[] = [];
  for (let i = 0; i < GAME_COUNTER_COUNT; i++) counters.push(game.counters[i]);
  // Spawn clearance in the crowded arena: around ships, planets and the sun, and anywhere.
  let clearance = 0x811c9dc5;
  let short = 0;
  for (let k = 0; k < 3000; k++) {
    const x = (rng.below(6001) - 3000) << POS_SHIFT;
    const y = (rng.below(6001) - 3000) << POS_SHIFT;
    const c = game.clearance(x, y);
    if (c < 0) short++;
    clearance = Math.imul(clearance ^ c, 0x01000193) >>> 0;
  }
  return { hashes, counters, clearance, short };
}

/** The counters a storm must have driven for the comparison to mean something, and how far. */
export const STORM_COUNTERS: ReadonlyArray<readonly [number, number]> = [
  [GameCounter.ShotsFired, 200],
  [GameCounter.ShotHits, 40],
  [GameCounter.Kills, 5],
  // Killed by their own projectiles: the arming time was tested both ways.
  [GameCounter.Suicides, 3],
  // Ships into the sun and onto planets.
  [GameCounter.EnvironmentDeaths, 5],
  [GameCounter.PlanetHits, 2],
];

declare const xs: { args: string[]; kernels?: Kernels } | undefined;
declare const print: (s: string) => void;

if (typeof xs !== "undefined" && xs.args[0] === "storm") {
  if (xs.kernels === undefined) throw new Error("this lwxs has no xs.kernels: rebuild it (npm run build:xs)");
  const r = storm(Number(xs.args[1]), Number(xs.args[2]));
  print(`storm ${r.hashes.join(",")} ${r.counters.join(",")} ${r.clearance} ${r.short}`);
}
