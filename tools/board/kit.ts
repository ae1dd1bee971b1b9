/**
 * The Moddable and ESP-IDF tools a board or simulator build needs, found from the
 * environment, and the builds themselves: the firmware variants, their manifests, and one
 * function that does every step (page resources, the import check, the output folder,
 * mcconfig) with progress lines and a clear word on what is missing.
 *
 * The environment is the one a maker sets up (MODDABLE, IDF_PATH, the xtensa toolchain on
 * PATH), or the ESP32 kit's `env.sh` (ESP32_ENV, default /opt/esp32/env.sh), read when
 * MODDABLE or IDF_PATH is not set.
 */
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { checkImports, readBuild } from "./manifest";

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
export const KIT_ENV = process.env.ESP32_ENV ?? "/opt/esp32/env.sh";

export type Variant = "wifi" | "wired" | "emulator";

export interface VariantSpec {
  manifest: string;
  /** What it is, for --help and the summary. */
  about: string;
  /** mcconfig's build kind: -d (debug, xsbug), -i (instrumented release: traces on the UART), "" (release). */
  mode: "-d" | "-i" | "";
}

export const VARIANTS: Record<Variant, VariantSpec> = {
  wifi: { manifest: "manifest.json", about: "Wi-Fi station or access point (the default)", mode: "-d" },
  wired: { manifest: "hosts/moddable/wired/manifest.json", about: "Ethernet: the ESP32's EMAC with a LAN8720-class PHY (WT32-ETH01, Olimex ESP32-POE)", mode: "-d" },
  emulator: { manifest: "hosts/moddable/emulator/manifest.json", about: "Ethernet on QEMU's open_eth, one core, logs on the UART", mode: "-i" },
};

/** The environment with the kit's env.sh applied where MODDABLE or IDF_PATH is missing; `node_modules/.bin` first (tsc). */
export function buildEnv(): NodeJS.ProcessEnv {
  let env: NodeJS.ProcessEnv = { ...process.env };
  if ((env.MODDABLE === undefined || env.IDF_PATH === undefined) && fs.existsSync(KIT_ENV)) {
    const out = execFileSync("bash", ["-c", `source "${KIT_ENV}" >/dev/null && env -0`], { encoding: "utf8", env });
    env = {};
    for (const kv of out.split("\0")) {
      const i = kv.indexOf("=");
      if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
    }
  }
  env.PATH = [path.join(ROOT, "node_modules", ".bin"), env.PATH ?? ""].join(path.delimiter);
  return env;
}

export function which(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? "").split(path.delimiter)) {
    if (dir === "") continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      // next
    }
  }
  return null;
}

/** What is missing to build for `platform` ("esp32" or "lin"), one line each; empty when nothing is. */
export function missingTools(platform: string, env: NodeJS.ProcessEnv): string[] {
  const missing: string[] = [];
  const kitHint = fs.existsSync(KIT_ENV) ? "" : ` (no ESP32 kit at ${KIT_ENV} either)`;
  if (env.MODDABLE === undefined || !fs.existsSync(env.MODDABLE)) missing.push(`MODDABLE is not set to the Moddable SDK 8.x${kitHint}`);
  if (which("mcconfig", env) === null) missing.push("mcconfig is not on PATH (the SDK's build/bin/lin/release)");
  if (which("tsc", env) === null) missing.push("tsc is not on PATH: run npm install");
  if (platform === "lin") {
    // The simulator's platform code is compiled against GTK 3.
    try {
      execFileSync("pkg-config", ["--exists", "gtk+-3.0"], { env, stdio: "pipe" });
    } catch {
      missing.push("GTK 3's development files (pkg-config gtk+-3.0) are not installed; on Debian: apt-get install libgtk-3-dev");
    }
  }
  if (platform.startsWith("esp32")) {
    if (env.IDF_PATH === undefined || !fs.existsSync(env.IDF_PATH)) missing.push(`IDF_PATH is not set to ESP-IDF v6.0${kitHint}`);
    if (which("xtensa-esp32-elf-gcc", env) === null) missing.push("xtensa-esp32-elf-gcc is not on PATH (the ESP-IDF toolchain: source its export.sh)");
    if (which("idf.py", env) === null) missing.push("idf.py is not on PATH (ESP-IDF's tools: source its export.sh)");
    else if (missing.length === 0) {
      // esptool needs rich_click: without it every idf.py step fails with an ImportError.
      try {
        execFileSync("python", ["-c", "import esptool"], { env, stdio: "pipe" });
      } catch (e) {
        const text = String((e as { stderr?: Buffer }).stderr ?? "").trim().split("\n").pop() ?? "";
        missing.push(`ESP-IDF's Python cannot import esptool (${text}); on Debian: apt-get install python3-rich-click`);
      }
    }
  }
  return missing;
}

export interface BuildOptions {
  variant: Variant | "sim";
  /** "esp32", "esp32/<target>", or "lin" for the simulator. */
  platform: string;
  /** Output folder (made if missing). */
  out: string;
  /** mcconfig's -d / -i / "" ; defaults to the variant's. */
  mode?: "-d" | "-i" | "";
  /** `name=value` settings for the app's config. */
  settings?: string[];
  say: (line: string) => void;
  /** Where mcconfig's own output goes. */
  log: string;
  env: NodeJS.ProcessEnv;
}

export interface Built {
  /** Folder of the firmware files (esp32), or the mc.so (lin). */
  bin: string;
  /** xs_esp32.bin / mc.so */
  app: string;
  /** esp32: the ESP-IDF build folder (flash_args, the .elf). */
  idfBuild: string | null;
  seconds: number;
}

/** Checks every import of the app against what the manifests give `platform`: the problems, as lines. */
export function importProblems(manifest: string, platform: string, moddable: string): { lines: string[]; reached: number } {
  const build = readBuild(path.join(ROOT, manifest), platform, moddable);
  const lines = build.errors.map((e) => `manifest error for ${platform}: ${e}`);
  const { missing, reached } = checkImports(build);
  for (const m of missing)
    lines.push(`${path.relative(ROOT, m.file) || m.module} imports "${m.specifier}", which no module of the ${platform} build provides`);
  return { lines, reached };
}

export function findFile(dir: string, name: string): string | null {
  if (!fs.existsSync(dir)) return null;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isFile() && e.name === name) return p;
    if (e.isDirectory()) {
      const f = findFile(p, name);
      if (f !== null) return f;
    }
  }
  return null;
}

/** Page resources, import check, mcconfig. Throws an Error with a clear message on failure. */
export async function buildApp(o: BuildOptions): Promise<Built> {
  const t0 = Date.now();
  const manifest = o.variant === "sim" ? "manifest.json" : VARIANTS[o.variant].manifest;
  const mode = o.mode ?? (o.variant === "sim" ? "-d" : VARIANTS[o.variant].mode);
  const moddable = o.env.MODDABLE as string;
  const { writePageResources } = await import("../page-resources");
  const page = await writePageResources();
  o.say(`build: the game page, ${page.total} B gzipped, in build/web/`);
  const imports = importProblems(manifest, o.platform, moddable);
  if (imports.lines.length > 0) throw new Error(`the app would not start on ${o.platform}:\n  ${imports.lines.join("\n  ")}`);
  o.say(`build: every import of the ${imports.reached} modules reached from main resolves on ${o.platform}`);
  fs.mkdirSync(o.out, { recursive: true });
  // The firmware reports package.json's version (banner, /status) unless a setting says otherwise.
  const version = packageVersion();
  const args = [...(mode === "" ? [] : [mode]), "-m", "-p", o.platform, "-t", "build", "-o", o.out, path.join(ROOT, manifest), `version=${version}`, ...(o.settings ?? [])];
  await runMcconfig({ args, cwd: ROOT, log: o.log, env: o.env, say: o.say });
  const seconds = (Date.now() - t0) / 1000;
  if (o.platform === "lin") {
    const app = findFile(path.join(o.out, "bin"), "mc.so");
    if (app === null) throw new Error(`mcconfig succeeded but left no mc.so under ${o.out}/bin`);
    return { bin: path.dirname(app), app, idfBuild: null, seconds };
  }
  const app = findFile(path.join(o.out, "bin"), "xs_esp32.bin");
  if (app === null) throw new Error(`mcconfig succeeded but left no xs_esp32.bin under ${o.out}/bin`);
  const flashArgs = findFile(path.join(o.out, "tmp"), "flash_args");
  return { bin: path.dirname(app), app, idfBuild: flashArgs === null ? null : path.dirname(flashArgs), seconds };
}

/** The XS glue of the hot loops, and the folder of the C it includes. */
const KERNEL_GLUE = path.join(ROOT, "hosts", "moddable", "kernels.c");
const KERNEL_SOURCES = path.join(ROOT, "modules", "kernels");

/**
 * The Moddable makefile rebuilds hosts/moddable/kernels.c's object when that file changes,
 * not when the C it includes does (modules/kernels/: the loops, the game's step, layout.h).
 * When any of those is newer than the glue, the glue's time is moved to now, so that a build
 * into a kept output folder compiles what the sources say. Returns the newer files' names.
 */
export function freshenKernelGlue(): string[] {
  const glue = fs.statSync(KERNEL_GLUE).mtimeMs;
  const newer = fs
    .readdirSync(KERNEL_SOURCES)
    .filter((f) => /\.[ch]$/.test(f) && fs.statSync(path.join(KERNEL_SOURCES, f)).mtimeMs > glue);
  if (newer.length > 0) {
    const now = new Date();
    fs.utimesSync(KERNEL_GLUE, now, now);
  }
  return newer;
}

/** Runs mcconfig with progress lines every 15 s; throws with the log's tail when it fails. */
export async function runMcconfig(o: { args: string[]; cwd: string; log: string; env: NodeJS.ProcessEnv; say: (line: string) => void }): Promise<void> {
  const newer = freshenKernelGlue();
  if (newer.length > 0) o.say(`build: modules/kernels/ changed since hosts/moddable/kernels.c (${newer.join(", ")}): its time moved to now, so that the build compiles them`);
  o.say(`build: mcconfig ${o.args.join(" ")}  (log: ${o.log})`);
  await runLogged({ ...o, command: "mcconfig", progress: () => lastLine(o.log), prefix: "build" });
}

/**
 * Runs `command` in a process group of its own, its output in the file `log`; every 15 s,
 * when `progress()` says something new, prints `prefix: N s: what`. Ctrl-C stops the
 * group. Throws with the log's tail when the command fails.
 */
export async function runLogged(o: {
  command: string; args: string[]; cwd: string; log: string; env: NodeJS.ProcessEnv; say: (line: string) => void; progress: () => string; prefix: string;
}): Promise<void> {
  const t0 = Date.now();
  const log = fs.openSync(o.log, "w");
  const child = spawn(o.command, o.args, { cwd: o.cwd, env: o.env, stdio: ["ignore", log, log], detached: true });
  let lastStep = "";
  const ticker = setInterval(() => {
    const step = o.progress();
    if (step !== lastStep) {
      lastStep = step;
      o.say(`${o.prefix}: ${Math.round((Date.now() - t0) / 1000)} s: ${step}`);
    }
  }, 15000);
  const stop = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    } catch {
      // gone
    }
  };
  process.once("SIGINT", stop);
  const code = await new Promise<number>((resolve) => child.once("exit", (c, s) => resolve(c ?? (s !== null ? 128 : 1))));
  clearInterval(ticker);
  process.removeListener("SIGINT", stop);
  fs.closeSync(log);
  if (code !== 0) throw new Error(`${o.command} exited with ${code}; the last lines of ${o.log}:\n${tail(o.log, 15)}`);
}

function lastLine(file: string): string {
  const lines = tail(file, 1).trim();
  return lines.length > 120 ? `${lines.slice(0, 117)}...` : lines;
}

export function tail(file: string, n: number): string {
  try {
    const text = fs.readFileSync(file, "utf8").trimEnd().split("\n");
    return text.slice(-n).join("\n");
  } catch {
    return "";
  }
}

export interface SizeReport {
  /** Bytes of the app image, and of its partition. */
  image: number;
  partition: number;
  /** ESP-IDF's size summary (esp_idf_size), as text. */
  text: string;
}

/** The image against its partition, and ESP-IDF's memory summary of the map file. */
export function sizeReport(built: Built, env: NodeJS.ProcessEnv): SizeReport {
  const image = fs.statSync(built.app).size;
  let partition = 0;
  const csv = built.idfBuild === null ? "" : path.join(built.idfBuild, "..", "partitions.csv");
  if (fs.existsSync(csv)) {
    for (const line of fs.readFileSync(csv, "utf8").split("\n")) {
      const f = line.split(",").map((x) => x.trim());
      if (f[0] === "factory" || f[0] === "ota_0") partition = parseSize(f[4] ?? "0");
    }
  }
  let text = "";
  const map = path.join(built.bin, "xs_esp32.map");
  if (fs.existsSync(map)) {
    try {
      text = execFileSync("python", ["-m", "esp_idf_size", map], { env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
    } catch (e) {
      text = `esp_idf_size failed: ${(e as Error).message.split("\n")[0]}`;
    }
  }
  return { image, partition, text };
}

function parseSize(s: string): number {
  const m = /^(0x[0-9a-f]+|\d+)([KM]?)$/i.exec(s);
  if (m === null) return 0;
  const n = Number(m[1]);
  return m[2].toUpperCase() === "K" ? n * 1024 : m[2].toUpperCase() === "M" ? n * 1024 * 1024 : n;
}

/** package.json's version: what the firmware reports unless `--set version=…` says otherwise. */
export function packageVersion(): string {
  return (JSON.parse(fs.readFileSync(path.join(ROOT, "package.json"), "utf8")) as { version: string }).version;
}

export interface Release {
  /** The merged image, flashed at 0x0: bootloader, partition table, OTA data and app at their offsets. */
  image: string;
  /** ESP Web Tools' manifest for it. */
  manifest: string;
  bytes: number;
  /** The app image alone, for an update over the air (/update). */
  update: string;

}

/**
 * A release of a built firmware, in `dir`: `lwar-xs-VARIANT-VERSION.bin`, one image for
 * `esptool write-flash 0x0 FILE` (esptool's merge-bin of the build's flash_args: the gaps
 * are 0xFF, as erased flash is), `manifest.json` for ESP Web Tools (flashing from a web
 * page): its name, version and one build for the ESP32 with that image at offset 0; and
 * `lwar-xs-VARIANT-VERSION-update.bin`, the app image alone, for an update over the air.
 */
export function writeRelease(built: Built, variant: string, version: string, dir: string, env: NodeJS.ProcessEnv): Release {
  if (built.idfBuild === null) throw new Error("no ESP-IDF build folder (flash_args): cannot merge a release image");
  if (!/^[0-9A-Za-z.+-]+$/.test(version)) throw new Error(`version "${version}": a release's file name takes letters, digits, ".", "+" and "-" only`);
  fs.mkdirSync(dir, { recursive: true });
  const name = `lwar-xs-${variant}-${version}.bin`;
  const image = path.join(dir, name);
  execFileSync("python", ["-m", "esptool", "--chip", "esp32", "merge-bin", "-o", image, "@flash_args"], { cwd: built.idfBuild, env, stdio: ["ignore", "pipe", "pipe"] });
  const manifest = path.join(dir, "manifest.json");
  const webTools = {
    name: `lwar-xs (${variant})`,
    version,
    new_install_prompt_erase: true,
    builds: [{ chipFamily: "ESP32", parts: [{ path: name, offset: 0 }] }],
  };
  fs.writeFileSync(manifest, `${JSON.stringify(webTools, null, 2)}\n`);
  const update = path.join(dir, `lwar-xs-${variant}-${version}-update.bin`);
  fs.copyFileSync(built.app, update);
  return { image, manifest, bytes: fs.statSync(image).size, update };
}
