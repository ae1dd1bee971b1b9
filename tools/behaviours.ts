/** Bot behaviours: each maps a client's view of the world to INPUT_* bits. */
import type { Client } from "../modules/client/client";
import { INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../modules/protocol/codec";

export const BEHAVIOURS = ["idle", "wander", "hunt"] as const;

export function behaviourInput(name: string, client: Client, now: number): number {
  if (name === "idle") return 0;
  const phase = Math.floor(now / 1500 + client.selfSlot) % 4;
  const turn = phase === 0 ? INPUT_LEFT : phase === 2 ? INPUT_RIGHT : 0;
  return INPUT_FORWARD | turn | (name === "hunt" ? INPUT_SHOOTING : 0);
}
