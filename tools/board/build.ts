/**
 * `npm run build:esp32` and `npm run build:sim`: every step of a Moddable build of the app
 * (the page's resources, the import check, the output folder, mcconfig), then where the
 * firmware and its size report are.
 */
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { defineCommand, EXIT_FAILURE } from "../../cli";
import { buildApp, buildEnv, missingTools, packageVersion, ROOT, sizeReport, VARIANTS, writeRelease, type Variant } from "./kit";

const variants = Object.keys(VARIANTS) as Variant[];

export const esp32Command = defineCommand({
  name: "build:esp32",
  script: "npm run build:esp32",
  summary: "build the ESP32 firmware: the game page into flash, a check that every import exists on the device, then mcconfig; prints where the firmware and its size report are.",
  options: {
    variant: {
      type: "choice",
      choices: variants,
      default: "wifi",
      help: variants.map((v) => `${v}: ${VARIANTS[v].about}`).join("; "),
    },
    target: { type: "string", arg: "NAME", help: "a Moddable board target, built as -p esp32/NAME (default: bare -p esp32)" },
    out: { type: "string", arg: "DIR", defaultText: "build/esp32/VARIANT", help: "output folder (made if missing; for the two variants of a release, DIR/VARIANT)" },
    release: {
      type: "flag",
      help: "a release build (no xsbug; the default is the variant's -d, or -i for the emulator), and its release files in OUT/release: lwar-xs-VARIANT-VERSION.bin, one image to flash at 0x0, and ESP Web Tools' manifest.json; without --variant, the Wi-Fi and the wired variants (OUT/VARIANT)",
    },
    set: { type: "strings", arg: "NAME=VALUE", help: "a config setting for the app, e.g. --set ssid=MyNetwork --set password=secret" },
  },
  notes:
    "Needs MODDABLE (Moddable SDK 8.x), IDF_PATH (ESP-IDF v6.0) with its toolchain and idf.py on PATH, and tsc (npm install). Where MODDABLE or IDF_PATH is not set, the ESP32 kit's env.sh (ESP32_ENV, default /opt/esp32/env.sh) is read. To flash, run the idf.py command the summary prints, or mcconfig without -t build.",
  failure: "the build failed, or a tool is missing",
});

export const simCommand = defineCommand({
  name: "build:sim",
  script: "npm run build:sim",
  summary: "build the app for the Moddable simulator on Linux (mcconfig -d -m -p lin -t build) and print how to run it.",
  options: {
    out: { type: "string", arg: "DIR", default: "build/sim", help: "output folder (made if missing)" },
    set: { type: "strings", arg: "NAME=VALUE", help: "a config setting for the app, e.g. --set httpPort=8080" },
  },
  notes: "Needs MODDABLE (Moddable SDK 8.x) with its Linux tools, and tsc (npm install); reads the ESP32 kit's env.sh where MODDABLE is not set.",
  failure: "the build failed, or a tool is missing",
});

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function checkSettings(list: string[], usage: (m: string) => never): void {
  for (const s of list) if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(s)) usage(`--set ${s}: expected NAME=VALUE`);
}

async function buildEsp32(): Promise<void> {
  const v = esp32Command.parse();
  checkSettings(v.set, esp32Command.usage);
  const variant = v.variant as Variant;
  const platform = v.target === undefined ? "esp32" : `esp32/${v.target}`;
  if (v.target !== undefined && !/^[a-z0-9_]+$/.test(v.target)) esp32Command.usage(`--target ${v.target}: a target is a folder name such as wt32_eth01`);
  const env = buildEnv();
  const missing = missingTools(platform, env);
  if (missing.length > 0) esp32Command.fail(`cannot build for ${platform}:\n  ${missing.join("\n  ")}`);
  if (v.target !== undefined && !fs.existsSync(path.join(env.MODDABLE as string, "build", "devices", "esp32", "targets", v.target)))
    esp32Command.usage(`--target ${v.target}: no such target in ${env.MODDABLE}/build/devices/esp32/targets`);
  // A release with no --variant is one for each variant a maker flashes: Wi-Fi and wired.
  const explicit = process.argv.some((a) => a === "--variant" || a.startsWith("--variant="));
  const which: Variant[] = v.release && !explicit ? ["wifi", "wired"] : [variant];
  for (const one of which) {
    const folder = one + (v.target !== undefined ? `-${v.target}` : "");
    const out = path.resolve(v.out !== undefined ? (which.length > 1 ? path.join(v.out, folder) : v.out) : path.join(ROOT, "build", "esp32", folder));
    if (!(await buildOne(one, platform, out, v.release, v.set, env))) process.exit(EXIT_FAILURE);
  }
}

async function buildOne(variant: Variant, platform: string, out: string, release: boolean, settings: string[], env: NodeJS.ProcessEnv): Promise<boolean> {
  const log = path.join(out, "build.log");
  fs.mkdirSync(out, { recursive: true });
  say(`build:esp32: the ${variant} variant (${VARIANTS[variant].about}) for ${platform}${release ? ", a release" : ""}`);
  try {
    const built = await buildApp({ variant, platform, out, mode: release ? "" : undefined, settings, say, log, env });
    const size = sizeReport(built, env);
    const report = path.join(out, "size.txt");
    fs.writeFileSync(report, `${built.app}: ${size.image} B${size.partition > 0 ? ` of a ${size.partition} B app partition` : ""}\n\n${size.text}`);
    say("");
    say(`firmware: ${built.bin}/ (xs_esp32.bin, bootloader.bin, partition-table.bin)`);
    say(`size report: ${report}`);
    if (built.idfBuild !== null) say(`flash: cd ${built.idfBuild} && python -m esptool --chip esp32 -b 460800 write-flash @flash_args`);
    if (release) {
      let version = packageVersion();
      for (const s of settings) if (s.startsWith("version=")) version = s.slice(8);
      const r = writeRelease(built, variant, version, path.join(out, "release"), env);
      say(`release: ${r.image} (${r.bytes} B): python -m esptool --chip esp32 write-flash 0x0 ${path.basename(r.image)}`);
      say(`release: ${r.manifest}: ESP Web Tools' manifest (serve it beside the image over HTTPS to flash from a web page)`);
      say(`release: ${r.update}: the app alone, for an update over the air (the settings page, or POST /update)`);
    }
    say(
      `build:esp32: ${variant} for ${platform} built in ${built.seconds.toFixed(0)} s: image ${size.image} B` +
        (size.partition > 0 ? `, ${Math.round((100 * (size.partition - size.image)) / size.partition)} % of the ${Math.round(size.partition / 1024)} KiB app partition free` : ""),
    );
    return true;
  } catch (e) {
    say(`build:esp32: ${(e as Error).message}`);
    return false;
  }
}

async function buildSim(): Promise<void> {
  const v = simCommand.parse();
  checkSettings(v.set, simCommand.usage);
  const env = buildEnv();
  const missing = missingTools("lin", env);
  if (missing.length > 0) simCommand.fail(`cannot build for the simulator:\n  ${missing.join("\n  ")}`);
  const out = path.resolve(v.out);
  fs.mkdirSync(out, { recursive: true });
  try {
    const built = await buildApp({ variant: "sim", platform: "lin", out, settings: v.set, say, log: path.join(out, "build.log"), env });
    say("");
    say(`app: ${built.app}`);
    say(`run: xvfb-run -a stdbuf -oL ${path.join(env.MODDABLE as string, "build", "bin", "lin", "release", "mcsim")} ${built.app}`);
    say(`build:sim: built in ${built.seconds.toFixed(0)} s`);
  } catch (e) {
    say(`build:sim: ${(e as Error).message}`);
    process.exit(EXIT_FAILURE);
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const which = process.argv[2] === "sim" ? buildSim : buildEsp32;
  process.argv.splice(2, 1);
  void which();
}
