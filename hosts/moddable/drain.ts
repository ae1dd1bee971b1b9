/**
 * The board's receive path on the XS side: every datagram net.c's ring holds, taken in
 * order (udpNext copies it straight into the core's receive buffer where the core lends
 * one, and returns its length and its sender's port in one number) and handed to the core
 * with its sender's address string and the one clock reading the host took for the drain.
 * Address strings are made once per sender and kept in a small table, found through a hint
 * by the address's last byte, so a datagram allocates nothing and usually costs one
 * comparison. The host (host.ts) drains once a tick; the device bench
 * (bench/device/board-receive.ts) times the same object on the emulated ESP32.
 */
import type { Core, DirectCore } from "../../modules/host";
import { MAX_PACKET } from "../../modules/protocol/constants";
import { udpNext } from "./net";

/** Senders whose address strings are kept (a round robin: most recent first is not kept). */
const ADDRESSES = 16;
/** udpNext's result: the length in its low bits (MAX_DATAGRAM is 512), the port above them. */
const LENGTH_BITS = 10;
const LENGTH_MASK = (1 << LENGTH_BITS) - 1;
/** An empty entry of the address table: no signed 32-bit address is this. */
const NO_IP = 2 ** 32;

/** A network-order IPv4 address as net.c gives it, in dotted form. */
export function ipText(ip: number): string {
  return `${ip & 0xff}.${(ip >>> 8) & 0xff}.${(ip >>> 16) & 0xff}.${ip >>> 24}`;
}

export class BoardDrain {
  /** The receive buffer for a core that does not lend its own. */
  readonly #rx: Uint8Array;
  /**
   * The last datagram's sender's IPv4 address (network order), read as a signed word: an
   * address whose last byte is 128 or more would be above 2^31 unsigned, a double on XS
   * (emulated floating point on the ESP32) in every comparison.
   */
  readonly #from: Int32Array;
  readonly #fromBytes: Uint8Array;
  /** Senders' address strings, by their IPv4 address. Plain arrays: cheaper than typed ones on XS. */
  readonly #ips: number[] = [];
  readonly #names: string[] = [];
  /** By an address's last byte (low 4 bits): where in the table that sender was last found. A hint only. */
  readonly #hint: number[] = [];
  #nextName = 0;

  constructor() {
    this.#rx = new Uint8Array(MAX_PACKET);
    this.#from = new Int32Array(1);
    this.#fromBytes = new Uint8Array(this.#from.buffer);
    for (let i = 0; i < ADDRESSES; i++) {
      this.#ips.push(NO_IP);
      this.#names.push("");
      this.#hint.push(0);
    }
  }

  /**
   * Every datagram waiting in the ring, into the core: straight into its own receive buffer
   * where it lends one, with `now`, the host's clock read once for the drain.
   */
  drain(core: Core, now: number): void {
    const direct = (core as Partial<DirectCore>).received !== undefined ? (core as DirectCore) : null;
    const rx = direct !== null ? direct.rxBuffer : this.#rx;
    const from = this.#from;
    const fromBytes = this.#fromBytes;
    for (;;) {
      const r = udpNext(rx, fromBytes);
      if (r < 0) return;
      const address = this.#address(from[0]);
      if (direct !== null) direct.received(r & LENGTH_MASK, address, r >>> LENGTH_BITS, now);
      else core.receive(rx, r & LENGTH_MASK, address, r >>> LENGTH_BITS);
    }
  }

  /** The address string of a sender: the one made before, or a new one that takes the oldest entry's place. */
  #address(ip: number): string {
    const ips = this.#ips;
    const h = (ip >>> 24) & (ADDRESSES - 1);
    const hinted = this.#hint[h];
    if (ips[hinted] === ip) return this.#names[hinted];
    for (let i = 0; i < ADDRESSES; i++) {
      if (ips[i] === ip) {
        this.#hint[h] = i;
        return this.#names[i];
      }
    }
    const i = this.#nextName;
    this.#hint[h] = i;
    this.#nextName = (i + 1) % ADDRESSES;
    ips[i] = ip;
    const name = ipText(ip);
    this.#names[i] = name;
    return name;
  }
}
