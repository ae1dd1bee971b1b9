/** Headless Chromium for the browser tests: Debian's `chromium`, driven by playwright-core. */
import { chromium, type Browser } from "playwright-core";

export const CHROMIUM = process.env.LWAR_CHROMIUM ?? "/usr/bin/chromium";

/** Flags for a quiet, self-contained headless Chromium. playwright adds a fresh --user-data-dir of its own. */
export const CHROMIUM_ARGS: readonly string[] = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...CHROMIUM_ARGS], timeout: 30000 });
}
