/**
 * `npm start`: the lwar-xs dedicated server on Node, with the browser game on an HTTP port.
 */
import { RECEIVE_BUFFER_BYTES } from "./host";
import { parseArgs } from "node:util";
import { defaultConfig, makeConfig, ConfigError } from "../../modules/config";
import type { Server } from "../../modules/server/server";
import { DEFAULT_PORT, NAME_LENGTH } from "../../modules/protocol/constants";
import { C, COUNTER_NAMES, DROP_FIRST } from "../../modules/protocol/counters";
import { LogEvent, describeKick } from "../../modules/server/events";
import { bytesToAscii } from "../../modules/text";
import { describePeer, ListenError, pageUrls, serve, type Served } from "./serve";
import { W, WEB_COUNTER_NAMES } from "./web";

const HTTP_PORT = 8080;

const HELP = `lwar-xs server: hosts an lwar Rev 1 match over UDP, and serves the browser
game, whose players join over a WebSocket, on an HTTP port.

Usage: npm start -- [options]

Options:
  --port N          UDP port to listen on (default ${DEFAULT_PORT})
  --http-port N     HTTP port for the game page (/) and its WebSocket (/ws),
                    0 = none (default ${HTTP_PORT})
  --host ADDR       address to bind, UDP and HTTP (default ::, IPv6 and IPv4; 0.0.0.0 or
                    127.0.0.1 for IPv4 alone, ::1 for IPv6 loopback)
  --timeout-ms N    drop a client silent this long (default 15000)
  --max-players N   player slots, 1..8 (default 8)
  --max-entities N  entity pool: sun, planets, ships, projectiles (default 192)
  --queue-bytes N   unacknowledged reliable bytes per player before a queue-overflow
                    kick (default 2048)
  --status-s N      seconds between status lines, 0 = none (default 10)
  --seed N          world seed (default: from the clock)
  --help            show this help
`;

/** Web transport counters that mean something was dropped or refused. */
const WEB_DROPS: readonly number[] = [W.TextDropped, W.FragmentedDropped, W.ProtocolErrors, W.SendDropped, W.UpgradesRefused];

function fail(message: string): never {
  process.stderr.write(`lwar-xs: ${message}\nTry 'npm start -- --help'.\n`);
  process.exit(2);
}

function intOption(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  if (!/^\d+$/.test(text)) fail(`--${name} wants a whole number, got '${text}'`);
  const n = Number(text);
  if (n < min || n > max) fail(`--${name} must be in ${min}..${max}, got ${n}`);
  return n;
}

function stamp(): string {
  return new Date().toISOString().slice(11, 19);
}

function playerName(server: Server, slot: number): string {
  return bytesToAscii(server.names, slot * NAME_LENGTH, server.nameLength[slot]);
}

async function main(): Promise<void> {
  let args;
  try {
    args = parseArgs({
      options: {
        port: { type: "string" },
        "http-port": { type: "string" },
        host: { type: "string" },
        "timeout-ms": { type: "string" },
        "max-players": { type: "string" },
        "max-entities": { type: "string" },
        "queue-bytes": { type: "string" },
        "status-s": { type: "string" },
        seed: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail((err as Error).message);
  }
  if (args.help) {
    process.stdout.write(HELP);
    return;
  }
  const port = intOption("port", args.port, DEFAULT_PORT, 0, 65535);
  const httpPort = intOption("http-port", args["http-port"], HTTP_PORT, 0, 65535);
  const address = args.host ?? "::";
  const statusS = intOption("status-s", args["status-s"], 10, 0, 3600);
  const seed = intOption("seed", args.seed, Date.now() % 0xffffffff, 0, 0xffffffff);
  let config;
  try {
    config = makeConfig({
      timeoutMs: intOption("timeout-ms", args["timeout-ms"], 15000, 100, 3600000),
      maxPlayers: intOption("max-players", args["max-players"], 8, 1, 8),
      maxEntities: intOption("max-entities", args["max-entities"], defaultConfig.maxEntities, 1, 65535),
      reliableQueueBytes: intOption("queue-bytes", args["queue-bytes"], defaultConfig.reliableQueueBytes, 512, 65535),
    });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    throw err;
  }

  let server: Server | null = null;
  const log = (event: number, slot: number, value: number): void => {
    if (server === null) return;
    const who = slot >= 0 ? `slot ${slot} '${playerName(server, slot)}'` : "";
    const peer = slot >= 0 ? ` ${describePeer(server.address[slot], server.port[slot])}` : "";
    switch (event) {
      case LogEvent.Join:
        console.log(`${stamp()} join    ${who}${peer} id 0x${value.toString(16)}`);
        break;
      case LogEvent.Leave:
        console.log(`${stamp()} leave   ${who}${peer}`);
        break;
      case LogEvent.Timeout:
        console.log(`${stamp()} timeout ${who}${peer}`);
        break;
      case LogEvent.Kick:
        console.log(`${stamp()} kick    ${who}${peer}: ${describeKick(value)}`);
        break;
      case LogEvent.Reject:
        console.log(`${stamp()} reject  a client: server full`);
        break;
      case LogEvent.Rename:
        console.log(`${stamp()} name    slot ${slot} is now '${playerName(server, slot)}'`);
        break;
      case LogEvent.Chat:
        console.log(`${stamp()} chat    '${playerName(server, slot)}': ${bytesToAscii(server.lastChat, 0, server.lastChatLength)}`);
        break;
    }
  };

  let served: Served;
  try {
    // The game checks that the pool holds the sun, the planets, a ship per player and a shot.
    served = await serve({ config, seed, address, udpPort: port, httpPort: httpPort === 0 ? null : httpPort, log });
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message);
    if (err instanceof ListenError) fail(err.what === "http" ? `${err.message} (--http-port 0 serves no page)` : err.message);
    throw err;
  }
  server = served.server;
  const { host, web, udp, http } = served;
  const where = udp.address.includes(":") ? `[${udp.address}]:${udp.port}` : `${udp.address}:${udp.port}`;
  const family = udp.address === "::" ? "IPv6 and IPv4" : udp.address.includes(":") ? "IPv6" : "IPv4";
  console.log(`lwar-xs listening on udp ${where}, ${family} (max ${config.maxPlayers} players, timeout ${config.timeoutMs} ms, seed ${seed})`);
  // The kernel may grant less than asked (Linux caps it at net.core.rmem_max).
  if (udp.receiveBuffer < RECEIVE_BUFFER_BYTES / 2)
    console.log(`lwar-xs: the kernel granted a ${udp.receiveBuffer}-byte receive buffer of the ${RECEIVE_BUFFER_BYTES} asked; a burst from 8 players may be dropped (raise net.core.rmem_max)`);
  if (http !== null) {
    const at = http.address.includes(":") ? `[${http.address}]:${http.port}` : `${http.address}:${http.port}`;
    console.log(`lwar-xs serving the game on http ${at}, WebSocket at /ws; play in a browser at:`);
    for (const url of pageUrls(http.address, http.port)) console.log(`  ${url}`);
  }

  const last = new Uint32Array(server.counters.length);
  let lastAt = host.now();
  const status = (): void => {
    const s = server!;
    const c = s.counters;
    const dt = (host.now() - lastAt) / 1000;
    const rate = (i: number): string => ((c[i] - last[i]) / dt).toFixed(0);
    const drops: string[] = [];
    for (let i: number = DROP_FIRST; i <= C.BadChat; i++) if (c[i] !== 0) drops.push(`${COUNTER_NAMES[i]}=${c[i]}`);
    if (web !== null)
      for (const i of WEB_DROPS) if (web.counters[i] !== 0) drops.push(`ws.${WEB_COUNTER_NAMES[i]}=${web.counters[i]}`);
    console.log(
      `${stamp()} status  players ${s.playerCount()}/${config.maxPlayers}  in ${rate(C.PacketsIn)} pkt/s ${rate(C.BytesIn)} B/s` +
        `  out ${rate(C.PacketsOut)} pkt/s ${rate(C.BytesOut)} B/s  entities ${s.entities.count}` +
        (web !== null ? `  ws ${web.open} open` : "") + `  drops ${drops.length ? drops.join(" ") : "none"}`,
    );
    last.set(c);
    lastAt = host.now();
  };
  const statusTimer = statusS > 0 ? setInterval(status, statusS * 1000) : null;

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    if (statusTimer) clearInterval(statusTimer);
    const players = server!.playerCount();
    server!.shutdown();
    const c = server!.counters;
    void host.close().then(() => {
      console.log(
        `${stamp()} ${signal}: shut down, ${players} player(s) sent Leave; totals: joins ${c[C.Joins]}, leaves ${c[C.Leaves]}, ` +
          `timeouts ${c[C.Timeouts]}, kicks ${c[C.Kicks]}, rejects ${c[C.Rejects]}, packets in ${c[C.PacketsIn]} out ${c[C.PacketsOut]}` +
          (web !== null ? `, ws connections ${web.counters[W.Connections]}, page requests ${web.counters[W.HttpRequests]}` : ""),
      );
      process.exit(0);
    });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

void main();
