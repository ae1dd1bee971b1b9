/** The impairing relay (tools/relay.ts) on loopback: what it does to 3000 datagrams each way, against its settings. */
import assert from "node:assert/strict";
import dgram from "node:dgram";
import { Relay } from "../../tools/relay";

function bind(socket: dgram.Socket): Promise<number> {
  return new Promise((resolve) => socket.bind(0, "127.0.0.1", () => resolve(socket.address().port)));
}

describe("impairing relay (tools/relay.ts)", function () {
  this.timeout(30_000);

  it("loses, duplicates, delays and reorders at the rates asked for, both ways, one server-side port per client", async function () {
    const server = dgram.createSocket("udp4");
    const serverPort = await bind(server);
    const peers = new Set<number>();
    // The server echoes each datagram back with a second sequence number of its own.
    let echoed = 0;
    server.on("message", (m, r) => {
      peers.add(r.port);
      const reply = Buffer.alloc(8);
      reply.writeUInt32BE(m.readUInt32BE(0), 0);
      reply.writeUInt32BE(echoed++, 4);
      server.send(reply, r.port, r.address);
    });
    const relay = new Relay({ serverHost: "127.0.0.1", serverPort, seed: 11, loss: 0.2, duplicate: 0.1, reorder: 0.2, delayMs: 20, jitterMs: 10, reorderMs: 30 });
    const front = await relay.listen(0);
    const clients = [dgram.createSocket("udp4"), dgram.createSocket("udp4")];
    for (const c of clients) await bind(c);
    const sentAt = new Map<number, number>();
    const delays: number[] = [];
    let got = 0;
    let late = 0;
    let newest = -1;
    for (const c of clients)
      c.on("message", (m) => {
        got++;
        const seq = m.readUInt32BE(4);
        if (seq < newest) late++;
        else newest = seq;
        const t = sentAt.get(m.readUInt32BE(0));
        if (t !== undefined) delays.push(performance.now() - t);
      });
    const N = 3000;
    for (let i = 0; i < N; i++) {
      sentAt.set(i, performance.now());
      clients[i % 2].send(Buffer.from([i >>> 24, (i >>> 16) & 255, (i >>> 8) & 255, i & 255]), front, "127.0.0.1");
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 5));
    }
    // Everything delivered or lost, both ways: a busy machine takes longer than the 20..60 ms a datagram is held.
    let last = -1;
    for (const end = performance.now() + 15_000; performance.now() < end; ) {
      await new Promise((r) => setTimeout(r, 200));
      const u = relay.up;
      const d = relay.down;
      const settled =
        u.received === N && u.sent === u.received - u.lost + u.duplicated && d.received === u.sent &&
        d.sent === d.received - d.lost + d.duplicated && got === d.sent && got === last;
      last = got;
      if (settled) break;
    }
    const up = relay.up;
    const down = relay.down;
    try {
      assert.equal(up.received, N);
      assert.equal(peers.size, 2, "the server saw one port per client");
      for (const [name, f] of [["up", up], ["down", down]] as const) {
        assert.ok(Math.abs(f.lost / f.received - 0.2) < 0.03, `${name}: lost ${f.lost} of ${f.received}`);
        assert.ok(Math.abs(f.duplicated / (f.received - f.lost) - 0.1) < 0.03, `${name}: duplicated ${f.duplicated}`);
        assert.ok(Math.abs(f.reordered / (f.sent || 1) - 0.2) < 0.04, `${name}: reordered ${f.reordered} of ${f.sent}`);
        assert.equal(f.sent, f.received - f.lost + f.duplicated);
      }
      assert.equal(got, down.sent);
      assert.ok(late > 0.05 * got, `${late} of ${got} arrived after a later one`);
      // Each way 10..30 ms, plus 30 for a reordered one: a round trip 20..120 ms, mostly about
      // 40. The relay never sends early; a busy machine may send later, so the upper bound
      // on the median is loose.
      delays.sort((a, b) => a - b);
      const median = delays[delays.length >> 1];
      assert.ok(delays[0] >= 19, `fastest round trip ${delays[0].toFixed(1)} ms`);
      assert.ok(median > 35 && median < 250, `median round trip ${median.toFixed(1)} ms`);
    } finally {
      await relay.close();
      for (const s of [server, ...clients]) s.close();
    }
  });

  it("refuses impossible settings", function () {
    assert.throws(() => new Relay({ serverHost: "127.0.0.1", serverPort: 1, loss: 1.5 }), /loss must be in 0\.\.1/);
    assert.throws(() => new Relay({ serverHost: "127.0.0.1", serverPort: 1, delayMs: 5, jitterMs: 10 }), /jitterMs must not exceed delayMs/);
  });
});
