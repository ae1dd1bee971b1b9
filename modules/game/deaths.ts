/**
 * Damage and its ends: hit points and the health percentage clients see, the blow that
 * names a killer, and at the end of each step the removal of spent projectiles and dead
 * ships, with kills, suicides and deaths by the environment scored and the respawn set.
 */
import { POS_ONE } from "../units";
import { NO_PLAYER } from "./entities";
import { spawnAfterDeath } from "./spawn";
import { SHIP_HP } from "./templates";
import { GameCounter, type GameWorld } from "./world";

/** A collision below this closing speed (30 wu/s, in velocity units: 1 wu a step) bounces without damage. */
export const GENTLE = POS_ONE;
/** floor(65536 / hit points) by ship type, for the health percentage without dividing. */
const HP_RECIPROCAL: readonly number[] = Object.freeze(SHIP_HP.map((h) => Math.floor(65536 / h)));

/**
 * Apply `amount` damage to the ship of `slot`; the blow that ends it names the killer and
 * `cause` (a template id). A ship within its guard (spawn.ts) takes none.
 */
export function deathsDamage(w: GameWorld, slot: number, amount: number, source: number, cause: number): void {
  const hp = w.hp[slot];
  if (hp <= 0) return;
  if (w.steps < w.guardUntil[slot]) {
    w.counters[GameCounter.GuardedBlows]++;
    return;
  }
  const left = hp - amount;
  const i = w.focusIndex[slot];
  if (left <= 0) {
    w.hp[slot] = 0;
    w.killer[slot] = source;
    w.killedWith[slot] = cause;
    return;
  }
  w.hp[slot] = left;
  // ceil(left · 100 / max) without dividing: count up from an estimate below it.
  const type = w.shipType[slot];
  const max = SHIP_HP[type];
  const n = left * 100;
  let pct = (n * HP_RECIPROCAL[type]) >> 16;
  while (pct * max < n) pct++;
  w.entities.health[i] = pct;
}

/** Remove spent projectiles and dead ships (scoring the killer); note where ships are. */
export function deathsReap(w: GameWorld): void {
  const e = w.entities;
  for (let k = 0; k < w.doomedCount; k++) e.remove(w.doomed[k]);
  for (let s = 0; s < w.maxPlayers; s++) {
    const i = w.focusIndex[s];
    if (i < 0) continue;
    if (w.hp[s] <= 0) {
      deathsDie(w, s, i);
      continue;
    }
    w.focusX[s] = e.x[i];
    w.focusY[s] = e.y[i];
  }
  w.shots = w.shotCount;
}

function deathsDie(w: GameWorld, slot: number, i: number): void {
  const e = w.entities;
  const owner = e.owner[i];
  const killer = w.killer[slot];
  e.health[i] = 0;
  e.remove(i);
  w.ships--;
  let by = -1;
  if (killer === owner) {
    w.counters[GameCounter.Suicides]++;
    by = slot;
  } else if (killer === NO_PLAYER) w.counters[GameCounter.EnvironmentDeaths]++;
  else {
    const ks = killer & 0xffff;
    if (ks < w.maxPlayers && w.present[ks] !== 0 && w.playerId[ks] === killer) {
      w.kills[ks]++;
      if (w.players.scores[ks] < 0xffff) w.players.scores[ks]++;
      by = ks;
    }
    w.counters[GameCounter.Kills]++;
  }
  if (w.onDeath !== null) w.onDeath(slot, by, w.killedWith[slot]);
  w.deaths[slot]++;
  w.focusIndex[slot] = -1;
  spawnAfterDeath(w, slot);
}
