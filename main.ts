/**
 * The lwar-xs server on Moddable XS (ESP32, or the Linux simulator).
 *
 * Settings come from manifest.json "config", overridden by `name=value` arguments of
 * mcconfig (those arrive as strings):
 *   port, maxPlayers, timeoutMs, seed (world seed; default random), statusSeconds
 *   (0 = no status lines);
 *   httpPort (the game page and its WebSocket; 0 = none), webConnections (WebSocket
 *   connections at most), hostName (the mDNS name; empty = none);
 *   ssid, password: join a Wi-Fi network as a station (done by the SDK before main runs);
 *   ap, apSsid, apPassword, apChannel, apMax: start an access point instead (or as well),
 *   with a DNS server that sends every name to the board (dns=0: none);
 *   heapProbeSeconds: every so often, a full collection and a `heap:` line with the live
 *   heaps (0 = never; a measuring aid, for builds with instrumentation such as -d).
 *
 * Log lines (joins, kills and deaths, kicks...) and the status line come from
 * modules/report.ts, as on Node; the HTTP port also answers /status (JSON) and /metrics.
 */
import Debug from "debug";
import Instrumentation from "instrumentation";
import Timer from "timer";
import { defaultConfig, makeConfig, type Config } from "./modules/config";
import { createServer, type Server } from "./modules/server/server";
import { createGame } from "./modules/match";
import { DEFAULT_PORT } from "./modules/protocol/constants";
import { Reporter } from "./modules/report";
import { deathValue, LogEvent } from "./modules/server/events";
import { ModdableHost } from "./hosts/moddable/host";
import { BoardWeb, describePeer, WEB_COUNTER_NAMES, WEB_DROPS } from "./hosts/moddable/web";
import { internalFree, internalLowest, peakChunk, peakSlot } from "./hosts/moddable/heap";
import { startMdns } from "./hosts/moddable/mdns";
import { type Network, startNetwork } from "./hosts/moddable/network";
import { intSetting, textSetting } from "./hosts/moddable/settings";
import { commit, notify, pack, plan, ship, shots, sync } from "./hosts/moddable/kernels";

/** Every `seconds`, a full collection, then the live heaps in bytes (and the system's free memory where the platform reports it). */
function startHeapProbe(seconds: number): void {
  const chunk = Instrumentation.map("XS Chunk Heap Used");
  const slot = Instrumentation.map("XS Slot Heap Used");
  const free = Instrumentation.map("System Free Memory");
  Timer.repeat(() => {
    Debug.gc();
    const c = Instrumentation.get(chunk);
    const s = Instrumentation.get(slot);
    const f = Instrumentation.get(free);
    if (c === undefined || s === undefined) trace("heap: no instrumentation in this build\n");
    else {
      const internal = internalFree();
      trace(
        `heap: live chunk ${c} slot ${s}${f ? ` system free ${f}` : ""} peak chunk ${peakChunk()} slot ${peakSlot()}`,
        internal >= 0 ? ` internal free ${internal} lowest ${internalLowest()}` : "",
        "\n",
      );
    }
  }, seconds * 1000);
}

interface Settings {
  port: number;
  httpPort: number;
  webConnections: number;
  hostName: string;
  seed: number;
  statusSeconds: number;
  lwar: Config;
}

function readSettings(): Settings | null {
  try {
    return {
      port: intSetting("port", DEFAULT_PORT),
      httpPort: intSetting("httpPort", 80),
      webConnections: intSetting("webConnections", 8),
      hostName: textSetting("hostName", "lwar"),
      // Math.random is the hardware RNG on ESP32 but unseeded rand() on Linux: add the clock.
      seed: intSetting("seed", ((Math.random() * 0x100000000) ^ (Date.now() % 0x100000000)) >>> 0) >>> 0,
      statusSeconds: intSetting("statusSeconds", 10),
      lwar: makeConfig({
        maxPlayers: intSetting("maxPlayers", defaultConfig.maxPlayers),
        bots: intSetting("bots", defaultConfig.bots),
        timeoutMs: intSetting("timeoutMs", defaultConfig.timeoutMs),
        maxEntities: intSetting("maxEntities", defaultConfig.maxEntities),
        reliableQueueBytes: intSetting("reliableQueueBytes", defaultConfig.reliableQueueBytes),
      }),
    };
  } catch (e) {
    trace(`lwar-xs: bad config: ${(e as Error).message}\n`);
    return null;
  }
}

export default function main(): void {
  const settings = readSettings();
  if (settings === null) return;
  startNetwork((network) => serve(settings, network));
}

function serve(settings: Settings, network: Network): void {
  const { port, httpPort, webConnections, hostName, seed, statusSeconds, lwar } = settings;
  const address = network.address;
  const pageUrl = (name: string): string => `http://${name}${httpPort === 80 ? "" : `:${httpPort}`}/`;

  let web: BoardWeb | null = null;
  let report: Reporter | null = null;
  const host = new ModdableHost({
    port,
    log(event, slot, value) {
      if (web !== null) web.event(event, slot, value);
      if (report === null) return;
      report.count(event, value);
      const line = report.event(event, slot, value);
      if (line !== null) trace(line.text, "\n");
    },
  });
  // The server's and the game's inner loops in C (modules/native.ts).
  const native = { kernels: { plan, commit, notify, pack, ship, shots, sync } };
  const server: Server = createServer(lwar, host, native);
  const game = createGame(lwar, server, seed, native);
  game.onDeath = (slot, killer, cause) => host.log(LogEvent.Death, slot, deathValue(killer, cause));
  if (httpPort > 0) {
    try {
      web = new BoardWeb({ port: httpPort, maxConnections: webConnections, idleMs: lwar.timeoutMs, portal: network.portal ? pageUrl(address) : null });
      host.addPeers(web);
      web.attach(server);
    } catch (e) {
      trace(`lwar-xs: no game page, http port ${httpPort}: ${(e as Error).message}\n`);
    }
  }
  const page = web;
  report = new Reporter({
    server, game, seed, host: "moddable", describePeer,
    tickCost: host.tickCost,
    now: () => host.now(),
    sendErrors: () => host.sendErrors,
    web: page === null ? null : { counters: page.counters, names: WEB_COUNTER_NAMES, drops: WEB_DROPS, open: () => page.open },
  });
  const r = report;
  if (page !== null) {
    page.route("/status", () => ({ type: "application/json", body: r.statusJson() + "\n" }));
    page.route("/metrics", () => ({ type: "text/plain; version=0.0.4; charset=utf-8", body: r.metrics() }));
  }
  host.attach(server);

  trace(`lwar-xs listening on udp ${address}:${port} (max ${lwar.maxPlayers} players, timeout ${lwar.timeoutMs} ms, seed ${seed})\n`);
  trace(`lwar-xs network: ${network.description}\n`);
  if (web !== null) trace(`lwar-xs serving the game on http port ${httpPort}, WebSocket at /ws, /status and /metrics: ${pageUrl(address)}\n`);
  trace(`lwar-xs tick cost measured with ${host.tickCost.clock}\n`);
  if (hostName !== "" && network.named) {
    try {
      startMdns(hostName, httpPort, (name) => trace(`lwar-xs mDNS: ${web !== null ? pageUrl(`${name}.local`) : `${name}.local`}\n`));
    } catch (e) {
      trace(`lwar-xs mDNS: not started: ${(e as Error).message}\n`);
    }
  }
  let poolBytes = 0;
  for (const row of server.pools()) poolBytes += row[1];
  trace(`lwar-xs pools: ${poolBytes} bytes of typed arrays, allocated once\n`);

  const probe = intSetting("heapProbeSeconds", 0);
  if (probe > 0) startHeapProbe(probe);
  if (statusSeconds > 0)
    Timer.repeat(() => trace(r.status().text, network.status(), "\n"), statusSeconds * 1000);
}
