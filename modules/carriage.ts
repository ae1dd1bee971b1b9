/**
 * The WebSocket carriage as both hosts have it (hosts/node/web.ts, hosts/moddable/web.ts):
 * how its connections are numbered, what it counts, the close codes it sends, and what it
 * needs of the server and gives the host. The sockets themselves are each host's own.
 * Rev 1 packets travel one binary message each, unchanged (docs/protocol.md, "WebSocket
 * carriage").
 */
import type { Core } from "./host";
import { counterNames } from "./protocol/counters";

/** Ports above this name WebSocket connections; a UDP port never does. */
export const WS_PORT_BASE = 0x10000;
/** The WebSocket endpoint's path. */
export const WS_PATH = "/ws";

/** What a web transport counts, as indices into its `counters`; the board adds its own after these. */
export const WebCounter = Object.freeze({
  /** WebSocket connections accepted (handshake done). */
  Connections: 0,
  /** Text messages dropped (packets travel as binary messages only). */
  TextDropped: 1,
  /** Messages dropped because they came in more than one frame. */
  FragmentedDropped: 2,
  /** Connections closed for a protocol error, too many fragments or a message over the limit. */
  ProtocolErrors: 3,
  /** Packets not sent: the connection had no room, or was closing or gone. */
  SendDropped: 4,
  /** Connections closed after a Reject. */
  RejectCloses: 5,
  /** Connections closed after a kick, a timeout or a Disconnect of their player. */
  PlayerCloses: 6,
  /** Connections closed for not being a player for `idleMs`. */
  IdleCloses: 7,
  /** Upgrades refused: another path, not a valid upgrade, or `maxConnections` open already. */
  UpgradesRefused: 8,
  HttpRequests: 9,
  HttpNotFound: 10,
} as const);

export const WEB_COUNTER_NAMES: readonly string[] = Object.freeze(counterNames(WebCounter));
/** Counters that mean something was dropped or refused, for the status line. */
export const WEB_DROPS: readonly number[] = Object.freeze([
  WebCounter.TextDropped, WebCounter.FragmentedDropped, WebCounter.ProtocolErrors, WebCounter.SendDropped, WebCounter.UpgradesRefused,
]);

/**
 * WebSocket close codes the hosts send (4000..4999 is for applications). The reason text
 * says the same in words; the page shows it.
 */
export const CloseCode = Object.freeze({
  /** The player sent Disconnect. */
  Left: 1000,
  /** The HTTP server is shutting down with the connection not a player. */
  GoingAway: 1001,
  /** Reject: 4000 + reason (4001: server full). */
  Rejected: 4000,
  /** Kicked: 4100 + kick reason (4101 queue overflow, 4102 misbehaviour, 4103 shutdown). */
  Kicked: 4100,
  /** Dropped for silence. */
  TimedOut: 4200,
  /** Open for `idleMs` without being a player. */
  Idle: 4201,
} as const);

/** A generated response: `/status`, `/metrics`. */
export interface RouteResponse {
  type: string;
  body: string;
}

/** What the transport needs of the server. */
export interface PeerCore extends Core {
  /** Forget a peer whose connection is gone (a Disconnect with nothing sent back). */
  disconnectPeer(address: string, port: number): boolean;
  /** Port of the player in each slot, -1 when free. */
  readonly port: ArrayLike<number>;
}

/** What the host needs of the transport: peers carried by something other than the UDP socket, numbered above 65535. */
export interface PeerCarriage {
  /** One packet to the peer numbered `port`; the carriage counts what it cannot send. */
  send(bytes: Uint8Array, length: number, port: number): void;
  /** Sees every log event before the log sink does, while the slot still names its peer. */
  event(event: number, slot: number, value: number): void;
}

/** A peer as log lines show it: address:port for UDP, ws:address#n for a WebSocket connection. */
export function describePeer(address: string, port: number): string {
  return port > WS_PORT_BASE ? `${address}#${port - WS_PORT_BASE}` : `${address}:${port}`;
}
