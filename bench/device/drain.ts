/**
 * The board's receive path, as the firmware runs it, for the device bench: the steps of
 * `ModdableHost`'s drain (hosts/moddable/host.ts) with the same fields. The host's own cannot
 * be called here: it is private, runs from its Timer, and its constructor binds a socket,
 * which needs the network the bench app does not start. The bodies of `drain` and
 * `#address` are the host's `#drain` and `#address` word for word; `sameAsHost` (in
 * generate.ts) compares them, and the bench does not run when they differ.
 */
import type { Core, DirectCore } from "../../modules/host";
import { MAX_PACKET } from "../../modules/protocol/constants";
import { ipText } from "../../hosts/moddable/host";
import { udpNext } from "../../hosts/moddable/net";

/** As in host.ts. */
const ADDRESSES = 16;

export class BoardDrain {
  readonly #rx: Uint8Array;
  readonly #from: Uint32Array;
  readonly #fromBytes: Uint8Array;
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
