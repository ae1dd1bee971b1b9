/** A Host that records every datagram sent and whose clock the test sets. */
import type { Host } from "../../modules/host";

export class FakeHost implements Host {
  t = 0;
  readonly sent: { bytes: Uint8Array; address: string; port: number }[] = [];
  send(bytes: Uint8Array, length: number, address: string, port: number): void {
    this.sent.push({ bytes: bytes.slice(0, length), address, port });
  }
  now(): number {
    return this.t;
  }
  log(_event: number, _slot: number, _value: number): void {}
}
