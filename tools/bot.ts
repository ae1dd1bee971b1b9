/**
 * `npm run bot -- --host H --port P --count N --duration S`: N bots play, then leave.
 */
import { pathToFileURL } from "node:url";
import { DEFAULT_PORT } from "../modules/protocol/constants";
import { ClientState } from "../modules/client/client";
import { Counter } from "../modules/protocol/counters";
import { BEHAVIOURS } from "../harness/behaviours";
import { runBots, type Bot, type BotSummary } from "./botlib";
import { defineCommand, EXIT_FAILURE, EXIT_OK } from "../cli";
import { installNodeKernels } from "../hosts/node/kernels";

export const botCommand = defineCommand({
  name: "bot",
  script: "npm run bot",
  summary: "connect N clients to a server, play, and leave cleanly.",
  options: {
    host: { type: "string", default: "127.0.0.1", arg: "ADDR", help: "server address" },
    port: { type: "int", default: DEFAULT_PORT, min: 1, max: 65535, help: "server UDP port" },
    count: { type: "int", default: 4, min: 1, max: 64, help: "number of bots" },
    duration: { type: "number", default: 10, min: 0.1, max: 86400, arg: "S", help: "seconds to play" },
    behaviour: { type: "choice", choices: BEHAVIOURS, default: "wander", help: "how the bots steer and shoot" },
    "chat-every": { type: "number", default: 5, min: 0, max: 3600, arg: "S", help: "mean seconds between chat lines per bot, 0 = silent" },
    seed: { type: "int", default: 1, min: 0, max: 0xffffffff, help: "random seed" },
    name: { type: "string", default: "bot", arg: "NAME", help: "bot i joins as NAME followed by i (1..N)" },
    ship: { type: "int", default: -1, min: -1, max: 2, help: "ship type to join with, -1 = the server's" },
    weapon: { type: "int", default: -1, min: -1, max: 2, help: "weapon type to join with, -1 = the server's" },
    "no-reconnect": { type: "flag", help: "do not try again after a lost connection or a full match" },
  },
  notes:
    "Ctrl-C (or SIGTERM) ends the match early: every bot leaves and the summary is printed. " +
    "A bot whose connection is lost (server shutdown, kick, silence) or that finds the match full tries again " +
    "after 1, 2 and 4 s, then every 5 s (every 5 s while the match is full), under the same name, ship and weapon.",
  failure: "a bot was kicked, rejected, timed out or never connected",
});

/** One progress line over the running bots, `t` seconds in. */
export function describeProgress(bots: Bot[], t: number): string {
  const connected = bots.filter((b) => b.client.state === ClientState.Connected).length;
  const players = Math.max(0, ...bots.map((b) => b.client.playerCount()));
  const sent = bots.reduce((a, b) => a + b.client.counters[Counter.ReliableSent], 0);
  const recv = bots.reduce((a, b) => a + b.client.counters[Counter.ReliableReceived], 0);
  const upd = bots.reduce((a, b) => a + b.updateTicks, 0) / bots.length / t;
  const lost = bots.reduce((a, b) => a + b.lost, 0);
  const again = lost > 0 ? ` lost ${lost} regained ${bots.reduce((a, b) => a + b.reconnected, 0)}` : "";
  return `t=${t.toFixed(0)}s connected ${connected}/${bots.length} players ${players} reliable sent ${sent} recv ${recv} updates ${upd.toFixed(1)}/s${again}`;
}

/** The summary line, and whether the run counts as a success (every bot connected and left cleanly). */
export function describeBots(s: BotSummary, host: string, port: number): { line: string; ok: boolean } {
  const ok = s.connected === s.bots && s.kicked === 0 && s.rejected === 0 && s.timedOut === 0;
  if (s.neverConnected === s.bots) return { line: `summary: no answer from ${host}:${port} after ${s.seconds.toFixed(1)} s (${s.bots} bot(s))`, ok: false };
  const unanswered = (s.neverConnected > 0 ? `, ${s.neverConnected} never answered` : "") + (s.lost > 0 ? `, ${s.lost} lost and ${s.reconnected} regained` : "");
  const line =
    `summary: ${s.connected}/${s.bots} connected, players seen ${s.playersSeen}, reliable sent ${s.reliableSent} received ${s.reliableReceived} ` +
    `resent ${s.reliableResent}, chats ${s.chatsSent}, Update ${s.updatesPerSecond.toFixed(1)}/s, Stats ${s.statsPerSecond.toFixed(1)}/s per bot, ` +
    `disconnects: ${s.disconnectedCleanly} clean, ${s.kicked} kicked, ${s.rejected} rejected, ${s.timedOut} timed out${unanswered} (${s.seconds.toFixed(1)} s)`;
  return { line, ok };
}

async function main(): Promise<void> {
  // Clients run the transport's C as WebAssembly (hosts/node/kernels.ts).
  installNodeKernels();
  const v = botCommand.parse();
  const tty = process.stdout.isTTY;
  const stop = new AbortController();
  const onSignal = (signal: string): void => {
    if (stop.signal.aborted) return;
    if (tty) process.stdout.write("\n");
    console.log(`bot: ${signal}: disconnecting every bot`);
    stop.abort();
  };
  process.on("SIGINT", () => onSignal("SIGINT"));
  process.on("SIGTERM", () => onSignal("SIGTERM"));
  console.log(`bot: ${v.count} bot(s) → ${v.host}:${v.port} for ${v.duration} s, behaviour ${v.behaviour}`);
  console.log(`bot: connecting to ${v.host}:${v.port}…`);
  const summary = await runBots({
    host: v.host,
    port: v.port,
    count: v.count,
    durationS: v.duration,
    behaviour: v.behaviour,
    chatEveryS: v["chat-every"],
    seed: v.seed,
    name: v.name,
    ship: v.ship,
    weapon: v.weapon,
    reconnect: !v["no-reconnect"],
    signal: stop.signal,
    onProgress: (bots, t) => {
      const line = describeProgress(bots, t);
      if (tty) process.stdout.write(`\r${line}   `);
      else if (Math.round(t) % 5 === 0) console.log(line);
    },
  });
  if (tty && !stop.signal.aborted) process.stdout.write("\n");
  const { line, ok } = describeBots(summary, v.host, v.port);
  console.log(line);
  process.exit(ok ? EXIT_OK : EXIT_FAILURE);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) void main();
