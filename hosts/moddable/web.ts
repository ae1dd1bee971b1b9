/**
 * The game page and the WebSocket carriage on the board's HTTP port, on the board's own TCP
 * server (net.c): `GET /`, `GET /app.js` and `GET /kernels.wasm` come from gzipped resources in flash, routes
 * added with `route` (`/status`, `/metrics`) answer with what their handler makes, and `/ws`
 * becomes a WebSocket that carries Rev 1 packets, one binary message each way
 * (docs/protocol.md, "WebSocket carriage").
 *
 * Fixed size. net.c holds `maxConnections + httpConnections` connection slots, each with
 * its receive ring; one over that is reset at accept. Here each slot has one Connection
 * and one FrameReader, made in the constructor and reused. At most `maxConnections` of
 * them are WebSockets (a further upgrade gets 503); the rest serve one HTTP request each
 * and close (HTTP/1.1 with `Connection: close`).
 *
 * Every ending frees the slot: the client's FIN or reset, an error, a request or response
 * that takes too long, a close handshake that is not answered, a connection that has not
 * been a player for `idleMs`. The poll (every POLL_MS) reads only the slots net.c marked.
 *
 * Each WebSocket connection is a peer of the server as a UDP address and port is: its
 * address is `ws:<remote address>` and its port a number above 65535 that no other
 * connection gets, so the host routes sends by port. Closing the socket is a Disconnect.
 * The transport closes a connection after a Reject, a kick, a timeout or a Disconnect.
 *
 * Allocation: a request's head string, its response (a route's text; a page is a view of
 * flash), and a WebSocket's address string and handshake. Packets both ways allocate
 * nothing: frames are read into one shared buffer and written from the server's.
 */
import { Digest } from "crypt";
import Resource from "Resource";
import Timer from "timer";
import { CloseCode, describePeer, WebCounter, WEB_DROPS, WS_PATH, WS_PORT_BASE, type PeerCore, type RouteResponse } from "../../modules/carriage";
import { headerRel, headerUnrel, UNRELIABLE_HEADER } from "../../modules/transport/frame";
import { HEADER_SIZE, MAX_PACKET, Msg, RejectReason } from "../../modules/protocol/constants";
import { counterNames } from "../../modules/protocol/counters";
import { describeKick, LogEvent } from "../../modules/server/events";
import { Frame, FrameReader, Status, upgradeRequest, WS_GUID } from "./frames";
import { ipText } from "./host";
import { tcpAddress, tcpClose, tcpEvents, tcpFrame, tcpHead, tcpInfo, tcpListen, tcpRead, tcpRoom, tcpStats, tcpWrite } from "./net";
import { PAGES, type BoardPage } from "./pages";
import { BOARD_WATCH_INTERVAL_MS, BOARD_WATCHERS, WATCH_PATH, WATCH_WS_PATH, type WatchFeed } from "../../modules/watch";
import { headerValue } from "../../modules/admin";

/** What the web transport counts, as indices into `BoardWeb.counters`: the Node host's (modules/carriage.ts), and the board's own. */
export const BoardWebCounter = Object.freeze({
  ...WebCounter,
  /** Requests for other paths sent to the page (access-point mode: the captive portal). */
  Redirects: 11,
  /** Connections reset at accept: every slot was taken. */
  AcceptRefused: 12,
  /** Connections the client reset (or that failed) before they ended. */
  Resets: 13,
  /** Connections closed for taking too long: a request, a response or a close handshake. */
  Timeouts: 14,
  /** Requests refused as malformed or too large (400, 405, 431). */
  BadRequests: 15,
  /** Watchers (WATCH_WS_PATH) accepted. */
  Watchers: 16,
  /** Watch frames a watcher did not get: its previous one was still on its way. */
  WatchFramesSkipped: 17,
} as const);

export const WEB_COUNTER_NAMES: readonly string[] = Object.freeze(counterNames(BoardWebCounter));
/** The board's drops for the status line: the Node host's and its own. */
export const BOARD_WEB_DROPS: readonly number[] = Object.freeze([...WEB_DROPS, BoardWebCounter.AcceptRefused, BoardWebCounter.Timeouts, BoardWebCounter.BadRequests]);
export { describePeer, WEB_DROPS };

export interface BoardWebOptions {
  port: number;
  /** Open WebSocket connections at most; further upgrades get 503. */
  maxConnections: number;
  /** Connection slots beyond the WebSockets', for page loads and /status (default 2). */
  httpConnections?: number;
  /** A connection that has not been a player for this long is closed. */
  idleMs: number;
  /** Access-point mode: requests for unknown paths are redirected here ("http://192.168.4.1/"); null: 404. */
  portal: string | null;
  /** Each connection's receive ring in bytes: a request's head must fit (a power of 2; default 1024). */
  rxBytes?: number;
  /** Bytes each connection may have sent and not yet acknowledged (default 2920). */
  window?: number;
}

/** A response read from elsewhere in pieces (the core dump in flash): its bytes never sit whole in the heap. */
export interface StreamSource {
  readonly type: string;
  /** Its length in bytes, as the response starts; 0: 404. */
  size(): number;
  /** Fill `into` from `offset`; bytes read (0 or less: it failed). */
  read(offset: number, into: Uint8Array): number;
}

/** A reply a request route makes: its status line's code and text ("401 Unauthorized"), type, body and further headers. */
export interface Reply {
  status: string;
  type: string;
  body: string;
  /** Header names and values, in turn. */
  headers?: string[];
}

/**
 * A route that takes any method and reads the request's body (`Content-Length` bytes; a
 * chunked one is refused with 411) as it comes, in pieces of at most the receive ring.
 */
export interface RequestRoute {
  /** The head has come. A reply ends the request now; null reads the body (`length` bytes; none: `end` at once). */
  begin(method: string, query: string, headers: string, length: number): Reply | null;
  /** A piece of the body, in `bytes` up to `length`. A reply refuses the rest: it is read and dropped, then the reply goes. */
  data(bytes: Uint8Array, length: number): Reply | null;
  /** The body has all come (`complete`), and the reply; or it never will (the client ended, reset or went quiet): the reply is ignored. */
  end(complete: boolean): Reply | null;
}

/** A slot's states. */
const S = Object.freeze({ Free: 0, Request: 1, Response: 2, Open: 3, Closing: 4, Watch: 5, Body: 6 } as const);

/** tcpInfo's flags. */
const Info = Object.freeze({ Open: 1, Ended: 2, Dead: 4 } as const);

/** WebSocket opcodes (RFC 6455 section 5.2). */
const Op = Object.freeze({ Text: 1, Binary: 2, Close: 8, Ping: 9, Pong: 10 } as const);

const POLL_MS = 10;
const SWEEP_MS = 1000;
/** Seconds a request's head may take to come, a response to go, and a close we started to be answered. */
const REQUEST_S = 5;
const RESPONSE_S = 20;
const CLOSING_S = 2;
/** Seconds a request's body may go without a byte. */
const BODY_IDLE_S = 10;
/** Bytes of a request's body taken in one poll at most. */
const BODY_SLICE = 4096;

/** net.c's TCP counters (tcpStats), in its order. */
const TcpStat = Object.freeze({ Accepted: 0, Refused: 1, Resets: 2, Held: 3, Closed: 4, Aborted: 5, WriteErrors: 6 } as const);
export const TCP_STAT_NAMES: readonly string[] = Object.freeze(counterNames(TcpStat));

class Connection {
  readonly slot: number;
  readonly reader: FrameReader;
  state: number = S.Free;
  address = "ws:?";
  port = 0;
  /** Sweep ticks: when the state began, and when the peer last held a slot. */
  since = 0;
  lastPlayer = 0;
  /** A response under way: its head, then its body from `sent`. */
  head = "";
  headSent = false;
  body: Uint8Array | string | null = null;
  stream: StreamSource | null = null;
  bodyLength = 0;
  sent = 0;
  /** A watcher's frame under way: its length, and whether its header went out. */
  watchLength = 0;
  watchHeadSent = false;
  /** A request's body under way: its route, the bytes still to come, and a refusal to send once they have. */
  route: RequestRoute | null = null;
  remaining = 0;
  refusal: Reply | null = null;

  constructor(slot: number) {
    this.slot = slot;
    this.reader = new FrameReader(MAX_PACKET);
  }
}

/** Bytes of `text` in UTF-8. */
function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c < 0xdc00) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

export class BoardWeb {
  readonly counters = new Uint32Array(WEB_COUNTER_NAMES.length);
  /** net.c's TCP counters, as of the last sweep. */
  readonly tcp = new Uint32Array(TCP_STAT_NAMES.length);
  readonly #tcpBytes = new Uint8Array(this.tcp.buffer);
  readonly #connections: Connection[];
  readonly #maxWebSockets: number;
  readonly #idleTicks: number;
  readonly #portal: string | null;
  readonly #routes: { path: string; handler: () => RouteResponse }[] = [];
  readonly #streams: { path: string; source: StreamSource }[] = [];
  readonly #requestRoutes: { path: string; route: RequestRoute }[] = [];
  /** A stream's piece on its way out. */
  readonly #chunk = new Uint8Array(1024);
  /** Frames are read into this, one connection at a time. */
  readonly #rx: Uint8Array;
  /** A close frame's payload is built here. */
  readonly #control: Uint8Array;
  #core: PeerCore | null = null;
  #nextPort = WS_PORT_BASE + 1;
  #tick = 0;
  /** Connections with a response under way: they are written on every poll. */
  #responding = 0;
  /** The big-screen feed (modules/watch.ts), when watchers are served; its frame's header goes out from `#watchHead`. */
  #feed: WatchFeed | null = null;
  #feedNow: (() => number) | null = null;
  readonly #watchHead = new Uint8Array(4);
  /** Watchers with a frame still on its way. */
  #watching = 0;

  constructor(options: BoardWebOptions) {
    const http = options.httpConnections ?? 2;
    const count = options.maxConnections + http;
    const rxBytes = options.rxBytes ?? 1024;
    this.#maxWebSockets = options.maxConnections;
    this.#idleTicks = Math.ceil(options.idleMs / SWEEP_MS);
    this.#portal = options.portal;
    this.#rx = new Uint8Array(rxBytes);
    this.#control = new Uint8Array(125);
    this.#connections = [];
    for (let i = 0; i < count; i++) this.#connections.push(new Connection(i));
    tcpListen(options.port, count, rxBytes, options.window ?? 2920);
    Timer.repeat(() => this.#poll(), POLL_MS);
    Timer.repeat(() => this.#sweep(), SWEEP_MS);
  }

  /** Answer GET of `path` with what `handler` makes, each time. */
  route(path: string, handler: () => RouteResponse): void {
    this.#routes.push({ path, handler });
  }

  /** Answer any method on `path` with `route`, which reads the request's body as it comes. */
  routeRequest(path: string, route: RequestRoute): void {
    this.#requestRoutes.push({ path, route });
  }

  /** Answer GET of `path` with the bytes of `source`, read in pieces as they go out. */
  routeStream(path: string, source: StreamSource): void {
    this.#streams.push({ path, source });
  }

  /**
   * Serve watchers: `/watch` is the page, `/watch/ws` a WebSocket that takes no slot, sends
   * nothing a player would and gets a frame of `feed` every BOARD_WATCH_INTERVAL_MS, at most
   * BOARD_WATCHERS at once. A frame (up to about 6 KB) goes out in pieces as lwIP has room;
   * a new one is written only when every watcher has had the last.
   */
  watch(feed: WatchFeed, now: () => number): void {
    this.#feed = feed;
    this.#feedNow = now;
    Timer.repeat(() => this.#watchTick(), BOARD_WATCH_INTERVAL_MS);
  }

  /** Watchers connected. */
  get watchers(): number {
    let n = 0;
    for (const c of this.#connections) if (c.state === S.Watch) n++;
    return n;
  }

  /** Deliver messages to `core`, and disconnect its peers when their sockets close. */
  attach(core: PeerCore): void {
    this.#core = core;
  }

  /** Open WebSocket connections (closes under way included). */
  get open(): number {
    let n = 0;
    for (const c of this.#connections) if (c.state === S.Open || c.state === S.Closing) n++;
    return n;
  }

  // ---------------------------------------------------------------- poll

  #poll(): void {
    const events = tcpEvents();
    const connections = this.#connections;
    if (events !== 0) for (let i = 0; i < connections.length; i++) if ((events & (1 << i)) !== 0) this.#service(connections[i]);
    if (this.#responding > 0) for (let i = 0; i < connections.length; i++) if (connections[i].state === S.Response) this.#respond(connections[i]);
    for (let i = 0; i < connections.length; i++) {
      const c = connections[i];
      if (c.state === S.Body && tcpInfo(c.slot) >>> 8 > 0) this.#body(c);
    }
    if (this.#watching > 0)
      for (let i = 0; i < connections.length; i++) {
        const c = connections[i];
        if (c.state === S.Watch && c.watchLength > 0) this.#watchSend(c);
      }
  }

  #watchTick(): void {
    const feed = this.#feed;
    if (feed === null) return;
    const connections = this.#connections;
    let watchers = 0;
    for (let i = 0; i < connections.length; i++) if (connections[i].state === S.Watch) watchers++;
    if (watchers === 0) {
      feed.skip();
      return;
    }
    if (this.#watching > 0) {
      this.counters[BoardWebCounter.WatchFramesSkipped] += watchers;
      return;
    }
    const n = feed.write((this.#feedNow as () => number)() >>> 0);
    for (let i = 0; i < connections.length; i++) {
      const c = connections[i];
      if (c.state !== S.Watch) continue;
      c.watchLength = n;
      c.watchHeadSent = false;
      c.sent = 0;
      this.#watching++;
      this.#watchSend(c);
    }
  }

  /** As much of the current frame as lwIP takes now: an unmasked binary frame's header with a 16-bit length, then the payload in pieces. */
  #watchSend(c: Connection): void {
    const feed = this.#feed as WatchFeed;
    const slot = c.slot;
    const n = c.watchLength;
    if (!c.watchHeadSent) {
      const head = this.#watchHead;
      head[0] = 0x82;
      head[1] = 126;
      head[2] = n >> 8;
      head[3] = n & 0xff;
      const wrote = tcpWrite(slot, head, 0, 4, true);
      if (wrote < 0) return this.#gone(c, true);
      if (wrote === 0) return;
      c.watchHeadSent = true;
    }
    while (c.sent < n) {
      let room = tcpRoom(slot);
      if (room < 0) return this.#gone(c, true);
      if (room === 0) return;
      if (room > n - c.sent) room = n - c.sent;
      const wrote = tcpWrite(slot, feed.frame, c.sent, room);
      if (wrote < 0) return this.#gone(c, true);
      if (wrote === 0) return;
      c.sent += wrote;
    }
    c.watchLength = 0;
    this.#watching--;
  }

  #service(c: Connection): void {
    const info = tcpInfo(c.slot);
    if (c.state === S.Free) {
      if ((info & Info.Open) === 0) return;
      c.state = S.Request;
      c.since = this.#tick;
    }
    if ((info & Info.Dead) !== 0) {
      this.counters[BoardWebCounter.Resets]++;
      this.#gone(c, true);
      return;
    }
    if (info >>> 8 > 0) {
      if (c.state === S.Request) this.#request(c);
      else if (c.state === S.Body) this.#body(c);
      else if (c.state === S.Open || c.state === S.Closing || c.state === S.Watch) this.#frames(c);
      else this.#discard(c);
    }
    if ((info & Info.Ended) !== 0 && c.state !== S.Free && c.state !== S.Response) {
      // The client is done sending: a request that has not all come never will; a WebSocket whose client half-closed is over.
      this.#gone(c, false);
    }
  }

  #discard(c: Connection): void {
    const rx = this.#rx;
    while (tcpRead(c.slot, rx, 0, rx.length) > 0);
  }

  // ---------------------------------------------------------------- HTTP

  #request(c: Connection): void {
    const head = tcpHead(c.slot);
    if (head === undefined) return;
    this.counters[BoardWebCounter.HttpRequests]++;
    if (head === null) {
      this.#reply(c, "431 Request Header Fields Too Large", "text/plain", "request too large\n", true);
      return;
    }
    const eol = head.indexOf("\r\n");
    const line = eol < 0 ? head : head.slice(0, eol);
    const sp1 = line.indexOf(" ");
    const sp2 = line.indexOf(" ", sp1 + 1);
    if (sp1 <= 0 || sp2 <= sp1 + 1 || !line.startsWith("HTTP/1.", sp2 + 1)) {
      this.#reply(c, "400 Bad Request", "text/plain", "bad request\n", true);
      return;
    }
    const method = line.slice(0, sp1);
    const target = line.slice(sp1 + 1, sp2);
    const q = target.indexOf("?");
    const path = q < 0 ? target : target.slice(0, q);
    for (const r of this.#requestRoutes)
      if (r.path === path) {
        this.#begin(c, r.route, method, q < 0 ? "" : target.slice(q + 1), eol < 0 ? "" : head.slice(eol + 2));
        return;
      }
    if (method !== "GET") {
      this.counters[BoardWebCounter.BadRequests]++;
      this.#respondWith(c, "405 Method Not Allowed", ["Allow", "GET", "Content-Type", "text/plain"], "GET only\n");
      return;
    }
    if (path === WS_PATH || (path === WATCH_WS_PATH && this.#feed !== null)) {
      this.#upgrade(c, eol < 0 ? "" : head.slice(eol + 2), path !== WS_PATH);
      return;
    }
    const page = path === "/index.html" || (path === WATCH_PATH && this.#feed !== null) ? "/" : path;
    for (const r of this.#routes) {
      if (r.path !== page) continue;
      const made = r.handler();
      this.#respondWith(c, "200 OK", ["Content-Type", made.type, "Cache-Control", "no-store"], made.body);
      return;
    }
    for (const r of this.#streams) {
      if (r.path !== page) continue;
      const size = r.source.size();
      if (size <= 0) {
        this.counters[BoardWebCounter.HttpNotFound]++;
        this.#respondWith(c, "404 Not Found", ["Content-Type", "text/plain"], "none\n");
      } else this.#respondWith(c, "200 OK", ["Content-Type", r.source.type, "Cache-Control", "no-store"], r.source, size);
      return;
    }
    let found: BoardPage | null = null;
    for (const p of PAGES) if (p.path === page) found = p;
    if (found === null) {
      if (this.#portal !== null) {
        this.counters[BoardWebCounter.Redirects]++;
        this.#respondWith(c, "302 Found", ["Location", this.#portal, "Cache-Control", "no-store"], "");
        return;
      }
      this.counters[BoardWebCounter.HttpNotFound]++;
      this.#respondWith(c, "404 Not Found", ["Content-Type", "text/plain"], "not found\n");
      return;
    }
    if (!Resource.exists(found.resource)) {
      this.counters[BoardWebCounter.HttpNotFound]++;
      this.#respondWith(c, "503 Service Unavailable", ["Content-Type", "text/plain"], "The game page is not in this build: run npm run build:page, then build again.\n");
      return;
    }
    // A view of the resource in flash: nothing is copied into the heap. Browsers all take gzip: the board keeps no other copy.
    const body = new Uint8Array(new Resource(found.resource));
    this.#respondWith(c, "200 OK", ["Content-Type", found.type, "Content-Encoding", "gzip", "Cache-Control", "no-cache", "X-Content-Type-Options", "nosniff"], body);
  }

  #begin(c: Connection, route: RequestRoute, method: string, query: string, headers: string): void {
    if (headerValue(headers, "transfer-encoding") !== null) {
      this.counters[BoardWebCounter.BadRequests]++;
      this.#replyWith(c, { status: "411 Length Required", type: "text/plain", body: "send the body with a Content-Length\n" });
      return;
    }
    const given = headerValue(headers, "content-length");
    if (given !== null && !/^[0-9]{1,10}$/.test(given)) {
      this.#reply(c, "400 Bad Request", "text/plain", "bad Content-Length\n", true);
      return;
    }
    const length = given === null ? 0 : Number(given);
    const refused = route.begin(method, query, headers, length);
    if (refused !== null) {
      this.#replyWith(c, refused);
      return;
    }
    c.route = route;
    c.refusal = null;
    c.remaining = length;
    if (length === 0) {
      this.#bodyEnd(c);
      return;
    }
    // curl waits a second for this before a body over 1 KB; browsers never ask.
    if ((headerValue(headers, "expect") ?? "").toLowerCase() === "100-continue") tcpWrite(c.slot, "HTTP/1.1 100 Continue\r\n\r\n", 0, 25);
    c.state = S.Body;
    c.since = this.#tick;
    if (tcpInfo(c.slot) >>> 8 > 0) this.#body(c);
  }

  /** The body's bytes waiting now, to the route (or dropped, after a refusal): at most BODY_SLICE a poll, so that a long upload never holds the XS task (the game, the watchdog's feed) for long. */
  #body(c: Connection): void {
    const rx = this.#rx;
    for (let taken = 0; c.remaining > 0; ) {
      if (taken >= BODY_SLICE) {
        // The rest on the next poll (#poll comes back to a body under way).
        return;
      }
      const n = tcpRead(c.slot, rx, 0, c.remaining < rx.length ? c.remaining : rx.length);
      if (n <= 0) return;
      c.remaining -= n;
      taken += n;
      c.since = this.#tick;
      const route = c.route;
      if (route !== null && c.refusal === null) c.refusal = route.data(rx, n);
    }
    this.#bodyEnd(c);
  }

  #bodyEnd(c: Connection): void {
    const route = c.route as RequestRoute;
    const refusal = c.refusal;
    c.route = null;
    c.refusal = null;
    const reply = refusal ?? route.end(true);
    this.#replyWith(c, reply ?? { status: "500 Internal Server Error", type: "text/plain", body: "no reply\n" });
  }

  #replyWith(c: Connection, reply: Reply): void {
    const headers = ["Content-Type", reply.type, "Cache-Control", "no-store"];
    if (reply.headers !== undefined) for (const h of reply.headers) headers.push(h);
    this.#respondWith(c, reply.status, headers, reply.body);
  }

  /** A refusal: counted as a bad request or a refused upgrade. */
  #reply(c: Connection, status: string, type: string, body: string, bad: boolean): void {
    this.counters[bad ? BoardWebCounter.BadRequests : BoardWebCounter.UpgradesRefused]++;
    this.#respondWith(c, status, ["Content-Type", type], body);
  }

  /** Start a response; it is written as room allows, then the connection closes. */
  #respondWith(c: Connection, status: string, headers: string[], body: Uint8Array | string | StreamSource, size = 0): void {
    let length = size;
    c.body = null;
    c.stream = null;
    if (typeof body === "string") {
      length = utf8Length(body);
      c.body = body;
    } else if (body instanceof Uint8Array) {
      length = body.length;
      c.body = body;
    } else c.stream = body;
    let head = `HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: ${length}\r\n`;
    for (let i = 0; i + 1 < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
    c.head = `${head}\r\n`;
    c.headSent = false;
    c.bodyLength = length;
    c.sent = 0;
    c.state = S.Response;
    c.since = this.#tick;
    this.#responding++;
    this.#respond(c);
  }

  #respond(c: Connection): void {
    const slot = c.slot;
    if (!c.headSent) {
      const n = tcpWrite(slot, c.head, 0, c.head.length, c.bodyLength > 0);
      if (n < 0) return this.#gone(c, true);
      if (n === 0) return;
      c.headSent = true;
    }
    const body = c.body;
    const stream = c.stream;
    const chunk = this.#chunk;
    while (c.sent < c.bodyLength) {
      let n = tcpRoom(slot);
      if (n < 0) return this.#gone(c, true);
      if (n === 0) return;
      if (n > c.bodyLength - c.sent) n = c.bodyLength - c.sent;
      let wrote = 0;
      if (body !== null) wrote = tcpWrite(slot, body, c.sent, n);
      else if (stream !== null) {
        if (n > chunk.length) n = chunk.length;
        const got = stream.read(c.sent, chunk);
        if (got <= 0) return this.#gone(c, true);
        wrote = tcpWrite(slot, chunk, 0, got < n ? got : n);
      }
      if (wrote < 0) return this.#gone(c, true);
      if (wrote === 0) return;
      c.sent += wrote;
    }
    this.#gone(c, false);
  }

  // ---------------------------------------------------------------- WebSocket peers

  #upgrade(c: Connection, headers: string, watcher: boolean): void {
    let open = 0;
    let watchers = 0;
    for (const other of this.#connections) {
      if (other.state === S.Open || other.state === S.Closing) open++;
      else if (other.state === S.Watch) watchers++;
    }
    if (watcher ? watchers >= BOARD_WATCHERS : open >= this.#maxWebSockets) {
      this.#reply(c, "503 Service Unavailable", "text/plain", "all connections taken\n", false);
      return;
    }
    const upgrade = upgradeRequest(headers);
    if (upgrade.key === "") {
      this.#reply(c, "400 Bad Request", "text/plain", `${upgrade.problem}\n`, false);
      return;
    }
    const sha1 = new Digest("SHA1");
    sha1.write(upgrade.key + WS_GUID);
    const accept = new Uint8Array(sha1.close()).toBase64();
    const response = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`;
    if (tcpWrite(c.slot, response, 0, response.length) <= 0) {
      this.#gone(c, true);
      return;
    }
    c.reader.reset();
    c.since = this.#tick;
    if (watcher) {
      // No peer of the server: no address, no port, no slot.
      c.state = S.Watch;
      c.port = 0;
      c.watchLength = 0;
      this.counters[BoardWebCounter.Watchers]++;
    } else {
      c.address = `ws:${ipText(tcpAddress(c.slot))}`;
      c.port = this.#nextPort++;
      c.state = S.Open;
      c.lastPlayer = this.#tick;
      this.counters[BoardWebCounter.Connections]++;
    }
    // Frames the client sent with its request are in the ring already.
    if (tcpInfo(c.slot) >>> 8 > 0) this.#frames(c);
  }

  #frames(c: Connection): void {
    const rx = this.#rx;
    const reader = c.reader;
    const slot = c.slot;
    for (;;) {
      const n = tcpRead(slot, rx, 0, rx.length);
      if (n <= 0) return;
      let i = 0;
      while (i < n) {
        if (c.state !== S.Open && c.state !== S.Closing && c.state !== S.Watch) return this.#discard(c);
        i = reader.step(rx, i, n);
        switch (reader.event) {
          case Frame.Binary: {
            // A watcher's messages are dropped: it sends nothing a player would.
            const core = this.#core;
            if (c.state === S.Open && core !== null) core.receive(reader.payload, reader.length, c.address, c.port);
            break;
          }
          case Frame.Text:
            this.counters[BoardWebCounter.TextDropped]++;
            break;
          case Frame.Fragmented:
            this.counters[BoardWebCounter.FragmentedDropped]++;
            break;
          case Frame.Ping:
            // Not in the middle of a watch frame: a pong would land inside it.
            if (c.state === S.Open || (c.state === S.Watch && c.watchLength === 0)) tcpFrame(slot, Op.Pong, reader.payload, reader.length);
            break;
          case Frame.Close:
            // Ours answered, or theirs: answer it with its code, then the connection goes.
            if (c.state === S.Open || (c.state === S.Watch && c.watchLength === 0)) this.#closeFrame(c, reader.code === Status.NoStatus ? -1 : reader.code, "");
            return this.#gone(c, false);
          case Frame.Error:
            this.counters[BoardWebCounter.ProtocolErrors]++;
            if (c.state === S.Open || (c.state === S.Watch && c.watchLength === 0)) this.#closeFrame(c, reader.code, "");
            return this.#gone(c, false);
        }
      }
    }
  }

  /** One packet to the connection numbered `port`. */
  send(bytes: Uint8Array, length: number, port: number): void {
    const c = this.#find(port);
    if (c === null || c.state !== S.Open || tcpFrame(c.slot, Op.Binary, bytes, length) <= 0) {
      this.counters[BoardWebCounter.SendDropped]++;
      return;
    }
    // A Reject travels alone: header with rel 0 and unrel 1, then type 204 and the reason.
    if (length === HEADER_SIZE + 2 && headerRel(bytes) === 0 && headerUnrel(bytes) === 1 && bytes[HEADER_SIZE] === Msg.Reject) {
      this.counters[BoardWebCounter.RejectCloses]++;
      const reason = bytes[HEADER_SIZE + UNRELIABLE_HEADER];
      this.#close(c, CloseCode.Rejected + reason, reason === RejectReason.ServerFull ? "server full" : "rejected");
    }
  }

  /** The server's log events, seen before the slot is freed: close the connections it dropped. */
  event(event: number, slot: number, value: number): void {
    const core = this.#core;
    if (core === null || slot < 0) return;
    const c = this.#find(core.port[slot]);
    if (c === null || c.state !== S.Open) return;
    let code = 0;
    let reason = "";
    if (event === LogEvent.Kick) {
      code = CloseCode.Kicked + value;
      reason = `kicked: ${describeKick(value)}`;
    } else if (event === LogEvent.Timeout) {
      code = CloseCode.TimedOut;
      reason = "timed out";
    } else if (event === LogEvent.Leave) {
      code = CloseCode.Left;
      reason = "left";
    } else return;
    this.counters[BoardWebCounter.PlayerCloses]++;
    this.#close(c, code, reason);
  }

  #find(port: number): Connection | null {
    if (port <= WS_PORT_BASE) return null;
    const connections = this.#connections;
    for (let i = 0; i < connections.length; i++) {
      const c = connections[i];
      if (c.port === port && (c.state === S.Open || c.state === S.Closing)) return c;
    }
    return null;
  }

  /** Send a close frame after the packets already written; the connection closes when the client answers (or CLOSING_S later). */
  #close(c: Connection, code: number, reason: string): void {
    if (c.state !== S.Open) return;
    this.#closeFrame(c, code, reason);
    c.state = S.Closing;
    c.since = this.#tick;
  }

  /** A close frame with `code` (none when -1) and an ASCII `reason`. */
  #closeFrame(c: Connection, code: number, reason: string): void {
    const control = this.#control;
    let n = 0;
    if (code >= 0) {
      control[0] = code >> 8;
      control[1] = code & 0xff;
      n = 2;
      for (let i = 0; i < reason.length && n < control.length; i++) control[n++] = reason.charCodeAt(i) & 0x7f;
    }
    tcpFrame(c.slot, Op.Close, control, n);
  }

  /** The connection is over: close it (a reset when `abort`), free the slot, and tell the core (a Disconnect) if it was a peer. */
  #gone(c: Connection, abort: boolean): void {
    const wasPeer = c.state === S.Open || c.state === S.Closing;
    if (c.state === S.Response) this.#responding--;
    if (c.state === S.Watch && c.watchLength > 0) this.#watching--;
    const route = c.route;
    c.route = null;
    c.refusal = null;
    if (route !== null) route.end(false);
    c.watchLength = 0;
    c.state = S.Free;
    c.body = null;
    c.stream = null;
    c.head = "";
    tcpClose(c.slot, abort);
    const core = this.#core;
    if (wasPeer && core !== null) core.disconnectPeer(c.address, c.port);
  }

  #sweep(): void {
    const tick = ++this.#tick;
    const core = this.#core;
    tcpStats(this.#tcpBytes);
    this.counters[BoardWebCounter.AcceptRefused] = this.tcp[TcpStat.Refused];
    const connections = this.#connections;
    for (let i = 0; i < connections.length; i++) {
      const c = connections[i];
      const age = tick - c.since;
      if (c.state === S.Request) {
        if (age > REQUEST_S) this.#timedOut(c);
      } else if (c.state === S.Body) {
        if (age > BODY_IDLE_S) this.#timedOut(c);
      } else if (c.state === S.Response) {
        if (age > RESPONSE_S) this.#timedOut(c);
      } else if (c.state === S.Closing) {
        if (age > CLOSING_S) this.#gone(c, false);
      } else if (c.state === S.Open && core !== null) {
        let player = false;
        const ports = core.port;
        for (let s = 0; s < ports.length; s++) if (ports[s] === c.port) player = true;
        if (player) c.lastPlayer = tick;
        else if (tick - c.lastPlayer > this.#idleTicks) {
          this.counters[BoardWebCounter.IdleCloses]++;
          this.#close(c, CloseCode.Idle, "not a player");
        }
      }
    }
  }

  #timedOut(c: Connection): void {
    this.counters[BoardWebCounter.Timeouts]++;
    this.#gone(c, true);
  }
}
