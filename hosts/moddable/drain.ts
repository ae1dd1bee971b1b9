/**
 * The board's receive path on the XS side: every datagram net.c's ring holds, taken in
 * order (udpNext copies it straight into the core's receive buffer where the core lends
 * one) and handed to the core with its sender's address string. Address strings are made
 * once per sender and kept in a small table, so a datagram allocates nothing. The host
 * (host.ts) drains once a tick; the device bench (bench/device/board-receive.ts) times the
 * same object on the emulated ESP32.
 */
import type { Core, DirectCore } from "../../modules/host";
import { MAX_PACKET } from "../../modules/protocol/constants";
import { udpNext } from "./net";

/** Senders whose address strings are kept (a round robin: most recent first is not kept). */
const ADDRESSES = 16;

/** A network-order IPv4 address as net.c gives it, in dotted form. */
export function ipText(ip: number): string {
  return `${ip & 0xff}.${(ip >>> 8) & 0xff}.${(ip >>> 16) & 0xff}.${ip >>> 24}`;
}

export class BoardDrain {
  /** The receive buffer for a core that does not lend its own. */
  readonly #rx: Uint8Array;
  /** The last datagram's sender: the IPv4 address (network order), the port. */
  readonly #from: Uint32Array;
  readonly #fromBytes: Uint8Array;
  /** Senders' address strings, by their IPv4 address. Plain arrays: cheaper than typed ones on XS. */
  readonly #ips: number[] = [];
  readonly #names: string[] = [];
  #nextName = 0;

  constructor() {
    this.#rx = new Uint8Array(MAX_PACKET);
    this.#from = new Uint32Array(2);
    this.#fromBytes = new Uint8Array(this.#from.buffer);
    for (let i = 0; i < ADDRESSES; i++) {
      this.#ips.push(-1);
      this.#names.push("");
    }
  }

  /** Every datagram waiting in the ring, into the core: straight into its own receive buffer where it lends one. */
  drain(core: Core): void {
    const direct = (core as Partial<DirectCore>).received !== undefined ? (core as DirectCore) : null;
    const rx = direct !== null ? direct.rxBuffer : this.#rx;
    const from = this.#from;
    const fromBytes = this.#fromBytes;
    for (;;) {
      const length = udpNext(rx, fromBytes);
      if (length < 0) return;
      const address = this.#address(from[0]);
      if (direct !== null) direct.received(length, address, from[1]);
      else core.receive(rx, length, address, from[1]);
    }
  }

  /** The address string of a sender: the one made before, or a new one that takes the oldest entry's place. */
  #address(ip: number): string {
    const ips = this.#ips;
    for (let i = 0; i < ADDRESSES; i++) if (ips[i] === ip) return this.#names[i];
    const i = this.#nextName;
    this.#nextName = (i + 1) % ADDRESSES;
    ips[i] = ip;
    const name = ipText(ip);
    this.#names[i] = name;
    return name;
  }
}
