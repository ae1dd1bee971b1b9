/**
 * The page's chat log (web/world.ts, no DOM) when the player types faster than the server
 * accepts: every line typed appears once, the refused ones with the note the page greys.
 */
import assert from "node:assert/strict";
import { Scenario } from "../../harness/scenario";
import { NOT_CONNECTED, NOT_SENT, World } from "../../web/world";

describe("web page: own chat lines the server refused", function () {
  it("a burst of 10: each line is in the log once, echoed or marked 'not sent: too fast'; others see only the echoed", function () {
    const m = new Scenario({ players: 2, social: false });
    const [a, b] = m.clients;
    const wa = new World(a, () => m.net.now);
    const wb = new World(b, () => m.net.now);
    for (let t = 0; !m.ready(); t += 10) {
      assert.ok(t < 5000, "both players connect");
      m.net.run(10, 10);
    }
    m.net.run(500, 10);
    const typed: string[] = [];
    for (let i = 0; i < 10; i++) {
      typed.push("burst line " + i);
      assert.ok(a.chat(typed[i]));
    }
    m.net.run(2000, 10);
    const own = wa.lines.filter((l) => l.slot === a.selfSlot);
    assert.deepEqual(own.map((l) => l.text).sort(), typed.slice().sort(), "every line typed is shown once");
    const refused = own.filter((l) => l.note !== "");
    assert.equal(refused.length, a.chatsNotDelivered);
    assert.ok(refused.length >= 1);
    for (const l of refused) {
      assert.equal(l.note, NOT_SENT);
      assert.equal(l.name, wa.nameOf(a.selfSlot));
    }
    const echoed = own.filter((l) => l.note === "").map((l) => l.text);
    assert.deepEqual(wb.lines.filter((l) => l.slot === a.selfSlot).map((l) => l.text), echoed);
    assert.ok(wb.lines.every((l) => l.note === ""), "the other page shows no note");
    assert.deepEqual(wa.snapshot().chat.filter((l) => l.note === NOT_SENT).map((l) => l.text), refused.map((l) => l.text));
  });

  it("a line the client could not send at all is shown with its note", function () {
    const m = new Scenario({ players: 1, social: false });
    const c = m.clients[0];
    const w = new World(c, () => m.net.now);
    assert.equal(c.chat("before the join"), false);
    w.notSent("before the join", NOT_CONNECTED);
    assert.deepEqual(w.lines.map((l) => [l.slot, l.name, l.text, l.note]), [[-1, "you", "before the join", NOT_CONNECTED]]);
  });
});
