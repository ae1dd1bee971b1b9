/**
 * `npm start`: the lwar-xs dedicated server on Node, with the browser game, /status and
 * /metrics on an HTTP port. One function per step: read the options (flags over a
 * --config file over the defaults), make the config, start serving, print the banner,
 * repeat the status line, shut down on a signal with the scoreboard.
 */
import { readFileSync } from "node:fs";
import { RECEIVE_BUFFER_BYTES } from "./host";
import { BOT_SKILLS, defaultConfig, makeConfig, ConfigError, type Config } from "../../modules/config";
import { DEFAULT_PORT } from "../../modules/protocol/constants";
import type { LogRecord, Reporter } from "../../modules/report";
import { ListenError, pageUrls, serve, type Served } from "./serve";
import { DEFAULT_RECORD_MAX_MB, Recorder, stateHashRecord } from "./recorder";
import { defineCommand, parseArgv, UsageError, type OptionSpec, type Values } from "../../cli";
import { PageError } from "../../web/page";

const HTTP_PORT = 8080;

/**
 * The options. None has a `default` here: a flag left out is undefined, so a --config file
 * can fill it; DEFAULTS fills what neither gives.
 */
const OPTIONS = {
  config: { type: "string", arg: "FILE", help: "read options from a JSON object whose keys are the names of these flags (without --); flags given as well win" },
  port: { type: "int", min: 0, max: 65535, defaultText: String(DEFAULT_PORT), help: "UDP port to listen on" },
  "http-port": {
    type: "int", min: 0, max: 65535, defaultText: String(HTTP_PORT),
    help: "HTTP port for the game page (/), its WebSocket (/ws), /status (JSON) and /metrics (Prometheus); 0 = none",
  },
  host: {
    type: "string", arg: "ADDR", defaultText: "::",
    help: "address to bind, UDP and HTTP (:: is IPv6 and IPv4; 0.0.0.0 or 127.0.0.1 for IPv4 alone, ::1 for IPv6 loopback)",
  },
  "timeout-ms": { type: "int", min: 100, max: 3600000, defaultText: "15000", help: "drop a client silent this long" },
  "max-players": { type: "int", min: 1, max: 8, defaultText: "8", help: "player slots" },
  bots: {
    type: "int", min: 0, max: 8, defaultText: "0",
    help: "fill up to N empty slots with bots the server flies (\"Vega [bot]\"); a bot gives its slot up when a human needs it",
  },
  "bot-skill": {
    type: "choice", choices: BOT_SKILLS, defaultText: BOT_SKILLS[defaultConfig.botSkill],
    help: "how well the bots fly: easy, normal or hard (docs/game.md, \"Bots\")",
  },
  "max-entities": {
    type: "int",
    // The game's least: the sun, the planets, a ship per player and a projectile (one player here).
    min: 1 + defaultConfig.planets + 1 + 1,
    max: 65535,
    defaultText: String(defaultConfig.maxEntities),
    help: `entity pool: sun, planets, ships, projectiles; at least ${2 + defaultConfig.planets} + --max-players`,
  },
  "queue-bytes": {
    type: "int", min: 512, max: 65535, defaultText: String(defaultConfig.reliableQueueBytes),
    help: "unacknowledged reliable bytes per player before a queue-overflow kick",
  },
  "status-s": { type: "int", min: 0, max: 3600, defaultText: "10", help: "seconds between status lines, 0 = none" },
  seed: { type: "int", min: 0, max: 0xffffffff, defaultText: "from the clock", help: "world seed" },
  log: { type: "choice", choices: ["text", "json"], defaultText: "text", help: "log format: text lines, or one JSON object per line" },
  record: { type: "string", arg: "FILE", defaultText: "none", help: "record the match to FILE, for `npm run replay` (docs/recorder.md)" },
  "record-max-mb": { type: "int", min: 1, max: 1048576, defaultText: String(DEFAULT_RECORD_MAX_MB), help: "stop recording when the file reaches this many MiB" },
} as const satisfies Record<string, OptionSpec>;

type Options = Values<typeof OPTIONS>;

const command = defineCommand({
  name: "lwar-xs",
  script: "npm start",
  summary: "hosts an lwar Rev 1 match over UDP, and serves the browser game, whose players join over a WebSocket, on an HTTP port.",
  options: OPTIONS,
  notes: `A --config file holds the same settings as the flags, e.g. {"port": 32422, "max-players": 4, "log": "json"}. Unknown keys and bad values stop the server with exit code 2.

The operator's guide is docs/operating.md.`,
});

/** What the server runs with, every option settled. */
interface Settings {
  port: number;
  httpPort: number;
  address: string;
  statusS: number;
  seed: number;
  log: "text" | "json";
  config: Config;
  record: string | null;
  recordMaxMb: number;
}

// ---------------------------------------------------------------- options

/**
 * Read a --config file: a JSON object whose keys are option names. Throws UsageError,
 * naming the file and the key, for anything that is not one.
 */
function readConfigFile(path: string): Partial<Options> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    throw new UsageError(`--config ${path}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--config ${path}: not JSON: ${(err as Error).message}`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new UsageError(`--config ${path}: wants a JSON object of options`);
  const known = Object.keys(OPTIONS).filter((k) => k !== "config");
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data as Record<string, unknown>)) {
    if (key === "config" || !Object.hasOwn(OPTIONS, key)) throw new UsageError(`--config ${path}: unknown key "${key}" (known: ${known.join(", ")})`);
    const spec: OptionSpec = OPTIONS[key as keyof typeof OPTIONS];
    const want = spec.type === "int" ? "number" : "string";
    if (typeof value !== want) throw new UsageError(`--config ${path}: "${key}" wants a ${want === "number" ? "whole number" : "string"}, got ${JSON.stringify(value)}`);
    try {
      // The flag parser checks the value, so a file is held to the flags' ranges.
      const parsed = parseArgv({ [key]: spec }, [`--${key}`, String(value)]) as Record<string, unknown>;
      out[key] = parsed[key];
    } catch (err) {
      if (err instanceof UsageError) throw new UsageError(`--config ${path}: ${err.message.replace(`--${key}`, `"${key}"`)}`);
      throw err;
    }
  }
  return out as Partial<Options>;
}

/** Flags, over the --config file, over the defaults. Throws UsageError. */
function settle(flags: Options, file: Partial<Options>): Settings {
  const pick = <K extends keyof Options>(key: K): Options[K] => (flags[key] !== undefined ? flags[key] : file[key]) as Options[K];
  let config: Config;
  try {
    config = makeConfig({
      timeoutMs: pick("timeout-ms") ?? 15000,
      maxPlayers: pick("max-players") ?? 8,
      bots: pick("bots") ?? 0,
      botSkill: BOT_SKILLS.indexOf(pick("bot-skill") ?? BOT_SKILLS[defaultConfig.botSkill]),
      maxEntities: pick("max-entities") ?? defaultConfig.maxEntities,
      reliableQueueBytes: pick("queue-bytes") ?? defaultConfig.reliableQueueBytes,
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new UsageError(err.message);
    throw err;
  }
  return {
    port: pick("port") ?? DEFAULT_PORT,
    httpPort: pick("http-port") ?? HTTP_PORT,
    address: pick("host") ?? "::",
    statusS: pick("status-s") ?? 10,
    seed: pick("seed") ?? Date.now() % 0xffffffff,
    log: (pick("log") ?? "text") as "text" | "json",
    record: pick("record") ?? null,
    recordMaxMb: pick("record-max-mb") ?? DEFAULT_RECORD_MAX_MB,
    config,
  };
}

function readSettings(): Settings {
  const flags = command.parse();
  try {
    return settle(flags, flags.config === undefined ? {} : readConfigFile(flags.config));
  } catch (err) {
    if (err instanceof UsageError) command.usage(err.message);
    throw err;
  }
}

// ---------------------------------------------------------------- output

/** Lines to stdout: text with a time stamp, or one JSON object each (`--log json`). */
class Output {
  constructor(readonly json: boolean) {}

  /** One record; `stamp` false for the banner's lines, in text. */
  write(record: LogRecord, stamp = true): void {
    if (this.json) {
      process.stdout.write(JSON.stringify({ time: new Date().toISOString(), event: record.event, ...record.fields }) + "\n");
      return;
    }
    process.stdout.write(stamp ? `${new Date().toISOString().slice(11, 19)} ${record.text}\n` : `${record.text}\n`);
  }
}

// ---------------------------------------------------------------- steps

/** `--record FILE`: the flight recorder, its file opened (a bad path is a usage error). */
function openRecorder(settings: Settings, out: Output): Recorder | null {
  if (settings.record === null) return null;
  try {
    return new Recorder({ file: settings.record, maxBytes: settings.recordMaxMb * 1024 * 1024, say: (r) => out.write(r) });
  } catch (err) {
    return command.usage(`--record ${settings.record}: ${(err as Error).message}`);
  }
}

async function start(settings: Settings, out: Output, recorder: Recorder | null = null): Promise<Served> {
  let report: Reporter | null = null;
  try {
    // The game checks that the pool holds the sun, the planets, a ship per player and a shot.
    const served = await serve({
      config: settings.config,
      seed: settings.seed,
      address: settings.address,
      udpPort: settings.port,
      httpPort: settings.httpPort === 0 ? null : settings.httpPort,
      tap: recorder ?? undefined,
      log(event, slot, value) {
        const record = report === null ? null : report.event(event, slot, value);
        if (record !== null) out.write(record);
      },
    });
    report = served.report;
    return served;
  } catch (err) {
    if (err instanceof ConfigError) command.usage(err.message);
    if (err instanceof ListenError) command.usage(err.what === "http" ? `${err.message} (--http-port 0 serves no page)` : err.message);
    if (err instanceof PageError) {
      process.stderr.write(`lwar-xs: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

function bracket(address: string, port: number): string {
  return address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
}

function printBanner(served: Served, settings: Settings, out: Output): void {
  const { udp, http } = served;
  const { config, seed } = settings;
  const family = udp.address === "::" ? "IPv6 and IPv4" : udp.address.includes(":") ? "IPv6" : "IPv4";
  out.write({
    event: "listening",
    text: `lwar-xs listening on udp ${bracket(udp.address, udp.port)}, ${family} (max ${config.maxPlayers} players, timeout ${config.timeoutMs} ms, seed ${seed})`,
    fields: { udp: bracket(udp.address, udp.port), family, maxPlayers: config.maxPlayers, timeoutMs: config.timeoutMs, seed },
  }, false);
  // The kernel may grant less than asked (Linux caps it at net.core.rmem_max).
  if (udp.receiveBuffer < RECEIVE_BUFFER_BYTES / 2)
    out.write({
      event: "warning",
      text: `lwar-xs: the kernel granted a ${udp.receiveBuffer}-byte receive buffer of the ${RECEIVE_BUFFER_BYTES} asked; a burst from 8 players may be dropped (raise net.core.rmem_max)`,
      fields: { receiveBuffer: udp.receiveBuffer, asked: RECEIVE_BUFFER_BYTES },
    }, false);
  if (http !== null) {
    const urls = pageUrls(http.address, http.port);
    out.write({
      event: "serving",
      text: `lwar-xs serving the game on http ${bracket(http.address, http.port)}, WebSocket at /ws, /status and /metrics; play in a browser at:\n` +
        urls.map((u) => `  ${u}`).join("\n"),
      fields: { http: bracket(http.address, http.port), urls },
    }, false);
  }
}

function startStatus(report: Reporter, seconds: number, out: Output): NodeJS.Timeout | null {
  return seconds > 0 ? setInterval(() => out.write(report.status()), seconds * 1000) : null;
}

/** On SIGINT or SIGTERM: the scoreboard, Leave to every player, the totals, exit 0. */
function stopOnSignals(served: Served, statusTimer: NodeJS.Timeout | null, out: Output, recorder: Recorder | null = null): void {
  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    if (statusTimer !== null) clearInterval(statusTimer);
    const { server, report } = served;
    const players = server.playerCount();
    out.write(report.scoreboard());
    out.write(stateHashRecord(served.game, recorder));
    void served.close().then(() => {
      out.write(report.totals(signal, players));
      process.exit(0);
    });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

async function main(): Promise<void> {
  const settings = readSettings();
  const out = new Output(settings.log === "json");
  const recorder = openRecorder(settings, out);
  const served = await start(settings, out, recorder);
  printBanner(served, settings, out);
  const statusTimer = startStatus(served.report, settings.statusS, out);
  stopOnSignals(served, statusTimer, out, recorder);
}

void main();
