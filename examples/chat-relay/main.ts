/**
 * The chat relay on Moddable: an ECMA-419 UDP socket and a repeating timer around
 * relay.ts. The port comes from the manifest's config (mcconfig ... port=N to change it).
 * The transport's state lives in C (modules/kernels/transport.c, built into the app by
 * hosts/moddable/kernels.c): main hands it to the transport before the relay is made.
 */
import UDP from "embedded:io/socket/udp";
import Timer from "timer";
import Time from "time";
import config from "mc/config";
import { transport } from "../../hosts/moddable/kernels";
import type { Kernels } from "../../modules/native";
import { ChatRelay, type ChatHost } from "./relay";

const TICK_MS = 10;
const MAX_DATAGRAM = 512;

class RelayHost implements ChatHost {
  readonly relay: ChatRelay;
  readonly #udp: UDP;
  #lastTicks = Time.ticks;
  #now = 0;
  // write() sends all of the buffer it is given: one resizable buffer, cut to each
  // datagram's length, spares a new view per send.
  readonly #out = new ArrayBuffer(MAX_DATAGRAM, { maxByteLength: MAX_DATAGRAM });
  readonly #outView = new Uint8Array(this.#out);

  constructor(port: number) {
    this.relay = new ChatRelay(this);
    this.#udp = new UDP({ port, target: this, onReadable: this.#onReadable });
    Timer.repeat(() => this.relay.tick(this.now()), TICK_MS);
  }

  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    const view = this.#outView;
    for (let i = 0; i < length; i++) view[i] = bytes[i];
    this.#out.resize(length);
    try {
      this.#udp.write(this.#outView, address, port);
    } catch {
      // Out of buffers or no route: the transport sends again.
    }
    this.#out.resize(MAX_DATAGRAM);
  }

  // Time.ticks wraps on ESP32; Time.delta (given both ends) does not mind.
  now(): number {
    const ticks = Time.ticks;
    const delta = Time.delta(this.#lastTicks, ticks);
    this.#lastTicks = ticks;
    if (delta > 0) this.#now += delta;
    return this.#now;
  }

  // Called with the socket as `this`; `target` is the host.
  #onReadable(this: unknown, count: number): void {
    const socket = this as UDP & { target: RelayHost };
    const relay = socket.target.relay;
    while (count--) {
      const packet = socket.read();
      if (packet === undefined) break;
      relay.receive(new Uint8Array(packet), packet.byteLength, packet.address, packet.port);
    }
  }
}

export default function main(): void {
  // The native loops the transport finds (modules/native.ts, platformMemory): only its own.
  (globalThis as { lwarKernels?: Pick<Kernels, "transport"> }).lwarKernels = { transport };
  const port = Number(config.port ?? 32423);
  new RelayHost(port);
  trace(`chat relay: UDP port ${port}\n`);
}
