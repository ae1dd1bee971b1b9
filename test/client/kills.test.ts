/**
 * Kill inference (modules/client/kills.ts): the kills every bot's client names, against the
 * server's own Death events, in a minute of 8 hunting bots (tools/kills.ts); and the feed's
 * wording.
 */
import assert from "node:assert/strict";
import { describeKill, KillCause } from "../../modules/client/client";
import { agreement, describeReport, measureKills, KILL_DEFAULTS } from "../../tools/kills";
import { TestMatch } from "../../harness/match";
import { Msg } from "../../modules/protocol/constants";

describe("client: kills", function () {
  it("60 s matches of 8 hunting bots, seeds 1-8: at least 95 % of the server's deaths named right, none missed or invented", function () {
    let judged = 0;
    let agreed = 0;
    const texts: string[] = [];
    const causes = new Map<number, number>();
    for (let seed = 1; seed <= 8; seed++) {
      const r = measureKills({ ...KILL_DEFAULTS, seconds: 60, seed });
      const text = describeReport(r).join("\n");
      texts.push(text);
      assert.equal(r.judged, r.deaths.length * 8);
      assert.equal(r.missed, 0, text);
      assert.equal(r.spurious, 0, text);
      assert.ok(r.weaponsAgreed >= 0.95 * r.shots, text);
      assert.ok(agreement(r) >= 0.85, text);
      judged += r.judged;
      agreed += r.agreed;
      for (const cause of [KillCause.Shot, KillCause.Planet, KillCause.Ram]) causes.set(cause, (causes.get(cause) ?? 0) + (r.byCause[cause] ?? 0));
      if (seed === 1) assert.ok(r.deaths.length >= 15, `a busy match: ${r.deaths.length} deaths\n${text}`);
    }
    assert.ok(agreed >= 0.95 * judged, `${agreed} of ${judged}\n${texts.join("\n")}`);
    // Every cause the game deals appears in the eight matches, so each rule is exercised.
    for (const [cause, n] of causes) assert.ok(n > 0, `no death by cause ${cause} in eight matches\n${texts.join("\n")}`);
  });

  it("names each death at once: in the datagram that carried its Remove, with nothing left pending", function () {
    const m = new TestMatch({}, { seed: 3, delayMs: 20, jitterMs: 5 });
    m.withGame(3, "hunt", true);
    const c = m.join();
    for (let i = 0; i < 5; i++) m.join();
    let removedAt = -1;
    const at: number[] = [];
    const log = m.recorders[0];
    c.listener = {
      reliable: (cl, type, seq, b, o) => {
        log.reliable(cl, type, seq, b, o);
        if (type === Msg.Remove) removedAt = m.net.now;
      },
      unreliable: (cl, type, ts) => log.unreliable(cl, type, ts),
    };
    c.onKill = () => {
      at.push(m.net.now - removedAt);
    };
    m.run(30000);
    assert.equal(c.kills.pending, 0, "nothing waits");
    assert.ok(at.length >= 3, `${at.length} deaths seen`);
    assert.deepEqual(at, at.map(() => 0), "each named when its Remove was applied");
  });

  it("a ship removed because its player left is no kill", function () {
    const m = new TestMatch({}, { seed: 4, delayMs: 5 });
    m.withGame(4, "idle", false);
    const a = m.join();
    const b = m.join();
    const kills: number[] = [];
    a.onKill = (victim) => kills.push(victim);
    m.run(1500);
    const ships = (): number => a.kills.reported.reduce((x, y) => x + y, 0);
    assert.equal(ships(), 0);
    let shipOfB = -1;
    for (let i = 0; i < a.entityCapacity; i++) if (a.alive[i] !== 0 && a.owner[i] === b.selfId && a.type[i] >= 4 && a.type[i] <= 6) shipOfB = i;
    assert.ok(shipOfB >= 0, "b's ship is in a's table");
    b.disconnect();
    m.run(3000);
    assert.equal(a.alive[shipOfB], 0, "b's ship is gone");
    assert.deepEqual(kills, []);
    assert.equal(a.kills.pending, 0);
  });

  it("describeKill words each cause", function () {
    assert.equal(describeKill("Bo", "Ana", KillCause.Shot, "pulse"), "Ana destroyed Bo (pulse)");
    assert.equal(describeKill("Bo", "Ana", KillCause.Shot, null), "Ana destroyed Bo");
    assert.equal(describeKill("Bo", "Bo", KillCause.Shot, "torpedo"), "Bo was hit by their own torpedo");
    assert.equal(describeKill("Bo", null, KillCause.Shot, "cannon"), "Bo was shot down (cannon)");
    assert.equal(describeKill("Bo", null, KillCause.Sun, null), "Bo fell into the sun");
    assert.equal(describeKill("Bo", null, KillCause.Planet, null), "Bo crashed into a planet");
    assert.equal(describeKill("Cy", "Bo", KillCause.Ram, null), "Bo rammed Cy");
    assert.equal(describeKill("Cy", null, KillCause.Ram, null), "Cy was rammed");
    assert.equal(describeKill("Cy", null, KillCause.Unknown, null), "Cy was destroyed");
    assert.equal(describeKill("Cy", null, KillCause.Edge, null), "Cy was lost at the edge");
  });
});
