/**
 * The wired network: ethernet.c brings up the MAC (the ESP32's EMAC with a LAN8720-class
 * PHY, or QEMU's open_eth) and DHCP; the server starts once an address arrives. No Wi-Fi
 * code is in this build. While the cable or DHCP keeps it waiting, a line every 5 s says so.
 */
import Net from "net";
import Timer from "timer";
import { driver, linked, start } from "./ethernet";
import type { Network } from "./network";

const POLL_MS = 100;
const REPORT_MS = 5000;

function addressOf(): string | undefined {
  const ip = Net.get("IP", "ethernet");
  return ip === undefined || ip === "" || ip === "0.0.0.0" ? undefined : ip;
}

export function startNetwork(ready: (network: Network) => void): void {
  const err = start();
  const description = `Ethernet (${driver()})`;
  if (err !== 0) {
    trace(`lwar-xs Ethernet: bring-up failed, esp_err_t 0x${err.toString(16)}\n`);
    ready({ address: "0.0.0.0", description: `${description}: bring-up failed`, portal: false, named: false, note: "Ethernet did not come up.", status: () => "" });
    return;
  }
  let waited = 0;
  Timer.repeat((id) => {
    const address = addressOf();
    if (address === undefined) {
      waited += POLL_MS;
      if (waited % REPORT_MS === 0) trace(`lwar-xs Ethernet: ${linked() ? "link up, waiting for DHCP" : "no link (cable?)"} after ${waited / 1000} s\n`);
      return;
    }
    Timer.clear(id);
    ready({ address, description: `${description}, DHCP after ${waited} ms`, portal: false, named: true, note: "", status: () => "" });
  }, POLL_MS);
}
