/**
 * The Wi-Fi network (the default build, and the simulator). The settings (stored on the
 * board from /settings, else the build's) pick it:
 * - `ssid` set: join that network as a station (`password` for a protected one). If no
 *   address comes within JOIN_MS, the board gives up, starts its own access point instead
 *   and says why on its pages (`note`), so a maker can fix the settings from a phone.
 * - `ssid` empty (the first boot of a release image): the board is its own access point,
 *   `apSsid` (`apPassword`, or open), with a DNS server that sends every name to the board
 *   (a captive portal: phones open its welcome page; `dns=0`: none).
 * `ap=1` starts the access point beside a station as well. Modem sleep is turned off: it
 * adds up to a beacon interval of latency. The SDK's own joining before main (its
 * setup/network, which waits for good) is replaced by setup-network.js, which does nothing.
 */
import Net from "net";
import Timer from "timer";
import WiFi from "wifi";
import { resetReason } from "./board";
import { CaptiveDns } from "./captive-dns";
import type { Network } from "./network";
import { flagSetting, intSetting, textSetting } from "./settings";
import disablePowerSave from "./wifi-power";

/** How long a station may take to get an address before the board falls back to its access point. */
const JOIN_MS = 30000;

/** Starts the access point; returns a description for the banner. */
function startAccessPoint(station: boolean): string {
  const ssid = textSetting("apSsid", "lwar");
  const password = textSetting("apPassword", "");
  const channel = intSetting("apChannel", 1);
  const max = intSetting("apMax", 8);
  // An absent password means an open network; a present one must be 8..63 characters.
  const options = password !== "" ? { ssid, password, channel, max, station } : { ssid, channel, max, station };
  WiFi.accessPoint(options);
  return `access point "${ssid}" channel ${channel}${password !== "" ? "" : " (open)"}`;
}

function accessPoint(ready: (network: Network) => void, note: string, station: boolean): void {
  const description = `${startAccessPoint(station)}, Wi-Fi power save ${disablePowerSave() ? "off" : "unchanged"}`;
  const address = Net.get("IP", "ap") ?? Net.get("IP") ?? "0.0.0.0";
  let dns: CaptiveDns | null = null;
  if (flagSetting("dns", true)) {
    try {
      dns = new CaptiveDns(address);
      trace(`lwar-xs DNS: every name is ${address} (captive portal)\n`);
    } catch (e) {
      trace(`lwar-xs DNS: not started: ${(e as Error).message}\n`);
    }
  }
  const names = dns;
  ready({ address, description, portal: true, named: station, note, status: () => (names !== null ? ` | dns ${names.answered} answered` : "") });
}

export function startNetwork(ready: (network: Network) => void): void {
  if (resetReason() < 0) {
    // The simulator: the computer's own network.
    ready({ address: Net.get("IP") ?? "0.0.0.0", description: "no Wi-Fi (simulator)", portal: false, named: false, note: "", status: () => "" });
    return;
  }
  const ssid = textSetting("ssid", "");
  if (ssid === "") {
    trace("lwar-xs Wi-Fi: no network to join yet: starting the setup access point\n");
    accessPoint(ready, "", false);
    return;
  }
  const password = textSetting("password", "");
  trace(`lwar-xs Wi-Fi: joining "${ssid}"\n`);
  let settled = false;
  let disconnects = 0;
  const wifi = new WiFi(password !== "" ? { ssid, password } : { ssid }, (message) => {
    if (message === WiFi.disconnected) disconnects++;
    if (message !== WiFi.gotIP || settled) return;
    settled = true;
    Timer.clear(timer);
    const address = Net.get("IP") ?? "0.0.0.0";
    const description = `Wi-Fi station on "${ssid}", Wi-Fi power save ${disablePowerSave() ? "off" : "unchanged"}`;
    if (flagSetting("ap")) {
      accessPoint((n) => ready({ ...n, address, description: `${description}; ${n.description}` }), "", true);
      return;
    }
    ready({ address, description, portal: false, named: true, note: "", status: () => "" });
  });
  const timer = Timer.set(() => {
    if (settled) return;
    settled = true;
    wifi.close();
    WiFi.disconnect();
    const note = `The board could not join the Wi-Fi network "${ssid}" within ${JOIN_MS / 1000} s (${disconnects > 0 ? "refused: a wrong password?" : "not found: out of range, or a typo?"}). It is its own access point until the settings are fixed.`;
    trace(`lwar-xs Wi-Fi: ${note}\n`);
    accessPoint(ready, note, false);
  }, JOIN_MS);
}
