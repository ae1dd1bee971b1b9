import assert from "node:assert/strict";
import { ClientState, type Client } from "../../modules/client/client";
import { Counter } from "../../modules/protocol/counters";
import { NAME_LENGTH } from "../../modules/protocol/constants";
import { BOT_FILL_MS } from "../../modules/server/server";
import { bytesToAscii } from "../../modules/text";
import { TestMatch } from "../../harness/match";

function name(c: Client, slot: number): string {
  return bytesToAscii(c.names, slot * NAME_LENGTH, c.nameLength[slot]);
}

/** Slots a client knows to be present, with their names. */
function roster(c: Client): string[] {
  const out: string[] = [];
  for (let s = 0; s < c.present.length; s++) if (c.present[s] !== 0) out.push(name(c, s));
  return out.sort();
}

describe("server bots", function () {
  it("fill empty slots up to config.bots, named '<star> [bot]', and a human sees them join", function () {
    const m = new TestMatch({ maxPlayers: 4, bots: 3 });
    m.withGame(7, null);
    m.run(BOT_FILL_MS + 100);
    assert.equal(m.server.botCount(), 3);
    assert.equal(m.server.playerCount(), 3);
    assert.equal(m.server.counters[Counter.BotJoins], 3);
    const a = m.join();
    assert.equal(a.state, ClientState.Connected);
    m.run(500);
    assert.deepEqual(roster(a), ["Deneb [bot]", "Player 4", "Rigel [bot]", "Vega [bot]"]);
    assert.equal(m.server.botCount(), 3, "a free slot was left for the human: no bot gave way");
  });

  it("give their slot up to a human who finds the server full, and come back when the human leaves", function () {
    const m = new TestMatch({ maxPlayers: 2, bots: 2 });
    m.withGame(7, null);
    m.run(BOT_FILL_MS + 100);
    assert.equal(m.server.botCount(), 2);
    const a = m.join();
    assert.equal(a.state, ClientState.Connected);
    assert.equal(m.server.botCount(), 1);
    assert.equal(m.server.counters[Counter.BotsReplaced], 1);
    assert.equal(m.server.counters[Counter.Rejects], 0);
    const b = m.join();
    assert.equal(b.state, ClientState.Connected);
    assert.equal(m.server.botCount(), 0);
    assert.equal(m.server.counters[Counter.BotsReplaced], 2);
    m.run(300);
    // The humans saw the bots leave.
    assert.equal(roster(a).some((n) => n.endsWith("[bot]")), false);
    b.disconnect();
    m.run(BOT_FILL_MS + 300);
    assert.equal(m.server.botCount(), 1, "the slot b left is flown by a bot again");
    assert.equal(roster(a).filter((n) => n.endsWith("[bot]")).length, 1);
  });

  it("are never sent a datagram", function () {
    const m = new TestMatch({ maxPlayers: 4, bots: 2 });
    m.withGame(3, "hunt", false);
    const sent: number[] = [];
    const host = m.serverHost;
    const send = host.send.bind(host);
    host.send = (bytes, length, address, port) => {
      sent.push(port);
      send(bytes, length, address, port);
    };
    m.run(BOT_FILL_MS + 100);
    m.join();
    m.run(3000);
    assert.ok(sent.length > 0);
    assert.equal(sent.filter((p) => p < 0).length, 0);
  });

  it("a match of 1 human and 3 bots runs 60 s with kills, and the human stays in it", function () {
    this.timeout(120000);
    const m = new TestMatch({ maxPlayers: 4, bots: 3 });
    const game = m.withGame(11, "hunt", false);
    let deaths = 0;
    let byBots = 0;
    game.onDeath = (slot, killer) => {
      deaths++;
      if (killer >= 0 && killer !== slot && m.server.pilots.bot[killer] !== 0) byBots++;
    };
    m.run(BOT_FILL_MS + 100);
    const a = m.join();
    m.run(60000);
    assert.equal(a.state, ClientState.Connected);
    assert.equal(m.server.botCount(), 3);
    assert.ok(byBots >= 3, `bots destroyed ${byBots} ships in 60 s (of ${deaths} deaths)`);
    assert.equal(m.server.counters[Counter.Timeouts], 0);
    assert.equal(m.server.counters[Counter.Kicks], 0);
  });
});
