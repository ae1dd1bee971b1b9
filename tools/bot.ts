/**
 * `npm run bot -- --host H --port P --count N --duration S`: N bots play, then leave.
 */
import { failer, numberOption } from "./cli";
import { parseArgs } from "node:util";
import { DEFAULT_PORT } from "../modules/protocol/constants";
import { ClientState } from "../modules/client/client";
import { C } from "../modules/protocol/counters";
import { BEHAVIOURS } from "./behaviours";
import { runBots } from "./botlib";

const HELP = `lwar-xs bots: connect N clients to a server, play, and leave cleanly.

Usage: npm run bot -- [options]

Options:
  --host ADDR        server address (default 127.0.0.1)
  --port N           server UDP port (default ${DEFAULT_PORT})
  --count N          number of bots, 1..64 (default 4)
  --duration S       seconds to play (default 10)
  --behaviour NAME   ${BEHAVIOURS.join(", ")} (default wander)
  --chat-every S     mean seconds between chat lines per bot, 0 = silent (default 5)
  --seed N           random seed (default 1)
  --help             show this help
`;

const fail: (message: string) => never = failer("bot", "bot");

function num(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  return numberOption(fail, name, text, fallback, min, max);
}

async function main(): Promise<void> {
  let v;
  try {
    v = parseArgs({
      options: {
        host: { type: "string" }, port: { type: "string" }, count: { type: "string" }, duration: { type: "string" },
        behaviour: { type: "string" }, "chat-every": { type: "string" }, seed: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail((err as Error).message);
  }
  if (v.help) {
    process.stdout.write(HELP);
    return;
  }
  const behaviour = v.behaviour ?? "wander";
  if (!(BEHAVIOURS as readonly string[]).includes(behaviour)) fail(`--behaviour must be one of ${BEHAVIOURS.join(", ")}, got '${behaviour}'`);
  const opts = {
    host: v.host ?? "127.0.0.1",
    port: num("port", v.port, DEFAULT_PORT, 1, 65535),
    count: Math.floor(num("count", v.count, 4, 1, 64)),
    durationS: num("duration", v.duration, 10, 0.1, 86400),
    behaviour,
    chatEveryS: num("chat-every", v["chat-every"], 5, 0, 3600),
    seed: Math.floor(num("seed", v.seed, 1, 0, 0xffffffff)),
  };
  const tty = process.stdout.isTTY;
  console.log(`bot: ${opts.count} bot(s) → ${opts.host}:${opts.port} for ${opts.durationS} s, behaviour ${behaviour}`);
  const summary = await runBots({
    ...opts,
    onProgress: (bots, t) => {
      const connected = bots.filter((b) => b.client.state === ClientState.Connected).length;
      const players = Math.max(0, ...bots.map((b) => b.client.playerCount()));
      const sent = bots.reduce((a, b) => a + b.client.counters[C.ReliableSent], 0);
      const recv = bots.reduce((a, b) => a + b.client.counters[C.ReliableReceived], 0);
      const upd = bots.reduce((a, b) => a + b.client.updatesReceived, 0) / bots.length / t;
      const line = `t=${t.toFixed(0)}s connected ${connected}/${bots.length} players ${players} reliable sent ${sent} recv ${recv} updates ${upd.toFixed(1)}/s`;
      if (tty) process.stdout.write(`\r${line}   `);
      else if (Math.round(t) % 5 === 0) console.log(line);
    },
  });
  if (tty) process.stdout.write("\n");
  const s = summary;
  console.log(
    `summary: ${s.connected}/${s.bots} connected, players seen ${s.playersSeen}, reliable sent ${s.reliableSent} received ${s.reliableReceived} ` +
      `resent ${s.reliableResent}, chats ${s.chatsSent}, Update ${s.updatesPerSecond.toFixed(1)}/s, Stats ${s.statsPerSecond.toFixed(1)}/s per bot, ` +
      `disconnects: ${s.disconnectedCleanly} clean, ${s.kicked} kicked, ${s.rejected} rejected, ${s.timedOut} timed out (${s.seconds.toFixed(1)} s)`,
  );
  process.exit(s.connected === s.bots ? 0 : 1);
}

void main();
