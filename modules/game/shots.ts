/**
 * Projectiles. A ship fires its weapon along its heading when its input says so and its
 * cooldown is over: the projectile starts just outside the ship, with the ship's velocity
 * plus the muzzle speed (capped at SHOT_MAX_VELOCITY), and lives WEAPON_LIFE steps. Each
 * step it drifts; what the grid cell it ends in holds is tested: the sun and the arena's
 * edge, then planets and ships, with swept tests against each; the first it meets ends it,
 * and a ship takes the weapon's damage (not its own ship's, for SHOT_ARM_STEPS). Every
 * other step it gets the sun's pull, twice as hard.
 *
 * All of this runs in the game's step, in C (modules/kernels/game.c and shots.c, through
 * step-native.ts); only the entity table's add and remove are the JavaScript's.
 *
 * Swept tests (planets, ships) work at 1/2 wu, relative to the other body: d0 and d1 are
 * the projectile's offsets at the start and end of the step. At 1/2 wu every term stays
 * below 2^31 for a projectile within reach.
 */
import { SHOT_MAX_VELOCITY } from "./templates";

/** (SHOT_MAX_VELOCITY / 2)²: a projectile's speed limit squared, at half scale to stay an integer. */
export const SHOT_HALF2 = (SHOT_MAX_VELOCITY >> 1) * (SHOT_MAX_VELOCITY >> 1);
