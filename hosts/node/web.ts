/**
 * The page and the WebSocket carriage on one HTTP port: `GET /` serves the game page,
 * routes added with `route` (`/status`, `/metrics`) answer with what their handler makes,
 * `/ws` upgrades to a WebSocket that carries Rev 1 packets, one binary message each, in
 * both directions and unchanged (docs/protocol.md, "WebSocket carriage").
 *
 * Each connection is a peer of the server like a UDP address and port: its address is
 * `ws:<remote address>` and its port a number above 65535 that no other connection gets,
 * so `NodeHost.send` routes by port alone and the server's lookup, life cycle, limits and
 * logs are those of any peer. Messages go to `server.receive` as datagrams do; text
 * messages and fragmented ones are dropped here and counted in `counters`. Closing the
 * socket is a Disconnect. The host closes a connection after a Reject, a kick, a timeout
 * or a Disconnect, and one that has not been a player for `idleMs`.
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, WebSocket } from "ws";
import { CloseCode, WebCounter, WEB_COUNTER_NAMES, WS_PATH, WS_PORT_BASE, type PeerCore, type RouteResponse } from "../../modules/carriage";
import { headerRel, headerUnrel, UNRELIABLE_HEADER } from "../../modules/transport/frame";
import { HEADER_SIZE, Msg, RejectReason } from "../../modules/protocol/constants";
import { describeKick, LogEvent } from "../../modules/server/events";
import type { PageFile } from "../../web/page";
import { WATCH_INTERVAL_MS, WATCH_PATH, WATCH_WS_PATH } from "../../modules/watch";
import { FrameTracker } from "./frames";

// What both hosts' carriages share is declared in modules/carriage.ts, the page's files in
// web/page.ts; the transport's counters, close codes and ports are these.
export { CloseCode, WebCounter, WS_PORT_BASE, type PageFile };

export interface WebTransportOptions {
  files: readonly PageFile[];
  /** Open WebSocket connections at most; further upgrades get 503. */
  maxConnections?: number;
  /** A connection that has not been a player for this long is closed. */
  idleMs?: number;
  /** Bytes waiting on one connection beyond which a packet is dropped, as a full link would. */
  maxBufferedBytes?: number;
  /** Messages longer than this close the connection (ws's maxPayload); up to it, they reach the server. */
  maxMessageBytes?: number;
  /** Watchers (WATCH_WS_PATH, modules/watch.ts) at most; further ones get 503. */
  maxWatchers?: number;
}

interface Peer {
  socket: WebSocket;
  address: string;
  port: number;
  frames: FrameTracker;
  /** When the peer was last seen holding a player slot (or opened). */
  lastPlayer: number;
  closing: boolean;
}

const SWEEP_MS = 1000;

export class WebTransport {
  readonly counters = new Uint32Array(WEB_COUNTER_NAMES.length);
  readonly http: http.Server;
  readonly #wss: WebSocketServer;
  readonly #files = new Map<string, PageFile>();
  readonly #routes = new Map<string, () => RouteResponse>();
  readonly #peers = new Map<number, Peer>();
  readonly #maxConnections: number;
  readonly #idleMs: number;
  readonly #maxBuffered: number;
  #core: PeerCore | null = null;
  /** Watchers: sockets that take no slot and get a watch frame every WATCH_INTERVAL_MS. */
  readonly #watchers = new Set<WebSocket>();
  readonly #maxWatchers: number;
  #frame: (() => Uint8Array) | null = null;
  #skipFrame: (() => void) | null = null;
  #watchTimer: NodeJS.Timeout | null = null;
  /** Watch frames sent, and not sent to a watcher that had no room. */
  watchFramesSent = 0;
  watchFramesDropped = 0;
  #nextPort = WS_PORT_BASE + 1;
  #sweep: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(options: WebTransportOptions) {
    for (const f of options.files) this.#files.set(f.path, f);
    this.#maxConnections = options.maxConnections ?? 128;
    this.#idleMs = options.idleMs ?? 15000;
    this.#maxBuffered = options.maxBufferedBytes ?? 65536;
    this.#maxWatchers = options.maxWatchers ?? 8;
    this.#wss = new WebSocketServer({
      noServer: true,
      clientTracking: false,
      perMessageDeflate: false,
      maxPayload: options.maxMessageBytes ?? 65536,
      maxFragments: 64,
    });
    this.http = http.createServer((req, res) => this.#request(req, res));
    this.http.on("upgrade", (req: http.IncomingMessage, socket: Duplex, head: Buffer) => this.#upgrade(req, socket, head));
    this.http.on("clientError", (_err, socket) => socket.destroy());
  }

  /** Bind the HTTP port and resolve with the bound address and port. */
  listen(port: number, address: string): Promise<{ address: string; port: number }> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err);
      this.http.once("error", onError);
      this.http.listen(port, address, () => {
        this.http.off("error", onError);
        const a = this.http.address();
        if (a === null || typeof a === "string") throw new Error("HTTP server has no port");
        resolve({ address: a.address, port: a.port });
      });
    });
  }

  /** Answer GET and HEAD of `path` with what `handler` makes, each time. */
  route(path: string, handler: () => RouteResponse): void {
    this.#routes.set(path, handler);
  }

  /** Deliver messages to `core` and disconnect its peers when their sockets close. */
  attach(core: PeerCore): void {
    this.#core = core;
    if (this.#sweep === null) this.#sweep = setInterval(() => this.#idleSweep(), SWEEP_MS);
  }

  /** Open WebSocket connections (players and would-be players; watchers apart). */
  get open(): number {
    return this.#peers.size;
  }

  /** Watchers connected. */
  get watchers(): number {
    return this.#watchers.size;
  }

  /**
   * Feed watchers: every WATCH_INTERVAL_MS while any is connected, `frame()` writes a watch
   * frame (the same bytes for all); while none is, `skip()` drops what would have gone.
   */
  watch(frame: () => Uint8Array, skip: () => void): void {
    this.#frame = frame;
    this.#skipFrame = skip;
    if (this.#watchTimer === null) this.#watchTimer = setInterval(() => this.#sendWatch(), WATCH_INTERVAL_MS);
  }

  #sendWatch(): void {
    if (this.#watchers.size === 0) {
      if (this.#skipFrame !== null) this.#skipFrame();
      return;
    }
    if (this.#frame === null) return;
    // ws may write later: one copy, shared by every watcher.
    const bytes = Buffer.from(this.#frame());
    for (const ws of this.#watchers) {
      if (ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > this.#maxBuffered) {
        this.watchFramesDropped++;
        continue;
      }
      ws.send(bytes, { binary: true, compress: false });
      this.watchFramesSent++;
    }
  }

  /** One packet to the connection numbered `port`. */
  send(bytes: Uint8Array, length: number, port: number): void {
    const peer = this.#peers.get(port);
    if (peer === undefined || peer.closing || peer.socket.readyState !== WebSocket.OPEN || peer.socket.bufferedAmount > this.#maxBuffered) {
      this.counters[WebCounter.SendDropped]++;
      return;
    }
    // ws may write later: the core reuses its buffer, so the message gets a copy.
    peer.socket.send(Buffer.from(bytes.subarray(0, length)), { binary: true, compress: false });
    // A Reject travels alone: header with rel 0 and unrel 1, then type 204 and the reason.
    if (length === HEADER_SIZE + 2 && headerRel(bytes) === 0 && headerUnrel(bytes) === 1 && bytes[HEADER_SIZE] === Msg.Reject) {
      this.counters[WebCounter.RejectCloses]++;
      const reason = bytes[HEADER_SIZE + UNRELIABLE_HEADER];
      this.#close(peer, CloseCode.Rejected + reason, reason === RejectReason.ServerFull ? "server full" : `rejected (${reason})`);
    }
  }

  /** The server's log events, seen before the slot is freed: close the connections it dropped. */
  event(event: number, slot: number, value: number): void {
    const core = this.#core;
    if (core === null || slot < 0) return;
    const peer = this.#peers.get(core.port[slot]);
    if (peer === undefined) return;
    if (event === LogEvent.Kick) this.#closePlayer(peer, CloseCode.Kicked + value, `kicked: ${describeKick(value)}`);
    else if (event === LogEvent.Timeout) this.#closePlayer(peer, CloseCode.TimedOut, "timed out");
    else if (event === LogEvent.Leave) this.#closePlayer(peer, CloseCode.Left, "left");
  }

  /** Close every connection and the HTTP server. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sweep !== null) clearInterval(this.#sweep);
    this.#sweep = null;
    if (this.#watchTimer !== null) clearInterval(this.#watchTimer);
    this.#watchTimer = null;
    for (const ws of this.#watchers) ws.close(CloseCode.GoingAway, "server shutting down");
    for (const peer of this.#peers.values()) this.#close(peer, CloseCode.GoingAway, "server shutting down");
    // Give close frames (and the Leave packets before them) a moment, then cut what is left.
    await new Promise((r) => setTimeout(r, 100));
    for (const peer of this.#peers.values()) peer.socket.terminate();
    for (const ws of this.#watchers) ws.terminate();
    this.#core = null;
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  // ---------------------------------------------------------------- HTTP

  #request(req: http.IncomingMessage, res: http.ServerResponse): void {
    this.counters[WebCounter.HttpRequests]++;
    const url = req.url ?? "/";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    // The big-screen view is the same page: it reads its own address.
    const file = this.#files.get(path === "/index.html" || path === WATCH_PATH ? "/" : path);
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD", "Content-Length": 0 });
      res.end();
      return;
    }
    const route = this.#routes.get(path);
    if (route !== undefined) {
      const r = route();
      const body = Buffer.from(r.body, "utf8");
      res.writeHead(200, { "Content-Type": r.type, "Content-Length": body.length, "Cache-Control": "no-store" });
      res.end(req.method === "HEAD" ? undefined : body);
      return;
    }
    if (file === undefined) {
      this.counters[WebCounter.HttpNotFound]++;
      res.writeHead(404, { "Content-Type": "text/plain", "Content-Length": 10 });
      res.end(req.method === "HEAD" ? undefined : "not found\n");
      return;
    }
    const gzip = file.gzip !== null && /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
    const body = gzip ? file.gzip! : file.body;
    const headers: http.OutgoingHttpHeaders = {
      "Content-Type": file.type,
      "Content-Length": body.length,
      "Cache-Control": "no-cache",
      "X-Content-Type-Options": "nosniff",
      Vary: "Accept-Encoding",
    };
    if (gzip) headers["Content-Encoding"] = "gzip";
    res.writeHead(200, headers);
    res.end(req.method === "HEAD" ? undefined : body);
  }

  #upgrade(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = req.url ?? "";
    const q = url.indexOf("?");
    const path = q < 0 ? url : url.slice(0, q);
    if (path === WATCH_WS_PATH) {
      this.#upgradeWatcher(req, socket, head);
      return;
    }
    if (path !== WS_PATH || this.#closed || this.#peers.size >= this.#maxConnections) {
      this.counters[WebCounter.UpgradesRefused]++;
      const status = path !== WS_PATH ? "404 Not Found" : "503 Service Unavailable";
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#open(ws, req, socket));
  }

  /** A watcher: no peer of the server, no slot; what it sends is ignored. */
  #upgradeWatcher(req: http.IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.#closed || this.#frame === null || this.#watchers.size >= this.#maxWatchers) {
      this.counters[WebCounter.UpgradesRefused]++;
      socket.end("HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      this.#watchers.add(ws);
      ws.on("message", () => this.counters[WebCounter.TextDropped]++);
      ws.on("error", () => this.counters[WebCounter.ProtocolErrors]++);
      ws.on("close", () => this.#watchers.delete(ws));
    });
  }

  // ---------------------------------------------------------------- WebSocket peers

  #open(socket: WebSocket, req: http.IncomingMessage, raw: Duplex): void {
    let remote = req.socket.remoteAddress ?? "?";
    if (remote.startsWith("::ffff:")) remote = remote.slice(7);
    const peer: Peer = {
      socket,
      address: `ws:${remote}`,
      port: this.#nextPort++,
      frames: new FrameTracker(),
      lastPlayer: performance.now(),
      closing: false,
    };
    this.#peers.set(peer.port, peer);
    this.counters[WebCounter.Connections]++;
    // Ahead of ws's own reader, so the frames of a message are known when ws delivers it.
    // (ws puts the bytes that came with the upgrade back into the socket: they pass here too.)
    raw.prependListener("data", (chunk: Buffer) => peer.frames.feed(chunk));
    socket.on("message", (data, isBinary) => this.#message(peer, data as Buffer, isBinary));
    socket.on("error", () => this.counters[WebCounter.ProtocolErrors]++);
    socket.on("close", () => {
      this.#peers.delete(peer.port);
      const core = this.#core;
      if (core !== null) core.disconnectPeer(peer.address, peer.port);
    });
  }

  #message(peer: Peer, data: Buffer, isBinary: boolean): void {
    const fragmented = peer.frames.take();
    if (peer.closing || this.#core === null) return;
    if (!isBinary) {
      this.counters[WebCounter.TextDropped]++;
      return;
    }
    if (fragmented) {
      this.counters[WebCounter.FragmentedDropped]++;
      return;
    }
    this.#core.receive(data, data.length, peer.address, peer.port);
  }

  #closePlayer(peer: Peer, code: number, reason: string): void {
    if (peer.closing) return;
    this.counters[WebCounter.PlayerCloses]++;
    this.#close(peer, code, reason);
  }

  #close(peer: Peer, code: number, reason: string): void {
    if (peer.closing) return;
    peer.closing = true;
    // The close frame goes out after every packet already handed to ws.
    peer.socket.close(code, reason);
  }

  #idleSweep(): void {
    const core = this.#core;
    if (core === null) return;
    const now = performance.now();
    const ports = core.port;
    for (const peer of this.#peers.values()) {
      if (peer.closing) continue;
      let player = false;
      for (let s = 0; s < ports.length; s++) if (ports[s] === peer.port) player = true;
      if (player) peer.lastPlayer = now;
      else if (now - peer.lastPlayer > this.#idleMs) {
        this.counters[WebCounter.IdleCloses]++;
        this.#close(peer, CloseCode.Idle, "not a player");
      }
    }
  }
}
