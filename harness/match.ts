/** Server plus client-library clients on the in-memory network, with message recording. */
import { makeConfig, type Config } from "../modules/config";
import { createServer, type Server } from "../modules/server/server";
import { type Client, ClientState, createClient, type ClientListener } from "../modules/client/client";
import { getU32 } from "../modules/protocol/bytes";
import { Msg } from "../modules/protocol/constants";
import { Network, type LinkOptions, type MemHost } from "./link";
import { createGame } from "../modules/match";
import type { Game } from "../modules/game/game";
import { INPUT_SHOOTING } from "../modules/protocol/codec";
import { behaviourInput } from "./behaviours";

export const SERVER_ADDRESS = "mem:server";
export const SERVER_PORT = 32422;

/**
 * Records every reliable message a client applies as [type, first u32 of payload], and
 * counts update ticks: Updates with a timestamp not seen before (the packets of one split
 * update tick share theirs).
 */
export class MessageLog implements ClientListener {
  readonly types: number[] = [];
  readonly ids: number[] = [];
  readonly seqs: number[] = [];
  updateTicks = 0;
  #lastUpdate = -1;
  reliable(_c: Client, type: number, seq: number, b: Uint8Array, o: number): void {
    this.types.push(type);
    this.seqs.push(seq);
    this.ids.push(type === Msg.Connect || type === Msg.Disconnect ? -1 : getU32(b, o));
  }
  unreliable(_c: Client, type: number, timestamp: number): void {
    if (type !== Msg.Update || timestamp === this.#lastUpdate) return;
    this.#lastUpdate = timestamp;
    this.updateTicks++;
  }
  count(type: number, id?: number): number {
    let n = 0;
    for (let i = 0; i < this.types.length; i++) if (this.types[i] === type && (id === undefined || this.ids[i] === id)) n++;
    return n;
  }
}

export class TestMatch {
  readonly net: Network;
  readonly config: Config;
  readonly serverHost: MemHost;
  readonly server: Server;
  readonly clients: Client[] = [];
  readonly hosts: MemHost[] = [];
  readonly recorders: MessageLog[] = [];
  game: Game | null = null;
  /** With the game: how clients added from now on steer (harness/behaviours.ts), and whether they hold the trigger. */
  behaviour: string | null = null;
  triggerHeld = false;

  constructor(overrides: Partial<Config> = {}, link: LinkOptions = { seed: 1, delayMs: 1 }) {
    this.net = new Network(link);
    this.config = makeConfig(overrides);
    this.serverHost = this.net.host(SERVER_ADDRESS, SERVER_PORT);
    this.serverHost.recordLog = true;
    this.server = createServer(this.config, this.serverHost);
    this.serverHost.core = this.server;
  }

  /**
   * Put the game in the server; clients added from now on steer as `behaviour`, firing
   * when `fire` (null: the test sets their inputs).
   */
  withGame(seed: number, behaviour: string | null = "hunt", fire = false): Game {
    this.game = createGame(this.config, this.server, seed);
    this.behaviour = behaviour;
    this.triggerHeld = fire;
    return this.game;
  }

  /** Add a client (not yet connected). */
  client(): Client {
    const i = this.clients.length;
    const h = this.net.host(`mem:client${i}`, 40000 + i);
    const c = createClient(this.config, h, SERVER_ADDRESS, SERVER_PORT);
    const r = new MessageLog();
    c.listener = r;
    h.core = c;
    const behaviour = this.behaviour;
    if (behaviour !== null) {
      h.core = {
        receive: (b, n, a, p) => c.receive(b, n, a, p),
        tick: (now) => {
          if (c.state === ClientState.Connected) c.setInput(behaviourInput(behaviour, c, now) | (this.triggerHeld ? INPUT_SHOOTING : 0));
          c.tick(now);
        },
      };
    }
    this.clients.push(c);
    this.hosts.push(h);
    this.recorders.push(r);
    return c;
  }

  /** Add and connect a client, and run until it is connected. */
  join(maxMs = 2000): Client {
    const c = this.client();
    c.connect();
    this.until(() => c.state !== ClientState.Connecting, maxMs);
    return c;
  }

  /** Run in 10 ms steps until `done()` or `maxMs` passed; returns whether done. */
  until(done: () => boolean, maxMs: number): boolean {
    const end = this.net.now + maxMs;
    while (!done()) {
      if (this.net.now >= end) return false;
      this.net.run(10, 10);
    }
    return true;
  }

  run(ms: number): void {
    this.net.run(ms, 10);
  }
}
