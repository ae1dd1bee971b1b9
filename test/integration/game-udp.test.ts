/**
 * A match over real loopback UDP (node:dgram): the server with the game and four
 * hunting bots. The sockets are real; the clock is shared and virtual, advanced 10 ms
 * per turn of the event loop, so half a minute of play takes about a second.
 */
import assert from "node:assert/strict";
import dgram from "node:dgram";
import type { Core, Host } from "../../modules/host";
import { makeConfig } from "../../modules/config";
import { createServer } from "../../modules/server/server";
import { ClientState, createClient, type Client } from "../../modules/client/client";
import { GameCounter } from "../../modules/game/game";
import { createGame } from "../../modules/match";
import { Counter } from "../../modules/protocol/counters";
import { behaviourInput, ownShip } from "../../harness/behaviours";

class Clock {
  now = 1000;
}

class UdpHost implements Host {
  readonly socket = dgram.createSocket("udp4");
  readonly #clock: Clock;
  core: Core | null = null;
  port = 0;
  constructor(clock: Clock) {
    this.#clock = clock;
    this.socket.on("message", (msg, rinfo) => {
      if (this.core !== null) this.core.receive(msg, msg.length, rinfo.address, rinfo.port);
    });
  }
  bind(): Promise<void> {
    return new Promise((resolve) =>
      this.socket.bind(0, "127.0.0.1", () => {
        this.port = this.socket.address().port;
        resolve();
      }),
    );
  }
  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.socket.send(Buffer.from(bytes.subarray(0, length)), port, address);
  }
  now(): number {
    return this.#clock.now;
  }
  log(): void {}
  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe("game over loopback UDP", function () {
  this.timeout(30000);

  it("scripted bots move, shoot and kill one another, and Stats carry the scores", async function () {
    const clock = new Clock();
    const config = makeConfig();
    const serverHost = new UdpHost(clock);
    await serverHost.bind();
    const server = createServer(config, serverHost);
    serverHost.core = server;
    const game = createGame(config, server, 31337);
    const hosts: UdpHost[] = [];
    const bots: Client[] = [];
    for (let k = 0; k < 4; k++) {
      const h = new UdpHost(clock);
      await h.bind();
      const c = createClient(config, h, "127.0.0.1", serverHost.port);
      h.core = c;
      hosts.push(h);
      bots.push(c);
      c.connect();
    }
    const travelled = [0, 0, 0, 0];
    const lastX = [NaN, NaN, NaN, NaN];
    const lastY = [NaN, NaN, NaN, NaN];
    const selected = [false, false, false, false];
    try {
      for (let t = 0; t < 3000; t++) {
        clock.now += 10;
        server.tick(clock.now);
        for (const [k, c] of bots.entries()) {
          if (c.state === ClientState.Connected) {
            // Interceptors with torpedoes: two hits kill.
            if (!selected[k]) selected[k] = c.select(0, 2);
            c.setInput(behaviourInput("hunt", c, clock.now));
            const own = ownShip(c);
            if (own >= 0) {
              if (lastX[k] === lastX[k]) travelled[k] += Math.min(50, Math.hypot(c.x[own] - lastX[k], c.y[own] - lastY[k]));
              lastX[k] = c.x[own];
              lastY[k] = c.y[own];
            } else lastX[k] = NaN;
          }
          c.tick(clock.now);
        }
        await turn();
      }
      // Cease fire; once the last projectiles have expired, the scores stand still and Stats catch up.
      for (const c of bots) c.setInput(0);
      for (let t = 0; t < 500; t++) {
        clock.now += 10;
        server.tick(clock.now);
        for (const c of bots) c.tick(clock.now);
        await turn();
      }
      const g = game.counters;
      assert.ok(g[GameCounter.ShotsFired] > 50, `${g[GameCounter.ShotsFired]} shots`);
      assert.ok(g[GameCounter.ShotHits] > 0, "hits");
      assert.ok(g[GameCounter.Kills] >= 2, `${g[GameCounter.Kills]} kills`);
      let total = 0;
      for (let s = 0; s < 4; s++) total += server.scores[s];
      assert.ok(total >= 2, `scores ${Array.from(server.scores)}`);
      for (const [k, c] of bots.entries()) {
        assert.equal(c.state, ClientState.Connected, `bot ${k}`);
        assert.deepEqual(Array.from(c.scores), Array.from(server.scores), `bot ${k} sees the scores`);
        assert.ok(c.statsReceived > 40, `bot ${k}: ${c.statsReceived} Stats`);
        assert.ok(travelled[k] > 1000, `bot ${k} moved ${travelled[k]} wu`);
        assert.equal(c.weapon[c.selfSlot], 2, "the selection was broadcast");
      }
      assert.equal(server.counters[Counter.BadSelection], 0);
      for (const c of bots) c.disconnect();
      for (let t = 0; t < 50 && bots.some((c) => c.state === ClientState.Disconnecting); t++) {
        clock.now += 10;
        server.tick(clock.now);
        for (const c of bots) c.tick(clock.now);
        await turn();
      }
      assert.equal(server.playerCount(), 0);
      assert.equal(server.entities.count, game.bodies, "only the sun and planets are left");
    } finally {
      await Promise.all([serverHost, ...hosts].map((h) => h.close()));
    }
  });
});
