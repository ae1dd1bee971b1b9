/** The page's stage rules (web/session.ts) and kill lines (web/feed.ts), without a browser. */
import assert from "node:assert/strict";
import { describeKill, KillCause, weaponName } from "../../web/feed";
import {
  AWAY_MS, awayMsFrom, formatDuration, FULL_RETRY_MS, outcomeOf, panelFor, reconnectDelayMs, type Stage,
} from "../../web/session";
import type { Phase } from "../../web/world";

describe("web page: stages, retries and kill lines", function () {
  it("retries wait 1, 2, 4, then 5 s each; a full match every 5 s", function () {
    assert.deepEqual([0, 1, 2, 3, 4, 10, 1000].map(reconnectDelayMs), [1000, 2000, 4000, 5000, 5000, 5000, 5000]);
    assert.equal(reconnectDelayMs(-1), 1000);
    assert.equal(FULL_RETRY_MS, 5000);
    // A server back within 3 s is reached by the second try, well inside 7 s.
    assert.ok(reconnectDelayMs(0) + reconnectDelayMs(1) < 7000);
  });

  it("how a connection ended decides what follows", function () {
    assert.equal(outcomeOf("left", 1000, "left"), "left");
    assert.equal(outcomeOf("rejected", 4001, "server full"), "full");
    assert.equal(outcomeOf("kicked", 4103, "kicked: shutdown"), "shutdown");
    assert.equal(outcomeOf("lost", 1001, "server shutting down"), "shutdown");
    assert.equal(outcomeOf("kicked", 4102, "kicked: misbehaviour"), "kicked");
    assert.equal(outcomeOf("lost", 1006, ""), "lost");
    assert.equal(outcomeOf("connecting", 1006, ""), "lost");
  });

  it("one panel at a time: the menu over anything, a notice over the death screen", function () {
    const stages: Stage[] = ["menu", "match", "retry", "away", "ended"];
    const phases: Phase[] = ["connecting", "spawning", "playing", "dead", "rejected", "kicked", "lost", "left"];
    for (const stage of stages) {
      for (const phase of phases) {
        assert.equal(panelFor(stage, phase, true), "menu");
        const p = panelFor(stage, phase, false);
        if (stage === "menu") assert.equal(p, "menu");
        else if (stage === "match") assert.equal(p, phase === "dead" ? "death" : "none");
        else assert.equal(p, "notice", `${stage} ${phase}`);
      }
    }
  });

  it("away time: 15 s unless the address says ?away=MS (at least 100)", function () {
    assert.equal(AWAY_MS, 15000);
    assert.equal(awayMsFrom(""), 15000);
    assert.equal(awayMsFrom("?away=1500"), 1500);
    assert.equal(awayMsFrom("?x=1&away=2500"), 2500);
    assert.equal(awayMsFrom("?away=50"), 15000);
    assert.equal(awayMsFrom("?away=abc"), 15000);
    assert.deepEqual([0, 1400, 59_000, 60_000, 65_000, 3_720_000].map(formatDuration), ["0 s", "1 s", "59 s", "1 min", "1 min 5 s", "1 h 2 min"]);
  });

  it("kill lines name the killer and the weapon, or what the ship hit", function () {
    assert.equal(describeKill("Bo", "Ana", KillCause.Shot, "pulse"), "Ana destroyed Bo (pulse)");
    assert.equal(describeKill("Bo", "You", KillCause.Shot, weaponName(8)), "You destroyed Bo (cannon)");
    assert.equal(describeKill("Bo", "Ana", KillCause.Ram, null), "Ana rammed Bo");
    assert.equal(describeKill("Bo", null, KillCause.Sun, null), "Bo fell into the sun");
    assert.equal(describeKill("Bo", null, KillCause.Planet, null), "Bo crashed into a planet");
    assert.equal(describeKill("Bo", null, KillCause.Unknown, null), "Bo was destroyed");
    assert.equal(weaponName(-1), null);
    assert.equal(weaponName(4), null);
    assert.equal(weaponName(9), "torpedo");
  });
});
