/**
 * Damage and its ends: hit points and the health percentage clients see, the blow that
 * names a killer (a ship within its guard takes none), and at the end of each step the
 * removal of spent projectiles and dead ships, with kills, suicides and deaths by the
 * environment scored and the respawn set.
 *
 * Damage and the end of the step run in the game's step, in C (modules/kernels/game.c,
 * through step-native.ts); a death, rare and heard by the death hook, is here.
 */
import { POS_ONE } from "../units";
import { NO_PLAYER } from "./entities";
import { spawnAfterDeath } from "./spawn";
import { SHIP_HP } from "./templates";
import { GameCounter, type GameWorld } from "./world";

/** A collision below this closing speed (30 wu/s, in velocity units: 1 wu a step) bounces without damage. */
export const GENTLE = POS_ONE;
/** floor(65536 / hit points) by ship type, for the health percentage without dividing. */
export const HP_RECIPROCAL: readonly number[] = Object.freeze(SHIP_HP.map((h) => Math.floor(65536 / h)));

/**
 * The ship of `slot` died this step (the game's step reaps it): its entity goes, the killer
 * scores, the death hook hears of it and the next ship is due.
 */
export function deathsDie(w: GameWorld, slot: number): void {
  const e = w.entities;
  const i = w.focusIndex[slot];
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
