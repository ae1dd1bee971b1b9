/**
 * The soak in the suite, for 30 s: the Node server and the XS server (lwxs over UDP), each
 * behind the impairing relay (20 % loss, 10 % duplication, 20 % reordering, 20 ± 10 ms) with
 * 8 hunting, chatting bots. `npm run soak -- --minutes 60` is the long one (docs/reliability.md).
 */
import assert from "node:assert/strict";
import { describeSoak, runSoak } from "../../tools/soak";

describe("soak (tools/soak.ts): 30 s on real UDP through the impairing relay", function () {
  this.timeout(180_000);

  it("both servers: 8 bots each, every reliable message exactly once, Update rate kept, no kick, memory flat", async function () {
    const r = await runSoak({ minutes: 0.5, seed: 4, sampleS: 5 });
    const text = describeSoak(r);
    if (process.env.LWAR_REPORT) console.log(text.replace(/^/gm, "      "));
    assert.deepEqual(r.results.map((s) => s.server), ["node", "xs"]);
    for (const s of r.results) {
      assert.deepEqual(s.problems, [], `${s.server}:\n${text}`);
      const d = s.delivery;
      assert.ok(d.reliable > 2000 && d.chatsSent > 50, `${s.server}: ${d.reliable} reliable messages, ${d.chatsSent} chats`);
      // The relay did its worst both ways.
      for (const f of [s.up, s.down]) assert.ok(f.lost > 0.15 * f.received && f.duplicated > 0.05 * f.received && f.reordered > 0.1 * f.received, s.relay);
      // 15 update ticks a second, 20 % of them lost, duplicates and split Updates counted too.
      assert.ok(s.updatesMin > 10, `${s.server}: lowest Update rate ${s.updatesMin.toFixed(1)}/s`);
      assert.equal(s.bots.kicked + s.kicks, 0);
    }
    const xs = r.results[1].memory;
    assert.ok(xs.slots.length >= 3, "the XS heap was read at least three times");
    assert.ok(r.ok);
  });
});
