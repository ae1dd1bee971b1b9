/**
 * A whole Node server: the match on a NodeHost's UDP socket and, when asked, the page and
 * the WebSocket carriage on an HTTP port, with `/status` (JSON) and `/metrics`
 * (Prometheus) beside them. `npm start` and the tests build it here; the page is read
 * from dist/web/ (web/page.ts), built ahead of time by `npm run build:web`.
 */
import { nodeNative } from "./kernels";
import { networkInterfaces } from "node:os";
import { describePeer, WEB_COUNTER_NAMES, WEB_DROPS } from "../../modules/carriage";
import type { Config } from "../../modules/config";
import type { Game } from "../../modules/game/game";
import { createMatch } from "../../modules/match";
import { Reporter } from "../../modules/report";
import { deathValue, LogEvent } from "../../modules/server/events";
import type { Server } from "../../modules/server/server";
import { WatchFeed } from "../../modules/watch";
import { readPage, type PageFile } from "../../web/page";
import { NodeHost, type LogSink } from "./host";
import type { MatchTap } from "./recorder";
import { WebTransport, type WebTransportOptions } from "./web";

/**
 * The built page (`npm run build:web`): dist/web/, beside the server's bundle
 * (dist/lwar-xs.js) or two folders up from this file when it runs from the sources.
 */
export const PAGE_DIR = new URL(import.meta.url.endsWith(".ts") ? "../../dist/web/" : "./web/", import.meta.url);

export interface ServeOptions {
  config: Config;
  /** World seed; null runs the server without the game. */
  seed: number | null;
  /** Address to bind, for UDP and HTTP alike. */
  address: string;
  /** UDP port; 0 picks a free one. */
  udpPort: number;
  /** HTTP port for the page and /ws; 0 picks a free one; null: no HTTP. */
  httpPort: number | null;
  /**
   * Every log event, kills and deaths included, while the slot still holds its player;
   * `report.event(...)` makes its line.
   */
  log?: LogSink;
  /** The page's files; read from PAGE_DIR when not given. */
  files?: readonly PageFile[];
  web?: Omit<WebTransportOptions, "files">;
  /** Stands between the sockets and the match: the flight recorder (hosts/node/recorder.ts). */
  tap?: MatchTap;
}

export interface Served {
  server: Server;
  game: Game | null;
  host: NodeHost;
  web: WebTransport | null;
  /** Lines, /status and /metrics for this server. */
  report: Reporter;
  udp: { address: string; port: number; receiveBuffer: number };
  http: { address: string; port: number } | null;
  /** Send every player Leave, then close the sockets and the HTTP server. */
  close(): Promise<void>;
}

/** A socket could not be bound: `what` is "udp" or "http". */
export class ListenError extends Error {
  override name = "ListenError";
  constructor(readonly what: string, address: string, port: number, cause: Error) {
    super(`cannot listen on ${what} ${address.includes(":") ? `[${address}]` : address}:${port}: ${cause.message}`);
  }
}

/** Build the match (a ConfigError comes before any socket is bound), then bind and start. */
export async function serve(o: ServeOptions): Promise<Served> {
  let report: Reporter | null = null;
  const sink = o.log ?? null;
  // The big-screen feed (modules/watch.ts): deaths and chat lines go into its next frame.
  let feed: WatchFeed | null = null;
  const host = new NodeHost({
    log(event, slot, value) {
      // The report counts kicks by reason; the caller's sink prints.
      if (report !== null) report.count(event, value);
      if (feed !== null) feed.note(event, slot, value);
      if (sink !== null) sink(event, slot, value);
    },
  });
  const { server, game } = createMatch(o.config, o.tap ? o.tap.host(host) : host, o.seed, nodeNative(o.config));
  const watchFeed = o.httpPort === null ? null : new WatchFeed(server);
  feed = watchFeed;
  if (game !== null) game.onDeath = (slot, killer, cause) => host.log(LogEvent.Death, slot, deathValue(killer, cause));
  const files = o.httpPort === null ? null : (o.files ?? readPage(PAGE_DIR));
  let udp;
  let address = o.address;
  try {
    udp = await host.listen(o.udpPort, address);
  } catch (err) {
    // `::` (the default) is IPv6 and IPv4 at once; a machine without IPv6 gets IPv4 alone.
    const code = (err as NodeJS.ErrnoException).code;
    if (address !== "::" || (code !== "EAFNOSUPPORT" && code !== "EADDRNOTAVAIL")) throw new ListenError("udp", address, o.udpPort, err as Error);
    address = "0.0.0.0";
    try {
      udp = await host.listen(o.udpPort, address);
    } catch (err2) {
      throw new ListenError("udp", address, o.udpPort, err2 as Error);
    }
  }
  let web: WebTransport | null = null;
  let http: { address: string; port: number } | null = null;
  if (files !== null && o.httpPort !== null) {
    web = new WebTransport({ idleMs: o.config.timeoutMs, ...o.web, files });
    try {
      http = await web.listen(o.httpPort, address);
    } catch (err) {
      await host.close();
      throw new ListenError("http", address, o.httpPort, err as Error);
    }
    host.addPeers(web);
    if (watchFeed !== null) web.watch(() => watchFeed.frame.subarray(0, watchFeed.write(host.now() >>> 0)), () => watchFeed.skip());
  }
  const core = o.tap ? o.tap.core(server, game, o.seed, udp) : server;
  if (web !== null) web.attach(core);
  const transport = web;
  report = new Reporter({
    server, game, seed: o.seed, host: "node", describePeer,
    tickCost: host.tickCost,
    now: () => host.now(),
    sendErrors: () => host.sendErrors,
    web: transport === null ? null : { counters: transport.counters, names: WEB_COUNTER_NAMES, drops: WEB_DROPS, open: () => transport.open },
  });
  const r = report;
  if (web !== null) {
    web.route("/status", () => ({ type: "application/json", body: r.statusJson() + "\n" }));
    web.route("/metrics", () => ({ type: "text/plain; version=0.0.4; charset=utf-8", body: r.metrics() }));
  }
  host.attach(core);
  return {
    server, game, host, web, udp, http, report,
    async close() {
      server.shutdown();
      await host.close();
    },
  };
}

/** The URLs that reach the page: one per IPv4 address of this machine when bound to all. */
export function pageUrls(address: string, port: number): string[] {
  const suffix = port === 80 ? "/" : `:${port}/`;
  // Every IPv4 address of the machine when bound to all of them (0.0.0.0, or :: dual stack).
  if (address !== "0.0.0.0" && address !== "::") return [`http://${address.includes(":") ? `[${address}]` : address}${suffix}`];
  const urls: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (a.family === "IPv4") urls.push(`http://${a.address}${suffix}`);
  }
  if (urls.length === 0) urls.push(`http://127.0.0.1${suffix}`);
  return urls;
}
