/**
 * Players for the integration tests: client-library Clients over a `ws` WebSocket (through
 * the page's own SocketHost and World) or over UDP (through a NodeHost).
 */
import WebSocket from "ws";
import { makeConfig } from "../../modules/config";
import { ClientState, createClient, type Client } from "../../modules/client/client";
import { NodeHost } from "../../hosts/node/host";
import { behaviourInput } from "../../harness/behaviours";
import { SERVER_ADDRESS, SERVER_PORT, SocketHost } from "../../web/socket";
import { World } from "../../web/world";

export interface WsPlayer {
  socket: WebSocket;
  host: SocketHost;
  client: Client;
  world: World;
  /** Resolves with the close frame's code and reason when the socket closes. */
  closed: Promise<{ code: number; reason: string }>;
}

/** A WebSocket player that connects as soon as its socket opens. */
export function wsPlayer(url: string, tickMs = 10): WsPlayer {
  const socket = new WebSocket(url);
  const host = new SocketHost(socket);
  const client = createClient(makeConfig(), host, SERVER_ADDRESS, SERVER_PORT);
  const world = new World(client, () => performance.now());
  socket.on("open", () => {
    host.attach(client, tickMs);
    client.connect();
  });
  socket.on("message", (data: Buffer, isBinary: boolean) => {
    if (isBinary) host.deliver(data);
  });
  socket.on("error", () => {});
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on("close", (code: number, reason: Buffer) => {
      world.closed(code, reason.toString());
      host.stop();
      resolve({ code, reason: reason.toString() });
    }),
  );
  return { socket, host, client, world, closed };
}

/** A bare socket, resolved once open. */
export function openSocket(url: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    socket.once("open", () => resolve(socket));
    socket.once("error", reject);
  });
}

/** The close code of `socket`, once it closes. */
export function closeOf(socket: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) resolve(-1);
    else socket.once("close", (code: number) => resolve(code));
  });
}

export interface UdpPlayer {
  host: NodeHost;
  client: Client;
}

/** A UDP player on its own loopback socket, connected to 127.0.0.1:`port`, flying as `behaviour` (harness/behaviours.ts). */
export async function udpPlayer(port: number, behaviour = "idle"): Promise<UdpPlayer> {
  const host = new NodeHost({ tickMs: 10 });
  await host.listen(0, "127.0.0.1");
  const client = createClient(makeConfig(), host, "127.0.0.1", port);
  host.attach({
    receive: (b, n, a, p) => client.receive(b, n, a, p),
    tick: (now) => {
      if (client.state === ClientState.Connected) client.setInput(behaviourInput(behaviour, client, now));
      client.tick(now);
    },
  });
  client.connect();
  return { host, client };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Poll `cond` every 10 ms; fail with `what` after `ms`. */
export async function waitFor(cond: () => boolean, ms: number, what: string): Promise<void> {
  const end = performance.now() + ms;
  while (!cond()) {
    if (performance.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

export function connected(c: Client): boolean {
  return c.state === ClientState.Connected;
}
