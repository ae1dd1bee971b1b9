/**
 * The sun and the planets: where they are (the sun at the origin, planets on circular
 * orbits whose angle comes straight from the step count, so they never drift), how hard
 * they pull (a planet's G·M as a fraction of the sun's, for the gravity table of
 * gravity.ts), their marks in the broad-phase grid, and what a planet does to a ship that
 * touches it.
 */
import { ANGLE_TURN, POS_ONE, STEP_HZ } from "../units";
import { EntityError, NO_PLAYER } from "./entities";
import { deathsDamage, GENTLE } from "./deaths";
import { geometryUnit, ONE } from "./geometry";
import {
  MAX_PLANET_RADIUS, MAX_SHOT_RADIUS, ORBIT_INNER, ORBIT_OUTER, ORBIT_SPEED_FACTOR, PLANET_BASE, PLANET_DAMAGE_BASE,
  PLANET_DAMAGE_FACTOR, PLANET_GM, PLANET_RESTITUTION, PLANET_TYPES, SHIP_BASE, SHIP_TYPES, SHOT_MAX_VELOCITY, SUN_GM, TEMPLATE_RADIUS, TemplateId,
} from "./templates";
import { TWO_PI } from "./trig";
import { GameCounter, type GameWorld, PLANET_BIT } from "./world";

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
const PLANET_MARK_STEPS = 8;
const PLANET_MARK = PLANET_NEAR + PLANET_MARK_STEPS * 4 * POS_ONE;
/** Orbit angles: heading units with 18 fraction bits, modulo a turn (2^30). */
const ORBIT_FRACTION = 18;
const ORBIT_TURN_MASK = 0x3fffffff;
/** 1 + restitution, Q14: what a bounce takes off the velocity along the normal. */
const PLANET_BOUNCE = Math.round((1 + PLANET_RESTITUTION) * ONE);
/** Collision damage per velocity unit of closing speed, in 1/65536 hit point. */
const PLANET_DAMAGE = Math.round(((PLANET_DAMAGE_FACTOR * STEP_HZ) / POS_ONE) * 65536);

/** The sun and the planets into the table, their orbits, pulls and contact distances, and their grid marks. */
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
  bodiesMove(w);
  for (let b = 1; b < w.bodies; b++) bodiesMark(w, b, true);
}

/**
 * Planets: the angle straight from the step count (phase + steps · ω, modulo a turn, in
 * integers), so orbits never drift; sine and cosine interpolated between table entries.
 */
export function bodiesMove(w: GameWorld): void {
  const e = w.entities;
  const ex = e.x;
  const ey = e.y;
  const evx = e.vx;
  const evy = e.vy;
  const sine = w.sine;
  const bodyIndex = w.bodyIndex;
  const phase = w.orbitPhase;
  const omega = w.orbitOmega;
  const radius = w.orbitR32;
  const speed = w.orbitSpeed;
  const prevX = w.bodyPrevX;
  const prevY = w.bodyPrevY;
  const steps = w.steps;
  const imul = Math.imul;
  for (let b = 1; b < w.bodies; b++) {
    const i = bodyIndex[b];
    prevX[b] = ex[i];
    prevY[b] = ey[i];
    const angle = (phase[b] + (imul(steps, omega[b]) & ORBIT_TURN_MASK)) & ORBIT_TURN_MASK;
    // Table step (4 headings) and a 10-bit fraction of it.
    const q = (angle >> (ORBIT_FRACTION + 2)) & 255;
    const f = (angle >> (ORBIT_FRACTION - 8)) & 1023;
    const lo0 = sine[q];
    const hi0 = sine[256 - q];
    const lo = lo0 + (((sine[q + 1] - lo0) * f) >> 10);
    const hi = hi0 + (((sine[255 - q] - hi0) * f) >> 10);
    // (c, s) = (cos, sin) of the angle; `0 - v`, not `-v`: on XS −0 is a double.
    let c: number;
    let s: number;
    switch (angle >> (ORBIT_FRACTION + 10)) {
      case 0: c = hi; s = lo; break;
      case 1: c = 0 - lo; s = hi; break;
      case 2: c = 0 - hi; s = 0 - lo; break;
      default: c = lo; s = 0 - hi;
    }
    const r = radius[b];
    const v = speed[b];
    ex[i] = (r * c) >> 9;
    ey[i] = (r * s) >> 9;
    evx[i] = 0 - ((v * s) >> 14);
    evy[i] = (v * c) >> 14;
  }
}

/** One planet a step renews its grid mark, each every PLANET_MARK_STEPS steps. */
export function bodiesRenewMark(w: GameWorld): void {
  const b = 1 + (w.steps & (PLANET_MARK_STEPS - 1));
  if (b < w.bodies) bodiesMark(w, b, false);
}

/**
 * Planet (body) b's mark in the grid's slow layer: its cells within PLANET_MARK of where it
 * is, after taking the last one away (`fresh`: there is none yet).
 */
function bodiesMark(w: GameWorld, b: number, fresh: boolean): void {
  const g = w.grid;
  const bit = 1 << (PLANET_BIT + b - 1);
  if (!fresh) g.markBase(bit, false, w.markX[b], w.markY[b], PLANET_MARK);
  const p = w.bodyIndex[b];
  w.markX[b] = w.entities.x[p];
  w.markY[b] = w.entities.y[p];
  g.markBase(bit, true, w.markX[b], w.markY[b], PLANET_MARK);
}

/** Entity i was put where it is by hand: if it is a body, its swept path this step starts there. */
export function bodiesMoved(w: GameWorld, i: number): void {
  for (let b = 0; b < w.bodies; b++) {
    if (w.bodyIndex[b] !== i) continue;
    w.bodyPrevX[b] = w.entities.x[i];
    w.bodyPrevY[b] = w.entities.y[i];
  }
}

/** A planet (body b) pushes ship i of `slot` out, bounces it and damages it by the closing speed. */
export function bodiesShipContact(w: GameWorld, i: number, slot: number, b: number): void {
  const e = w.entities;
  const g = w.geometry;
  const p = w.bodyIndex[b];
  const reach = w.radius[p] + w.radius[i];
  const dx = e.x[i] - e.x[p];
  const dy = e.y[i] - e.y[p];
  if (((dx >> 7) * (dx >> 7)) + ((dy >> 7) * (dy >> 7)) >= reach * reach * 64) return;
  geometryUnit(g, dx, dy);
  const ux = g.ux;
  const uy = g.uy;
  // Onto the surface, a hair outside it (the unit vector is never longer than 1).
  const out = reach * 32 + 1;
  e.x[i] = e.x[p] + ((ux * out) >> 9);
  e.y[i] = e.y[p] + ((uy * out) >> 9);
  const vn = ((e.vx[i] - e.vx[p]) * ux + (e.vy[i] - e.vy[p]) * uy) >> 14;
  if (vn >= 0) return;
  const back = (vn * PLANET_BOUNCE) >> 14;
  e.vx[i] -= (back * ux) >> 14;
  e.vy[i] -= (back * uy) >> 14;
  w.counters[GameCounter.PlanetHits]++;
  if (vn <= -GENTLE) deathsDamage(w, slot, PLANET_DAMAGE_BASE + (((0 - vn) * PLANET_DAMAGE) >> 16), NO_PLAYER, e.type[p]);
}
