/**
 * The projectiles' step in C (modules/kernels/loops.c, lw_shots), from the numbers handed
 * over here once, in the binding NATIVE_LAYOUT.shot. The C stops where a projectile hits a ship
 * (the damage, the kill and its log are the game's business: shotsHit); this does that
 * one projectile's rest, and the C goes on after it.
 */
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { ShotStop, ShotWord } from "../native-words";
import { PLANET_NEAR } from "./bodies";
import { D_SHIFT, OCT_MAX, OCT_MIN, S_SHIFT, T_MASK } from "./gravity";
import { shotsHit, type ShotsStep } from "./shots";
import { SHOT_ARM_STEPS, SHOT_BASE, SHOT_TYPES, WEAPON_LIFE } from "./templates";
import {
  ARENA_R2, type GameWorld, GRID_HALF, GRID_SHIFT, GRID_SIDE, PLANET_BIT, REACH, SHIP_BIT, SUN_RADIUS, ZONES,
} from "./world";

export class NativeShotsStep implements ShotsStep {
  readonly #w: GameWorld;
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #words: Int32Array;
  readonly #at: number;

  constructor(w: GameWorld, kernels: Kernels, native: NativeOptions | null) {
    if (SHOT_TYPES > 4) throw new RangeError("the native projectile loop knows 4 weapons' lives");
    const e = w.entities;
    const b = new Binding(NATIVE_LAYOUT.shot, {
      x: e.x, y: e.y, vx: e.vx, vy: e.vy, owner: e.owner, type: e.type, list: w.shotList, doomed: w.doomed,
      expires: w.expires, gravity: w.gravity, radius: w.radius, bodyIndex: w.bodyIndex, focusIndex: w.focusIndex,
      hp: w.hp, playerId: w.playerId, prevX: w.prevX, prevY: w.prevY, bodyPrevX: w.bodyPrevX,
      bodyPrevY: w.bodyPrevY, mask: w.grid.mask, rsqrtSeed: w.geometry.rsqrtSeed,
    }, 0, native);
    const words = b.words;
    const at = b.scalars;
    words[at + ShotWord.GridHalf] = GRID_HALF;
    words[at + ShotWord.GridShift] = GRID_SHIFT;
    words[at + ShotWord.GridSide] = GRID_SIDE;
    words[at + ShotWord.OctMin] = OCT_MIN;
    words[at + ShotWord.OctMax] = OCT_MAX;
    words[at + ShotWord.TMask] = T_MASK;
    words[at + ShotWord.DShift] = D_SHIFT;
    words[at + ShotWord.SShift] = S_SHIFT;
    words[at + ShotWord.Zones] = ZONES;
    words[at + ShotWord.PlanetBit] = PLANET_BIT;
    words[at + ShotWord.ShipBit] = SHIP_BIT;
    words[at + ShotWord.PlanetBits] = w.planetBits;
    words[at + ShotWord.SunRadius] = SUN_RADIUS;
    words[at + ShotWord.ArenaR2] = ARENA_R2;
    words[at + ShotWord.PlanetNear] = PLANET_NEAR;
    words[at + ShotWord.Reach] = REACH;
    words[at + ShotWord.ArmSteps] = SHOT_ARM_STEPS;
    words[at + ShotWord.ShotBase] = SHOT_BASE;
    for (let t = 0; t < SHOT_TYPES; t++) words[at + ShotWord.Life + t] = WEAPON_LIFE[t];
    this.#w = w;
    this.#kernels = kernels;
    this.#b = b;
    this.#words = words;
    this.#at = at;
  }

  move(): void {
    const w = this.#w;
    const b = this.#b;
    const kernels = this.#kernels;
    const words = this.#words;
    const at = this.#at;
    const list = w.shotList;
    const doomed = w.doomed;
    words[at + ShotWord.Steps] = w.steps;
    words[at + ShotWord.Dither] = w.dither;
    let n = w.shotCount;
    let dc = w.doomedCount;
    let k = 0;
    for (;;) {
      k = kernels.shots(b.layout, b.m0, b.m1, b.m2, b.m3, k, n, dc);
      n = words[at + ShotWord.Listed];
      dc = words[at + ShotWord.Doomed];
      const why = words[at + ShotWord.Why];
      if (why === ShotStop.Done) break;
      // A hit (ShotStop.Hit): the damage, the kill and its log are the game's business.
      const i = list[k];
      shotsHit(w, i, words[at + ShotWord.Slot]);
      doomed[dc++] = i;
      list[k] = list[--n];
    }
    w.shotCount = n;
    w.doomedCount = dc;
  }
}
