/**
 * The WebSocket carriage of the Node host (hosts/node/web.ts), without a browser: clients
 * over the `ws` library on loopback, the page's own SocketHost and World on top.
 */
import assert from "node:assert/strict";
import WebSocket from "ws";
import { makeConfig } from "../../modules/config";
import { ClientState } from "../../modules/client/client";
import { Counter } from "../../modules/protocol/counters";
import { MAX_PLAYERS, Msg } from "../../modules/protocol/constants";
import { Kind, kindOf } from "../../modules/game/templates";
import { bytesToAscii } from "../../modules/text";
import { serve, type Served } from "../../hosts/node/serve";
import { CloseCode, WebCounter, WS_PORT_BASE, type PageFile } from "../../hosts/node/web";
import { closeOf, connected, openSocket, sleep, udpPlayer, waitFor, wsPlayer, type WsPlayer } from "./players";

/** A tiny stand-in page: these tests are about the socket, not the bundle. */
const FILES: PageFile[] = [
  { path: "/", type: "text/html; charset=utf-8", body: new TextEncoder().encode("<!doctype html><p>lwar</p>\n"), gzip: null },
];

// Connect with seqno 0: header (appId, ack none, timestamp 0, rel 1, unrel 0), then seqno 0 and type 101.
const CONNECT = Uint8Array.of(0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 101);
// A header that announces one reliable message and carries none.
const TRUNCATED = Uint8Array.of(0xf2, 0x70, 0x87, 0xc5, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 1, 0);

describe("integration: WebSocket players on the Node host", function () {
  this.timeout(30000);
  let s: Served;
  let url: string;
  const players: WsPlayer[] = [];
  const sockets: WebSocket[] = [];

  beforeEach(async function () {
    s = await serve({ config: makeConfig(), seed: 4242, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: FILES });
    url = `ws://127.0.0.1:${s.http!.port}/ws`;
  });

  afterEach(async function () {
    for (const p of players) p.socket.terminate();
    for (const k of sockets) k.terminate();
    players.length = 0;
    sockets.length = 0;
    await s.close();
  });

  async function player(): Promise<WsPlayer> {
    const p = wsPlayer(url);
    players.push(p);
    await waitFor(() => connected(p.client), 5000, "a WebSocket player to join");
    return p;
  }

  async function socket(): Promise<WebSocket> {
    const k = await openSocket(url);
    sockets.push(k);
    return k;
  }

  it("serves the page at / and refuses upgrades on other paths", async function () {
    const res = await fetch(`http://127.0.0.1:${s.http!.port}/`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /lwar/);
    assert.equal((await fetch(`http://127.0.0.1:${s.http!.port}/nothing`)).status, 404);
    await assert.rejects(openSocket(`ws://127.0.0.1:${s.http!.port}/other`), /404/);
    assert.equal(s.web!.counters[WebCounter.UpgradesRefused], 1);
  });

  it("a WebSocket player is a peer like any other: ws: address, a port above 65535, Join in the log", async function () {
    const p = await player();
    const slot = p.client.selfSlot;
    assert.equal(s.server.address[slot], "ws:127.0.0.1");
    assert.ok(s.server.port[slot] > WS_PORT_BASE);
    assert.equal(s.server.counters[Counter.Joins], 1);
    assert.equal(s.web!.open, 1);
    await waitFor(() => p.client.updatesReceived >= 5, 3000, "Updates");
  });

  it("a malformed binary message is dropped and counted like a bad datagram, and strikes nobody", async function () {
    const p = await player();
    const slot = p.client.selfSlot;
    const before = s.server.counters[Counter.PacketsIn];
    p.socket.send(TRUNCATED);
    await waitFor(() => s.server.counters[Counter.Truncated] === 1, 2000, "the truncated packet to be counted");
    assert.ok(s.server.counters[Counter.PacketsIn] > before);
    // Only a packet that passes validation can count against a player (docs/protocol.md, "Strikes").
    assert.equal(s.server.misbehaviour[slot], 0);
    assert.equal(p.socket.readyState, WebSocket.OPEN);
    assert.ok(connected(p.client));
  });

  it("a text message is dropped and counted", async function () {
    const k = await socket();
    k.send("hello");
    k.send(new TextDecoder("latin1").decode(CONNECT)); // a valid packet's bytes, but as text
    await waitFor(() => s.web!.counters[WebCounter.TextDropped] === 2, 2000, "two text messages to be counted");
    assert.equal(s.server.counters[Counter.PacketsIn], 0);
    assert.equal(s.server.playerCount(), 0);
    assert.equal(k.readyState, WebSocket.OPEN);
  });

  it("a fragmented message is dropped and counted; the next whole one is read", async function () {
    const k = await socket();
    k.send(CONNECT.subarray(0, 10), { binary: true, fin: false });
    k.send(CONNECT.subarray(10), { binary: true, fin: true });
    await waitFor(() => s.web!.counters[WebCounter.FragmentedDropped] === 1, 2000, "the fragmented message to be counted");
    assert.equal(s.server.counters[Counter.PacketsIn], 0);
    assert.equal(s.server.playerCount(), 0);
    // A ping between two fragments: still one fragmented message, and the tracker stays in step.
    k.send(CONNECT.subarray(0, 4), { binary: true, fin: false });
    k.ping();
    k.send(CONNECT.subarray(4), { binary: true, fin: true });
    await waitFor(() => s.web!.counters[WebCounter.FragmentedDropped] === 2, 2000, "the second fragmented message");
    k.send(CONNECT);
    await waitFor(() => s.server.playerCount() === 1, 2000, "the whole Connect to admit the peer");
    assert.equal(s.server.counters[Counter.PacketsIn], 1);
  });

  it("a message over 512 bytes is dropped and counted (tooLong); the connection stays", async function () {
    const k = await socket();
    const big = new Uint8Array(513);
    big.set(CONNECT);
    k.send(big);
    await waitFor(() => s.server.counters[Counter.TooLong] === 1, 2000, "tooLong");
    assert.equal(s.server.counters[Counter.PacketsIn], 1);
    assert.equal(s.server.playerCount(), 0);
    k.send(CONNECT);
    await waitFor(() => s.server.playerCount() === 1, 2000, "the Connect after it to be read");
  });

  it("a message over 64 KiB closes the connection (1009) and counts a protocol error", async function () {
    const k = await socket();
    const closed = closeOf(k);
    k.send(new Uint8Array(65537));
    assert.equal(await closed, 1009);
    await waitFor(() => s.web!.counters[WebCounter.ProtocolErrors] === 1, 2000, "the protocol error");
    assert.equal(s.server.counters[Counter.PacketsIn], 0);
  });

  it("a connection closed mid-match is a Disconnect: the others get Leave and lose its ship", async function () {
    const a = await player();
    const b = await player();
    const aId = a.client.selfId;
    // Wait until b knows a's ship.
    const shipOf = (p: WsPlayer, owner: number): number => {
      for (const i of p.world.live) if (kindOf(p.client.type[i]) === Kind.Ship && p.client.owner[i] === owner) return i;
      return -1;
    };
    await waitFor(() => shipOf(b, aId) >= 0, 3000, "b to see a's ship");
    a.socket.close();
    await waitFor(() => s.server.playerCount() === 1, 2000, "the server to free a's slot");
    assert.equal(s.server.counters[Counter.Leaves], 1);
    assert.equal(s.server.counters[Counter.Timeouts], 0);
    await waitFor(() => b.client.present[a.client.selfSlot] === 0 && shipOf(b, aId) < 0, 2000, "b to get Leave and Remove");
    assert.ok(b.world.lines.some((l) => l.slot < 0 && / left$/.test(l.text)), "b's page shows the leave");
  });

  it("Disconnect from a WebSocket player closes its socket after the final ack", async function () {
    const p = await player();
    p.client.disconnect();
    const { code } = await p.closed;
    assert.equal(code, CloseCode.Left);
    assert.equal(p.client.state, ClientState.Closed);
    assert.equal(s.server.counters[Counter.Leaves], 1);
  });

  it("100 connections at once: the free slots become players, the rest get Reject(1) and are closed", async function () {
    this.timeout(30000);
    const u = await udpPlayer(s.udp.port);
    try {
      await waitFor(() => connected(u.client), 3000, "the UDP player");
      const crowd: WsPlayer[] = [];
      for (let i = 0; i < 100; i++) crowd.push(wsPlayer(url, 20));
      players.push(...crowd);
      await waitFor(
        () => crowd.every((p) => connected(p.client) || p.client.state === ClientState.Rejected),
        15000,
        "every connection to be admitted or rejected",
      );
      const admitted = crowd.filter((p) => connected(p.client));
      const rejected = crowd.filter((p) => p.client.state === ClientState.Rejected);
      assert.equal(admitted.length, MAX_PLAYERS - 1);
      assert.equal(rejected.length, 100 - (MAX_PLAYERS - 1));
      for (const p of rejected) assert.equal(p.client.rejectReason, 1);
      const codes = await Promise.all(rejected.map((p) => p.closed));
      for (const c of codes) assert.deepEqual(c, { code: CloseCode.Rejected + 1, reason: "server full" });
      assert.equal(s.server.playerCount(), MAX_PLAYERS);
      assert.equal(s.server.counters[Counter.Rejects], rejected.length);
      assert.equal(s.web!.counters[WebCounter.RejectCloses], rejected.length);
      await waitFor(() => s.web!.open === admitted.length, 3000, "the rejected sockets to be gone");
      for (const p of admitted) assert.equal(p.socket.readyState, WebSocket.OPEN);
    } finally {
      await u.host.close();
    }
  });

  it("a UDP and a WebSocket player see each other's chat and ships", async function () {
    const w = await player();
    const u = await udpPlayer(s.udp.port);
    const udpChat: string[] = [];
    u.client.listener = {
      reliable: (_c, type, _seq, b, o) => {
        if (type === Msg.Chat) udpChat.push(bytesToAscii(b, o + 4, b.indexOf(0, o + 4) - o - 4));
      },
      unreliable: () => {},
    };
    try {
      await waitFor(() => connected(u.client), 3000, "the UDP player");
      assert.ok(w.client.chat("hello from the browser side"));
      assert.ok(u.client.chat("hello from udp"));
      await waitFor(() => w.world.lines.some((l) => l.text === "hello from udp" && l.slot === u.client.selfSlot), 3000, "the WebSocket player to get the UDP chat");
      await waitFor(() => udpChat.includes("hello from the browser side"), 3000, "the UDP player to get the WebSocket chat");
      // Ships: each has an Update for the other's ship, placed away from the sun.
      const seesShip = (c: typeof w.client, owner: number): boolean => {
        for (let i = 0; i < c.entityCapacity; i++)
          if (c.alive[i] && kindOf(c.type[i]) === Kind.Ship && c.owner[i] === owner && Math.hypot(c.x[i], c.y[i]) > 500) return true;
        return false;
      };
      await waitFor(() => seesShip(w.client, u.client.selfId) && seesShip(u.client, w.client.selfId), 4000, "each to see the other's ship");
      const i = w.client.entityId.findIndex((_id, k) => w.client.alive[k] === 1 && w.client.owner[k] === u.client.selfId && kindOf(w.client.type[k]) === Kind.Ship);
      assert.ok(w.world.placed[i] === 1, "the page has placed the UDP player's ship");
    } finally {
      u.client.disconnect();
      await sleep(50);
      await u.host.close();
    }
  });

  it("closing the server kicks WebSocket players with Leave, then closes with 4103", async function () {
    const p = await player();
    await s.close();
    const { code, reason } = await p.closed;
    assert.equal(p.client.state, ClientState.Kicked);
    assert.equal(code, CloseCode.Kicked + 3);
    assert.equal(reason, "kicked: shutdown");
    assert.equal(p.world.phase(), "kicked");
  });
});
