/**
 * Running tshark with the lwar dissector, and what our own codec says the same bytes
 * hold, field by field, in the dissector's field names and tshark's text for them.
 */
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { getU32 } from "../../modules/protocol/bytes";
import {
  MAX_MESSAGES, readAdd, readChat, readId, readInput, readName, readReject, readSelection, readStats, updateCount,
  updateEntryHealth, updateEntryId, updateEntryRot, updateEntryVx, updateEntryVy, updateEntryX, updateEntryY,
  validatePacket, Fields, INPUT_BACKWARD, INPUT_FORWARD, INPUT_LEFT, INPUT_RIGHT, INPUT_SHOOTING,
} from "../../modules/protocol/codec";
import { FROM_CLIENT, MAX_PLAYERS, Msg, RELIABLE_HEADER, UPDATE_ENTRY } from "../../modules/protocol/constants";
import { createCounters } from "../../modules/protocol/counters";

export const DISSECTOR = fileURLToPath(new URL("../../tools/wireshark/lwar.lua", import.meta.url));

/** Why tshark cannot be used here, or null when it can. */
export function tsharkMissing(): string | null {
  const r = spawnSync("tshark", ["--version"], { encoding: "utf8" });
  if (r.error !== undefined) return `tshark is not on PATH (${(r.error as NodeJS.ErrnoException).code}); install Wireshark's tshark (Debian: apt-get install tshark)`;
  if (r.status !== 0) return `tshark --version failed with status ${r.status}`;
  return null;
}

/** tshark with the dissector loaded; returns stdout, throws with stderr on failure. */
export function tshark(args: string[]): string {
  const r = spawnSync("tshark", ["-X", `lua_script:${DISSECTOR}`, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`tshark ${args.join(" ")} failed (${r.status}): ${r.stderr}`);
  // A Lua error does not fail tshark; it shows up in the output instead.
  if (/Lua Error|lua_script.*error/i.test(r.stdout + r.stderr)) throw new Error(`the dissector failed: ${r.stderr}${r.stdout.slice(0, 2000)}`);
  return r.stdout;
}

const AGGREGATOR = "\u001f";

/**
 * `-T fields` for `fields`, every occurrence: one map per frame, field name to the values
 * in the order the dissector added them (an empty list when absent).
 */
export function tsharkFields(file: string, fields: readonly string[], extra: string[] = []): Array<Map<string, string[]>> {
  const args = ["-r", file, ...extra, "-T", "fields", "-E", "occurrence=a", "-E", `aggregator=${AGGREGATOR}`, "-E", "separator=\t"];
  for (const f of fields) args.push("-e", f);
  const out = tshark(args);
  const frames: Array<Map<string, string[]>> = [];
  for (const line of out.split("\n")) {
    if (line === "") continue;
    const cells = line.split("\t");
    const m = new Map<string, string[]>();
    fields.forEach((f, i) => m.set(f, cells[i] === undefined || cells[i] === "" ? [] : cells[i].split(AGGREGATOR)));
    frames.push(m);
  }
  return frames;
}

/** `-V` text of every frame, by frame number (1-based). */
export function tsharkVerbose(file: string, extra: string[] = []): Map<number, string> {
  const out = tshark(["-r", file, ...extra, "-V"]);
  const frames = new Map<number, string>();
  const parts = out.split(/^(?=Frame \d+: )/m);
  for (const part of parts) {
    const m = /^Frame (\d+): /.exec(part);
    if (m !== null) frames.set(Number(m[1]), part);
  }
  return frames;
}

/** The dissector's part of one frame's `-V` text, from the "lwar Rev 1" line on. */
export function lwarSection(verbose: string | undefined): string {
  if (verbose === undefined) throw new Error("no such frame");
  const at = verbose.indexOf("\nlwar Rev 1");
  if (at < 0) throw new Error(`no lwar in this frame:\n${verbose.slice(0, 600)}`);
  return verbose.slice(at + 1);
}

/** The fields the dissector gives every well-formed message, compared frame by frame. */
export const FIELDS = Object.freeze([
  "lwar.sender", "lwar.app_id", "lwar.ack", "lwar.timestamp", "lwar.rel", "lwar.unrel", "lwar.seqno", "lwar.type",
  "lwar.player_id", "lwar.entity_id", "lwar.id.generation", "lwar.id.index", "lwar.chat", "lwar.name",
  "lwar.template", "lwar.ship", "lwar.weapon", "lwar.stats.score", "lwar.stats.ping",
  "lwar.update.num", "lwar.update.x", "lwar.update.y", "lwar.update.vx", "lwar.update.vy", "lwar.update.rot", "lwar.update.health",
  "lwar.input.forward", "lwar.input.backward", "lwar.input.left", "lwar.input.right", "lwar.input.shooting",
  "lwar.reject.reason", "lwar.padding", "lwar.trailing", "lwar.drop",
] as const);

export function hex32(n: number): string {
  return "0x" + (n >>> 0).toString(16).padStart(8, "0");
}

/** generation:index of an id, as the dissector shows it. */
export function idText(id: number): string {
  return `${id >>> 16}:${id & 0xffff}`;
}

function ascii(b: Uint8Array, o: number, n: number): string {
  let s = "";
  for (let i = 0; i < n; i++) s += String.fromCharCode(b[o + i]);
  return s;
}

/** One message as the codec reads it. */
export interface Decoded {
  type: number;
  reliable: boolean;
  seqno: number;
  /** Payload offset in the packet. */
  offset: number;
}

/**
 * What the dissector must show for a valid packet sent by `from` (FROM_CLIENT or
 * FROM_SERVER), read with the server's own validation and readers. Throws when the
 * codec does not accept the packet.
 */
export function expectedFields(b: Uint8Array, from: number): { fields: Map<string, string[]>; messages: Decoded[] } {
  const offsets = new Uint16Array(MAX_MESSAGES);
  const counters = createCounters();
  if (!validatePacket(b, b.length, from, counters, offsets)) throw new Error("the codec rejects a recorded packet");
  const m = new Map<string, string[]>();
  for (const f of FIELDS) m.set(f, []);
  const put = (f: string, v: string | number): void => void m.get(f)!.push(String(v));
  const id = (f: string, v: number): void => {
    put(f, hex32(v));
    if (v !== 0xffffffff) {
      put("lwar.id.generation", v >>> 16);
      put("lwar.id.index", v & 0xffff);
    }
  };
  put("lwar.sender", from === FROM_CLIENT ? "client" : "server");
  put("lwar.app_id", hex32(getU32(b, 0)));
  put("lwar.ack", getU32(b, 4));
  put("lwar.timestamp", getU32(b, 8));
  put("lwar.rel", b[12]);
  put("lwar.unrel", b[13]);
  const rel = b[12];
  const total = rel + b[13];
  const messages: Decoded[] = [];
  const f = new Fields();
  const scores = new Uint16Array(MAX_PLAYERS);
  const pings = new Uint16Array(MAX_PLAYERS);
  let end = 14;
  for (let i = 0; i < total; i++) {
    const p = offsets[i];
    const type = b[p - 1];
    const reliable = i < rel;
    const seqno = reliable ? getU32(b, p - RELIABLE_HEADER) : -1;
    messages.push({ type, reliable, seqno, offset: p });
    if (reliable) put("lwar.seqno", seqno);
    put("lwar.type", type);
    switch (type) {
      case Msg.Join:
      case Msg.Leave:
        id("lwar.player_id", readId(b, p));
        end = p + 4;
        break;
      case Msg.Remove:
        id("lwar.entity_id", readId(b, p));
        end = p + 4;
        break;
      case Msg.Chat:
        readChat(b, p, f);
        id("lwar.player_id", f.id);
        put("lwar.chat", ascii(b, f.textOffset, f.textLength));
        end = f.textOffset + f.textLength + 1;
        break;
      case Msg.Add:
        readAdd(b, p, f);
        id("lwar.entity_id", f.id);
        id("lwar.player_id", f.other);
        put("lwar.template", f.a);
        end = p + 9;
        break;
      case Msg.Selection:
        readSelection(b, p, f);
        id("lwar.player_id", f.id);
        put("lwar.ship", f.a);
        put("lwar.weapon", f.b);
        end = p + 6;
        break;
      case Msg.Name:
        readName(b, p, f);
        id("lwar.player_id", f.id);
        put("lwar.name", ascii(b, f.textOffset, f.textLength));
        end = p + 36;
        break;
      case Msg.Stats:
        readStats(b, p, scores, pings);
        for (let s = 0; s < MAX_PLAYERS; s++) put("lwar.stats.score", scores[s]);
        for (let s = 0; s < MAX_PLAYERS; s++) put("lwar.stats.ping", pings[s]);
        end = p + 32;
        break;
      case Msg.Update: {
        const n = updateCount(b, p);
        put("lwar.update.num", n);
        for (let e = p + 1; e < p + 1 + n * UPDATE_ENTRY; e += UPDATE_ENTRY) {
          id("lwar.entity_id", updateEntryId(b, e));
          put("lwar.update.x", updateEntryX(b, e));
          put("lwar.update.y", updateEntryY(b, e));
          put("lwar.update.vx", updateEntryVx(b, e));
          put("lwar.update.vy", updateEntryVy(b, e));
          put("lwar.update.rot", updateEntryRot(b, e));
          put("lwar.update.health", updateEntryHealth(b, e));
        }
        end = p + 1 + n * UPDATE_ENTRY;
        break;
      }
      case Msg.Input: {
        const bits = readInput(b, p);
        put("lwar.input.forward", bits & INPUT_FORWARD ? 1 : 0);
        put("lwar.input.backward", bits & INPUT_BACKWARD ? 1 : 0);
        put("lwar.input.left", bits & INPUT_LEFT ? 1 : 0);
        put("lwar.input.right", bits & INPUT_RIGHT ? 1 : 0);
        put("lwar.input.shooting", bits & INPUT_SHOOTING ? 1 : 0);
        end = p + 5;
        break;
      }
      case Msg.Reject:
        put("lwar.reject.reason", readReject(b, p));
        end = p + 1;
        break;
      default:
        end = p;
    }
  }
  if (end < b.length) put("lwar.padding", Array.from(b.subarray(end), (v) => v.toString(16).padStart(2, "0")).join(""));
  return { fields: m, messages };
}
