/**
 * The ships' step in C (modules/kernels/loops.c, lw_ship), from the numbers handed over
 * here once (those of the world here; shipWords, ship-stepper.ts, the rest), in the binding
 * NATIVE_LAYOUT.ship. The C moves every ship; what it touches and its fire are the game's
 * business (shipsEffects).
 */
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { ShipStop, ShipWord } from "../native-words";
import { FAR_PULL, shipsEffects, type ShipsStep } from "./ships";
import { shipWords } from "./ship-stepper";
import { ARENA_RADIUS } from "./templates";
import { type GameWorld, GRID_HALF, GRID_SHIFT, GRID_SIDE, PLANET_BIT } from "./world";

export class NativeShipsStep implements ShipsStep {
  readonly #w: GameWorld;
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #words: Int32Array;
  readonly #at: number;

  constructor(w: GameWorld, kernels: Kernels, native: NativeOptions | null) {
    const e = w.entities;
    const b = new Binding(NATIVE_LAYOUT.ship, {
      x: e.x, y: e.y, vx: e.vx, vy: e.vy, rot: e.rot, type: e.type, radius: w.radius, focusIndex: w.focusIndex,
      input: w.players.input, prevX: w.prevX, prevY: w.prevY, sine: w.sine, gravity: w.gravity,
      contact: w.contact, bodyIndex: w.bodyIndex, pull: w.bodyPull, mask: w.grid.mask, rsqrtSeed: w.geometry.rsqrtSeed,
    }, 0, native);
    const words = b.words;
    const at = b.scalars;
    shipWords(words, at);
    words[at + ShipWord.GridHalf] = GRID_HALF;
    words[at + ShipWord.GridShift] = GRID_SHIFT;
    words[at + ShipWord.GridSide] = GRID_SIDE;
    words[at + ShipWord.PlanetBit] = PLANET_BIT;
    words[at + ShipWord.PlanetBits] = w.planetBits;
    words[at + ShipWord.Bodies] = w.bodies;
    words[at + ShipWord.FarPull] = FAR_PULL;
    words[at + ShipWord.ArenaRadius] = ARENA_RADIUS;
    this.#w = w;
    this.#kernels = kernels;
    this.#b = b;
    this.#words = words;
    this.#at = at;
  }

  move(): void {
    const w = this.#w;
    const b = this.#b;
    const k = this.#kernels;
    const words = this.#words;
    const at = this.#at;
    const focus = w.focusIndex;
    const input = w.players.input;
    words[at + ShipWord.Steps] = w.steps;
    words[at + ShipWord.Dither] = w.dither;
    for (let slot = 0; slot < w.maxPlayers; slot++) {
      if (focus[slot] < 0) continue;
      const r = k.ship(b.layout, b.m0, b.m1, b.m2, b.m3, slot);
      if (r === ShipStop.Effects)
        shipsEffects(w, slot, focus[slot], input[slot], words[at + ShipWord.Touching], words[at + ShipWord.Cos], words[at + ShipWord.Sin]);
    }
  }
}
