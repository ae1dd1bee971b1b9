/**
 * `npm run pcap -- --out match.pcap`: play a scripted lwar match in memory (server with the
 * game, client-library bots) and write every datagram, each way, to a pcap file that
 * Wireshark and tshark open with tools/wireshark/lwar.lua. No network and no capture
 * rights are needed. See docs/wireshark.md.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";
import { MAX_MESSAGES, validatePacket } from "../../modules/protocol/codec";
import { FROM_CLIENT, FROM_SERVER, Msg } from "../../modules/protocol/constants";
import { createCounters } from "../../modules/protocol/counters";
import { DEFAULT_RECORD, MIN_SECONDS, WEB_PORT, recordMatch, toPcap } from "./record";
import { installNodeKernels } from "../../hosts/node/kernels";

const MAX_SECONDS = 600;
const DEFAULT_OUT = "match.pcap";

const HELP = `Usage: npm run pcap -- [options]

Records an lwar match played in memory to a pcap file, for Wireshark with
tools/wireshark/lwar.lua. The match is scripted: the players connect, chat, rename
and change selection, one more client is turned away (Reject), the last player
leaves, and the server shuts down.

Options:
  --out FILE        pcap file to write (default: ${DEFAULT_OUT})
  --players N       players, 1..8 (default: ${DEFAULT_RECORD.players})
  --seconds N       length of the match, ${MIN_SECONDS}..${MAX_SECONDS} (default: ${DEFAULT_RECORD.seconds})
  --seed N          seed of the game and the bots (default: ${DEFAULT_RECORD.seed})
  --websocket N     carry the first N players over WebSocket (TCP port ${WEB_PORT}, /ws),
                    as browsers are, instead of UDP (default: 0)
  -h, --help        this text
`;

export interface CaptureOptions {
  out: string;
  players: number;
  seconds: number;
  seed: number;
  websocket: number;
}

class UsageError extends Error {}
class WriteError extends Error {}

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === "" || !Number.isInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be an integer in ${min}..${max}, got '${text}'`);
  return n;
}

/** The options of a command line, or a UsageError; null for --help. */
export function parseCapture(args: string[]): CaptureOptions | null {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        out: { type: "string" },
        players: { type: "string" },
        seconds: { type: "string" },
        seed: { type: "string" },
        websocket: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  if (values.help) return null;
  if (values.out !== undefined && values.out.trim() === "") throw new UsageError("--out needs a file name");
  const players = integer("players", values.players, DEFAULT_RECORD.players, 1, 8);
  return {
    out: values.out ?? DEFAULT_OUT,
    players,
    seconds: integer("seconds", values.seconds, DEFAULT_RECORD.seconds, MIN_SECONDS, MAX_SECONDS),
    seed: integer("seed", values.seed, DEFAULT_RECORD.seed, 0, 0xffffffff),
    websocket: integer("websocket", values.websocket, 0, 0, players),
  };
}

/** Record and write; returns the summary line. Throws a WriteError when the file cannot be written. */
export function capture(o: CaptureOptions): string {
  const rec = recordMatch({ players: o.players, seconds: o.seconds, seed: o.seed, reject: true });
  const bytes = toPcap(rec, o.websocket);
  try {
    writeFileSync(o.out, bytes);
  } catch (e) {
    throw new WriteError(`cannot write ${o.out}: ${(e as Error).message}`);
  }
  const types = new Set<number>();
  const offsets = new Uint16Array(MAX_MESSAGES);
  const counters = createCounters();
  for (const d of rec.datagrams) {
    const from = d.src === rec.serverAddress ? FROM_SERVER : FROM_CLIENT;
    if (!validatePacket(d.bytes, d.bytes.length, from, counters, offsets)) continue;
    for (let m = 0; m < d.bytes[12] + d.bytes[13]; m++) types.add(d.bytes[offsets[m] - 1]);
  }
  const all = Object.values(Msg);
  const carriage = o.websocket > 0 ? `, ${o.websocket} over WebSocket` : "";
  return `pcap: wrote ${o.out}: ${rec.datagrams.length} datagrams, ${bytes.length} bytes; ` +
    `${o.players} players${carriage}, ${o.seconds} s, seed ${o.seed}; ${all.filter((t) => types.has(t)).length} of ${all.length} message types`;
}

function main(): void {
  installNodeKernels();
  let o: CaptureOptions | null;
  try {
    o = parseCapture(process.argv.slice(2));
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    process.stderr.write(`pcap: ${e.message}\nTry 'npm run pcap -- --help'.\n`);
    process.exit(2);
  }
  if (o === null) {
    process.stdout.write(HELP);
    return;
  }
  try {
    process.stdout.write(capture(o) + "\n");
  } catch (e) {
    if (!(e instanceof WriteError)) throw e;
    process.stderr.write(`pcap: ${e.message}\n`);
    process.exit(1);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) main();
