/**
 * modules/report.ts in a real match on the in-memory network: kill and death lines name
 * the players and what killed them, the status line keeps harmless events out of its
 * drops, and the scoreboard ranks the players.
 */
import assert from "node:assert/strict";
import type { Client } from "../../modules/client/client";
import type { Game } from "../../modules/game/game";
import { GameCounter } from "../../modules/game/game";
import { Counter } from "../../modules/protocol/counters";
import { Reporter, type LogRecord } from "../../modules/report";
import { deathValue, LogEvent } from "../../modules/server/events";
import { TickCost } from "../../modules/tickcost";
import { TestMatch, SERVER_ADDRESS, SERVER_PORT } from "../../harness/match";

const NAMES = ["Ana", "Bo", "Cy", "Di"];
const KILL = /^kill    '(Ana|Bo|Cy|Di)' → '(Ana|Bo|Cy|Di)' \((pulse|cannon|torpedo|ram)\)$/;
const DEATH = /^death   '(Ana|Bo|Cy|Di)' \((own )?(sun|small planet|planet|gas giant|pulse|cannon|torpedo|ram)\)$/;

interface Fight {
  m: TestMatch;
  game: Game;
  report: Reporter;
  lines: LogRecord[];
  clients: Client[];
  cost: TickCost;
}

/** Four named hunters that fire, their server's log going through a Reporter. */
function fight(): Fight {
  const m = new TestMatch({ maxPlayers: 4 });
  const game = m.withGame(7, "hunt", true);
  const cost = new TickCost(10, "test");
  const report = new Reporter({
    server: m.server, game, tickCost: cost, seed: 7, host: "test",
    describePeer: (address, port) => `${address}:${port}`,
    now: () => m.net.now,
  });
  const lines: LogRecord[] = [];
  m.serverHost.log = (event, slot, value) => {
    report.count(event, value);
    const r = report.event(event, slot, value);
    if (r !== null) lines.push(r);
  };
  game.onDeath = (slot, killer, cause) => m.serverHost.log(LogEvent.Death, slot, deathValue(killer, cause));
  const clients: Client[] = [];
  for (const name of NAMES) {
    const c = m.join();
    c.rename(name);
    clients.push(c);
  }
  m.run(500);
  return { m, game, report, lines, clients, cost };
}

describe("operator report in a match", function () {
  this.timeout(120000);
  let f: Fight;

  before(function () {
    f = fight();
    f.m.until(() => f.lines.filter((l) => l.event === "kill").length >= 3, 120000);
  });

  it("logs a join and a rename for each player", function () {
    assert.equal(f.lines.filter((l) => l.event === "join").length, 4);
    const names = f.lines.filter((l) => l.event === "rename").map((l) => l.fields.name);
    assert.deepEqual([...names].sort(), [...NAMES].sort());
  });

  it("logs kills as kill 'killer' → 'victim' (weapon), one line per ship destroyed", function () {
    const kills = f.lines.filter((l) => l.event === "kill");
    assert.ok(kills.length >= 3, `${kills.length} kill lines`);
    for (const k of kills) {
      assert.match(k.text, KILL);
      assert.notEqual(k.fields.killer, k.fields.victim);
    }
    const deaths = f.lines.filter((l) => l.event === "death");
    for (const d of deaths) assert.match(d.text, DEATH);
    const g = f.game.counters;
    assert.equal(kills.length + deaths.length, g[GameCounter.Kills] + g[GameCounter.Suicides] + g[GameCounter.EnvironmentDeaths]);
    // Every player's deaths, as the game counts them, have a line each.
    for (let s = 0; s < 4; s++) {
      const name = f.report.playerName(s);
      const lines = f.lines.filter((l) => (l.event === "kill" || l.event === "death") && l.fields.victim === name);
      assert.equal(lines.length, f.game.deaths[s], name);
    }
  });

  it("logs a ship flown into the sun as death 'name' (sun)", function () {
    const { m, game } = f;
    const slot = 1;
    assert.ok(m.until(() => game.focusIndex[slot] >= 0, 5000), "Bo has a ship");
    const i = game.focusIndex[slot];
    m.server.entities.x[i] = 0;
    m.server.entities.y[i] = 0;
    const before = f.lines.length;
    m.until(() => game.focusIndex[slot] < 0, 1000);
    const line = f.lines.slice(before).find((l) => l.event === "death" || l.event === "kill");
    assert.ok(line !== undefined, "a line for the death");
    assert.equal(line.text, "death   'Bo' (sun)");
    assert.deepEqual(line.fields, { victim: "Bo", victimSlot: 1, cause: "sun", suicide: false });
  });

  it("ranks the scoreboard by score, with kills and deaths", function () {
    const board = f.report.scoreboard();
    const rows = board.fields.players as { rank: number; name: string; score: number; kills: number; deaths: number }[];
    assert.equal(rows.length, 4);
    for (let k = 1; k < rows.length; k++) assert.ok(rows[k - 1].score >= rows[k].score);
    const lines = board.text.split("\n");
    assert.equal(lines[0], "scoreboard (4 players)");
    assert.match(lines[1], new RegExp(`^   1\\. '${rows[0].name}'\\s+score\\s+${rows[0].score}\\s+kills\\s+${rows[0].kills}\\s+deaths\\s+${rows[0].deaths}$`));
    let kills = 0;
    for (const r of rows) kills += r.kills;
    assert.ok(kills >= 3);
  });

  it("keeps late and repeated packets out of the status line's drops, and reports malformed ones", function () {
    const { m, report } = f;
    const raw = m.net.host("mem:late", 9);
    raw.core = { receive: () => {}, tick: () => {} };
    // A packet with a reliable Name and no Connect, from a peer that is no player (as after a Disconnect): unknownPeer.
    const late = [0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 109, 0, 0, 0, 1];
    for (let i = 0; i < 32; i++) late.push(0);
    raw.send(Uint8Array.from(late), late.length, SERVER_ADDRESS, SERVER_PORT);
    // Three bytes: tooShort.
    raw.send(Uint8Array.from([1, 2, 3]), 3, SERVER_ADDRESS, SERVER_PORT);
    m.run(100);
    assert.ok(m.server.counters[Counter.UnknownPeer] >= 1);
    assert.equal(m.server.counters[Counter.TooShort], 1);
    const status = report.status();
    assert.doesNotMatch(status.text, /unknownPeer|duplicateReliable|staleUnreliable/);
    assert.match(status.text, /\| total drops tooShort=1$/);
    assert.deepEqual(status.fields.drops, [{ reason: "tooShort", total: 1 }]);
    assert.match(status.text, /^status  players 4\/4, entities \d+ \| rate in \d+ pkt\/s \d+ B\/s, out \d+ pkt\/s \d+ B\/s \| tick mean \d+ µs, p99 \d+ µs, [\d.]+% of 10 ms/);
    const snapshot = JSON.parse(report.statusJson()) as { harmless: Record<string, number>; drops: Record<string, number> };
    assert.ok(snapshot.harmless.unknownPeer >= 1);
    assert.deepEqual(snapshot.drops, { tooShort: 1 });
  });

  it("puts the tick cost in the status line: mean, p99 and the share of the period", function () {
    const { cost, report } = f;
    report.status();
    for (let k = 0; k < 98; k++) cost.record(100);
    cost.record(900);
    cost.record(5000);
    const s = report.status();
    // 100 ticks: mean 157 µs; the 99th is 900 µs, in the bucket [896, 1024).
    assert.match(s.text, /\| tick mean 157 µs, p99 1024 µs, 1\.6% of 10 ms \|/);
    assert.deepEqual(s.fields.tick, { meanUs: 157, p99Us: 1024, share: 0.0157, ticks: 100 });
  });
});
