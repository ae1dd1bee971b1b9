/**
 * How phones find the board on a network it joined (Wi-Fi station or Ethernet): the
 * SDK's mDNS (`mdns`) claims `<hostName>.local` and announces the page as an
 * `_http._tcp` service.
 */
import MDNS from "mdns";

/** The SDK's MDNS callback message that reports the name claimed (MDNS.hostName in mdns.js). */
const MDNS_HOST_NAME = 1;

/**
 * Claims `<hostName>.local` (or `<hostName>-2.local` and so on, when another device holds
 * it) and announces the page on `httpPort` (0: no page, no service). `claimed` gets the
 * name once probing is done.
 */
export function startMdns(hostName: string, httpPort: number, claimed: (name: string) => void): MDNS {
  const mdns: MDNS = new MDNS({ hostName }, (message: number, value?: string) => {
    if (message !== MDNS_HOST_NAME || value === undefined || value === "") return;
    if (httpPort > 0) mdns.add({ name: "http", protocol: "tcp", port: httpPort, txt: {} });
    claimed(value);
  });
  return mdns;
}
