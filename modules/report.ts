/**
 * What the server tells its operator, the same on every host: a line per event (joins,
 * kills, kicks...), the periodic status line, the scoreboard at shutdown, `/status` as
 * JSON and `/metrics` in the Prometheus text format.
 *
 * Everything here runs at log time, never per packet or per tick, and allocates freely,
 * with one care for the board: no object gets a property whose name is made at run time
 * (a counter's name), since each such name becomes a key that XS keeps for good. Maps of
 * counters are written as JSON text instead (`/status`), or as lists of pairs.
 *
 * Each line comes as a `LogRecord`: its text, and its fields for a JSON log.
 */
import type { Game } from "./game/game";
import { GAME_COUNTER_NAMES } from "./game/game";
import { Kind, SHIP_NAME, TEMPLATE_KIND, TEMPLATE_NAME, WEAPON_NAME } from "./game/templates";
import { NAME_LENGTH } from "./protocol/constants";
import { Counter, COUNTER_NAMES } from "./protocol/counters";
import { deathCause, deathKiller, describeKick, KICK_LABELS, KickReason, LogEvent } from "./server/events";
import type { Server } from "./server/server";
import { bytesToAscii } from "./text";
import { summarize, TICK_BUCKETS, tickBucketLower, type TickCost, type TickSummary } from "./tickcost";

/**
 * Counters that mean a packet or a message was thrown away because it was malformed,
 * misdirected or not believed: the status line's drops.
 */
export const DROP_COUNTERS: readonly number[] = Object.freeze([
  Counter.TooShort, Counter.TooLong, Counter.BadAppId, Counter.UnknownType, Counter.WrongChannel, Counter.WrongDirection, Counter.Truncated,
  Counter.UnterminatedChat, Counter.UnterminatedName, Counter.TrailingBytes, Counter.BadAck, Counter.SpoofedId, Counter.BadName, Counter.BadSelection,
  Counter.BadChat, Counter.FutureTimestamp,
]);

/**
 * Counters of packets and messages set aside in the normal run of things: packets from a
 * peer that is not a player, and from one that just left (after its Disconnect, kick or
 * timeout), reliable messages that came twice or ahead of a lost one (the sender resends),
 * unreliable ones older than the newest. /metrics and /status show them; the status line
 * does not call them drops.
 */
export const HARMLESS_COUNTERS: readonly number[] = Object.freeze([
  Counter.UnknownPeer, Counter.AfterLeave, Counter.DuplicateReliable, Counter.OutOfOrderReliable, Counter.StaleUnreliable,
]);

/** One line for the operator: its text (no time stamp) and the same as fields, for a JSON log. */
export interface LogRecord {
  event: string;
  text: string;
  fields: Record<string, unknown>;
}

/** The web transport as the report sees it (either host's). */
export interface WebReport {
  readonly counters: Uint32Array;
  readonly names: readonly string[];
  /** Indices of the counters that mean something was dropped or refused. */
  readonly drops: readonly number[];
  open(): number;
}

/**
 * What a board adds of its own (hosts/moddable): counters of its network path (the UDP ring,
 * the TCP slots), and facts of its boot (reset reason, boot count, version).
 */
export interface BoardReport {
  readonly counters: ArrayLike<number>;
  readonly names: readonly string[];
  /** Indices of the counters that mean something was dropped or refused. */
  readonly drops: readonly number[];
  /** Bring `counters` up to date (it is read right after). */
  refresh(): void;
  /** Facts for `/status` and the status line, as name and value. */
  readonly facts: readonly (readonly [string, string | number | boolean])[];
}

export interface ReportOptions {
  server: Server;
  game: Game | null;
  /** The host's measure of its ticks; null when it keeps none. */
  tickCost: TickCost | null;
  seed: number | null;
  /** A peer as the log shows it (address:port, or ws:address#n). */
  describePeer(address: string, port: number): string;
  /** The host's monotonic clock, ms. */
  now(): number;
  /** "node" or "moddable". */
  host: string;
  web?: WebReport | null;
  /** The host's failed sends. */
  sendErrors?: () => number;
  board?: BoardReport | null;
}

/** A name for what dealt a ship's last blow (a template id): "sun", "planet", "pulse", "ram"... */
export function causeName(cause: number): string {
  if (TEMPLATE_KIND[cause] === Kind.Ship) return "ram";
  return TEMPLATE_NAME[cause] ?? `template ${cause}`;
}

/** "0.9%" */
function percent(share: number): string {
  const p = share * 100;
  return `${p < 10 ? p.toFixed(1) : p.toFixed(0)}%`;
}

function quote(name: string): string {
  return `'${name}'`;
}

/** Seconds, as Prometheus wants them, from µs. */
function seconds(us: number): string {
  return String(us / 1e6);
}

/** A Prometheus label value: backslash, double quote and newline escaped. */
function label(value: string): string {
  let out = "";
  for (let i = 0; i < value.length; i++) {
    const c = value[i];
    out += c === "\\" ? "\\\\" : c === '"' ? '\\"' : c === "\n" ? "\\n" : c;
  }
  return out;
}

/** camelCase to snake_case, for metric names. */
function snake(name: string): string {
  let out = "";
  for (let i = 0; i < name.length; i++) {
    const c = name[i];
    out += c >= "A" && c <= "Z" ? `_${c.toLowerCase()}` : c;
  }
  return out;
}

export interface PlayerRow {
  slot: number;
  id: number;
  name: string;
  peer: string;
  score: number;
  kills: number;
  deaths: number;
  pingMs: number;
  /** The player's selection: the ship and weapon it flies from its next spawn. */
  ship: string;
  weapon: string;
  /** The ship template flown now; null while the player has no ship (dead, or not yet spawned). */
  flying: string | null;
  /** A bot the server flies itself (config.bots). */
  bot: boolean;
}

function templateName(names: readonly string[], i: number): string {
  return names[i] ?? `#${i}`;
}

export class Reporter {
  readonly #o: ReportOptions;
  /** Kicks by KickReason (counted from the log events). */
  readonly kicks = new Uint32Array(KICK_LABELS.length);
  readonly #startedAt: number;
  readonly #last: Uint32Array;
  #lastAt: number;
  #lastTicks: { buckets: Uint32Array; count: number; sumUs: number } | null = null;

  constructor(options: ReportOptions) {
    this.#o = options;
    this.#startedAt = options.now();
    this.#lastAt = this.#startedAt;
    this.#last = new Uint32Array(options.server.counters.length);
  }

  playerName(slot: number): string {
    const s = this.#o.server;
    return bytesToAscii(s.names, slot * NAME_LENGTH, s.nameLength[slot]);
  }

  /** Where the player in `slot` plays from, as log lines show it; "bot" for the server's own. */
  peer(slot: number): string {
    const s = this.#o.server;
    return s.pilots.bot[slot] !== 0 ? "bot" : this.#o.describePeer(s.address[slot], s.port[slot]);
  }

  /** Every player now in the match, by slot. */
  players(): PlayerRow[] {
    const { server, game } = this.#o;
    const rows: PlayerRow[] = [];
    for (let s = 0; s < server.config.maxPlayers; s++) {
      if (server.active[s] === 0) continue;
      rows.push({
        slot: s,
        id: server.playerId(s),
        name: this.playerName(s),
        peer: this.peer(s),
        score: server.scores[s],
        kills: game !== null ? game.kills[s] : 0,
        deaths: game !== null ? game.deaths[s] : 0,
        pingMs: server.pings[s],
        ship: templateName(SHIP_NAME, server.ship[s]),
        weapon: templateName(WEAPON_NAME, server.weapon[s]),
        flying: game !== null && game.focusIndex[s] >= 0 ? templateName(SHIP_NAME, game.shipType[s]) : null,
        bot: server.pilots.bot[s] !== 0,
      });
    }
    return rows;
  }

  /** Count what the report keeps of a log event (kicks by reason); the host calls it for every event. */
  count(event: number, value: number): void {
    if (event === LogEvent.Kick && value > 0 && value < this.kicks.length) this.kicks[value]++;
  }

  /** The line for a log event, seen while the slot still holds its player; null for an event this report does not know. */
  event(event: number, slot: number, value: number): LogRecord | null {
    const server = this.#o.server;
    const name = slot >= 0 ? this.playerName(slot) : "";
    const peer = slot >= 0 ? this.peer(slot) : "";
    const who = `slot ${slot} ${quote(name)} ${peer}`;
    switch (event) {
      case LogEvent.Join:
        return { event: "join", text: `join    ${who} id 0x${value.toString(16)}`, fields: { slot, name, peer, id: value } };
      case LogEvent.Leave:
        return { event: "leave", text: `leave   ${who} id 0x${value.toString(16)}`, fields: { slot, name, peer, id: value } };
      case LogEvent.Timeout:
        return { event: "timeout", text: `timeout ${who} id 0x${value.toString(16)}`, fields: { slot, name, peer, id: value } };
      case LogEvent.Kick: {
        const reason = describeKick(value);
        return { event: "kick", text: `kick    ${who}: ${reason}`, fields: { slot, name, peer, reason: KICK_LABELS[value] ?? String(value) } };
      }
      case LogEvent.Reject:
        return { event: "reject", text: "reject  a client: server full", fields: { reason: "server_full" } };
      case LogEvent.Rename:
        return { event: "rename", text: `name    slot ${slot} is now ${quote(name)}`, fields: { slot, name } };
      case LogEvent.Chat: {
        const text = bytesToAscii(server.lastChat, 0, server.lastChatLength);
        return { event: "chat", text: `chat    ${quote(name)}: ${text}`, fields: { slot, name, text } };
      }
      case LogEvent.Death: {
        const killer = deathKiller(value);
        const cause = causeName(deathCause(value));
        if (killer >= 0 && killer !== slot) {
          const killerName = this.playerName(killer);
          return {
            event: "kill",
            text: `kill    ${quote(killerName)} → ${quote(name)} (${cause})`,
            fields: { killer: killerName, killerSlot: killer, victim: name, victimSlot: slot, cause },
          };
        }
        const suicide = killer === slot;
        return {
          event: "death",
          text: `death   ${quote(name)} (${suicide ? `own ${cause}` : cause})`,
          fields: { victim: name, victimSlot: slot, cause, suicide },
        };
      }
    }
    return null;
  }

  /** Mean, p99 and share of the period of the ticks since the last status line (or since start). */
  #tickSince(): TickSummary | null {
    const cost = this.#o.tickCost;
    if (cost === null) return null;
    const summary = summarize(cost, this.#lastTicks);
    this.#lastTicks = { buckets: cost.buckets.slice(), count: cost.count, sumUs: cost.sumUs };
    return summary;
  }

  /** The periodic status line: rates since the last one, tick cost since the last one, drop totals. */
  status(): LogRecord {
    const { server, web } = this.#o;
    const c = server.counters;
    const now = this.#o.now();
    const dt = (now - this.#lastAt) / 1000;
    const rate = (i: number): number => (dt > 0 ? Math.round((c[i] - this.#last[i]) / dt) : 0);
    const rates = { packetsIn: rate(Counter.PacketsIn), bytesIn: rate(Counter.BytesIn), packetsOut: rate(Counter.PacketsOut), bytesOut: rate(Counter.BytesOut) };
    this.#last.set(c);
    this.#lastAt = now;
    const tick = this.#tickSince();
    const drops = this.drops();
    const players = server.playerCount();
    const max = server.config.maxPlayers;
    let dropText = "";
    for (const d of drops) dropText += ` ${d.reason}=${d.total}`;
    let text =
      `status  players ${players}/${max}, entities ${server.entities.count}` +
      ` | rate in ${rates.packetsIn} pkt/s ${rates.bytesIn} B/s, out ${rates.packetsOut} pkt/s ${rates.bytesOut} B/s`;
    if (tick !== null && this.#o.tickCost !== null)
      text += ` | tick mean ${Math.round(tick.meanUs)} µs, p99 ${tick.p99Us} µs, ${percent(tick.share)} of ${this.#o.tickCost.periodMs} ms`;
    if (web) text += ` | ws ${web.open()} open`;
    const sendErrors = this.#o.sendErrors ? this.#o.sendErrors() : 0;
    if (sendErrors !== 0) text += ` | total send errors ${sendErrors}`;
    text += ` | total drops${dropText === "" ? " none" : dropText}`;
    const fields: Record<string, unknown> = { players, maxPlayers: max, entities: server.entities.count, rates };
    if (tick !== null) fields.tick = { meanUs: Math.round(tick.meanUs), p99Us: tick.p99Us, share: round4(tick.share), ticks: tick.ticks };
    if (web) fields.wsOpen = web.open();
    fields.sendErrors = sendErrors;
    fields.drops = drops;
    return { event: "status", text, fields };
  }

  /** Totals of every drop that is not harmless, zeros left out (the web transport's reasons prefixed "ws."). */
  drops(): { reason: string; total: number }[] {
    const { server, web } = this.#o;
    const out: { reason: string; total: number }[] = [];
    for (const i of DROP_COUNTERS) if (server.counters[i] !== 0) out.push({ reason: COUNTER_NAMES[i], total: server.counters[i] });
    if (web) for (const i of web.drops) if (web.counters[i] !== 0) out.push({ reason: `ws.${web.names[i]}`, total: web.counters[i] });
    const board = this.#o.board;
    if (board) {
      board.refresh();
      for (const i of board.drops) if (board.counters[i] !== 0) out.push({ reason: `board.${board.names[i]}`, total: board.counters[i] });
    }
    return out;
  }

  /** The final scoreboard, best first: take it before the shutdown kicks everyone. */
  scoreboard(): LogRecord {
    const rows = this.players().sort((a, b) => b.score - a.score || b.kills - a.kills || a.deaths - b.deaths || a.slot - b.slot);
    let text = `scoreboard (${rows.length} player${rows.length === 1 ? "" : "s"})`;
    let rank = 0;
    for (const r of rows) {
      rank++;
      text += `\n  ${String(rank).padStart(2)}. ${quote(r.name).padEnd(NAME_LENGTH + 2)} score ${String(r.score).padStart(4)}  kills ${String(r.kills).padStart(4)}  deaths ${String(r.deaths).padStart(4)}`;
    }
    return {
      event: "scoreboard",
      text,
      fields: { players: rows.map((r, i) => ({ rank: i + 1, name: r.name, score: r.score, kills: r.kills, deaths: r.deaths })) },
    };
  }

  /** Shutdown totals (after the shutdown, whose kicks are counted). */
  totals(signal: string, players: number): LogRecord {
    const { server, web } = this.#o;
    const c = server.counters;
    const fields: Record<string, unknown> = {
      signal, players, joins: c[Counter.Joins], leaves: c[Counter.Leaves], timeouts: c[Counter.Timeouts], kicks: c[Counter.Kicks], rejects: c[Counter.Rejects],
      packetsIn: c[Counter.PacketsIn], packetsOut: c[Counter.PacketsOut],
    };
    let text =
      `${signal}: shut down, ${players} player(s) sent Leave; totals: joins ${c[Counter.Joins]}, leaves ${c[Counter.Leaves]}, ` +
      `timeouts ${c[Counter.Timeouts]}, kicks ${c[Counter.Kicks]}, rejects ${c[Counter.Rejects]}, packets in ${c[Counter.PacketsIn]} out ${c[Counter.PacketsOut]}`;
    if (web) {
      const connections = web.counters[web.names.indexOf("connections")];
      const requests = web.counters[web.names.indexOf("httpRequests")];
      text += `, ws connections ${connections}, page requests ${requests}`;
      fields.wsConnections = connections;
      fields.httpRequests = requests;
    }
    return { event: "shutdown", text, fields };
  }

  /** `/status`: the match now, as JSON text. Tick cost is over the whole run. */
  statusJson(): string {
    const { server, game, web, tickCost } = this.#o;
    const c = server.counters;
    let json =
      `{"host":${JSON.stringify(this.#o.host)},"uptimeS":${Math.round((this.#o.now() - this.#startedAt) / 1000)}` +
      `,"seed":${JSON.stringify(this.#o.seed)},"maxPlayers":${server.config.maxPlayers}` +
      `,"players":${JSON.stringify(this.players())},"entities":${server.entities.count}`;
    if (tickCost !== null) {
      const t = summarize(tickCost, null);
      json += `,"tick":${JSON.stringify({
        periodMs: tickCost.periodMs, clock: tickCost.clock, ticks: t.ticks, meanUs: Math.round(t.meanUs), p99Us: t.p99Us,
        maxUs: tickCost.maxUs, share: round4(t.share),
      })}`;
    }
    json += `,"packets":{"in":${c[Counter.PacketsIn]},"out":${c[Counter.PacketsOut]}},"bytes":{"in":${c[Counter.BytesIn]},"out":${c[Counter.BytesOut]}}`;
    let drops = "";
    for (const d of this.drops()) drops += `${drops === "" ? "" : ","}${JSON.stringify(d.reason)}:${d.total}`;
    json += `,"drops":{${drops}},"harmless":${jsonMap(COUNTER_NAMES, c, HARMLESS_COUNTERS)}`;
    json += `,"kicks":${jsonMap(KICK_LABELS, this.kicks, [KickReason.QueueOverflow, KickReason.Misbehaviour, KickReason.Shutdown])}`;
    if (game !== null) json += `,"game":${jsonMap(GAME_COUNTER_NAMES, game.counters, null)}`;
    if (web) json += `,"web":{"open":${web.open()},${jsonMap(web.names, web.counters, null).slice(1)}`;
    const board = this.#o.board;
    if (board) {
      board.refresh();
      let facts = "";
      for (const [name, value] of board.facts) facts += `,${JSON.stringify(name)}:${JSON.stringify(value)}`;
      json += `,"board":{"counters":${jsonMap(board.names, board.counters, null)}${facts}}`;
    }
    json += `,"sendErrors":${this.#o.sendErrors ? this.#o.sendErrors() : 0},"counters":${jsonMap(COUNTER_NAMES, c, null)}}`;
    return json;
  }

  /** `/metrics`: the Prometheus text exposition format (version 0.0.4). */
  metrics(): string {
    const { server, game, web, tickCost } = this.#o;
    const c = server.counters;
    const lines: string[] = [];
    const family = (name: string, type: string, help: string): void => {
      lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    };
    family("lwar_players", "gauge", "Players in the match.");
    lines.push(`lwar_players ${server.playerCount()}`);
    family("lwar_max_players", "gauge", "Player slots.");
    lines.push(`lwar_max_players ${server.config.maxPlayers}`);
    family("lwar_entities", "gauge", "Live entities: sun, planets, ships, projectiles.");
    lines.push(`lwar_entities ${server.entities.count}`);
    family("lwar_uptime_seconds", "gauge", "Seconds since the server started.");
    lines.push(`lwar_uptime_seconds ${Math.round((this.#o.now() - this.#startedAt) / 1000)}`);
    family("lwar_packets_total", "counter", "Packets, by direction.");
    lines.push(`lwar_packets_total{direction="in"} ${c[Counter.PacketsIn]}`, `lwar_packets_total{direction="out"} ${c[Counter.PacketsOut]}`);
    family("lwar_bytes_total", "counter", "Bytes of packets, by direction.");
    lines.push(`lwar_bytes_total{direction="in"} ${c[Counter.BytesIn]}`, `lwar_bytes_total{direction="out"} ${c[Counter.BytesOut]}`);
    family("lwar_drops_total", "counter", "Packets and messages dropped as malformed, misdirected or not believed, by reason.");
    for (const i of DROP_COUNTERS) lines.push(`lwar_drops_total{reason="${COUNTER_NAMES[i]}"} ${c[i]}`);
    family("lwar_harmless_total", "counter", "Packets and messages set aside in the normal run of things (late, repeated or stale), by reason.");
    for (const i of HARMLESS_COUNTERS) lines.push(`lwar_harmless_total{reason="${COUNTER_NAMES[i]}"} ${c[i]}`);
    family("lwar_kicks_total", "counter", "Players kicked, by reason.");
    for (let r = KickReason.QueueOverflow; r <= KickReason.Shutdown; r++) lines.push(`lwar_kicks_total{reason="${KICK_LABELS[r]}"} ${this.kicks[r]}`);
    family("lwar_server_events_total", "counter", "Every counter of the server core, by name (docs/operating.md).");
    for (let i = 0; i < COUNTER_NAMES.length; i++) lines.push(`lwar_server_events_total{counter="${COUNTER_NAMES[i]}"} ${c[i]}`);
    if (tickCost !== null) {
      family("lwar_tick_seconds", "histogram", "What each server tick took.");
      let cumulative = 0;
      for (let b = 0; b < TICK_BUCKETS; b++) {
        cumulative += tickCost.buckets[b];
        // Every fourth bucket boundary: one per power of two.
        if ((b & 3) === 3 && b < TICK_BUCKETS - 1) lines.push(`lwar_tick_seconds_bucket{le="${seconds(tickBucketLower(b + 1))}"} ${cumulative}`);
      }
      lines.push(`lwar_tick_seconds_bucket{le="+Inf"} ${tickCost.count}`);
      lines.push(`lwar_tick_seconds_sum ${seconds(tickCost.sumUs)}`, `lwar_tick_seconds_count ${tickCost.count}`);
      family("lwar_tick_max_seconds", "gauge", "The longest tick so far.");
      lines.push(`lwar_tick_max_seconds ${seconds(tickCost.maxUs)}`);
      family("lwar_tick_period_seconds", "gauge", "How often the host ticks.");
      lines.push(`lwar_tick_period_seconds ${tickCost.periodMs / 1000}`);
    }
    if (game !== null) {
      for (let i = 0; i < GAME_COUNTER_NAMES.length; i++) {
        const name = `lwar_game_${snake(GAME_COUNTER_NAMES[i])}_total`;
        family(name, "counter", `Game counter ${GAME_COUNTER_NAMES[i]}.`);
        lines.push(`${name} ${game.counters[i]}`);
      }
    }
    const players = this.players();
    family("lwar_player_score", "gauge", "Each player's score.");
    for (const p of players) lines.push(`lwar_player_score{slot="${p.slot}",name="${label(p.name)}"} ${p.score}`);
    family("lwar_player_kills", "gauge", "Each player's kills since joining.");
    for (const p of players) lines.push(`lwar_player_kills{slot="${p.slot}",name="${label(p.name)}"} ${p.kills}`);
    family("lwar_player_deaths", "gauge", "Each player's deaths since joining.");
    for (const p of players) lines.push(`lwar_player_deaths{slot="${p.slot}",name="${label(p.name)}"} ${p.deaths}`);
    family("lwar_send_errors_total", "counter", "Sends the host's socket refused.");
    lines.push(`lwar_send_errors_total ${this.#o.sendErrors ? this.#o.sendErrors() : 0}`);
    if (web) {
      family("lwar_ws_open", "gauge", "Open WebSocket connections.");
      lines.push(`lwar_ws_open ${web.open()}`);
      family("lwar_web_events_total", "counter", "Every counter of the HTTP and WebSocket transport, by name.");
      for (let i = 0; i < web.names.length; i++) lines.push(`lwar_web_events_total{counter="${web.names[i]}"} ${web.counters[i]}`);
    }
    const board = this.#o.board;
    if (board) {
      board.refresh();
      family("lwar_board_events_total", "counter", "Every counter of the board's network path (UDP ring, TCP slots), by name.");
      for (let i = 0; i < board.names.length; i++) lines.push(`lwar_board_events_total{counter="${board.names[i]}"} ${board.counters[i]}`);
    }
    return lines.join("\n") + "\n";
  }
}

/** `{"name":value,...}` for the counters at `indices` (all, when null). */
function jsonMap(names: readonly string[], values: ArrayLike<number>, indices: readonly number[] | null): string {
  let out = "";
  const n = indices === null ? names.length : indices.length;
  for (let k = 0; k < n; k++) {
    const i = indices === null ? k : indices[k];
    out += `${k === 0 ? "" : ","}${JSON.stringify(names[i])}:${values[i]}`;
  }
  return `{${out}}`;
}

function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}
