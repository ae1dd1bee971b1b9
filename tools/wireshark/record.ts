/**
 * Record an lwar match played in memory (harness/match.ts: the server with the game,
 * client-library bots on the seeded in-memory network) as the datagrams it put on the
 * wire, each way, and write them as a pcap file (tools/wireshark/pcap.ts).
 *
 * The match is scripted so that a short recording holds every message type of Rev 1 and
 * the Reject extension:
 *   0 s       every player connects (Connect; Join, Name, Selection and Add come back,
 *             then Stats and Update; the bots send Input, hunting and firing);
 *   1 s       the first player chats and picks ship 1, weapon 2; the second renames;
 *   1.5 s     one more client tries to connect to the full server and gets Reject;
 *   end - 2 s the last player disconnects (Disconnect; the others get Leave and Remove);
 *   end       the server shuts down (Leave of each player's own id).
 * Projectiles that expire add Remove along the way.
 */
import { ClientState } from "../../modules/client/client";
import { TestMatch } from "../../harness/match";
import type { MemHost, Network } from "../../harness/link";
import { PcapWriter, WebSocketStream } from "./pcap";

export interface RecordOptions {
  /** Players in the match, 1..8; the server is made full with this many. */
  players: number;
  /** Length of the match in seconds (at least 4: the script needs them). */
  seconds: number;
  seed: number;
  /** Also try a connection to the full server, which is answered with Reject. */
  reject: boolean;
}

export const DEFAULT_RECORD: Readonly<RecordOptions> = Object.freeze({ players: 3, seconds: 6, seed: 1, reject: true });

export const MIN_SECONDS = 4;

/** One datagram as sent. Addresses are IPv4 text, made up for the capture. */
export interface Datagram {
  /** Milliseconds since the start of the match. */
  ms: number;
  src: string;
  srcPort: number;
  dst: string;
  dstPort: number;
  bytes: Uint8Array;
}

export interface Recording {
  datagrams: Datagram[];
  serverAddress: string;
  serverPort: number;
  /** IPv4 address and UDP port of each client, the players first, then the rejected one (if any). */
  clients: Array<{ address: string; port: number }>;
  /** How each client's connection ended: "left", "rejected", "shutdown" or "other". */
  endings: string[];
}

/** The capture's made-up addresses, from the documentation range (RFC 5737). */
export const SERVER_IP = "192.0.2.1";
export function clientIp(index: number): string {
  return `192.0.2.${10 + index}`;
}

/** Play the scripted match and return every datagram it sent. */
export function recordMatch(options: Partial<RecordOptions> = {}): Recording {
  const o: RecordOptions = Object.assign({}, DEFAULT_RECORD, options);
  if (!Number.isInteger(o.players) || o.players < 1 || o.players > 8) throw new RangeError(`players must be 1..8, got ${o.players}`);
  if (!(o.seconds >= MIN_SECONDS)) throw new RangeError(`seconds must be at least ${MIN_SECONDS}, got ${o.seconds}`);
  const match = new TestMatch({ maxPlayers: o.players }, { seed: o.seed, delayMs: 1 });
  match.withGame(o.seed, "hunt", true);
  const ips = new Map<string, string>([[match.serverHost.address, SERVER_IP]]);
  const datagrams: Datagram[] = [];
  capture(match.net, ips, datagrams);

  for (let i = 0; i < o.players; i++) {
    ips.set(`mem:client${i}`, clientIp(i));
    match.client().connect();
  }
  match.run(1000);
  const first = match.clients[0];
  first.chat("hello from the first player");
  first.select(1, 2);
  if (o.players > 1) match.clients[1].rename("Nova");
  match.run(500);
  if (o.reject) {
    const i = match.clients.length;
    ips.set(`mem:client${i}`, clientIp(i));
    match.client().connect();
  }
  match.run(o.seconds * 1000 - 1500 - 2000);
  const last = match.clients[o.players - 1];
  last.disconnect();
  match.run(2000);
  match.server.shutdown();
  match.run(100);

  const endings = match.clients.map((c) =>
    c.state === ClientState.Closed ? "left" : c.state === ClientState.Rejected ? "rejected" : c.state === ClientState.Kicked ? "shutdown" : "other");
  return {
    datagrams,
    serverAddress: SERVER_IP,
    serverPort: match.serverHost.port,
    clients: match.hosts.map((h, i) => ({ address: clientIp(i), port: h.port })),
    endings,
  };
}

/** Copy every datagram any host of `net` sends, with the sender's and receiver's made-up IPs. */
function capture(net: Network, ips: Map<string, string>, out: Datagram[]): void {
  const enqueue = net.enqueue.bind(net);
  net.enqueue = (from: MemHost, bytes: Uint8Array, length: number, address: string, port: number): void => {
    out.push({
      ms: net.now,
      src: ipOf(ips, from.address),
      srcPort: from.port,
      dst: ipOf(ips, address),
      dstPort: port,
      bytes: bytes.slice(0, length),
    });
    enqueue(from, bytes, length, address, port);
  };
}

function ipOf(ips: Map<string, string>, address: string): string {
  const ip = ips.get(address);
  if (ip === undefined) throw new Error(`no capture address for ${address}`);
  return ip;
}

/** The server's HTTP port in WebSocket captures (the Node host's default). */
export const WEB_PORT = 8080;
/** TCP port of client i's WebSocket connection. */
export function webClientPort(index: number): number {
  return 50000 + index;
}

const CLOSES: Record<string, [number, string]> = {
  left: [1000, "left"],
  rejected: [4001, "server full"],
  shutdown: [4103, "kicked: shutdown"],
  other: [1001, "server shutting down"],
};

/**
 * The recording as a pcap file. Clients whose index is below `websocket` are carried over
 * WebSocket (one TCP connection each to the server's HTTP port, upgraded at `/ws`, one
 * binary message per packet), as browsers are; the others over UDP.
 */
export function toPcap(r: Recording, websocket = 0): Uint8Array {
  const pcap = new PcapWriter();
  const clientOf = (d: Datagram): number => {
    const fromServer = d.srcPort === r.serverPort && d.src === r.serverAddress;
    const port = fromServer ? d.dstPort : d.srcPort;
    return r.clients.findIndex((c) => c.port === port);
  };
  // Each WebSocket client's last datagram: its connection closes right after it.
  const last = new Map<number, number>();
  r.datagrams.forEach((d, i) => {
    const c = clientOf(d);
    if (c >= 0 && c < websocket) last.set(c, i);
  });
  const streams = new Map<number, WebSocketStream>();
  r.datagrams.forEach((d, i) => {
    const c = clientOf(d);
    if (c < 0 || c >= websocket) {
      pcap.udp(d.ms, d.src, d.srcPort, d.dst, d.dstPort, d.bytes);
      return;
    }
    let s = streams.get(c);
    if (s === undefined) {
      s = new WebSocketStream(pcap, r.clients[c].address, webClientPort(c), r.serverAddress, WEB_PORT);
      s.open(d.ms);
      streams.set(c, s);
    }
    s.message(d.ms, d.src !== r.serverAddress, d.bytes);
    if (last.get(c) === i) {
      const [code, reason] = CLOSES[r.endings[c]] ?? CLOSES.other;
      s.close(d.ms, code, reason);
    }
  });
  return pcap.bytes();
}
