/**
 * The game page and the WebSocket carriage on the board's HTTP port, with the Moddable
 * SDK's HTTP server: `GET /` and `GET /app.js` come from gzipped resources in flash,
 * routes added with `route` (`/status`, `/metrics`) answer with what their handler makes,
 * `/ws` becomes a WebSocket that carries Rev 1 packets, one binary message each way
 * (docs/protocol.md, "WebSocket carriage").
 *
 * The upgrade is answered here, on the socket the HTTP server detaches when it has read
 * the request line: the rest of the request is read from that socket at once, inside the
 * same callback (the simulator's socket keeps received bytes only for the length of a
 * callback), then the 101 response is written with Sec-WebSocket-Accept from the SDK's
 * SHA-1 and the engine's base64. The SDK's WebSocket server is not used: it reads the
 * request a turn later, and it cannot tell a fragmented message from a whole one.
 *
 * Each connection is a peer of the server as a UDP address and port is: its address is
 * `ws:<remote address>` and its port a number above 65535 that no other connection gets,
 * so the host routes sends by port. Closing the socket is a Disconnect. The transport
 * closes a connection after a Reject, a kick, a timeout or a Disconnect, and one that has
 * not been a player for `idleMs`.
 *
 * Memory: a connection holds its socket, a Peer and a FrameReader (one 526-byte buffer),
 * made at the upgrade. Each read of the socket allocates what the socket returns and one
 * view (as a UDP datagram does on the same board); sends allocate nothing.
 */
import { Server as HTTPServer } from "http";
import { Digest } from "crypt";
import Resource from "Resource";
import Timer from "timer";
import { CloseCode, describePeer, WebCounter, WEB_DROPS, WS_PATH, WS_PORT_BASE, type PeerCore, type RouteResponse } from "../../modules/carriage";
import { HEADER_SIZE, MAX_PACKET, Msg, RejectReason } from "../../modules/protocol/constants";
import { counterNames } from "../../modules/protocol/counters";
import { describeKick, LogEvent } from "../../modules/server/events";
import { Frame, FrameReader, Status, upgradeRequest, WS_GUID } from "./frames";
import { PAGES, type BoardPage } from "./pages";

/** What the web transport counts, as indices into `BoardWeb.counters`: the Node host's (modules/carriage.ts), and one of the board's own. */
export const BoardWebCounter = Object.freeze({
  ...WebCounter,
  /** Requests for other paths sent to the page (access-point mode: the captive portal). */
  Redirects: 11,
} as const);

export const WEB_COUNTER_NAMES: readonly string[] = Object.freeze(counterNames(BoardWebCounter));
export { describePeer, WEB_DROPS };

export interface BoardWebOptions {
  port: number;
  /** Open WebSocket connections (and upgrades under way) at most; further upgrades get 503. */
  maxConnections: number;
  /** A connection that has not been a player for this long is closed. */
  idleMs: number;
  /** Access-point mode: requests for unknown paths are redirected here ("http://192.168.4.1/"); null: 404. */
  portal: string | null;
}

/** The SDK's TCP socket (modules/network/socket), as this file uses it. */
interface TcpSocket {
  read(): number;
  read(type: typeof ArrayBuffer): ArrayBuffer;
  read(type: typeof String): string;
  write(): number;
  write(...data: (number | string | Uint8Array)[]): void;
  close(): void;
  get(name: "REMOTE_IP"): string | undefined;
  callback: (message: number, value: number) => void;
}

/** What the HTTP server's callback gets as `this`: its per-request object, with our fields (named apart from the SDK's own: body, path, state...). */
interface Request {
  pagePath?: string;
  pageMethod?: string;
  pageBody?: ArrayBufferLike | null;
  pageSent?: number;
}

/** A connection's states: the upgrade request is being read, packets flow, a close we sent awaits its answer, over. */
const S = Object.freeze({ Handshake: 0, Open: 1, Closing: 2, Gone: 3 } as const);

/** The socket callback's messages (modules/network/socket/socket.js). */
const SocketMsg = Object.freeze({ Error: -2, Disconnect: -1, Readable: 2 } as const);

/** An upgrade request longer than this is refused. */
const MAX_REQUEST = 4096;
const SWEEP_MS = 1000;
/** Seconds a handshake may take, and a close we started may wait for the client's close. */
const HANDSHAKE_S = 5;
const CLOSING_S = 2;

class Peer {
  socket: TcpSocket;
  address = "ws:?";
  port = 0;
  state: number = S.Handshake;
  /** The request's headers so far (handshake only). */
  head = "";
  reader: FrameReader | null = null;
  /** Sweep ticks: when the state began, and when the peer last held a slot. */
  since: number;
  lastPlayer: number;

  constructor(socket: TcpSocket, tick: number) {
    this.socket = socket;
    this.since = tick;
    this.lastPlayer = tick;
  }
}

export class BoardWeb {
  readonly counters = new Uint32Array(WEB_COUNTER_NAMES.length);
  readonly #http: HTTPServer;
  readonly #peers: (Peer | null)[];
  readonly #idleTicks: number;
  readonly #portal: string | null;
  readonly #routes: { path: string; handler: () => RouteResponse }[] = [];
  #core: PeerCore | null = null;
  #nextPort = WS_PORT_BASE + 1;
  #tick = 0;
  /** A send shorter than the core's buffer goes out through this exact-length view (see host.ts). */
  readonly #sendBuffer: ArrayBuffer;
  readonly #sendView: Uint8Array;

  constructor(options: BoardWebOptions) {
    this.#peers = [];
    for (let i = 0; i < options.maxConnections; i++) this.#peers.push(null);
    this.#idleTicks = Math.ceil(options.idleMs / SWEEP_MS);
    this.#portal = options.portal;
    this.#sendBuffer = new ArrayBuffer(MAX_PACKET, { maxByteLength: MAX_PACKET });
    this.#sendView = new Uint8Array(this.#sendBuffer);
    this.#http = new HTTPServer({ port: options.port });
    const web = this;
    // The SDK calls this with its request object as `this`.
    (this.#http as { callback: unknown }).callback = function (this: Request, message: number, value: unknown, etc: unknown): unknown {
      return web.#request(this, message, value, etc);
    };
    Timer.repeat(() => this.#sweep(), SWEEP_MS);
  }

  /** Answer GET of `path` with what `handler` makes, each time. */
  route(path: string, handler: () => RouteResponse): void {
    this.#routes.push({ path, handler });
  }

  /** Deliver messages to `core`, and disconnect its peers when their sockets close. */
  attach(core: PeerCore): void {
    this.#core = core;
  }

  /** Open WebSocket connections (handshakes and closes under way included). */
  get open(): number {
    let n = 0;
    for (const p of this.#peers) if (p !== null) n++;
    return n;
  }

  // ---------------------------------------------------------------- HTTP

  #request(req: Request, message: number, value: unknown, etc: unknown): unknown {
    switch (message) {
      case HTTPServer.status: {
        this.counters[BoardWebCounter.HttpRequests]++;
        const target = String(value);
        const q = target.indexOf("?");
        const path = q < 0 ? target : target.slice(0, q);
        if (path === WS_PATH && etc === "GET") {
          // The socket's unread bytes (the headers) are read before this callback returns.
          const socket = (this.#http as unknown as { detach(r: unknown): TcpSocket }).detach(req);
          this.#upgrade(socket);
          return undefined;
        }
        req.pagePath = path;
        req.pageMethod = String(etc);
        return undefined;
      }
      case HTTPServer.prepareResponse:
        return this.#response(req);
      case HTTPServer.responseFragment: {
        const body = req.pageBody;
        const sent = req.pageSent ?? 0;
        if (body === null || body === undefined || sent >= body.byteLength) return undefined;
        let n = body.byteLength - sent;
        const room = Number(value);
        if (n > room) n = room;
        req.pageSent = sent + n;
        // A view of the resource in flash: nothing is copied into the heap.
        return new Uint8Array(body, sent, n);
      }
      case HTTPServer.responseComplete:
      case HTTPServer.error:
        req.pageBody = null;
        return undefined;
    }
    return undefined;
  }

  #response(req: Request): unknown {
    if (req.pageMethod !== "GET") return { status: 405, headers: ["Allow", "GET"] };
    const path = req.pagePath === "/index.html" ? "/" : req.pagePath;
    for (const r of this.#routes) {
      if (r.path !== path) continue;
      const made = r.handler();
      return { headers: ["Content-Type", made.type, "Cache-Control", "no-store"], body: made.body };
    }
    let page: BoardPage | null = null;
    for (const p of PAGES) if (p.path === path) page = p;
    if (page === null) {
      if (this.#portal !== null) {
        this.counters[BoardWebCounter.Redirects]++;
        return { status: 302, headers: ["Location", this.#portal, "Cache-Control", "no-store"] };
      }
      this.counters[BoardWebCounter.HttpNotFound]++;
      return { status: 404, headers: ["Content-Type", "text/plain"], body: "not found\n" };
    }
    if (!Resource.exists(page.resource)) {
      this.counters[BoardWebCounter.HttpNotFound]++;
      return { status: 503, headers: ["Content-Type", "text/plain"], body: "The game page is not in this build: run npm run build:page, then build again.\n" };
    }
    const body = new Resource(page.resource);
    req.pageBody = body;
    req.pageSent = 0;
    // Browsers all take gzip: the board keeps no other copy.
    return {
      headers: [
        "Content-Type", page.type, "Content-Encoding", "gzip", "Content-Length", String(body.byteLength),
        "Cache-Control", "no-cache", "X-Content-Type-Options", "nosniff",
      ],
      body: true,
    };
  }

  // ---------------------------------------------------------------- WebSocket peers

  #upgrade(socket: TcpSocket): void {
    let index = -1;
    for (let i = 0; i < this.#peers.length && index < 0; i++) if (this.#peers[i] === null) index = i;
    if (index < 0) {
      this.#refuse(socket, "503 Service Unavailable");
      return;
    }
    const peer = new Peer(socket, this.#tick);
    this.#peers[index] = peer;
    socket.callback = (message: number, value: number) => this.#socket(peer, message, value);
    this.#socket(peer, SocketMsg.Readable, socket.read());
  }

  #refuse(socket: TcpSocket, status: string): void {
    this.counters[BoardWebCounter.UpgradesRefused]++;
    try {
      socket.write(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
      socket.close();
    } catch {
      // gone already
    }
  }

  #socket(peer: Peer, message: number, value: number): void {
    if (peer.state === S.Gone) return;
    if (message === SocketMsg.Disconnect || message === SocketMsg.Error) {
      this.#gone(peer, false);
      return;
    }
    if (message !== SocketMsg.Readable || !(value > 0)) return;
    try {
      if (peer.state === S.Handshake) this.#handshake(peer);
      else this.#frames(peer);
    } catch {
      // The socket failed under us (write on a closed socket and the like).
      this.#gone(peer, true);
    }
  }

  #handshake(peer: Peer): void {
    const socket = peer.socket;
    peer.head += socket.read(String);
    const end = peer.head.indexOf("\r\n\r\n");
    if (end < 0) {
      if (peer.head.length > MAX_REQUEST) {
        this.#forget(peer);
        this.#refuse(socket, "431 Request Header Fields Too Large");
      }
      return;
    }
    const upgrade = upgradeRequest(peer.head.slice(0, end));
    peer.head = "";
    if (upgrade.key === "") {
      this.#forget(peer);
      this.#refuse(socket, "400 Bad Request");
      return;
    }
    const sha1 = new Digest("SHA1");
    sha1.write(upgrade.key + WS_GUID);
    const accept = new Uint8Array(sha1.close()).toBase64();
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    peer.reader = new FrameReader(MAX_PACKET);
    peer.address = `ws:${socket.get("REMOTE_IP") ?? "?"}`;
    peer.port = this.#nextPort++;
    peer.state = S.Open;
    peer.since = this.#tick;
    peer.lastPlayer = this.#tick;
    this.counters[BoardWebCounter.Connections]++;
  }

  #frames(peer: Peer): void {
    const socket = peer.socket;
    const reader = peer.reader!;
    const data = socket.read(ArrayBuffer);
    const bytes = new Uint8Array(data);
    const n = bytes.length;
    let i = 0;
    while (i < n && peer.state !== S.Gone) {
      i = reader.step(bytes, i, n);
      switch (reader.event) {
        case Frame.Binary: {
          const core = this.#core;
          if (peer.state === S.Open && core !== null) core.receive(reader.payload, reader.length, peer.address, peer.port);
          break;
        }
        case Frame.Text:
          this.counters[BoardWebCounter.TextDropped]++;
          break;
        case Frame.Fragmented:
          this.counters[BoardWebCounter.FragmentedDropped]++;
          break;
        case Frame.Ping:
          if (peer.state === S.Open) socket.write(0x8a, reader.length, reader.payload.subarray(0, reader.length));
          break;
        case Frame.Close:
          // Ours answered, or theirs: answer it with its code, then the socket goes.
          if (peer.state === S.Open) {
            const code = reader.code;
            if (code === Status.NoStatus) socket.write(0x88, 0);
            else socket.write(0x88, 2, code >> 8, code & 0xff);
          }
          this.#gone(peer, true);
          return;
        case Frame.Error:
          this.counters[BoardWebCounter.ProtocolErrors]++;
          if (peer.state === S.Open) this.#closeFrame(peer, reader.code, "");
          this.#gone(peer, true);
          return;
      }
    }
  }

  /** One packet to the connection numbered `port`. */
  send(bytes: Uint8Array, length: number, port: number): void {
    const peer = this.#find(port);
    if (peer === null || peer.state !== S.Open) {
      this.counters[BoardWebCounter.SendDropped]++;
      return;
    }
    const socket = peer.socket;
    const small = length < 126;
    try {
      if (socket.write() < length + (small ? 2 : 4)) {
        this.counters[BoardWebCounter.SendDropped]++;
        return;
      }
      if (length >= bytes.length) this.#write(socket, small, length, bytes);
      else {
        // write() sends a whole view: make one of exactly `length` bytes, as host.ts does.
        const buffer = this.#sendBuffer;
        this.#sendView.set(bytes.length <= MAX_PACKET ? bytes : bytes.subarray(0, MAX_PACKET));
        buffer.resize(length);
        try {
          this.#write(socket, small, length, this.#sendView);
        } finally {
          buffer.resize(MAX_PACKET);
        }
      }
    } catch {
      this.counters[BoardWebCounter.SendDropped]++;
      return;
    }
    // A Reject travels alone: header with rel 0 and unrel 1, then type 204 and the reason.
    if (length === HEADER_SIZE + 2 && bytes[12] === 0 && bytes[13] === 1 && bytes[14] === Msg.Reject) {
      this.counters[BoardWebCounter.RejectCloses]++;
      const reason = bytes[15];
      this.#close(peer, CloseCode.Rejected + reason, reason === RejectReason.ServerFull ? "server full" : "rejected");
    }
  }

  #write(socket: TcpSocket, small: boolean, length: number, view: Uint8Array): void {
    if (small) socket.write(0x82, length, view);
    else socket.write(0x82, 126, length >> 8, length & 0xff, view);
  }

  /** The server's log events, seen before the slot is freed: close the connections it dropped. */
  event(event: number, slot: number, value: number): void {
    const core = this.#core;
    if (core === null || slot < 0) return;
    const peer = this.#find(core.port[slot]);
    if (peer === null || peer.state !== S.Open) return;
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
    this.#close(peer, code, reason);
  }

  #find(port: number): Peer | null {
    if (port <= WS_PORT_BASE) return null;
    const peers = this.#peers;
    for (let i = 0; i < peers.length; i++) {
      const p = peers[i];
      if (p !== null && p.port === port) return p;
    }
    return null;
  }

  /** Send a close frame after the packets already written; the socket closes when the client answers (or CLOSING_S later). */
  #close(peer: Peer, code: number, reason: string): void {
    if (peer.state !== S.Open) return;
    try {
      this.#closeFrame(peer, code, reason);
    } catch {
      this.#gone(peer, true);
      return;
    }
    peer.state = S.Closing;
    peer.since = this.#tick;
  }

  #closeFrame(peer: Peer, code: number, reason: string): void {
    peer.socket.write(0x88, 2 + reason.length, code >> 8, code & 0xff, reason);
  }

  /** Take the peer out of the table without telling the core. */
  #forget(peer: Peer): void {
    const peers = this.#peers;
    for (let i = 0; i < peers.length; i++) if (peers[i] === peer) peers[i] = null;
    peer.state = S.Gone;
    peer.reader = null;
  }

  /** The connection is over: close the socket if asked, free the entry, and tell the core (a Disconnect). */
  #gone(peer: Peer, close: boolean): void {
    const wasPeer = peer.state === S.Open || peer.state === S.Closing;
    this.#forget(peer);
    if (close) {
      try {
        peer.socket.close();
      } catch {
        // closed already
      }
    }
    const core = this.#core;
    if (wasPeer && core !== null) core.disconnectPeer(peer.address, peer.port);
  }

  #sweep(): void {
    const tick = ++this.#tick;
    const core = this.#core;
    const peers = this.#peers;
    for (let i = 0; i < peers.length; i++) {
      const peer = peers[i];
      if (peer === null) continue;
      if (peer.state === S.Handshake) {
        if (tick - peer.since > HANDSHAKE_S) this.#gone(peer, true);
      } else if (peer.state === S.Closing) {
        if (tick - peer.since > CLOSING_S) this.#gone(peer, true);
      } else if (core !== null) {
        let player = false;
        const ports = core.port;
        for (let s = 0; s < ports.length; s++) if (ports[s] === peer.port) player = true;
        if (player) peer.lastPlayer = tick;
        else if (tick - peer.lastPlayer > this.#idleTicks) {
          this.counters[BoardWebCounter.IdleCloses]++;
          this.#close(peer, CloseCode.Idle, "not a player");
        }
      }
    }
  }
}
