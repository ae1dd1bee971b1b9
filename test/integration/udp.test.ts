/** The Node host on real loopback UDP with 8 client-library bots. */
import assert from "node:assert/strict";
import { makeConfig } from "../../modules/config";
import { createServer } from "../../modules/server/server";
import { Counter, DROP_FIRST } from "../../modules/protocol/counters";
import { NodeHost } from "../../hosts/node/host";
import { runBots } from "../../tools/botlib";

describe("integration: Node host on loopback UDP", function () {
  this.timeout(30000);

  it("8 bots play for a few seconds: nothing lost, Update and Stats rates in range, clean disconnects", async function () {
    const host = new NodeHost();
    const { port } = await host.listen(0, "127.0.0.1");
    const server = createServer(makeConfig(), host);
    host.attach(server);
    try {
      const s = await runBots({ host: "127.0.0.1", port, count: 8, durationS: 4, behaviour: "wander", chatEveryS: 1, seed: 5 });
      assert.equal(s.connected, 8);
      assert.equal(s.playersSeen, 8);
      assert.ok(s.chatsSent >= 16, `chats sent ${s.chatsSent}`);
      assert.equal(s.chatsReceivedMin, s.chatsSent, "every bot received every chat exactly once");
      assert.ok(s.updatesPerSecond >= 13 && s.updatesPerSecond <= 17, `Update ${s.updatesPerSecond}/s`);
      assert.ok(s.statsPerSecond >= 1.5 && s.statsPerSecond <= 2.5, `Stats ${s.statsPerSecond}/s`);
      assert.equal(s.disconnectedCleanly, 8);
      assert.equal(server.playerCount(), 0);
      assert.equal(server.counters[Counter.Leaves], 8);
      // Packets a bot sent after its Disconnect went out arrive from a player that just left:
      // counted as such (afterLeave), not as a stranger's. Duplicates are resends crossing
      // acks in flight: harmless, not counted as loss.
      for (let i: number = DROP_FIRST; i <= Counter.BadChat; i++)
        if (i !== Counter.DuplicateReliable) assert.equal(server.counters[i], 0, `drop counter ${i}`);
      assert.ok(server.counters[Counter.AfterLeave] <= 8 * 4);
    } finally {
      await host.close();
    }
  });
});
