/**
 * Ships, one per present player, by slot: their step (`ShipsStep`: drift, input, gravity,
 * the speed limit, the arena's edge, then what each touches and its fire), the grid marks
 * that let projectiles and other ships find them, rams between ships, and forgetting a ship
 * whose player left. How a ship moves by its own input is motion.ts.
 *
 * The step itself is the native kernel `ship` (modules/kernels/loops.c, through
 * ships-native.ts, with motion.ts's rules); the game's step calls `move()`.
 */
import { INPUT_SHOOTING } from "../input";
import { POS_ONE, STEP_HZ } from "../units";
import { bodiesShipContact } from "./bodies";
import { deathsDamage, GENTLE } from "./deaths";
import { geometrySweep, ONE } from "./geometry";
import { NO_PLAYER } from "./entities";
import { shotsFire } from "./shots";
import { BOUNDARY_RESTITUTION, RAM_DAMAGE_BASE, RAM_DAMAGE_FACTOR, SHIP_BASE, SHIP_MASS, SHIP_RESTITUTION, TemplateId } from "./templates";
import { GameCounter, type GameWorld, GRID_HALF, GRID_SHIFT, GRID_SIDE, REACH, SHIP_BIT } from "./world";

/** 1 + restitution, Q14: what a bounce off the arena's edge takes off the velocity along the normal (the C's LW_EDGE_BOUNCE). */
export const EDGE_BOUNCE = Math.round((1 + BOUNDARY_RESTITUTION) * ONE);
/** Ram damage per velocity unit of closing speed, in 1/65536 hit point. */
const RAM_DAMAGE = Math.round(((RAM_DAMAGE_FACTOR * STEP_HZ) / POS_ONE) * 65536);
/** Planets outside a ship's grid cell pull it every 1 << FAR_PULL = 4 steps (and 4 times as hard). */
export const FAR_PULL = 2;

/** Every ship's step (ships-native.ts). */
export interface ShipsStep {
  /** Move every live ship by a step, then what it touches and its fire. */
  move(): void;
}

/** What ship i of `slot` touches (bit 0 the sun, bit b planet b), then its fire (c, s: its heading's cosine and sine, Q14). */
export function shipsEffects(w: GameWorld, slot: number, i: number, input: number, touching: number, c: number, s: number): void {
  const hp = w.hp;
  if (touching !== 0) {
    // The sun sits at the origin and kills; planets bounce.
    if ((touching & 1) !== 0) deathsDamage(w, slot, hp[slot], NO_PLAYER, TemplateId.Sun);
    for (let b = 1; b < w.bodies && hp[slot] > 0; b++) if ((touching & (1 << b)) !== 0) bodiesShipContact(w, i, slot, b);
  }
  if (hp[slot] > 0 && (input & INPUT_SHOOTING) !== 0 && w.cooldown[slot] === 0) shotsFire(w, i, slot, c, s);
}

/** Every live ship marks the grid cells within REACH of it. */
export function shipsMark(w: GameWorld): void {
  const e = w.entities;
  const g = w.grid;
  for (let s = 0; s < w.maxPlayers; s++) {
    const i = w.focusIndex[s];
    if (i >= 0 && w.hp[s] > 0) g.mark(1 << (SHIP_BIT + s), e.x[i], e.y[i], REACH);
  }
}

/** Each ship against the ships of higher slots that reach into its cell; whether any rammed. */
export function shipsCollide(w: GameWorld): boolean {
  const e = w.entities;
  const focus = w.focusIndex;
  const mask = w.grid.mask;
  const last = GRID_SIDE - 1;
  w.rammed = false;
  for (let s = 0; s < w.maxPlayers; s++) {
    const i = focus[s];
    if (i < 0 || w.hp[s] <= 0) continue;
    let cx = (e.x[i] + GRID_HALF) >> GRID_SHIFT;
    let cy = (e.y[i] + GRID_HALF) >> GRID_SHIFT;
    cx = cx < 0 ? 0 : cx > last ? last : cx;
    cy = cy < 0 ? 0 : cy > last ? last : cy;
    let m = ((mask[cy * GRID_SIDE + cx] >> SHIP_BIT) & 0xff) >> (s + 1);
    for (let t = s + 1; m !== 0 && w.hp[s] > 0; t++, m >>= 1) {
      if ((m & 1) === 0) continue;
      if (focus[t] >= 0 && w.hp[t] > 0) shipsRam(w, s, t);
    }
  }
  return w.rammed;
}

/**
 * Ships of slots sa and sb: a swept test (integer, as for projectiles); on contact they
 * bounce apart by mass and both take damage by the closing speed. A ram is rare, so its
 * response is worked out in doubles and rounded back into the table.
 */
function shipsRam(w: GameWorld, sa: number, sb: number): void {
  const e = w.entities;
  const a = w.focusIndex[sa];
  const b = w.focusIndex[sb];
  const d0x = (w.prevX[sb] - w.prevX[sa]) >> 9;
  const d0y = (w.prevY[sb] - w.prevY[sa]) >> 9;
  const d1x = (e.x[b] - e.x[a]) >> 9;
  const d1y = (e.y[b] - e.y[a]) >> 9;
  if (!geometrySweep(d0x, d0y, d1x, d1y, (w.radius[a] + w.radius[b]) << 1)) return;
  const fx = d1x - d0x;
  const fy = d1y - d0y;
  const dot = d0x * fx + d0y * fy;
  const l = fx * fx + fy * fy;
  const t = dot >= 0 ? 0 : dot <= -l ? 1 : -dot / l;
  // They touched: the normal at the closest approach.
  let nx = d0x + t * fx;
  let ny = d0y + t * fy;
  let d = Math.sqrt(nx * nx + ny * ny);
  if (d > 0) {
    nx /= d;
    ny /= d;
  } else {
    nx = 1;
    ny = 0;
  }
  const ia = 1 / SHIP_MASS[e.type[a] - SHIP_BASE];
  const ib = 1 / SHIP_MASS[e.type[b] - SHIP_BASE];
  const reach = (w.radius[a] + w.radius[b]) * POS_ONE;
  // Push apart along the normal if they still overlap.
  d = (e.x[b] - e.x[a]) * nx + (e.y[b] - e.y[a]) * ny;
  if (d < reach) {
    const push = (reach - d) / (ia + ib);
    e.x[a] = Math.round(e.x[a] - nx * push * ia);
    e.y[a] = Math.round(e.y[a] - ny * push * ia);
    e.x[b] = Math.round(e.x[b] + nx * push * ib);
    e.y[b] = Math.round(e.y[b] + ny * push * ib);
  }
  const vn = (e.vx[b] - e.vx[a]) * nx + (e.vy[b] - e.vy[a]) * ny;
  if (vn >= 0) return;
  const j = (-(1 + SHIP_RESTITUTION) * vn) / (ia + ib);
  e.vx[a] = Math.round(e.vx[a] - j * ia * nx);
  e.vy[a] = Math.round(e.vy[a] - j * ia * ny);
  e.vx[b] = Math.round(e.vx[b] + j * ib * nx);
  e.vy[b] = Math.round(e.vy[b] + j * ib * ny);
  w.counters[GameCounter.Rams]++;
  w.rammed = true;
  if (vn > -GENTLE) return;
  const dmg = RAM_DAMAGE_BASE + ((Math.floor(-vn) * RAM_DAMAGE) >> 16);
  deathsDamage(w, sa, dmg, e.owner[b], e.type[b]);
  deathsDamage(w, sb, dmg, e.owner[a], e.type[a]);
}

/** The player of `slot` left: forget its ship (the server removes it and the player's projectiles). */
export function shipsForget(w: GameWorld, slot: number): void {
  if (w.focusIndex[slot] >= 0) {
    w.ships--;
    w.others++;
  }
  w.present[slot] = 0;
  w.focusIndex[slot] = -1;
  w.respawnStep[slot] = -1;
  w.newcomer[slot] = 0;
  w.hp[slot] = 0;
}

/** Entity i was put where it is by hand: if it is a ship, its swept path this step starts there. */
export function shipsMoved(w: GameWorld, i: number): void {
  for (let s = 0; s < w.maxPlayers; s++) {
    if (w.focusIndex[s] !== i) continue;
    w.prevX[s] = w.entities.x[i];
    w.prevY[s] = w.entities.y[i];
  }
}
