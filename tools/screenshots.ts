/**
 * `npm run screenshots`: the pictures in docs/, taken in headless Chromium (LWAR_CHROMIUM,
 * default /usr/bin/chromium) against a server started here on free ports with five UDP
 * players that hunt:
 *
 * - docs/play.png: a desktop (1280 × 800) player thrusting and firing, chat lines in the log;
 * - docs/phone.png: a phone held upright (390 × 844, touch), holding FIRE.
 *
 * `--out DIR` writes them elsewhere. The layout tests (test/web/phone.test.ts) take their
 * own screenshots into a temporary folder; this is the one thing that writes docs/.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { defineCommand } from "../cli";
import { makeConfig } from "../modules/config";
import { serve } from "../hosts/node/serve";
import { buildWeb } from "../web/build";
import { CHROMIUM, closeCrowd, crowd, DESKTOP, launchChromium, PHONE_PORTRAIT, player, settled, sleep, snap, until } from "./screens";
import { installNodeKernels } from "../hosts/node/kernels";

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)));

export const screenshotsCommand = defineCommand({
  name: "screenshots",
  script: "npm run screenshots",
  summary: "the pictures in docs/ (play.png on a desktop, phone.png on a phone), taken in headless Chromium.",
  options: {
    out: { type: "string", default: join(ROOT, "docs"), defaultText: "docs/", arg: "DIR", help: "the folder to write play.png and phone.png into" },
  },
  notes: `Needs Chromium at ${CHROMIUM} (or LWAR_CHROMIUM). Starts its own server on free ports with five UDP players that hunt.`,
  failure: "no Chromium, or the pages did not reach the state pictured",
});

async function main(): Promise<void> {
  // Clients run the transport's C as WebAssembly (hosts/node/kernels.ts).
  installNodeKernels();
  const values = screenshotsCommand.parse();
  if (!existsSync(CHROMIUM)) screenshotsCommand.fail(`no Chromium at ${CHROMIUM} (Debian: apt-get install chromium; or set LWAR_CHROMIUM)`);
  const out = resolve(values.out);
  mkdirSync(out, { recursive: true });
  // The page as the sources build it now, not the copy in dist/.
  const server = await serve({ config: makeConfig(), seed: 20240607, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: await buildWeb() });
  const url = `http://127.0.0.1:${server.http!.port}/`;
  const bots = await crowd(server.udp.port, 5, "hunt", ["Vega", "Orion", "Lyra", "Deneb", "Rigel"]);
  const browser = await launchChromium();
  try {
    const desk = await player(browser, url, DESKTOP);
    const phone = await player(browser, url, PHONE_PORTRAIT);
    const alice = desk.page;
    await alice.click("#menu-button");
    await alice.fill("#name", "Alice");
    await alice.press("#name", "Enter");
    await until(() => snap(alice), (s) => s.players.some((p) => p.slot === s.selfSlot && p.name === "Alice"), 5000, "Alice's name");
    const say = ["anyone near the sun?", "on my way", "watch the big planet, it pulls hard"];
    for (let k = 0; k < say.length; k++) {
      bots[k].client.chat(say[k]);
      await sleep(300);
    }
    await alice.keyboard.press("Enter");
    await alice.keyboard.type("hello from Alice");
    await alice.keyboard.press("Enter");
    await settled(alice);
    await settled(phone.page);

    // The hunters may have got a ship meanwhile: each picture is of a page flying.
    await until(() => snap(alice), (s) => s.phase === "playing", 10000, "the desktop page to fly");
    await alice.keyboard.down("ArrowUp");
    await alice.keyboard.down("Space");
    await sleep(900);
    await alice.screenshot({ path: join(out, "play.png") });
    await alice.keyboard.up("ArrowUp");
    await alice.keyboard.up("Space");

    await until(() => snap(phone.page), (s) => s.phase === "playing", 10000, "the phone page to fly");
    const cdp = await phone.context.newCDPSession(phone.page);
    const fire = await phone.page.locator("#fire").boundingBox();
    if (fire === null) throw new Error("no FIRE button on the phone");
    await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: fire.x + fire.width / 2, y: fire.y + fire.height / 2, id: 1 }] });
    await sleep(700);
    await phone.page.screenshot({ path: join(out, "phone.png") });
    await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });

    const errors = [...desk.errors, ...phone.errors];
    if (errors.length > 0) throw new Error(`errors in the pages: ${errors.join("; ")}`);
    console.log(`wrote ${join(out, "play.png")} and ${join(out, "phone.png")}`);
  } finally {
    await browser.close();
    await closeCrowd(bots);
    await server.close();
  }
}

void main().catch((e: unknown) => screenshotsCommand.fail(e instanceof Error ? e.message : String(e)));
