/**
 * The sun and the planets: where they are (the sun at the origin, planets on circular
 * orbits whose angle comes straight from the step count, so they never drift), how hard
 * they pull (a planet's G·M as a fraction of the sun's, for the gravity table of
 * gravity.ts), their marks in the broad-phase grid, and what a planet does to a ship that
 * touches it: pushed out onto its surface, bounced (PLANET_RESTITUTION) and damaged by the
 * closing speed.
 *
 * Here: the tables, made once, and the numbers the rules take. The rules themselves run in
 * the game's step, in C (modules/kernels/game.c, through step-native.ts): each step the
 * planets move and one of them renews its grid mark.
 */
import { ANGLE_TURN, POS_ONE, STEP_HZ } from "../units";
import { EntityError, NO_PLAYER } from "./entities";
import { ONE } from "./geometry";
import {
  MAX_PLANET_RADIUS, MAX_SHOT_RADIUS, ORBIT_INNER, ORBIT_OUTER, ORBIT_SPEED_FACTOR, PLANET_BASE, PLANET_DAMAGE_FACTOR,
  PLANET_GM, PLANET_RESTITUTION, PLANET_TYPES, SHIP_BASE, SHIP_TYPES, SHOT_MAX_VELOCITY, SUN_GM, TEMPLATE_RADIUS, TemplateId,
} from "./templates";
import { TWO_PI } from "./trig";
import type { GameWorld } from "./world";

/**
 * How far (position units) a projectile can be from a planet at the end of a step and still
 * have touched it: both largest radii, a step of the fastest projectile (50 wu), a step of
 * the fastest planet (3.4 wu at the inner orbit, so 4) and 1 for rounding. 127 wu. Orbits
 * are further apart than twice this less a gravity bucket, so a projectile is near at most
 * two of them.
 */
export const PLANET_NEAR = (MAX_PLANET_RADIUS + MAX_SHOT_RADIUS + 4 + 1) * POS_ONE + SHOT_MAX_VELOCITY;
/**
 * Planets renew their marks every PLANET_MARK_STEPS steps (one planet a step), over their
 * reach plus what they can move meanwhile (3.4 wu a step at most, so 4).
 */
export const PLANET_MARK_STEPS = 8;
export const PLANET_MARK = PLANET_NEAR + PLANET_MARK_STEPS * 4 * POS_ONE;
/** Orbit angles: heading units with 18 fraction bits, modulo a turn (2^30). */
export const ORBIT_FRACTION = 18;
export const ORBIT_TURN_MASK = ANGLE_TURN * (1 << ORBIT_FRACTION) - 1;
/** 1 + restitution, Q14: what a bounce takes off the velocity along the normal. */
export const PLANET_BOUNCE = Math.round((1 + PLANET_RESTITUTION) * ONE);
/** Collision damage per velocity unit of closing speed, in 1/65536 hit point. */
export const PLANET_DAMAGE = Math.round(((PLANET_DAMAGE_FACTOR * STEP_HZ) / POS_ONE) * 65536);

/**
 * The sun and the planets into the table, their orbits, pulls and contact distances. The
 * game's step then places them and marks the grid (NativeGameStep.place).
 */
export function bodiesCreate(w: GameWorld): void {
  const e = w.entities;
  const rng = w.rng;
  w.bodyIndex[0] = e.add(TemplateId.Sun, NO_PLAYER, 0, 0);
  const planets = w.bodies - 1;
  const spacing = planets > 1 ? (ORBIT_OUTER - ORBIT_INNER) / (planets - 1) : 0;
  for (let k = 1; k <= planets; k++) {
    const t = rng.below(PLANET_TYPES);
    const r = planets === 1 ? (ORBIT_INNER + ORBIT_OUTER) / 2 : ORBIT_INNER + (k - 1) * spacing;
    // rad/s, then heading units per step with 18 fraction bits; the angle is exact from then on.
    const omega = ORBIT_SPEED_FACTOR * Math.sqrt(SUN_GM / (r * r * r));
    w.orbitRadius[k] = Math.round(r * POS_ONE);
    w.orbitR32[k] = Math.round(r * 32);
    w.orbitOmega[k] = Math.round((omega / STEP_HZ / TWO_PI) * ANGLE_TURN * (1 << ORBIT_FRACTION));
    w.orbitSpeed[k] = Math.round(((omega * r) / STEP_HZ) * POS_ONE);
    w.orbitPhase[k] = rng.nextU32() >>> 2;
    let shift = 0;
    const ratio = PLANET_GM[t] / SUN_GM;
    while (ratio * 2 ** (10 + shift) < 512) shift++;
    w.bodyPull[k] = Math.round(ratio * 2 ** (10 + shift)) | (shift << 16);
    w.bodyIndex[k] = e.add(PLANET_BASE + t, NO_PLAYER, 0, 0);
  }
  for (let b = 0; b < w.bodies; b++) {
    const i = w.bodyIndex[b];
    if (i < 0) throw new EntityError("no room for the sun and planets");
    w.steady[i] = 1;
    w.radius[i] = TEMPLATE_RADIUS[e.type[i]];
    for (let st = 0; st < SHIP_TYPES; st++) w.contact[st * w.bodies + b] = ((w.radius[i] + TEMPLATE_RADIUS[SHIP_BASE + st]) * 8) ** 2;
  }
}

/** Entity i was put where it is by hand: if it is a body, its swept path this step starts there. */
export function bodiesMoved(w: GameWorld, i: number): void {
  for (let b = 0; b < w.bodies; b++) {
    if (w.bodyIndex[b] !== i) continue;
    w.bodyPrevX[b] = w.entities.x[i];
    w.bodyPrevY[b] = w.entities.y[i];
  }
}
