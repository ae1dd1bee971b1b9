/**
 * The ships' step in C (hosts/moddable/kernels.c, xs_lwar_ship): the same rules as
 * `JsShipsStep` (ships.ts), from the numbers handed over here once, in the binding
 * NATIVE_LAYOUT.ship. The C moves every ship; what it touches and its fire are the game's
 * business (shipsEffects).
 */
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../input";
import { Binding, type Kernels, type NativeOptions } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { ShipStop, ShipWord } from "../native-words";
import { D_SHIFT, OCT_MIN, S_SHIFT, T_MASK } from "./gravity";
import { CLAMP_SCALE, SHIP_HEADINGS } from "./motion";
import { FAR_PULL, shipsEffects, type ShipsStep } from "./ships";
import { ARENA_RADIUS, SHIP_BASE, SHIP_MAX_SPEED, SHIP_THRUST, SHIP_TURN, SHIP_TYPES } from "./templates";
import { type GameWorld, GRID_HALF, GRID_SHIFT, GRID_SIDE, PLANET_BIT } from "./world";

export class NativeShipsStep implements ShipsStep {
  readonly #w: GameWorld;
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #words: Int32Array;
  readonly #at: number;

  constructor(w: GameWorld, kernels: Kernels, native: NativeOptions | null) {
    if (SHIP_TYPES > 4) throw new RangeError("the native ship loop knows 4 ship types");
    const e = w.entities;
    const b = new Binding(NATIVE_LAYOUT.ship, {
      x: e.x, y: e.y, vx: e.vx, vy: e.vy, rot: e.rot, type: e.type, radius: w.radius, focusIndex: w.focusIndex,
      input: w.players.input, prevX: w.prevX, prevY: w.prevY, sine: w.sine, gravity: w.gravity,
      contact: w.contact, bodyIndex: w.bodyIndex, pull: w.bodyPull, mask: w.grid.mask, rsqrtSeed: w.geometry.rsqrtSeed,
    }, 0, native);
    const words = b.words;
    const at = b.scalars;
    words[at + ShipWord.ShipBase] = SHIP_BASE;
    words[at + ShipWord.Headings] = SHIP_HEADINGS;
    words[at + ShipWord.Forward] = INPUT_FORWARD;
    words[at + ShipWord.Backward] = INPUT_BACKWARD;
    words[at + ShipWord.Left] = INPUT_LEFT;
    words[at + ShipWord.Right] = INPUT_RIGHT;
    words[at + ShipWord.Shooting] = INPUT_SHOOTING;
    words[at + ShipWord.GridHalf] = GRID_HALF;
    words[at + ShipWord.GridShift] = GRID_SHIFT;
    words[at + ShipWord.GridSide] = GRID_SIDE;
    words[at + ShipWord.OctMin] = OCT_MIN;
    words[at + ShipWord.TMask] = T_MASK;
    words[at + ShipWord.DShift] = D_SHIFT;
    words[at + ShipWord.SShift] = S_SHIFT;
    words[at + ShipWord.PlanetBit] = PLANET_BIT;
    words[at + ShipWord.PlanetBits] = w.planetBits;
    words[at + ShipWord.Bodies] = w.bodies;
    words[at + ShipWord.FarPull] = FAR_PULL;
    words[at + ShipWord.ArenaRadius] = ARENA_RADIUS;
    for (let t = 0; t < SHIP_TYPES; t++) {
      words[at + ShipWord.Turn + t] = SHIP_TURN[t];
      words[at + ShipWord.Thrust + t] = SHIP_THRUST[t];
      words[at + ShipWord.MaxSpeed + t] = SHIP_MAX_SPEED[t];
      words[at + ShipWord.ClampScale + t] = CLAMP_SCALE[t];
    }
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
