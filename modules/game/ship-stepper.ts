/**
 * One ship stepped by the game's own ship loop (the native kernel `ship`,
 * modules/kernels/loops.c), outside any world: drift, turn and thrust by the input, and the
 * speed limit, as the server steps it, less what the world adds (gravity, contacts, the
 * arena's edge). The page predicts its own ship with it (web/predict.ts).
 *
 * `shipWords` fills the words every binding of the kernel shares (ship types, input bits,
 * the gravity table's format); the game step's binding (step-native.ts), whose words begin
 * with the ship loop's, adds its world's.
 * Here the world is empty: no bodies, a gravity table of zeros (no pull), a grid of one
 * empty cell and an edge beyond reach.
 */
import { Arena, type FixedMemory } from "../arena";
import { INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../input";
import { Binding, type Kernels } from "../native";
import { NATIVE_LAYOUT } from "../native-layout";
import { ShipWord } from "../native-words";
import { createGeometry, RSQRT_SEEDS } from "./geometry";
import { D_SHIFT, GRAVITY_ENTRIES, OCT_MIN, S_SHIFT, T_MASK } from "./gravity";
import { CLAMP_SCALE, SHIP_HEADINGS } from "./motion";
import { SHIP_BASE, SHIP_MAX_SPEED, SHIP_THRUST, SHIP_TURN, SHIP_TYPES } from "./templates";
import { buildSineTable, SINE_TABLE_LENGTH } from "./trig";

/** The words of the ship binding that do not depend on the world: from `at`, its scalars. */
export function shipWords(words: Int32Array, at: number): void {
  if (SHIP_TYPES > 4) throw new RangeError("the native ship loop knows 4 ship types");
  words[at + ShipWord.ShipBase] = SHIP_BASE;
  words[at + ShipWord.Headings] = SHIP_HEADINGS;
  words[at + ShipWord.Forward] = INPUT_FORWARD;
  words[at + ShipWord.Backward] = INPUT_BACKWARD;
  words[at + ShipWord.Left] = INPUT_LEFT;
  words[at + ShipWord.Right] = INPUT_RIGHT;
  words[at + ShipWord.Shooting] = INPUT_SHOOTING;
  words[at + ShipWord.OctMin] = OCT_MIN;
  words[at + ShipWord.TMask] = T_MASK;
  words[at + ShipWord.DShift] = D_SHIFT;
  words[at + ShipWord.SShift] = S_SHIFT;
  for (let t = 0; t < SHIP_TYPES; t++) {
    words[at + ShipWord.Turn + t] = SHIP_TURN[t];
    words[at + ShipWord.Thrust + t] = SHIP_THRUST[t];
    words[at + ShipWord.MaxSpeed + t] = SHIP_MAX_SPEED[t];
    words[at + ShipWord.ClampScale + t] = CLAMP_SCALE[t];
  }
}

/** A ship's state in the game's integer units (modules/units.ts). */
export interface ShipState {
  /** Position, 1/1024 wu. */
  x: number;
  y: number;
  /** Velocity, 1/1024 wu per step. */
  vx: number;
  vy: number;
  /** Heading, 1/4096 turn. */
  rot: number;
}

/** An arena edge beyond any position a ship can have (wu). */
const NO_EDGE = 1 << 20;

export class ShipStepper {
  readonly #kernels: Kernels;
  readonly #b: Binding;
  readonly #x: Int32Array;
  readonly #y: Int32Array;
  readonly #vx: Int32Array;
  readonly #vy: Int32Array;
  readonly #rot: Int32Array;
  readonly #type: Uint8Array;
  readonly #input: Uint8Array;

  /** `memory`: where the kernels reach (WebAssembly); null: buffers of its own (XS). Start-up only. */
  constructor(kernels: Kernels, memory: FixedMemory | null) {
    let a = Arena.measuring();
    const t = {} as Record<string, Int32Array | Int16Array | Uint16Array | Uint8Array>;
    for (let pass = 0; pass < 2; pass++) {
      if (pass === 1) a = new Arena(a.bytes, memory);
      for (const name of ["x", "y", "vx", "vy", "rot", "focusIndex", "prevX", "prevY", "contact", "bodyIndex", "pull", "mask"])
        t[name] = a.i32(name === "contact" ? SHIP_TYPES : 1);
      t.gravity = a.i32(GRAVITY_ENTRIES);
      t.sine = a.i16(SINE_TABLE_LENGTH);
      t.rsqrtSeed = a.u16(RSQRT_SEEDS);
      t.type = a.u8(1);
      t.radius = a.u8(1);
      t.input = a.u8(1);
    }
    a.done();
    buildSineTable(t.sine as Int16Array);
    createGeometry(t.rsqrtSeed as Uint16Array);
    const b = new Binding(NATIVE_LAYOUT.ship, t, 0, { kernels, memory });
    const words = b.words;
    const at = b.scalars;
    shipWords(words, at);
    words[at + ShipWord.GridHalf] = 1 << 30;
    words[at + ShipWord.GridShift] = 31;
    words[at + ShipWord.GridSide] = 1;
    words[at + ShipWord.PlanetBits] = 0;
    words[at + ShipWord.Bodies] = 1;
    words[at + ShipWord.ArenaRadius] = NO_EDGE;
    this.#kernels = kernels;
    this.#b = b;
    this.#x = t.x as Int32Array;
    this.#y = t.y as Int32Array;
    this.#vx = t.vx as Int32Array;
    this.#vy = t.vy as Int32Array;
    this.#rot = t.rot as Int32Array;
    this.#type = t.type as Uint8Array;
    this.#input = t.input as Uint8Array;
  }

  /** One step of `s`, a ship of `type` (0-based) held by `input` (INPUT_* bits). */
  step(s: ShipState, type: number, input: number): void {
    this.#x[0] = s.x;
    this.#y[0] = s.y;
    this.#vx[0] = s.vx;
    this.#vy[0] = s.vy;
    this.#rot[0] = s.rot;
    this.#type[0] = SHIP_BASE + type;
    this.#input[0] = input;
    const b = this.#b;
    this.#kernels.ship(b.layout, b.m0, b.m1, b.m2, b.m3, 0);
    s.x = this.#x[0];
    s.y = this.#y[0];
    s.vx = this.#vx[0];
    s.vy = this.#vy[0];
    s.rot = this.#rot[0];
  }
}
