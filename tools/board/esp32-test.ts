/**
 * `npm run test:esp32`: the firmware on an emulated ESP32.
 *
 * Builds the emulator variant (Ethernet on QEMU's open_eth, one core, the UART log on),
 * boots it in QEMU with UDP 32422 and HTTP 80 forwarded from free ports on 127.0.0.1, then
 *   1. runs the Rev 1 conformance tests (test/conformance) against the board;
 *   2. plays 6 UDP bots and 2 Chromium pages against it for 60 s: everyone connects, every
 *      chat line arrives exactly once and in order, nobody is kicked or times out, the pages
 *      draw each other's ships, and the board's heaps stay flat (its `instruments:` lines);
 *   3. prints the board's memory: XS chunk and slot heaps (live after a collection, and
 *      peak), and ESP-IDF's free internal RAM, now and lowest ever;
 *   4. tortures it (tools/board/torture.ts) for --torture seconds: 4 UDP bots that chat and
 *      two Chromium pages play while WebSocket clients churn and end rudely, page loads are
 *      cut short, connections are reset as they open, and junk and Connect datagrams come
 *      at 1,000 a second. Any panic, abort or reboot fails; so does a board that stops
 *      answering /status, a player under 12 Updates a second or with a chat line lost, and
 *      a heap (XS chunk, XS slot, ESP-IDF internal) not flat from the first to the last
 *      minute;
 *   5. the fuzzer's mutants (tools/fuzz/relay.ts) through a relay in front of 3 bots: no
 *      reboot, no kick, every bot connected throughout with every chat line;
 *   6. recovery: a panic asked for (/crash/panic) and a wedged XS task (/crash/wedge, the
 *      task watchdog) each reboot the board with a core dump saved; after a power cycle of
 *      QEMU it serves /coredump, and two bots playing throughout are back by themselves;
 *   7. a release image set up and updated over HTTP (tools/board/release-test.ts): flashed
 *      into a blank chip with esptool, the first setup, stored settings that take effect and
 *      survive reboots, a wrong password refused and counted, damaged and truncated images
 *      refused, an update taken and kept, one that does not come up rolled back, a factory
 *      reset.
 * A crash is a failure: there is no second attempt.
 * Skips (exit 0, a line starting "skip:") where the ESP32 kit or ESP-IDF is absent.
 */
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";
import { defineCommand, EXIT_FAILURE } from "../../cli";
import { CHROMIUM, playInChromium } from "../sim/browser";
import { checkDelivery, type Events, playBots } from "../sim/delivery";
import { analyse, Instruments } from "../sim/instruments";
import { buildApp, buildEnv, findFile, ROOT } from "./kit";
import { Board, bootFailure, emulatorTools, freeTcpPort, freeUdpPort, mergeFlash } from "./qemu";
import { torture } from "./torture";
import { releasePhase } from "./release-test";
import { describeFuzzRelay, fuzzRelay } from "../fuzz/relay";
import { runBots } from "../botlib";
import WebSocket from "ws";
import { WATCH_KIND, WATCH_PATH, WATCH_WS_PATH } from "../../modules/watch";
import { installNodeKernels } from "../../hosts/node/kernels";

export const esp32TestCommand = defineCommand({
  name: "test:esp32",
  script: "npm run test:esp32",
  summary:
    "build the emulator firmware, boot it on an emulated ESP32 (QEMU), run the Rev 1 conformance tests against it, then play UDP bots and two Chromium pages on it and check delivery, kicks and memory.",
  options: {
    duration: { type: "number", default: 60, min: 15, max: 3600, arg: "S", help: "seconds the bots and pages play" },
    torture: { type: "number", default: 180, min: 0, max: 7200, arg: "S", help: "seconds of the torture phase (0: none; at least 130 for its first-and-last-minute heap check)" },
    fuzz: { type: "number", default: 40, min: 0, max: 3600, arg: "S", help: "seconds of the fuzzer's mutants sent to the board through a relay while 3 bots play through it (0: none)" },
    "no-recovery": { type: "flag", help: "leave out the deliberate panic and wedge (each must reboot the board, save a core dump and let the bots back in)" },
    "no-release": { type: "flag", help: "leave out the release image's setup and updates over HTTP (three more builds and about six boots)" },
    bots: { type: "int", default: 6, min: 1, max: 6, help: "UDP bots (with the two pages: 8 players)" },
    "no-browser": { type: "flag", help: "leave the two Chromium pages out" },
    "no-conformance": { type: "flag", help: "leave the conformance tests out" },
    firmware: { type: "string", arg: "DIR", help: "use this emulator build's output folder instead of building" },
    out: { type: "string", arg: "DIR", default: "build/esp32/emulator-test", help: "build output folder (kept: a second build takes seconds)" },
  },
  notes:
    "Needs the ESP32 kit (bash ../shared/esp32/install.sh; its env.sh is read when MODDABLE or IDF_PATH is not set) or a Moddable SDK 8.x with ESP-IDF v6.0, and qemu-system-xtensa with the esp32 machine; without them it prints \"skip: ...\" and exits 0. The pages need Chromium (LWAR_CHROMIUM, default /usr/bin/chromium); without it, that part alone is skipped. The board's UART log is kept in OUT/board.log.",
  failure: "a check failed",
});

const WARMUP_S = 10;
/** Boots of the board: a crash is a failure like any other, with no second attempt. */
const ATTEMPTS = 1;
/** The torture's junk and Connect datagrams a second, and its WebSocket churners. */
const JUNK_PER_S = 1000;
const CHURNERS = 4;
/** A legitimate player gets at least this many Updates a second under torture. */
const MIN_UPDATES_PER_S = 12;
const BANNER_TIMEOUT_MS = 90_000;

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

function skip(reason: string): never {
  say(`skip: ${reason}`);
  process.exit(0);
}

interface Heap {
  t: number;
  chunk: number;
  slot: number;
  peakChunk: number;
  peakSlot: number;
  internal: number;
  lowest: number;
}

let board: Board | null = null;

async function main(): Promise<void> {
  // Clients run the transport's C as WebAssembly (hosts/node/kernels.ts).
  installNodeKernels();
  const v = esp32TestCommand.parse();
  const env = buildEnv();
  const { qemu, missing } = emulatorTools(env);
  if (missing.length > 0) skip(`no ESP32 build and emulator here:\n  ${missing.join("\n  ")}`);
  process.on("exit", () => board?.killNow());
  process.on("SIGINT", () => {
    board?.killNow();
    process.exit(130);
  });
  const out = path.resolve(v.firmware ?? v.out);
  let idfBuild: string | null;
  if (v.firmware === undefined) {
    say(`test:esp32: building the emulator variant into ${out}`);
    try {
      const built = await buildApp({
        variant: "emulator",
        platform: "esp32",
        out,
        settings: ["heapProbeSeconds=5", "statusSeconds=10", "crashRoute=1"],
        say,
        log: path.join(out, "build.log"),
        env,
      });
      say(`test:esp32: built in ${built.seconds.toFixed(0)} s: ${built.app} (${fs.statSync(built.app).size} B)`);
      idfBuild = built.idfBuild;
    } catch (e) {
      say(`FAIL: ${(e as Error).message}`);
      process.exit(EXIT_FAILURE);
    }
  } else {
    const args = findFile(path.join(out, "tmp"), "flash_args");
    idfBuild = args === null ? null : path.dirname(args);
  }
  if (idfBuild === null) return esp32TestCommand.fail(`no ESP-IDF build (flash_args) under ${out}/tmp`);
  const flash = path.join(out, "flash.bin");
  mergeFlash(idfBuild, flash, env);

  for (let attempt = 1; ; attempt++) {
    const r = await play(v, env, qemu, out, flash, attempt);
    if (r.failures.length === 0 && !v["no-release"]) {
      say("test:esp32: a release image, set up and updated over HTTP as a maker would (Ethernet stands in for Wi-Fi)");
      const t = performance.now();
      let more: string[];
      try {
        more = await releasePhase({ qemu, env, out: path.join(out, "release-test"), say });
      } catch (e) {
        more = [`release: ${(e as Error).message}`];
      }
      say(`  the release phase took ${((performance.now() - t) / 1000).toFixed(0)} s${more.length === 0 ? "" : `, ${more.length} failure${more.length === 1 ? "" : "s"}`}`);
      r.failures.push(...more);
    }
    if (r.failures.length === 0) {
      say(`test:esp32: PASS${attempt > 1 ? ` on attempt ${attempt}` : ""} (UART log: ${r.log})`);
      process.exit(0);
    }
    for (const f of r.failures) say(`FAIL: ${f}`);
    if (!r.crashed || attempt >= ATTEMPTS) {
      say(`test:esp32: FAIL (${r.failures.length} check${r.failures.length === 1 ? "" : "s"}); UART log: ${r.log}`);
      process.exit(EXIT_FAILURE);
    }
    say(`\ntest:esp32: the board crashed on attempt ${attempt} (UART log ${r.log}, with its core dump); a crash inside the SDK's or ESP-IDF's code is a known intermittent fault (docs/moddable.md): attempt ${attempt + 1} of ${ATTEMPTS}`);
  }
}

type Options = ReturnType<typeof esp32TestCommand.parse>;

/** One boot of the board: conformance, play, memory. The failures, and whether the board crashed. */
async function play(v: Options, env: NodeJS.ProcessEnv, qemu: string, out: string, flash: string, attempt: number): Promise<{ failures: string[]; crashed: boolean; log: string }> {
  const failures: string[] = [];
  const udpPort = await freeUdpPort();
  const httpPort = await freeTcpPort();
  const inst = new Instruments();
  const heaps: Heap[] = [];
  const serverChats: { name: string; text: string }[] = [];
  const events: Events = { join: 0, leave: 0, kick: 0, timeout: 0, reject: 0 };
  const wsEvents: Events = { join: 0, leave: 0, kick: 0, timeout: 0, reject: 0 };
  const bootProblems: string[] = [];
  let t0 = performance.now();
  const now = () => (performance.now() - t0) / 1000;
  let banner: () => void = () => {};
  const bannerSeen = new Promise<void>((r) => (banner = r));
  let quiet = false;
  /** Server banners seen (one per boot), the last boot line's reset reason, and whether a crash is being asked for. */
  let banners = 0;
  let lastReset = "";
  let expectCrash = false;
  const log = path.join(out, attempt === 1 ? "board.log" : `board-${attempt}.log`);
  say(`test:esp32: booting ${flash} in QEMU; UDP 127.0.0.1:${udpPort} -> 32422, HTTP 127.0.0.1:${httpPort} -> 80; UART log ${log}`);
  /** What the firmware printed on its way down: its reboot, a saved core dump, the task watchdog. */
  const down = { rebooting: false, dumpSaved: false, watchdog: false, wedgedAt: -1, watchdogAt: -1 };
  const boardOptions = {
    qemu,
    flash,
    udpPort,
    httpPort,
    log,
    env,
    onLine: (line: string) => {
      if (line.startsWith("Rebooting...")) down.rebooting = true;
      if (line.includes("Core dump has been saved")) down.dumpSaved = true;
      if (line.includes("Task watchdog got triggered")) {
        down.watchdog = true;
        down.watchdogAt = now();
      }
      if (line.startsWith("lwar-xs: /crash/wedge asked")) down.wedgedAt = now();
      const t = now();
      if (inst.line(line, t)) return;
      const failure = expectCrash ? null : bootFailure(line);
      if (failure !== null) bootProblems.push(failure);
      const boot = /^lwar-xs \S+: boot (\d+), reset by (\S+)/.exec(line);
      if (boot !== null) lastReset = boot[2];
      const h = /^heap: live chunk (\d+) slot (\d+).* peak chunk (\d+) slot (\d+)(?: internal free (\d+) lowest (\d+))?/.exec(line);
      if (h !== null) {
        heaps.push({ t, chunk: +h[1], slot: +h[2], peakChunk: +h[3], peakSlot: +h[4], internal: +(h[5] ?? -1), lowest: +(h[6] ?? -1) });
        return;
      }
      const chat = /^chat\s+'(.*?)': (bot \d+ says hi #\d+)$/.exec(line);
      if (chat !== null) {
        serverChats.push({ name: chat[1], text: chat[2] });
        return;
      }
      const ev = /^(join|leave|kick|timeout|reject)\b/.exec(line);
      if (ev !== null) {
        const ws = / ws:\S+#\d+ /.test(line);
        (ws ? wsEvents : events)[ev[1] as keyof Events]++;
      }
      if (line.startsWith("lwar-xs listening")) {
        banners++;
        banner();
      }
      if (!quiet || line.startsWith("lwar-xs") || failure !== null) say(`board | ${line}`);
    },
  };
  board = new Board(boardOptions);
  const started = await Promise.race([
    bannerSeen.then(() => "ok"),
    board.done.then(() => "exit"),
    new Promise<string>((r) => setTimeout(() => r("timeout"), BANNER_TIMEOUT_MS).unref()),
  ]);
  if (started !== "ok") {
    await board.stop();
    const exitCode = board.exitCode;
    board = null;
    failures.push(started === "exit" ? `QEMU exited (code ${exitCode}) before the server started` : `no server banner within ${BANNER_TIMEOUT_MS / 1000} s`);
    for (const p of bootProblems) failures.push(`the board printed: ${p}`);
    return { failures, crashed: bootProblems.length > 0, log };
  }
  await new Promise((r) => setTimeout(r, 1000));
  quiet = true;

  // 1. Conformance.
  if (!v["no-conformance"]) {
    say("\ntest:esp32: the Rev 1 conformance tests against the board");
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [path.join(ROOT, "node_modules", "mocha", "bin", "mocha.js"), "--no-config", "--node-option", "import=tsx", "--timeout", "60000", "test/conformance/rev1.test.ts"], {
        cwd: ROOT,
        env: { ...process.env, LWAR_TARGET: `127.0.0.1:${udpPort}`, LWAR_MAX_PLAYERS: "8" },
        stdio: ["ignore", "inherit", "inherit"],
      });
      child.once("exit", (c) => resolve(c ?? 1));
    });
    if (code !== 0) failures.push(`the conformance tests failed against the board (mocha exited with ${code})`);
    await new Promise((r) => setTimeout(r, 1500));
    for (const k of Object.keys(events) as (keyof Events)[]) events[k] = 0;
    serverChats.length = 0;
  }

  // 2. Play.
  const browsers = !v["no-browser"] && fs.existsSync(CHROMIUM);
  say(`\ntest:esp32: ${v.bots} UDP bots${browsers ? " and two Chromium pages" : ""} for ${v.duration} s`);
  if (!v["no-browser"] && !browsers) say(`  the two pages: skipped, no Chromium at ${CHROMIUM} (Debian: apt-get install chromium)`);
  t0 = performance.now();
  const shots = path.join(out, "shots");
  fs.mkdirSync(shots, { recursive: true });
  const pages = browsers
    ? playInChromium({ pageUrl: `http://127.0.0.1:${httpPort}/`, udpPort, udpBot: false, others: v.bots, durationS: v.duration - 8, now, say, shots })
    : null;
  // A watcher joins the full match 5 s in, while everyone plays.
  const watching = new Promise((r) => setTimeout(r, 5000)).then(() => watchBoard(httpPort, Math.min(20, v.duration - 10)));
  const played = await playBots({
    host: "127.0.0.1",
    port: udpPort,
    count: v.bots,
    behaviour: "hunt",
    chatEveryS: 2,
    durationS: v.duration,
    say: (l) => say(`  ${l}`),
    progress: () => `board: Chunk used ${inst.latest("Chunk used") ?? "?"} Slot used ${inst.latest("Slot used") ?? "?"} free ${inst.latest("System bytes free") ?? "?"}`,
    died: board.done,
  });
  const watched = await watching;
  say(`  a watcher at ${WATCH_WS_PATH} for ${watched.seconds} s: ${watched.error ?? `${watched.frames} frames, up to ${watched.players} players, ${watched.entities} entities in the last; /watch ${watched.page ? "is the page" : "is NOT the page"}`}`);
  if (watched.error !== null) failures.push(`watch: ${watched.error}`);
  else {
    // Four frames a second (BOARD_WATCH_INTERVAL_MS); the match is full, so a watcher that took a slot would have been refused.
    if (watched.frames < watched.seconds * 2) failures.push(`watch: ${watched.frames} frames in ${watched.seconds} s, expected about 4 a second`);
    if (watched.players !== v.bots + (browsers ? 2 : 0)) failures.push(`watch: the frames showed at most ${watched.players} players, expected ${v.bots + (browsers ? 2 : 0)}`);
    if (!watched.page) failures.push(`watch: GET ${WATCH_PATH} did not give the page`);
    say(`  a second watcher: ${watched.second || "not tried"}; a third: ${watched.third || "not tried"} (at most 2)`);
    if (watched.second !== "open") failures.push(`watch: a second watcher did not open (${watched.second || "not tried"})`);
    if (watched.third !== "503") failures.push(`watch: a third watcher was not refused with 503 (${watched.third || "not tried"})`);
  }
  const pageResult = pages === null ? null : await pages;
  await new Promise((r) => setTimeout(r, 2000));
  const playEnd = now();
  if (played === null) failures.push(`QEMU exited (code ${board.exitCode}) while the bots were playing`);
  else failures.push(...checkDelivery(played, v.bots, events, serverChats, say));
  if (pageResult !== null) {
    failures.push(...pageResult.failures.map((f) => `pages: ${f}`));
    if (wsEvents.join !== 2 || wsEvents.leave !== 2) failures.push(`the board logged ${wsEvents.join} joins and ${wsEvents.leave} leaves of WebSocket peers for the two pages, expected 2 each`);
    if (wsEvents.kick + wsEvents.timeout > 0) failures.push(`the board kicked ${wsEvents.kick} and timed out ${wsEvents.timeout} WebSocket peers`);
  }

  // 3. Memory.
  const m = analyse(inst, WARMUP_S, Math.min(v.duration, playEnd));
  say("");
  say(`memory on the board (32-bit XS: a slot is 16 bytes), instruments from t=${m.from.toFixed(0)} s to t=${m.to.toFixed(0)} s, ${m.samples} samples:`);
  for (const t of m.trends) {
    say(`  ${t.used.padEnd(10)} first third ${t.firstMin}..${t.firstMax}; last third ${t.lastMin}..${t.lastMax}; ${t.heap} ${t.heapStart} -> max ${t.heapMax}  ${t.ok ? "flat" : "NOT FLAT"}`);
    failures.push(...t.problems);
  }
  failures.push(...m.errors);
  const during = heaps.filter((h) => h.t >= WARMUP_S && h.t <= playEnd);
  const last = heaps[heaps.length - 1];
  if (last === undefined) failures.push("no heap: lines from the board (heapProbeSeconds=5)");
  else {
    const max = (f: (h: Heap) => number) => Math.max(...(during.length > 0 ? during : [last]).map(f));
    const min = (f: (h: Heap) => number) => Math.min(...(during.length > 0 ? during : [last]).map(f));
    say(`  live after a full collection while playing: chunk ${min((h) => h.chunk)}..${max((h) => h.chunk)} B, slot ${min((h) => h.slot)}..${max((h) => h.slot)} B`);
    say(`  XS peaks since boot: chunk ${last.peakChunk} B, slot ${last.peakSlot} B`);
    say(`  ESP-IDF internal RAM free: ${last.internal} B now, ${last.lowest} B lowest ever (while playing: ${min((h) => h.internal)} B)`);
  }

  // 4. Torture.
  if (v.torture > 0 && board !== null && !board.exited) {
    const b = board;
    say(
      `\ntest:esp32: torture for ${v.torture} s: 4 UDP bots that chat${browsers ? " and two Chromium pages" : ""}; ${CHURNERS} WebSocket churners ending rudely, ` +
        `page loads cut short, connect-and-reset, ${JUNK_PER_S} junk and Connect datagrams a second`,
    );
    const from = now();
    const bannersBefore = banners;
    serverChats.length = 0;
    let statusAsked = 0;
    let statusAnswered = 0;
    const probe = setInterval(() => {
      statusAsked++;
      void getStatus(httpPort).then((s) => (statusAnswered += s === null ? 0 : 1));
    }, 10_000);
    // The players take their slots first: the junk Connects are admitted to free slots and hold them until they time out.
    const hostile = new Promise((r) => setTimeout(r, 15_000)).then(() =>
      torture({ host: "127.0.0.1", udpPort, httpPort, durationS: v.torture - 15, udpPerSecond: JUNK_PER_S, webSockets: CHURNERS, seed: 7, say }),
    );
    const tortured = browsers
      ? playInChromium({ pageUrl: `http://127.0.0.1:${httpPort}/`, udpPort, udpBot: false, others: 4, durationS: v.torture - 8, now, say, shots })
      : null;
    const playedT = await playBots({
      host: "127.0.0.1",
      port: udpPort,
      count: 4,
      behaviour: "hunt",
      chatEveryS: 2,
      durationS: v.torture,
      say: (l) => say(`  ${l}`),
      progress: () => `board: Chunk used ${inst.latest("Chunk used") ?? "?"} Slot used ${inst.latest("Slot used") ?? "?"}`,
      died: b.done,
    });
    const counts = await hostile;
    const pagesT = tortured === null ? null : await tortured;
    clearInterval(probe);
    await new Promise((r) => setTimeout(r, 3000));
    const to = now();
    say(
      `  torture done: ${counts.wsUpgraded} WebSockets upgraded of ${counts.wsOpened} opened (${counts.wsRefused} refused; ends ${JSON.stringify(counts.wsEnds)}), ` +
        `${counts.pagesCut} page loads cut, ${counts.tcpResets} connect+reset, ${counts.datagrams} junk/Connect datagrams`,
    );
    if (playedT === null) failures.push(`torture: QEMU exited (code ${b.exitCode}) under the torture`);
    else {
      // The junk Connects and the churners join and time out too: the server log's join and
      // leave totals are theirs as much as the bots', so only the bots' own view counts here.
      // Only the bots' own view counts here: the junk Connects and the churners join and
      // leave too, and under thousands of log lines a minute the UART has been seen to lose
      // a line (2 chat lines of 3,586 in a 30-minute run, each delivered to every bot).
      const delivery = checkDelivery(playedT, 4, { join: 4, leave: 4, kick: 0, timeout: 0, reject: 0 }, serverChats, say)
        .filter((f) => !f.startsWith("server logged") && !f.startsWith("server log,"));
      failures.push(...delivery.map((f) => `torture: ${f}`));
      const ups = playedT.summary.updatesPerSecond;
      say(`  the bots got ${ups.toFixed(1)} Updates a second each (at least ${MIN_UPDATES_PER_S} wanted)`);
      if (ups < MIN_UPDATES_PER_S) failures.push(`torture: the bots got ${ups.toFixed(1)} Updates a second, under ${MIN_UPDATES_PER_S}`);
    }
    if (pagesT !== null) failures.push(...pagesT.failures.map((f) => `torture: pages: ${f}`));
    if (banners !== bannersBefore) failures.push(`torture: the board rebooted ${banners - bannersBefore} times (last reset: ${lastReset})`);
    const status = await getStatus(httpPort);
    say(`  /status answered ${statusAnswered} of ${statusAsked} times during the torture, and ${status === null ? "not" : "again"} after it`);
    if (status === null) failures.push("torture: the board does not answer /status after the torture");
    else {
      const board = (status as { board?: { counters?: Record<string, number> } }).board;
      if (board?.counters !== undefined) say(`  the board's network path: ${JSON.stringify(board.counters)}`);
    }
    failures.push(...flatHeaps(heaps, from, to, say));
  }

  // 4b. The fuzzer's mutants, through a relay in front of 3 bots (tools/fuzz/relay.ts).
  if (v.fuzz > 0 && board !== null && !board.exited) {
    say(`\ntest:esp32: the fuzzer's mutants through a relay for ${v.fuzz} s, 3 bots playing through it`);
    const bannersBefore = banners;
    const kicksOf = (st: unknown): number => {
      const k = (st as { kicks?: Record<string, number> } | null)?.kicks ?? {};
      return Object.values(k).reduce((a, b) => a + b, 0);
    };
    const kicksBefore = kicksOf(await getStatus(httpPort));
    const abort = new AbortController();
    let relayPort = 0;
    const relay = fuzzRelay({
      targetHost: "127.0.0.1", targetPort: udpPort, rate: 0.1, seed: 3, durationS: v.fuzz + 30, signal: abort.signal,
      onListening: (port) => (relayPort = port),
    });
    await waitFor(() => relayPort > 0, 5000);
    const bots = await runBots({ host: "127.0.0.1", port: relayPort, count: 3, durationS: v.fuzz, behaviour: "hunt", chatEveryS: 2, seed: 5 });
    abort.abort();
    const report = await relay;
    for (const line of describeFuzzRelay(report).split("\n")) say(`  ${line}`);
    say(`  bots: ${bots.connected}/3 connected, lost ${bots.lost}, chats sent ${bots.chatsSent}, the fewest any bot got ${bots.chatsReceivedMin}, Update ${bots.updatesPerSecond.toFixed(1)}/s`);
    const kinds = Object.keys(report.byKind).length;
    if (report.mutants === 0 || kinds < 5) failures.push(`fuzz: ${report.mutants} mutants of ${kinds} kinds reached the board`);
    if (bots.connected !== 3 || bots.lost !== 0) failures.push(`fuzz: ${bots.connected} of 3 bots connected, ${bots.lost} connections lost`);
    if (bots.chatsReceivedMin !== bots.chatsSent) failures.push(`fuzz: a bot got ${bots.chatsReceivedMin} of ${bots.chatsSent} chat lines`);
    if (banners !== bannersBefore) failures.push("fuzz: the board rebooted");
    const after = await getStatus(httpPort);
    if (after === null) failures.push("fuzz: the board does not answer /status");
    else if (kicksOf(after) !== kicksBefore) failures.push(`fuzz: the board kicked ${kicksOf(after) - kicksBefore} players under the mutants`);
  }

  // 5. Recovery: a panic and a wedge, each asked for, while two bots play through them.
  // The firmware reboots itself (esp_restart); QEMU's machine does not come back from that
  // (its Ethernet and timers keep their state), so QEMU runs with -no-reboot, exits, and is
  // started again on the same flash file: the power cycle a stuck board would get. The
  // reset reason then reads power-on; what the firmware printed on its way down is checked.
  if (!v["no-recovery"] && board !== null && !board.exited) {
    say("\ntest:esp32: recovery: a panic, then a wedged XS task, with two bots playing through both");
    expectCrash = true;
    const never = new Promise<void>(() => {});
    const through = playBots({
      host: "127.0.0.1", port: udpPort, count: 2, behaviour: "hunt", chatEveryS: 3, durationS: 150,
      say: () => {}, progress: () => "", died: never,
    });
    await new Promise((r) => setTimeout(r, 10_000));
    for (const kind of ["panic", "wedge"] as const) {
      const current: Board = board;
      down.rebooting = false;
      down.dumpSaved = false;
      down.watchdog = false;
      down.wedgedAt = -1;
      down.watchdogAt = -1;
      const before = banners;
      const t = now();
      void fetch(`http://127.0.0.1:${httpPort}/crash/${kind}`, { signal: AbortSignal.timeout(3000) }).catch(() => undefined);
      const exited = await Promise.race([current.done.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 30_000))]);
      const downAfter = now() - t;
      await current.stop();
      if (!exited) {
        failures.push(`recovery: the board did not reboot within 30 s of /crash/${kind}`);
        board = null;
        break;
      }
      say(`  /crash/${kind}: the firmware rebooted ${downAfter.toFixed(1)} s later (${[down.watchdog ? "task watchdog" : "", down.dumpSaved ? "core dump saved" : "no core dump saved"].filter((x) => x !== "").join(", ")})`);
      if (!down.rebooting) failures.push(`recovery: /crash/${kind}: no "Rebooting..." on the UART`);
      if (!down.dumpSaved) failures.push(`recovery: /crash/${kind}: no core dump saved`);
      if (kind === "wedge" && !down.watchdog) failures.push("recovery: /crash/wedge: the task watchdog did not fire");
      if (kind === "wedge" && down.watchdog) {
        // The watchdog's 5 s, plus up to a second since the XS task last checked in (its Timer).
        const took = down.watchdogAt - down.wedgedAt;
        say(`  the task watchdog fired ${took.toFixed(1)} s after the XS task stopped`);
        if (down.wedgedAt < 0 || took > 6.5) failures.push(`recovery: /crash/wedge: the task watchdog fired ${took.toFixed(1)} s after the XS task stopped (5 s wanted)`);
      }
      board = new Board({ ...boardOptions, log: path.join(out, `board-after-${kind}.log`) });
      const back = await waitFor(() => banners > before, BANNER_TIMEOUT_MS);
      if (!back) {
        failures.push(`recovery: no server banner after the power cycle that followed /crash/${kind}`);
        break;
      }
      say(`  the board serves again ${(now() - t).toFixed(1)} s after /crash/${kind}`);
      await new Promise((r) => setTimeout(r, 2000));
      const dump = await getBytes(httpPort, "/coredump");
      say(`  /coredump: ${dump === null ? "no answer" : `${dump.length} bytes`}`);
      if (dump === null || dump.length < 1024) failures.push(`recovery: /coredump gave ${dump === null ? "no answer" : `${dump.length} bytes`} after /crash/${kind}`);
      await new Promise((r) => setTimeout(r, 15_000));
    }
    const played = await through;
    if (played !== null) {
      const sum = played.summary;
      say(`  the two bots: lost the board ${sum.lost} times, back by themselves ${sum.reconnected} times, ${sum.connected} of 2 connected at the end`);
      if (sum.reconnected < 2 || sum.connected !== 2) failures.push(`recovery: the bots came back ${sum.reconnected} times for 2 reboots, ${sum.connected} of 2 connected at the end`);
    }
    expectCrash = false;
  }

  for (const p of bootProblems) failures.push(`the board printed: ${p}`);
  if (board !== null) await board.stop();
  board = null;
  say("");
  return { failures, crashed: bootProblems.length > 0, log };
}

/** A watcher on the board for `seconds`: the frames it got and what the last one says; and whether /watch is the page. */
/** How a second and a third watcher fared while one watched: the second opens, the third is refused with 503 (BOARD_WATCHERS is 2). */
async function moreWatchers(httpPort: number): Promise<{ second: string; third: string }> {
  const attempt = (): Promise<{ ws: WebSocket; outcome: string }> =>
    new Promise((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${httpPort}${WATCH_WS_PATH}`);
      const timer = setTimeout(() => resolve({ ws, outcome: "no answer within 10 s" }), 10_000);
      ws.once("open", () => {
        clearTimeout(timer);
        resolve({ ws, outcome: "open" });
      });
      ws.once("error", (e) => {
        clearTimeout(timer);
        resolve({ ws, outcome: /\b503\b/.test(e.message) ? "503" : e.message });
      });
    });
  const second = await attempt();
  const third = await attempt();
  for (const a of [second, third]) {
    a.ws.on("error", () => {});
    a.ws.terminate();
  }
  return { second: second.outcome, third: third.outcome };
}

async function watchBoard(httpPort: number, seconds: number): Promise<{ seconds: number; frames: number; players: number; entities: number; page: boolean; error: string | null; second: string; third: string }> {
  const out = { seconds, frames: 0, players: -1, entities: -1, page: false, error: null as string | null, second: "", third: "" };
  // The most players any frame showed: the pages may join after the watcher.
  const page = await getBytes(httpPort, WATCH_PATH);
  out.page = page !== null && page.length > 100;
  await new Promise<void>((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${httpPort}${WATCH_WS_PATH}`);
    const stop = setTimeout(() => {
      ws.close();
      resolve();
    }, seconds * 1000);
    ws.once("open", () => {
      // A second watcher may join; a third is refused at the door.
      setTimeout(() => {
        moreWatchers(httpPort).then((m) => {
          out.second = m.second;
          out.third = m.third;
        });
      }, 1000);
    });
    ws.on("message", (data: Buffer, binary: boolean) => {
      if (!binary || data.length < 10 || data[0] !== WATCH_KIND) {
        out.error ??= `a message that is not a watch frame (${data.length} bytes, first ${data[0]})`;
        return;
      }
      out.frames++;
      if (data[6] > out.players) out.players = data[6];
      out.entities = data.readUInt16BE(7);
    });
    ws.on("error", (e) => {
      out.error ??= `the watcher's connection failed: ${e.message}`;
      clearTimeout(stop);
      resolve();
    });
  });
  return out;
}

function waitFor(test: () => boolean, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const timer = setInterval(() => {
      if (test()) {
        clearInterval(timer);
        resolve(true);
      } else if (Date.now() - t0 > ms) {
        clearInterval(timer);
        resolve(false);
      }
    }, 200);
  });
}

/** GET `path` from the board; its body, or null when it does not answer 200 within 10 s. */
async function getBytes(httpPort: number, path: string): Promise<Buffer | null> {
  try {
    const r = await fetch(`http://127.0.0.1:${httpPort}${path}`, { signal: AbortSignal.timeout(10_000) });
    if (r.status !== 200) return null;
    return Buffer.from(await r.arrayBuffer());
  } catch {
    return null;
  }
}

async function getStatus(httpPort: number): Promise<unknown> {
  const body = await getBytes(httpPort, "/status");
  if (body === null) return null;
  try {
    return JSON.parse(body.toString("utf8"));
  } catch {
    return null;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Live heaps after a collection, the first minute of [from, to] against the last: XS chunk and slot grow by no more than a little, ESP-IDF's free internal RAM shrinks by no more than a little. */
function flatHeaps(heaps: Heap[], from: number, to: number, say: (line: string) => void): string[] {
  const first = heaps.filter((h) => h.t >= from && h.t < from + 60);
  const last = heaps.filter((h) => h.t > to - 60 && h.t <= to);
  if (first.length < 3 || last.length < 3 || to - from < 120) return [`torture: too few heap: lines to compare the first minute with the last (${first.length} and ${last.length}; the phase needs at least 130 s)`];
  const max = (hs: Heap[], f: (h: Heap) => number) => Math.max(...hs.map(f));
  const rows: [string, number, number, number][] = [
    ["XS chunk live (max)", max(first, (h) => h.chunk), max(last, (h) => h.chunk), 2048],
    ["XS slot live (max)", max(first, (h) => h.slot), max(last, (h) => h.slot), 1024],
    // Free internal RAM dips while lwIP holds frames and connections in flight: each minute's median, not its lowest reading, says whether it shrinks.
    ["ESP-IDF internal free (median)", median(first.map((h) => h.internal)), median(last.map((h) => h.internal)), 4096],
  ];
  const failures: string[] = [];
  say("  heaps, first minute against last minute of the torture:");
  for (const [name, a, b, tolerance] of rows) {
    const grew = name.startsWith("ESP-IDF") ? a - b : b - a;
    const flat = grew <= tolerance;
    say(`    ${name.padEnd(28)} ${a} -> ${b} B  ${flat ? "flat" : "NOT FLAT"} (tolerance ${tolerance} B)`);
    if (!flat) failures.push(`torture: ${name} went ${a} -> ${b} B from the first minute to the last`);
  }
  return failures;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    board?.killNow();
    say(`test:esp32: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(EXIT_FAILURE);
  });
}
