/**
 * How phones find the board in access-point mode (Wi-Fi builds only): a DNS server on UDP
 * port 53 that answers every name with the board's own address (dns.ts). A phone that
 * joins the board's network checks for a captive portal by fetching some well-known URL;
 * it reaches the board, which redirects it to the game page (web.ts), so the phone offers
 * to open the page. On a network the board joined (Wi-Fi station or cable), mdns.ts
 * names it instead.
 *
 * The DNS server is ours, on the ECMA-419 UDP socket the game uses, rather than the SDK's
 * `dns/server`: that one sits on the SDK's older socket module, whose Linux version never
 * binds a UDP socket that is not multicast (so it hears nothing in the simulator), and it
 * leaves questions other than A unanswered, which makes phones wait.
 */
import UDP from "embedded:io/socket/udp";
import { answerQuery, ipv4Bytes } from "./dns";

/** DNS messages over UDP are at most 512 bytes (RFC 1035) unless EDNS says more; answers fit in that. */
const DNS_MAX = 512;

export class CaptiveDns {
  // biome-ignore lint/correctness/noUnusedPrivateClassMembers: the reference keeps the socket open
  readonly #udp: UDP;
  readonly #ip = new Uint8Array(4);
  readonly #out = new Uint8Array(DNS_MAX);
  /** Queries answered, and datagrams that got no answer. */
  answered = 0;
  ignored = 0;

  /** Answers every name with `address`, a dotted IPv4 address. */
  constructor(address: string, port = 53) {
    if (!ipv4Bytes(address, this.#ip)) throw new RangeError(`not an IPv4 address: ${address}`);
    this.#udp = new UDP({ port, target: this, onReadable: this.#onReadable });
  }

  // Called with the socket as `this`; `target` is this server. Queries are few (a phone
  // asks a handful when it joins), so each answer is sent from a view of its own.
  #onReadable(this: unknown, count: number): void {
    const socket = this as UDP & { target: CaptiveDns };
    const dns = socket.target;
    while (count--) {
      const query = socket.read();
      if (query === undefined) break;
      const n = answerQuery(new Uint8Array(query), query.byteLength, dns.#ip, dns.#out);
      if (n === 0) {
        dns.ignored++;
        continue;
      }
      try {
        socket.write(dns.#out.subarray(0, n), query.address, query.port);
        dns.answered++;
      } catch {
        dns.ignored++;
      }
    }
  }
}
