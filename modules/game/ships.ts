/**
 * Ships, one per present player, by slot: their step (drift, input, gravity, the speed
 * limit, the arena's edge, then what each touches and its fire), the grid marks that let
 * projectiles and other ships find them, rams between ships, and forgetting a ship whose
 * player left. How a ship moves by its own input is motion.ts.
 *
 * The step runs in C, in the game's step (modules/kernels/loops.c, lw_ship, and game.c,
 * through step-native.ts). What stays here is rare: the bounce of two ships that touched,
 * worked out in doubles, and the bookkeeping of a player that left or a ship put by hand.
 */
import { POS_ONE, STEP_HZ } from "../units";
import { GENTLE } from "./deaths";
import { ONE } from "./geometry";
import { BOUNDARY_RESTITUTION, RAM_DAMAGE_BASE, RAM_DAMAGE_FACTOR, SHIP_BASE, SHIP_MASS, SHIP_RESTITUTION } from "./templates";
import type { GameWorld } from "./world";

/** 1 + restitution, Q14: what a bounce off the arena's edge takes off the velocity along the normal (the C's LW_EDGE_BOUNCE). */
export const EDGE_BOUNCE = Math.round((1 + BOUNDARY_RESTITUTION) * ONE);
/** Ram damage per velocity unit of closing speed, in 1/65536 hit point. */
const RAM_DAMAGE = Math.round(((RAM_DAMAGE_FACTOR * STEP_HZ) / POS_ONE) * 65536);
/** Planets outside a ship's grid cell pull it every 1 << FAR_PULL = 4 steps (and 4 times as hard). */
export const FAR_PULL = 2;

/**
 * Ships of slots sa and sb touched during the step (the game's step found it by a swept
 * test, integer, as for projectiles): they bounce apart by mass. Returns the damage each
 * takes by the closing speed, which the step deals (0 below a gentle one), or -1 when they
 * were already parting. A ram is rare, so its response is worked out in doubles and rounded
 * back into the table.
 */
export function shipsBounce(w: GameWorld, sa: number, sb: number): number {
  const e = w.entities;
  const a = w.focusIndex[sa];
  const b = w.focusIndex[sb];
  const d0x = (w.prevX[sb] - w.prevX[sa]) >> 9;
  const d0y = (w.prevY[sb] - w.prevY[sa]) >> 9;
  const d1x = (e.x[b] - e.x[a]) >> 9;
  const d1y = (e.y[b] - e.y[a]) >> 9;
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
  if (vn >= 0) return -1;
  const j = (-(1 + SHIP_RESTITUTION) * vn) / (ia + ib);
  e.vx[a] = Math.round(e.vx[a] - j * ia * nx);
  e.vy[a] = Math.round(e.vy[a] - j * ia * ny);
  e.vx[b] = Math.round(e.vx[b] + j * ib * nx);
  e.vy[b] = Math.round(e.vy[b] + j * ib * ny);
  if (vn > -GENTLE) return 0;
  return RAM_DAMAGE_BASE + ((Math.floor(-vn) * RAM_DAMAGE) >> 16);
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
