/**
 * The network the board serves on, brought up before the server starts. The manifest
 * picks one implementation per build: network-wifi.ts (Wi-Fi station or access point;
 * also the simulator) or network-eth.ts (Ethernet: the wired variant and the emulator).
 */
export interface Network {
  /** The board's IPv4 address, "0.0.0.0" when it has none yet. */
  address: string;
  /** For the banner: which network, and how it was joined. */
  description: string;
  /** The board is the network (access point): captive-portal probes are redirected to the page. */
  portal: boolean;
  /** The board joined a network others are on: claim a `.local` name there with mDNS. */
  named: boolean;
  /** Why the board is not on the network it was set to join ("" when nothing is wrong): on the setup pages. */
  note: string;
  /** Appended to the status line ("" for nothing), e.g. the captive DNS's answers. */
  status(): string;
}

/** Brings the network up and calls `ready` once (at once, or when an address arrives). */
export function startNetwork(ready: (network: Network) => void): void;
