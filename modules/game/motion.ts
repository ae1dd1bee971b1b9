/**
 * The numbers of how one ship moves by its own input (turning, thrust and the speed limit)
 * that the ship loop takes from the game: the rules themselves are C, in the ship loop
 * (modules/kernels/loops.c, lw_ship), which the server steps every ship with and the page
 * predicts its own ship with (ship-stepper.ts). A step: drift (position += velocity), turn
 * and thrust by the input, the gravity of the sun and the planets, the speed limit (just
 * over it two Newton steps for 1/√q, q = (|v|/max)² rounded up by CLAMP_SCALE; far over it
 * the unit vector scaled to the maximum), then the arena's edge and contacts.
 */
import { ANGLE_MASK } from "../units";
import { SHIP_MAX_SPEED } from "./templates";

/** A ship's heading, masked to the sine table's steps (4 headings, 1/1024 turn). */
export const SHIP_HEADINGS = ANGLE_MASK & ~3;
/** ceil(2^42 / max²) by ship type: (v² >> 14) times it, >> 14, is (|v| / max)² in Q14, rounded up. */
export const CLAMP_SCALE: readonly number[] = Object.freeze(SHIP_MAX_SPEED.map((m) => Math.ceil(2 ** 42 / (m * m))));
