/**
 * The hostile side of `npm run test:esp32`'s torture phase (and `npm run torture` against
 * any server): everything a LAN full of phones and a careless or hostile program does to the
 * board's network path, all at once, for a bounded time, on 127.0.0.1 only.
 *
 * - WebSocket churn: connect, upgrade, join (a Connect in a binary frame), read what the
 *   board sends for a while, then end one of four rude ways: a reset, a close frame and then
 *   a reset, a half close (FIN, then silence), or vanishing mid-handshake (half a request,
 *   then a reset);
 * - page fetches cut short: GET / and a reset after the first bytes of the answer;
 * - TCP connect-and-reset: a connection reset the moment it opens;
 * - UDP bursts: every 100 ms, `udpPerSecond / 10` datagrams of junk and of Connect from a
 *   few source ports.
 *
 * Each stream runs its own loop with a random pause; nothing waits longer than its timeout.
 * The legitimate players (UDP bots, a browser) are the caller's.
 */
import dgram from "node:dgram";
import net from "node:net";
import { Msg } from "../../modules/protocol/constants";
import { Random } from "../../modules/random";
import { HEADER_ACK, HEADER_APP_ID, HEADER_REL, HEADER_SIZE, HEADER_TIMESTAMP, HEADER_UNREL } from "../../modules/transport/frame";

export interface TortureOptions {
  host: string;
  udpPort: number;
  httpPort: number;
  durationS: number;
  /** Junk and Connect datagrams a second, in bursts every 100 ms. */
  udpPerSecond: number;
  /** Concurrent WebSocket churners. */
  webSockets: number;
  seed: number;
  say: (line: string) => void;
}

export interface TortureCounts {
  wsOpened: number;
  wsUpgraded: number;
  wsRefused: number;
  wsPacketsIn: number;
  wsEnds: Record<string, number>;
  pagesCut: number;
  tcpResets: number;
  connectFailures: number;
  datagrams: number;
}

const APP_ID = 0xf27087c5;
const HEADER = HEADER_SIZE;

/** A Connect as a new client sends it: header (rel 1, unrel 0), then reliable seq 0, type Connect. */
function connectPacket(timestamp: number): Buffer {
  const b = Buffer.alloc(HEADER + 5);
  b.writeUInt32BE(APP_ID, HEADER_APP_ID);
  b.writeUInt32BE(0, HEADER_ACK);
  b.writeUInt32BE(timestamp >>> 0, HEADER_TIMESTAMP);
  b[HEADER_REL] = 1;
  b[HEADER_UNREL] = 0;
  b.writeUInt32BE(0, HEADER);
  b[HEADER + 4] = Msg.Connect;
  return b;
}

/** A masked client-to-server frame (RFC 6455 section 5.2) with FIN set. */
function clientFrame(opcode: number, payload: Buffer, random: Random): Buffer {
  const n = payload.length;
  const head = n < 126 ? 2 : 4;
  const b = Buffer.alloc(head + 4 + n);
  b[0] = 0x80 | opcode;
  if (n < 126) b[1] = 0x80 | n;
  else {
    b[1] = 0x80 | 126;
    b.writeUInt16BE(n, 2);
  }
  for (let i = 0; i < 4; i++) b[head + i] = random.below(256);
  for (let i = 0; i < n; i++) b[head + 4 + i] = payload[i] ^ b[head + (i & 3)];
  return b;
}

function upgradeRequest(host: string, port: number, random: Random): string {
  const key = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) key[i] = random.below(256);
  return (
    `GET /ws HTTP/1.1\r\nHost: ${host}:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
    `Sec-WebSocket-Key: ${key.toString("base64")}\r\nSec-WebSocket-Version: 13\r\n\r\n`
  );
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Open a TCP connection; null when it fails or takes over 5 s. */
function connect(host: string, port: number): Promise<net.Socket | null> {
  return new Promise((resolve) => {
    const s = net.connect({ host, port });
    const timer = setTimeout(() => {
      s.destroy();
      resolve(null);
    }, 5000);
    s.once("connect", () => {
      clearTimeout(timer);
      resolve(s);
    });
    s.once("error", () => {
      clearTimeout(timer);
      s.destroy();
      resolve(null);
    });
  });
}

/** Wait for `pattern` in what the socket sends, at most `ms`; what came. */
function readUntil(s: net.Socket, test: (got: Buffer) => boolean, ms: number): Promise<Buffer> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const done = () => {
      clearTimeout(timer);
      s.off("data", onData);
      s.off("close", done);
      resolve(got);
    };
    const onData = (d: Buffer) => {
      got = Buffer.concat([got, d]);
      if (test(got)) done();
    };
    const timer = setTimeout(done, ms);
    s.on("data", onData);
    s.once("close", done);
    s.once("error", () => {});
  });
}

export async function torture(o: TortureOptions): Promise<TortureCounts> {
  const random = new Random(o.seed);
  const counts: TortureCounts = { wsOpened: 0, wsUpgraded: 0, wsRefused: 0, wsPacketsIn: 0, wsEnds: {}, pagesCut: 0, tcpResets: 0, connectFailures: 0, datagrams: 0 };
  const end = Date.now() + o.durationS * 1000;
  const going = () => Date.now() < end;
  const ended = (how: string) => (counts.wsEnds[how] = (counts.wsEnds[how] ?? 0) + 1);

  async function webSocketChurn(k: number): Promise<void> {
    const r = new Random(o.seed * 31 + k);
    while (going()) {
      const s = await connect(o.host, o.httpPort);
      if (s === null) {
        counts.connectFailures++;
        await sleep(200);
        continue;
      }
      counts.wsOpened++;
      const how = r.below(4);
      const request = upgradeRequest(o.host, o.httpPort, r);
      if (how === 3) {
        // Vanish mid-handshake.
        s.write(request.slice(0, 20 + r.below(request.length - 30)));
        await sleep(r.below(300));
        s.resetAndDestroy();
        ended("mid-handshake");
        continue;
      }
      s.write(request);
      const answer = await readUntil(s, (g) => g.includes("\r\n\r\n"), 5000);
      if (!answer.toString("latin1").startsWith("HTTP/1.1 101")) {
        counts.wsRefused++;
        s.resetAndDestroy();
        await sleep(100 + r.below(400));
        continue;
      }
      counts.wsUpgraded++;
      s.on("data", (d: Buffer) => (counts.wsPacketsIn += d.length > 0 ? 1 : 0));
      s.on("error", () => {});
      s.write(clientFrame(2, connectPacket(Date.now()), r));
      await sleep(300 + r.below(2500));
      if (how === 0) {
        s.resetAndDestroy();
        ended("reset");
      } else if (how === 1) {
        s.write(clientFrame(8, Buffer.from([0x03, 0xe8]), r));
        await sleep(r.below(50));
        s.resetAndDestroy();
        ended("close+reset");
      } else {
        s.end();
        await sleep(1000 + r.below(2000));
        s.destroy();
        ended("half-close");
      }
      await sleep(r.below(200));
    }
  }

  async function cutPages(): Promise<void> {
    while (going()) {
      const s = await connect(o.host, o.httpPort);
      if (s === null) {
        counts.connectFailures++;
        await sleep(200);
        continue;
      }
      s.on("error", () => {});
      s.write(`GET /${random.below(2) === 0 ? "" : "app.js"} HTTP/1.1\r\nHost: ${o.host}\r\nAccept-Encoding: gzip\r\n\r\n`);
      await readUntil(s, (g) => g.length > 0, 3000);
      s.resetAndDestroy();
      counts.pagesCut++;
      await sleep(150 + random.below(300));
    }
  }

  async function connectAndReset(): Promise<void> {
    while (going()) {
      const s = await connect(o.host, o.httpPort);
      if (s === null) counts.connectFailures++;
      else {
        s.on("error", () => {});
        s.resetAndDestroy();
        counts.tcpResets++;
      }
      await sleep(50 + random.below(150));
    }
  }

  async function udpBursts(): Promise<void> {
    const sockets: dgram.Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const s = dgram.createSocket("udp4");
      s.on("error", () => {});
      await new Promise<void>((r) => s.bind(0, "127.0.0.1", () => r()));
      sockets.push(s);
    }
    const perBurst = Math.max(1, Math.round(o.udpPerSecond / 10));
    const junk = Buffer.alloc(600);
    while (going()) {
      for (let i = 0; i < perBurst; i++) {
        const s = sockets[random.below(sockets.length)];
        let b: Buffer;
        if (random.below(5) === 0) b = connectPacket(Date.now());
        else {
          const n = 1 + random.below(junk.length);
          for (let k = 0; k < n; k++) junk[k] = random.below(256);
          b = junk.subarray(0, n);
        }
        s.send(b, o.udpPort, o.host);
        counts.datagrams++;
      }
      await sleep(100);
    }
    for (const s of sockets) s.close();
  }

  const progress = setInterval(() => {
    o.say(
      `  torture: ws ${counts.wsUpgraded} upgraded of ${counts.wsOpened} (${counts.wsRefused} refused), ` +
        `${counts.pagesCut} pages cut, ${counts.tcpResets} connect+reset, ${counts.datagrams} junk/Connect datagrams, ${counts.connectFailures} connects failed`,
    );
  }, 15000);
  const loops: Promise<void>[] = [cutPages(), connectAndReset(), udpBursts()];
  for (let k = 0; k < o.webSockets; k++) loops.push(webSocketChurn(k));
  await Promise.all(loops);
  clearInterval(progress);
  return counts;
}
