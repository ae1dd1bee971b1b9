/**
 * /metrics and /status on the Node server's HTTP port, with UDP players in a live match:
 * /metrics parses as the Prometheus text format and has the named series; /status is
 * JSON with the players, their scores and the tick timing.
 */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { serve, type Served } from "../../hosts/node/serve";
import type { PageFile } from "../../hosts/node/web";
import { connected, udpPlayer, waitFor, type UdpPlayer } from "../integration/players";

const FILES: PageFile[] = [{ path: "/", type: "text/html", body: new TextEncoder().encode("<!doctype html>"), gzip: null }];

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * A strict reader of the Prometheus text format (0.0.4): every sample belongs to a family
 * announced by # HELP and # TYPE before it, names and labels are well formed, values are
 * numbers. Throws on anything else.
 */
function parsePrometheus(text: string): { types: Map<string, string>; samples: Sample[] } {
  assert.ok(text.endsWith("\n"), "ends with a newline");
  const types = new Map<string, string>();
  const helps = new Set<string>();
  const samples: Sample[] = [];
  for (const line of text.slice(0, -1).split("\n")) {
    let m = /^# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) .+$/.exec(line);
    if (m) {
      assert.ok(!helps.has(m[1]), `one HELP for ${m[1]}`);
      helps.add(m[1]);
      continue;
    }
    m = /^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (m) {
      assert.ok(helps.has(m[1]), `HELP before TYPE for ${m[1]}`);
      assert.ok(!types.has(m[1]), `one TYPE for ${m[1]}`);
      types.set(m[1], m[2]);
      continue;
    }
    m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    assert.ok(m, `a sample line: ${JSON.stringify(line)}`);
    const [, name, body, value] = m;
    const labels: Record<string, string> = {};
    if (body !== undefined && body !== "") {
      for (const pair of body.match(/[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\]|\\.)*"/g) ?? []) {
        const eq = pair.indexOf("=");
        labels[pair.slice(0, eq)] = pair.slice(eq + 2, -1);
      }
      assert.equal(Object.keys(labels).map((k) => `${k}="${labels[k]}"`).join(","), body, `labels of ${line}`);
    }
    const family = name.replace(/_(bucket|sum|count)$/, "");
    assert.ok(types.has(name) || (types.get(family) === "histogram" && family !== name), `${name} has a TYPE before it`);
    const n = value === "+Inf" ? Infinity : Number(value);
    assert.ok(!Number.isNaN(n), `${line}: the value is a number`);
    samples.push({ name, labels, value: n });
  }
  return { types, samples };
}

function value(samples: Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  assert.equal(found.length, 1, `one ${name} ${JSON.stringify(labels)}`);
  return found[0].value;
}

describe("HTTP /metrics and /status", function () {
  this.timeout(60000);
  let served: Served;
  let base: string;
  const players: UdpPlayer[] = [];

  before(async function () {
    served = await serve({ config: makeConfig({ maxPlayers: 4 }), seed: 3, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: FILES });
    base = `http://127.0.0.1:${served.http!.port}`;
    for (const name of ["Ana", "Bo"]) {
      // Idle: nobody scores, so the score set below stays.
      const p = await udpPlayer(served.udp.port, "idle");
      players.push(p);
      await waitFor(() => connected(p.client), 5000, `${name} connected`);
      p.client.rename(name);
    }
    await waitFor(() => served.host.tickCost.count > 100 && served.server.counters[1] > 0, 5000, "ticks and traffic");
    await waitFor(() => served.report.players().every((r) => r.name !== ""), 5000, "names");
    served.server.scores[0] = 3;
  });

  after(async function () {
    for (const p of players) await p.host.close();
    await served.close();
  });

  it("/metrics is Prometheus text with players, packets and bytes each way, drops, kicks, tick timing and game counters", async function () {
    const res = await fetch(`${base}/metrics`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
    const { types, samples } = parsePrometheus(await res.text());
    assert.equal(value(samples, "lwar_players"), 2);
    assert.equal(value(samples, "lwar_max_players"), 4);
    for (const direction of ["in", "out"]) {
      assert.ok(value(samples, "lwar_packets_total", { direction }) > 0, `packets ${direction}`);
      assert.ok(value(samples, "lwar_bytes_total", { direction }) > 0, `bytes ${direction}`);
    }
    assert.equal(types.get("lwar_packets_total"), "counter");
    assert.equal(value(samples, "lwar_drops_total", { reason: "tooShort" }), 0);
    assert.ok(samples.some((s) => s.name === "lwar_harmless_total" && s.labels.reason === "unknownPeer"));
    for (const reason of ["queue_overflow", "misbehaviour", "shutdown"]) assert.equal(value(samples, "lwar_kicks_total", { reason }), 0);
    // The tick histogram: cumulative buckets ending in +Inf = count.
    assert.equal(types.get("lwar_tick_seconds"), "histogram");
    const buckets = samples.filter((s) => s.name === "lwar_tick_seconds_bucket");
    assert.ok(buckets.length > 10);
    for (let k = 1; k < buckets.length; k++) {
      assert.ok(Number(buckets[k].labels.le === "+Inf" ? Infinity : buckets[k].labels.le) > Number(buckets[k - 1].labels.le));
      assert.ok(buckets[k].value >= buckets[k - 1].value);
    }
    assert.equal(buckets[buckets.length - 1].labels.le, "+Inf");
    const count = value(samples, "lwar_tick_seconds_count");
    assert.ok(count > 100);
    assert.equal(buckets[buckets.length - 1].value, count);
    assert.ok(value(samples, "lwar_tick_seconds_sum") > 0);
    assert.equal(value(samples, "lwar_tick_period_seconds"), 0.01);
    assert.ok(value(samples, "lwar_game_steps_total") > 0);
    assert.equal(types.get("lwar_game_kills_total"), "counter");
    assert.equal(value(samples, "lwar_player_score", { name: "Ana" }), 3);
    assert.equal(value(samples, "lwar_ws_open"), 0);
  });

  it("/status is JSON with the players, their scores and the tick timing", async function () {
    const res = await fetch(`${base}/status`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    const s = (await res.json()) as {
      host: string; seed: number; maxPlayers: number;
      players: {
        slot: number; name: string; score: number; kills: number; deaths: number; peer: string;
        ship: string; weapon: string; flying: string | null; bot: boolean;
      }[];
      tick: { periodMs: number; clock: string; ticks: number; meanUs: number; p99Us: number; maxUs: number; share: number };
      packets: { in: number; out: number };
      drops: Record<string, number>;
      kicks: Record<string, number>;
      game: Record<string, number>;
    };
    assert.equal(s.host, "node");
    assert.equal(s.seed, 3);
    assert.equal(s.maxPlayers, 4);
    assert.deepEqual(s.players.map((p) => p.name), ["Ana", "Bo"]);
    assert.equal(s.players[0].score, 3);
    assert.match(s.players[0].peer, /^127\.0\.0\.1:\d+$/);
    for (const p of s.players) {
      assert.equal(typeof p.kills + typeof p.deaths, "numbernumber");
      assert.deepEqual([p.ship, p.weapon, p.bot], ["interceptor", "pulse", false]);
      // Spawned by now, or between lives (idle players drift into the sun).
      assert.ok(p.flying === "interceptor" || p.flying === null, String(p.flying));
    }
    assert.equal(s.tick.periodMs, 10);
    assert.equal(s.tick.clock, "performance.now");
    assert.ok(s.tick.ticks > 100);
    assert.ok(s.tick.meanUs > 0 && s.tick.p99Us > 0 && s.tick.p99Us <= s.tick.maxUs, JSON.stringify(s.tick));
    assert.ok(s.tick.share > 0 && s.tick.share < 1);
    assert.ok(s.packets.in > 0);
    assert.deepEqual(s.kicks, { queue_overflow: 0, misbehaviour: 0, shutdown: 0 });
    assert.ok(s.game.steps > 0);
  });

  it("/status marks the server's bots and says what each flies", async function () {
    const withBots = await serve({
      config: makeConfig({ maxPlayers: 4, bots: 2 }), seed: 5, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: FILES,
    });
    try {
      await waitFor(() => withBots.server.botCount() === 2, 5000, "two bots");
      const url = `http://127.0.0.1:${withBots.http!.port}/status`;
      let players: { name: string; bot: boolean; peer: string; ship: string; weapon: string; flying: string | null }[] = [];
      for (let tries = 0; tries < 100; tries++) {
        players = ((await (await fetch(url)).json()) as { players: typeof players }).players;
        if (players.every((p) => p.flying !== null)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.deepEqual(players.map((p) => [p.name, p.bot, p.peer]), [["Vega [bot]", true, "bot"], ["Rigel [bot]", true, "bot"]]);
      for (const p of players) assert.equal(p.flying, p.ship);
    } finally {
      await withBots.close();
    }
  });

  it("HEAD /status answers without a body; other paths stay 404", async function () {
    const head = await fetch(`${base}/status`, { method: "HEAD" });
    assert.equal(head.status, 200);
    assert.equal(await head.text(), "");
    assert.equal((await fetch(`${base}/nothing`)).status, 404);
  });
});
