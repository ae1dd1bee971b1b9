/**
 * The Wi-Fi network (the default build, and the simulator). Station mode is joined by the
 * SDK's setup/network before main runs (config `ssid`, `password`); `ap=1` starts an
 * access point instead (or as well), with a DNS server that sends every name to the board
 * (`dns=0`: none). Modem sleep is turned off: it adds up to a beacon interval of latency.
 */
import Net from "net";
import WiFi from "wifi";
import { CaptiveDns } from "./captive-dns";
import type { Network } from "./network";
import { flagSetting, intSetting, textSetting } from "./settings";
import disablePowerSave from "./wifi-power";

/** Starts the access point; returns a description for the banner. */
function startAccessPoint(): string {
  const ssid = textSetting("apSsid", "lwar");
  const password = textSetting("apPassword", "");
  const channel = intSetting("apChannel", 1);
  const max = intSetting("apMax", 8);
  // Keep the station up when setup/network joined a network already.
  const station = textSetting("ssid", "") !== "";
  // An absent password means an open network; a present one must be 8..64 characters.
  const options = password !== "" ? { ssid, password, channel, max, station } : { ssid, channel, max, station };
  WiFi.accessPoint(options);
  return `access point "${ssid}" channel ${channel}${password !== "" ? "" : " (open)"}`;
}

export function startNetwork(ready: (network: Network) => void): void {
  let description = "no Wi-Fi (simulator)";
  let address = Net.get("IP") ?? "0.0.0.0";
  const ap = flagSetting("ap");
  const station = textSetting("ssid", "") !== "";
  if (ap) {
    description = startAccessPoint();
    address = Net.get("IP", "ap") ?? address;
  } else if (station) description = `Wi-Fi station on "${textSetting("ssid", "")}"`;
  description += `, Wi-Fi power save ${disablePowerSave() ? "off" : "unchanged"}`;
  let dns: CaptiveDns | null = null;
  if (ap && flagSetting("dns", true)) {
    try {
      dns = new CaptiveDns(address);
      trace(`lwar-xs DNS: every name is ${address} (captive portal)\n`);
    } catch (e) {
      trace(`lwar-xs DNS: not started: ${(e as Error).message}\n`);
    }
  }
  const names = dns;
  ready({ address, description, portal: ap, named: station, status: () => (names !== null ? ` | dns ${names.answered} answered` : "") });
}
