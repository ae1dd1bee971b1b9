/**
 * A busy match on the in-memory network, for the memory proof and the benchmarks: a
 * server (optionally with the game), N clients that steer, shoot, chat, rename and change
 * selection. Host-free and free of allocation once built, so it can run inside XS and be
 * measured there. Everything is driven by one seeded PRNG.
 */
import { type Kernels, platformNative } from "../modules/native";
import { makeConfig, type Config } from "../modules/config";
import { createServer, type Server } from "../modules/server/server";
import { type Client, ClientState, createClient } from "../modules/client/client";
import { createGame } from "../modules/match";
import { Random } from "../modules/random";
import { INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING } from "../modules/protocol/codec";
import { NO_PLAYER } from "../modules/game/entities";
import { Network, type LinkOptions, type MemHost } from "./link";
import { POS_SHIFT } from "../modules/units";

export interface ScenarioOptions {
  players?: number;
  /** Static extra entities added to the pool (for benchmarks without the game). */
  entities?: number;
  /** Attach the game simulation. */
  game?: boolean;
  seed?: number;
  link?: LinkOptions;
  config?: Partial<Config>;
  /** Chat, rename and reselect now and then. */
  social?: boolean;
  /** The server's and game's native loops (modules/native.ts); absent: the platform's (`platformNative`). */
  kernels?: Kernels | null;
}

const CHAT = Object.freeze(["gg", "nice shot", "watch the sun", "left flank", "regroup at the planet"]);
const NAMES = Object.freeze(["Ace", "Nova", "Comet", "Pulsar", "Quasar", "Orbit", "Vega", "Rigel"]);

export class Scenario {
  readonly net: Network;
  readonly config: Config;
  readonly server: Server;
  readonly serverHost: MemHost;
  readonly clients: Client[] = [];
  readonly #rng: Random;
  readonly #social: boolean;
  ticks = 0;

  constructor(o: ScenarioOptions = {}) {
    const players = o.players ?? 8;
    this.config = makeConfig(o.config);
    this.net = new Network(o.link ?? { seed: o.seed ?? 1, delayMs: 1, jitterMs: 1 });
    this.#rng = new Random(o.seed ?? 1);
    this.#social = o.social ?? true;
    this.serverHost = this.net.host("mem:server", 32422);
    const native = o.kernels != null ? { kernels: o.kernels } : platformNative(this.config);
    this.server = createServer(this.config, this.serverHost, native);
    if (o.game) createGame(this.config, this.server, o.seed ?? 1);
    for (let i = 0; i < (o.entities ?? 0); i++) this.server.entities.add(0, NO_PLAYER, ((i % 20) * 100 - 1000) << POS_SHIFT, (((i / 20) | 0) * 100 - 500) << POS_SHIFT);
    this.serverHost.core = this.server;
    for (let i = 0; i < players; i++) {
      const h = this.net.host("mem:client" + i, 40000 + i);
      const c = createClient(this.config, h, "mem:server", 32422);
      h.core = c;
      this.clients.push(c);
    }
    for (let i = 0; i < players; i++) this.clients[i].connect();
  }

  /** All clients connected and synced. */
  ready(): boolean {
    for (let i = 0; i < this.clients.length; i++) if (this.clients[i].state !== ClientState.Connected) return false;
    return true;
  }

  /** Advance the match by one 10 ms step: clients act, packets fly, everyone ticks. */
  step(): void {
    const rng = this.#rng;
    const clients = this.clients;
    for (let i = 0; i < clients.length; i++) {
      const c = clients[i];
      if (c.state !== ClientState.Connected) continue;
      if (rng.next() < 0.05) {
        let bits = INPUT_FORWARD;
        const r = rng.next();
        if (r < 0.3) bits |= INPUT_LEFT;
        else if (r < 0.6) bits |= INPUT_RIGHT;
        if (rng.next() < 0.5) bits |= INPUT_SHOOTING;
        c.setInput(bits);
      }
      if (this.#social) {
        const r = rng.next();
        if (r < 0.002) c.chat(CHAT[rng.below(CHAT.length)]);
        else if (r < 0.003) c.rename(NAMES[rng.below(NAMES.length)]);
        else if (r < 0.004) c.select(rng.below(this.config.shipTypes), rng.below(this.config.weaponTypes));
      }
    }
    this.net.run(10, 10);
    this.ticks++;
  }
}
