/**
 * test:esp32's last phase: a release image set up and updated as a maker would, on the
 * emulated board (Ethernet stands in for Wi-Fi; docs/operating.md says what that leaves out).
 *
 *   1. `--release` builds of the emulator variant: version V (its merged image and ESP Web
 *      Tools manifest), then the same app as V-next and as V-broken (`bootFault=1`: it
 *      panics before it serves);
 *   2. esptool writes the merged image into a blank (0xFF) 4 MB flash through the ESP32's
 *      ROM download mode, as over USB; the board boots from it and serves V;
 *   3. the first setup over HTTP: an admin password and 4 players; a reboot (a power cycle
 *      of QEMU, which does not come back from a restart by itself), then 4 UDP clients join
 *      and a fifth is refused; a wrong password gets 401 and is counted in /status;
 *   4. updates: a damaged and a truncated image are refused and the board keeps serving V;
 *      V-next is taken, the board reboots into it, keeps it, and the settings stay;
 *   5. V-broken is taken, panics at boot, and the bootloader goes back to V-next, which
 *      says so in /status;
 *   6. a factory reset from HTTP forgets the settings and the password.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { runBots } from "../botlib";
import { buildApp, packageVersion, writeRelease } from "./kit";
import { Board, bootFailure, freeTcpPort, freeUdpPort } from "./qemu";

const FLASH_BYTES = 4 * 1024 * 1024;
const BANNER_MS = 90_000;
const PASSWORD = "lwar-admin-pass";

interface Status {
  maxPlayers?: number;
  board?: { version?: string; appSlot?: string; rolledBackFrom?: string; adminPasswordSet?: boolean; counters?: Record<string, number> };
}

export interface ReleasePhaseOptions {
  qemu: string;
  env: NodeJS.ProcessEnv;
  /** A folder of its own: the release build, its flash file and logs. */
  out: string;
  say: (line: string) => void;
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function basic(password: string): string {
  return `Basic ${Buffer.from(`admin:${password}`, "utf8").toString("base64")}`;
}

/** Runs the phase; its failures (none: it passed). */
export async function releasePhase(o: ReleasePhaseOptions): Promise<string[]> {
  const failures: string[] = [];
  const { say, env } = o;
  const version = packageVersion();
  const next = `${version}-next`;
  const broken = `${version}-broken`;
  fs.mkdirSync(o.out, { recursive: true });
  const build = path.join(o.out, "build");

  // 1. The builds: the release, then the same app as two other versions (each a relink).
  say(`  building the release image (emulator variant, version ${version})`);
  const images: Record<string, string> = {};
  let release = "";
  for (const [v, extra] of [
    [version, []],
    [next, []],
    [broken, ["bootFault=1"]],
  ] as const) {
    const built = await buildApp({ variant: "emulator", platform: "esp32", out: build, mode: "", settings: [`version=${v}`, "statusSeconds=0", ...extra], say: () => {}, log: path.join(o.out, `build-${v}.log`), env });
    if (v === version) {
      const r = writeRelease(built, "emulator", v, path.join(o.out, "release"), env);
      release = r.image;
      const manifest = JSON.parse(fs.readFileSync(r.manifest, "utf8")) as { version: string; builds: { chipFamily: string; parts: { path: string; offset: number }[] }[] };
      say(`  ${path.basename(r.image)}: ${r.bytes} B, built in ${built.seconds.toFixed(0)} s; manifest.json: version ${manifest.version}, ${manifest.builds[0]?.chipFamily} at offset ${manifest.builds[0]?.parts[0]?.offset}; ${path.basename(r.update)}`);
      if (!fs.readFileSync(r.update).equals(fs.readFileSync(built.app))) failures.push("release: the update file is not the built app");
      if (manifest.version !== v || manifest.builds[0]?.chipFamily !== "ESP32" || manifest.builds[0]?.parts[0]?.path !== path.basename(r.image) || manifest.builds[0]?.parts[0]?.offset !== 0)
        failures.push(`release: ESP Web Tools' manifest is not what it should be: ${JSON.stringify(manifest)}`);
    }
    images[v] = path.join(o.out, `app-${v}.bin`);
    fs.copyFileSync(built.app, images[v]);
    if (v !== version) say(`  the app as ${v}: ${fs.statSync(images[v]).size} B, built in ${built.seconds.toFixed(0)} s`);
  }

  // 2. Flash the merged image into a blank chip through the ROM's download mode.
  const flash = path.join(o.out, "flash.bin");
  fs.writeFileSync(flash, Buffer.alloc(FLASH_BYTES, 0xff));
  const t0 = Date.now();
  const flashed = await flashOver(o.qemu, flash, release, env, path.join(o.out, "esptool.log"));
  if (flashed !== null) return [...failures, `release: esptool write-flash 0x0 failed: ${flashed}`];
  say(`  esptool wrote ${path.basename(release)} at 0x0 of a blank 4 MB flash in ${((Date.now() - t0) / 1000).toFixed(0)} s (ROM download mode, over the emulated UART)`);

  const udpPort = await freeUdpPort();
  const httpPort = await freeTcpPort();
  const base = `http://127.0.0.1:${httpPort}`;
  let boots = 0;
  let board: Board | null = null;
  const problems: string[] = [];
  let allowPanic = false;
  const boot = async (why: string): Promise<boolean> => {
    const before = boots;
    board = new Board({
      qemu: o.qemu,
      flash,
      udpPort,
      httpPort,
      env,
      log: path.join(o.out, `board-${before + 1}.log`),
      onLine: (line) => {
        if (line.startsWith("lwar-xs listening")) boots++;
        if (/^lwar-xs (app slot|setup:|update:|\S+: boot)|bootFault/.test(line)) say(`  board | ${line}`);
        const f = bootFailure(line);
        if (f !== null && !allowPanic) problems.push(f);
      },
    });
    const t = Date.now();
    while (boots === before && !board.exited && Date.now() - t < BANNER_MS) await sleep(200);
    if (boots === before) {
      failures.push(`release: no server banner ${why}${board.exited ? " (QEMU exited)" : ""}`);
      return false;
    }
    await sleep(1500);
    return true;
  };
  /** The board restarts itself: QEMU (-no-reboot) exits; power it up again. */
  const cycle = async (why: string): Promise<boolean> => {
    const current = board as Board | null;
    if (current === null) return false;
    const t = Date.now();
    while (!current.exited && Date.now() - t < 20_000) await sleep(200);
    if (!current.exited) {
      failures.push(`release: the board did not restart ${why}`);
      await current.stop();
      return false;
    }
    await current.stop();
    return boot(`after the restart ${why}`);
  };
  const status = async (): Promise<Status | null> => {
    try {
      const r = await fetch(`${base}/status`, { signal: AbortSignal.timeout(10_000) });
      return r.status === 200 ? ((await r.json()) as Status) : null;
    } catch {
      return null;
    }
  };
  const post = async (p: string, body: string | Buffer, password: string | null, type = "application/x-www-form-urlencoded"): Promise<{ status: number; text: string }> => {
    const headers: Record<string, string> = { "Content-Type": type };
    if (password !== null) headers.Authorization = basic(password);
    try {
      const r = await fetch(`${base}${p}`, { method: "POST", headers, body, signal: AbortSignal.timeout(120_000) });
      const text = (await r.text()).replace(/<(style|script)>.*?<\/\1>/gs, " ").replace(/<[^>]*>/g, " ");
      return { status: r.status, text: text.replace(/\s+/g, " ").trim() };
    } catch (e) {
      return { status: 0, text: (e as Error).message };
    }
  };

  try {
    // 3. Boot from the blank-then-flashed chip; the first setup.
    if (!(await boot("from the flashed release image"))) return failures;
    let s = await status();
    say(`  booted the release image: version ${s?.board?.version}, app slot ${s?.board?.appSlot}, admin password set: ${s?.board?.adminPasswordSet}`);
    if (s?.board?.version !== version) failures.push(`release: /status says version ${s?.board?.version}, not ${version}`);
    if (s?.board?.adminPasswordSet !== false) failures.push("release: a fresh board says it has an admin password");
    const noPassword = await post("/update", Buffer.from([0xe9, 0, 0, 0]), null, "application/octet-stream");
    if (noPassword.status !== 403) failures.push(`release: an update before the first setup got ${noPassword.status}, not 403`);
    const setup = await post("/settings", `admin=${PASSWORD}&admin2=${PASSWORD}&maxPlayers=4&hostName=arena`, null);
    say(`  POST /settings (the first setup: an admin password, 4 players): ${setup.status} ${setup.text.slice(0, 80)}`);
    if (setup.status !== 200) failures.push(`release: the first setup got ${setup.status}: ${setup.text.slice(0, 200)}`);
    if (!(await cycle("after the first setup"))) return failures;
    s = await status();
    say(`  after the restart: max players ${s?.maxPlayers}, admin password set: ${s?.board?.adminPasswordSet}`);
    if (s?.maxPlayers !== 4) failures.push(`release: the stored max players did not take effect: /status says ${s?.maxPlayers}`);
    const five = await runBots({ host: "127.0.0.1", port: udpPort, count: 5, durationS: 8, behaviour: "hunt", chatEveryS: 0, seed: 11, reconnect: false });
    say(`  5 UDP clients: ${five.connected} joined, ${five.rejected} refused`);
    if (five.connected !== 4 || five.rejected !== 1) failures.push(`release: with max players 4, ${five.connected} of 5 clients joined and ${five.rejected} was refused`);

    // A wrong password: 401, counted; no password at all: 401 with the browser's prompt.
    const anon = await fetch(`${base}/settings`, { signal: AbortSignal.timeout(10_000) });
    const wrong = await fetch(`${base}/settings`, { headers: { Authorization: basic("not-the-password") }, signal: AbortSignal.timeout(10_000) });
    const right = await fetch(`${base}/settings`, { headers: { Authorization: basic(PASSWORD) }, signal: AbortSignal.timeout(10_000) });
    const pageText = await right.text();
    const valuesReply = await fetch(`${base}/settings/values`, { headers: { Authorization: basic(PASSWORD) }, signal: AbortSignal.timeout(10_000) });
    const valuesText = await valuesReply.text();
    const page = pageText + valuesText;
    let players: unknown = null;
    try {
      players = (JSON.parse(valuesText) as { fields: { name: string; value?: unknown }[] }).fields.find((f) => f.name === "maxPlayers")?.value;
    } catch {
      // stays null
    }
    s = await status();
    const refused = s?.board?.counters?.["admin.refused"] ?? -1;
    say(`  GET /settings: no password ${anon.status} (${anon.headers.get("www-authenticate") ?? "no prompt"}), a wrong one ${wrong.status}, the right one ${right.status}; admin.refused in /status: ${refused}`);
    if (anon.status !== 401 || !/^Basic /.test(anon.headers.get("www-authenticate") ?? "")) failures.push(`release: /settings without a password got ${anon.status}`);
    if (wrong.status !== 401) failures.push(`release: a wrong password got ${wrong.status}, not 401`);
    if (right.status !== 200 || !pageText.includes("/settings/values") || valuesReply.status !== 200 || players !== 4)
      failures.push(`release: the right password got ${right.status} for the page and ${valuesReply.status} for its values, which show ${String(players)} players, not 4`);
    if (refused < 2) failures.push(`release: /status counts ${refused} refused passwords, not 2`);
    const statusText = JSON.stringify(s);
    if (statusText.includes(PASSWORD) || page.includes(PASSWORD)) failures.push("release: the admin password appears in /status or the page");

    // 4. Updates: damaged and truncated images refused; the next version taken and kept.
    const good = fs.readFileSync(images[next]);
    const damaged = Buffer.from(good);
    damaged[damaged.length >> 1] ^= 0x55;
    for (const [what, body] of [
      ["a damaged image (one byte changed)", damaged],
      ["a truncated image (its first half)", good.subarray(0, good.length >> 1)],
    ] as const) {
      const t = Date.now();
      const r = await post("/update", body, PASSWORD, "application/octet-stream");
      say(`  POST /update, ${what}, ${body.length} B: ${r.status} in ${((Date.now() - t) / 1000).toFixed(1)} s: ${r.text.slice(0, 100)}`);
      if (r.status !== 400) failures.push(`release: ${what} got ${r.status}, not 400`);
    }
    await sleep(3000);
    s = await status();
    if (s?.board?.version !== version || (board as Board | null)?.exited) failures.push(`release: after the refused images the board is not serving ${version} (it says ${s?.board?.version})`);
    let t = Date.now();
    const update = await post("/update", good, PASSWORD, "application/octet-stream");
    say(`  POST /update, ${next}, ${good.length} B: ${update.status} in ${((Date.now() - t) / 1000).toFixed(1)} s: ${update.text.slice(0, 100)}`);
    if (update.status !== 200) failures.push(`release: the update to ${next} got ${update.status}: ${update.text.slice(0, 200)}`);
    else {
      if (!(await cycle(`after the update to ${next}`))) return failures;
      s = await status();
      say(`  after the update: version ${s?.board?.version}, app slot ${s?.board?.appSlot}, max players ${s?.maxPlayers}`);
      if (s?.board?.version !== next) failures.push(`release: after the update /status says version ${s?.board?.version}, not ${next}`);
      if (s?.maxPlayers !== 4) failures.push(`release: the settings did not survive the update: max players ${s?.maxPlayers}`);

      // 5. An image that does not come up: the bootloader goes back.
      t = Date.now();
      const bad = await post("/update", fs.readFileSync(images[broken]), PASSWORD, "application/octet-stream");
      say(`  POST /update, ${broken} (panics before it serves): ${bad.status} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
      if (bad.status !== 200) failures.push(`release: the update to ${broken} got ${bad.status}`);
      else {
        allowPanic = true;
        const current = board as Board | null;
        const t1 = Date.now();
        while (current !== null && !current.exited && Date.now() - t1 < 20_000) await sleep(200);
        await current?.stop();
        // The broken image boots once and panics (QEMU exits); the next power-up rolls back.
        board = new Board({ qemu: o.qemu, flash, udpPort, httpPort, env, log: path.join(o.out, "board-broken.log"), onLine: (line) => {
          if (/bootFault|Guru Meditation/.test(line)) say(`  board | ${line}`);
        } });
        const t2 = Date.now();
        while (!(board as Board).exited && Date.now() - t2 < BANNER_MS) await sleep(200);
        const panicked = (board as Board).exited;
        await (board as Board).stop();
        allowPanic = false;
        if (!panicked) failures.push(`release: ${broken} did not panic at boot as built to`);
        if (await boot("after the broken image")) {
          s = await status();
          say(`  after the broken image: version ${s?.board?.version}, app slot ${s?.board?.appSlot}, rolled back from ${s?.board?.rolledBackFrom || "none"}`);
          if (s?.board?.version !== next) failures.push(`release: after the broken image the board runs ${s?.board?.version}, not ${next} (no rollback)`);
          if ((s?.board?.rolledBackFrom ?? "") === "") failures.push("release: /status does not say an update was rolled back");
        }
      }
    }

    // 6. A factory reset.
    const reset = await post("/reset", "confirm=yes", PASSWORD);
    if (reset.status !== 200) failures.push(`release: POST /reset got ${reset.status}`);
    else if (await cycle("after the factory reset")) {
      s = await status();
      say(`  after the factory reset: max players ${s?.maxPlayers}, admin password set: ${s?.board?.adminPasswordSet}`);
      if (s?.maxPlayers !== 8 || s?.board?.adminPasswordSet !== false) failures.push(`release: the factory reset left max players ${s?.maxPlayers}, admin password set ${s?.board?.adminPasswordSet}`);
    }
  } finally {
    const b = board as Board | null;
    if (b !== null) await b.stop();
  }
  for (const p of problems) failures.push(`release: the board printed: ${p}`);
  return failures;
}

/** esptool's write-flash of `image` at 0x0 into `flash` through the ROM download mode; null, or why it failed. */
async function flashOver(qemu: string, flash: string, image: string, env: NodeJS.ProcessEnv, log: string): Promise<string | null> {
  const port = await freeTcpPort();
  const child = spawn(
    qemu,
    ["-machine", "esp32", "-nographic", "-display", "none", "-global", "driver=esp32.gpio,property=strap_mode,value=0x0f", "-drive", `file=${flash},if=mtd,format=raw`, "-serial", `tcp:127.0.0.1:${port},server,nowait`, "-monitor", "none"],
    { env, stdio: ["ignore", "ignore", "ignore"], detached: true },
  );
  await sleep(1500);
  const result = await new Promise<string | null>((resolve) => {
    execFile(
      "python",
      ["-m", "esptool", "--chip", "esp32", "--port", `socket://127.0.0.1:${port}`, "--before", "no-reset", "--after", "no-reset", "-b", "921600", "write-flash", "0x0", image],
      { env, timeout: 180_000 },
      (err, stdout, stderr) => {
        fs.writeFileSync(log, `${stdout}\n${stderr}`);
        resolve(err === null ? null : `${err.message.split("\n")[0]}; ${stderr.trim().split("\n").slice(-2).join(" ")}`);
      },
    );
  });
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
  } catch {
    // gone
  }
  await new Promise((r) => setTimeout(r, 500));
  return result;
}
