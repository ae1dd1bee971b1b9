/** The Node host on IPv6 loopback, dual stack, and the receive buffer it asks for. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { makeConfig } from "../../modules/config";
import { createServer } from "../../modules/server/server";
import { NodeHost, RECEIVE_BUFFER_BYTES } from "../../hosts/node/host";
import { runBots } from "../../tools/botlib";

async function play(bind: string, target: string): Promise<{ connected: number; address: string }> {
  const host = new NodeHost();
  const { port, address } = await host.listen(0, bind);
  const server = createServer(makeConfig(), host);
  host.attach(server);
  try {
    const s = await runBots({ host: target, port, count: 2, durationS: 1, behaviour: "idle", chatEveryS: 0, seed: 3 });
    return { connected: s.connected, address };
  } finally {
    await host.close();
  }
}

describe("integration: address families and the receive buffer", function () {
  this.timeout(20000);

  it("--host ::1: IPv6 loopback serves IPv6 bots", async function () {
    const r = await play("::1", "::1");
    assert.equal(r.address, "::1");
    assert.equal(r.connected, 2);
  });

  it("--host :: is dual stack: an IPv4 bot plays too", async function () {
    const r = await play("::", "127.0.0.1");
    assert.equal(r.address, "::");
    assert.equal(r.connected, 2);
  });

  it("asks for a receive buffer big enough for 64 packets from each of 8 players", async function () {
    assert.ok(RECEIVE_BUFFER_BYTES >= 8 * 64 * 512);
    const host = new NodeHost();
    const { receiveBuffer } = await host.listen(0, "127.0.0.1");
    await host.close();
    // Linux grants what is asked (doubled, for its accounting) up to net.core.rmem_max.
    let max = Infinity;
    try {
      max = Number(readFileSync("/proc/sys/net/core/rmem_max", "utf8"));
    } catch {
      // not Linux: take what was granted as the limit
    }
    assert.ok(receiveBuffer >= Math.min(RECEIVE_BUFFER_BYTES, max), `granted ${receiveBuffer} of ${RECEIVE_BUFFER_BYTES} (rmem_max ${max})`);
  });
});
