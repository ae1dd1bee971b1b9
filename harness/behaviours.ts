/**
 * Bot behaviours over the client library: each reads what a Client knows (its own
 * ship, the other entities, the selection) and returns INPUT_* bits.
 *   idle    presses nothing (the ship drifts on its spawn orbit)
 *   wander  cruises on headings that change every two seconds, keeps off the sun and
 *           the arena's edge, and fires now and then
 *   hunt    turns on the nearest enemy ship with lead, closes in, fires when aligned
 * They keep no state: the same client view and time give the same bits. The decisions
 * themselves are modules/pilot.ts, which the server's own bots share.
 */
import type { Client } from "../modules/client/client";
import { Kind, kindOf } from "../modules/game/templates";
import { attack, avoid, cruise } from "../modules/pilot";

export const BEHAVIOURS: readonly string[] = Object.freeze(["idle", "wander", "hunt"]);

export function isBehaviour(name: string): boolean {
  return BEHAVIOURS.indexOf(name) >= 0;
}

/** Index of the client's own ship in its entity arrays, or -1. */
export function ownShip(client: Client): number {
  if (client.selfId < 0) return -1;
  for (let i = 0; i < client.entityCapacity; i++)
    if (client.alive[i] !== 0 && client.owner[i] === client.selfId && kindOf(client.type[i]) === Kind.Ship) return i;
  return -1;
}

/** Heading of entity `i` in radians (Update carries degrees × 100). */
export function headingOf(client: Client, i: number): number {
  return (client.rot[i] * Math.PI) / 18000;
}

function wander(client: Client, now: number): number {
  const i = ownShip(client);
  if (i < 0) return 0;
  return cruise(client.selfSlot, now, client.x[i], client.y[i], client.vx[i], client.vy[i], headingOf(client, i));
}

function hunt(client: Client, now: number): number {
  const i = ownShip(client);
  if (i < 0) return 0;
  const x = client.x[i];
  const y = client.y[i];
  const heading = headingOf(client, i);
  const away = avoid(x, y, heading);
  if (away >= 0) return away;
  let best = -1;
  let bestD = Infinity;
  for (let j = 0; j < client.entityCapacity; j++) {
    if (client.alive[j] === 0 || j === i || kindOf(client.type[j]) !== Kind.Ship) continue;
    const d = Math.hypot(client.x[j] - x, client.y[j] - y);
    if (d < bestD) {
      bestD = d;
      best = j;
    }
  }
  if (best < 0) return wander(client, now);
  const weapon = client.selfSlot >= 0 ? client.weapon[client.selfSlot] : 0;
  return attack(x, y, client.vx[i], client.vy[i], heading, weapon, client.x[best], client.y[best], client.vx[best], client.vy[best]);
}

/** INPUT_* bits for behaviour `name` ("idle", "wander" or "hunt") at time `now` (ms). */
export function behaviourInput(name: string, client: Client, now: number): number {
  switch (name) {
    case "idle":
      return 0;
    case "wander":
      return wander(client, now);
    case "hunt":
      return hunt(client, now);
  }
  throw new RangeError(`unknown behaviour "${name}" (expected ${BEHAVIOURS.join(", ")})`);
}
