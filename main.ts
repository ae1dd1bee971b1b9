/**
 * The lwar-xs server on Moddable XS (ESP32, or the Linux simulator).
 *
 * Settings come from manifest.json "config", overridden by `name=value` arguments of
 * mcconfig (those arrive as strings):
 *   port, maxPlayers, timeoutMs, seed (world seed; default random), statusSeconds
 *   (0 = no status lines);
 *   The settings of modules/board-settings.ts (the Wi-Fi network, the access point, the
 *   board's name, players, bots, timeout, seed) are taken from the board's flash first when
 *   stored there from /settings (hosts/moddable/setup.ts): the build's values are defaults;
 *   resetButton: the GPIO of a button that, held for 5 s as the board starts, forgets every
 *   stored setting (-1 = none); bootFault: panic before the image is kept (the emulator's
 *   update test only: an image that does not come up);
 *   httpPort (the game page and its WebSocket; 0 = none), webConnections (WebSocket
 *   connections at most), hostName (the mDNS name; empty = none);
 *   ssid, password: join a Wi-Fi network as a station (done by the SDK before main runs);
 *   ap, apSsid, apPassword, apChannel, apMax: start an access point instead (or as well),
 *   with a DNS server that sends every name to the board (dns=0: none);
 *   botSkill: the server's bots, easy, normal (the default) or hard;
 *   heapProbeSeconds: every so often, a full collection and a `heap:` line with the live
 *   heaps (0 = never; a measuring aid, for builds with instrumentation such as -d);
 *   udpSlots: datagrams the receive ring holds between two ticks (more are dropped and
 *   counted); httpConnections: connection slots beyond the WebSockets' (page loads,
 *   /status); watchdogSeconds: the task watchdog on the XS task and lwIP's thread (0 =
 *   none); crashRoute: serve /crash?panic and /crash?wedge (the emulator's torture test
 *   only: never on a board people play on).
 *
 * Log lines (joins, kills and deaths, kicks...) and the status line come from
 * modules/report.ts, as on Node; the HTTP port also answers /status (JSON) and /metrics.
 */
import Debug from "debug";
import Instrumentation from "instrumentation";
import Timer from "timer";
import { BOT_SKILLS, defaultConfig, makeConfig, type Config } from "./modules/config";
import { createServer, type Server } from "./modules/server/server";
import { createGame } from "./modules/match";
import { DEFAULT_PORT } from "./modules/protocol/constants";
import { type BoardReport, Reporter } from "./modules/report";
import { WatchFeed } from "./modules/watch";
import { deathValue, LogEvent } from "./modules/server/events";
import { ModdableHost } from "./hosts/moddable/host";
import { BOARD_WEB_DROPS, BoardWeb, describePeer, TCP_STAT_NAMES, WEB_COUNTER_NAMES } from "./hosts/moddable/web";
import { UDP_STAT_NAMES, UdpStat } from "./hosts/moddable/host";
import { appSlot, bootCount, buttonDown, coredumpRead, coredumpSize, crash, feed as feedWatchdog, markValid, resetReason, restart, rolledBack, watchdog } from "./hosts/moddable/board";
import { internalFree, internalLowest, peakChunk, peakSlot } from "./hosts/moddable/heap";
import { startMdns } from "./hosts/moddable/mdns";
import { type Network, startNetwork } from "./hosts/moddable/network";
import { buildSetting, intSetting, textSetting } from "./hosts/moddable/settings";
import { BoardSetup, factoryReset, SETUP_COUNTER_NAMES } from "./hosts/moddable/setup";
import { commit, game as gameStep, mark, name, notify, pack, plan, ship, sync, transport } from "./hosts/moddable/kernels";

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

/** esp_reset_reason_t's values, named as /status and the banner give them. */
const RESET_REASONS: readonly string[] = Object.freeze([
  "unknown", "power-on", "external", "software", "panic", "interrupt-watchdog", "task-watchdog", "other-watchdog",
  "deep-sleep", "brownout", "sdio", "usb", "jtag", "efuse", "power-glitch", "cpu-lockup",
]);

/** `botSkill`: easy, normal or hard (or 0, 1, 2); the config's default when absent. */
function skillSetting(): number {
  const text = textSetting("botSkill", "");
  if (text === "") return defaultConfig.botSkill;
  const named = BOT_SKILLS.indexOf(text);
  if (named >= 0) return named;
  return intSetting("botSkill", defaultConfig.botSkill);
}

function resetName(reason: number): string {
  return reason < 0 ? "none (simulator)" : (RESET_REASONS[reason] ?? `reason ${reason}`);
}

/** The version the banner, /status and the page give: package.json's, set by the build (tools/board/kit.ts). */
const VERSION = textSetting("version", "dev");

interface Settings {
  port: number;
  httpPort: number;
  webConnections: number;
  httpConnections: number;
  udpSlots: number;
  watchdogSeconds: number;
  crashRoute: boolean;
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
      httpConnections: intSetting("httpConnections", 2),
      udpSlots: intSetting("udpSlots", 16),
      watchdogSeconds: intSetting("watchdogSeconds", 5),
      crashRoute: intSetting("crashRoute", 0) !== 0,
      hostName: textSetting("hostName", "lwar"),
      // Math.random is the hardware RNG on ESP32 but unseeded rand() on Linux: add the clock.
      seed: intSetting("seed", ((Math.random() * 0x100000000) ^ (Date.now() % 0x100000000)) >>> 0) >>> 0,
      statusSeconds: intSetting("statusSeconds", 10),
      lwar: makeConfig({
        maxPlayers: intSetting("maxPlayers", defaultConfig.maxPlayers),
        bots: intSetting("bots", defaultConfig.bots),
        timeoutMs: intSetting("timeoutMs", defaultConfig.timeoutMs),
        botSkill: skillSetting(),
        maxEntities: intSetting("maxEntities", defaultConfig.maxEntities),
        reliableQueueBytes: intSetting("reliableQueueBytes", defaultConfig.reliableQueueBytes),
      }),
    };
  } catch (e) {
    trace(`lwar-xs: bad config: ${(e as Error).message}\n`);
    return null;
  }
}

/** Milliseconds the reset button must be held as the board starts. */
const RESET_HOLD_MS = 5000;

export default function main(): void {
  const button = intSetting("resetButton", -1);
  if (button >= 0 && buttonDown(button) === 1) {
    // Held as the board starts: forget everything if it stays down for RESET_HOLD_MS.
    trace(`lwar-xs: the button on GPIO ${button} is down: hold it ${RESET_HOLD_MS / 1000} s for a factory reset\n`);
    let held = 0;
    Timer.repeat((id) => {
      held += 100;
      if (buttonDown(button) !== 1) {
        Timer.clear(id);
        trace("lwar-xs: button released: no reset\n");
        start();
      } else if (held >= RESET_HOLD_MS) {
        Timer.clear(id);
        trace(`lwar-xs: factory reset: ${factoryReset()} stored values forgotten; restarting\n`);
        restart();
      }
    }, 100);
    return;
  }
  start();
}

function start(): void {
  const settings = readSettings();
  if (settings === null) return;
  startNetwork((network) => serve(settings, network));
}

function serve(settings: Settings, network: Network): void {
  const { port, httpPort, webConnections, httpConnections, udpSlots, watchdogSeconds, crashRoute, hostName, seed, statusSeconds, lwar } = settings;
  const boots = bootCount();
  const reset = resetName(resetReason());
  const address = network.address;
  const pageUrl = (name: string): string => `http://${name}${httpPort === 80 ? "" : `:${httpPort}`}/`;

  let web: BoardWeb | null = null;
  let report: Reporter | null = null;
  let feed: WatchFeed | null = null;
  const host = new ModdableHost({
    port,
    udpSlots,
    log(event, slot, value) {
      if (web !== null) web.event(event, slot, value);
      if (feed !== null) feed.note(event, slot, value);
      if (report === null) return;
      report.count(event, value);
      const line = report.event(event, slot, value);
      if (line !== null) trace(line.text, "\n");
    },
  });
  // The server's and the game's inner loops in C (modules/native.ts).
  const native = { kernels: { plan, commit, notify, pack, ship, game: gameStep, sync, mark, transport, name } };
  const server: Server = createServer(lwar, host, native);
  const game = createGame(lwar, server, seed, native);
  game.onDeath = (slot, killer, cause) => host.log(LogEvent.Death, slot, deathValue(killer, cause));
  if (httpPort > 0) {
    try {
      web = new BoardWeb({ port: httpPort, maxConnections: webConnections, httpConnections, idleMs: lwar.timeoutMs, portal: network.portal ? `${pageUrl(address)}welcome` : null });
      host.addPeers(web);
      web.attach(server);
      // The big screen (/watch): no slot; a frame of the whole match every 250 ms to at most 2 watchers.
      feed = new WatchFeed(server);
      web.watch(feed, () => host.now());
    } catch (e) {
      trace(`lwar-xs: no game page, http port ${httpPort}: ${(e as Error).message}\n`);
    }
  }
  const page = web;
  let setup: BoardSetup | null = null;
  if (page !== null) setup = new BoardSetup(page, { version: VERSION, now: () => host.now(), buildValue: buildSetting, networkNote: () => network.note });
  report = new Reporter({
    server, game, seed, host: "moddable", describePeer,
    tickCost: host.tickCost,
    now: () => host.now(),
    sendErrors: () => host.sendErrors,
    web: page === null ? null : { counters: page.counters, names: WEB_COUNTER_NAMES, drops: BOARD_WEB_DROPS, open: () => page.open },
    board: boardReport(host, page, setup, { version: VERSION, resetReason: reset, bootCount: boots, appSlot: appSlot(), rolledBack: rolledBack() }),
  });
  const r = report;
  if (page !== null) {
    page.route("/status", () => ({ type: "application/json", body: r.statusJson() + "\n" }));
    page.route("/metrics", () => ({ type: "text/plain; version=0.0.4; charset=utf-8", body: r.metrics() }));
    page.routeStream("/coredump", { type: "application/octet-stream", size: coredumpSize, read: coredumpRead });
    if (crashRoute) {
      page.route("/crash/panic", () => {
        trace("lwar-xs: /crash/panic asked: panicking\n");
        crash(1);
        return { type: "text/plain", body: "" };
      });
      page.route("/crash/wedge", () => {
        trace("lwar-xs: /crash/wedge asked: the XS task stops\n");
        crash(2);
        return { type: "text/plain", body: "" };
      });
    }
  }
  host.attach(server);

  if (intSetting("bootFault", 0) !== 0) {
    trace("lwar-xs: bootFault is set: panicking before this image is kept\n");
    crash(1);
  }
  // The server listens: this image is good. After an update, the bootloader keeps it from now on.
  const kept = markValid();
  const slot = appSlot();
  const abandoned = rolledBack();
  if (slot !== "")
    trace(`lwar-xs app slot ${slot}${kept === 1 ? ": the update came up and is kept" : ""}${abandoned !== "" ? `; the update in ${abandoned} did not come up: the board went back to this one` : ""}\n`);
  if (setup !== null) trace(`lwar-xs setup: ${setup.adminSet ? "admin password set" : "no admin password yet: the first visitor of /settings sets it"}; ${pageUrl(address)}settings\n`);

  const watched = watchdogSeconds > 0 && watchdog(watchdogSeconds);
  if (watched) Timer.repeat(() => feedWatchdog(), 1000);
  trace(`lwar-xs ${VERSION}: boot ${boots}, reset by ${reset}, watchdog ${watched ? `${watchdogSeconds} s` : "off"}, core dump ${coredumpSize()} bytes\n`);
  trace(`lwar-xs listening on udp ${address}:${port} (max ${lwar.maxPlayers} players, timeout ${lwar.timeoutMs} ms, seed ${seed})\n`);
  trace(`lwar-xs network: ${network.description}\n`);
  if (web !== null) trace(`lwar-xs serving the game on http port ${httpPort}, WebSocket at /ws, /status, /metrics and /coredump: ${pageUrl(address)}\n`);
  trace(`lwar-xs network path: ${udpSlots} datagram slots of 512 B, ${webConnections} WebSockets + ${httpConnections} HTTP connections\n`);
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

/** The board's own counters and facts for /status, /metrics and the status line: net.c's UDP ring and TCP slots. */
function boardReport(
  host: ModdableHost,
  web: BoardWeb | null,
  setup: BoardSetup | null,
  facts: { version: string; resetReason: string; bootCount: number; appSlot: string; rolledBack: string },
): BoardReport {
  const names: string[] = [];
  for (const n of UDP_STAT_NAMES) names.push(`udp.${n}`);
  for (const n of TCP_STAT_NAMES) names.push(`tcp.${n}`);
  const setupAt = names.length;
  for (const n of SETUP_COUNTER_NAMES) names.push(n);
  const counters = new Uint32Array(names.length);
  const udpCount = UDP_STAT_NAMES.length;
  const started = host.now();
  return {
    names,
    counters,
    drops: [UdpStat.RingFull, UdpStat.TooLong, udpCount + 1],
    refresh() {
      counters.set(host.udpCounters());
      if (web !== null) counters.set(web.tcp, udpCount);
      if (setup !== null) {
        setup.refresh();
        counters.set(setup.counters, setupAt);
      }
    },
    get facts() {
      return [
        ["version", facts.version],
        ["resetReason", facts.resetReason],
        ["bootCount", facts.bootCount],
        ["appSlot", facts.appSlot],
        ["rolledBackFrom", facts.rolledBack],
        ["adminPasswordSet", setup !== null && setup.adminSet],
        ["boardUptimeS", Math.round((host.now() - started) / 1000)],
      ] as const;
    },
  };
}
