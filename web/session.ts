/**
 * The page's life around a match, with no DOM: which panel shows, what the status line
 * says, when to try again after the connection ends, and when a hidden tab leaves.
 *
 * Stages:
 *   menu    no connection: the first visit, or after "Leave match". The menu is up.
 *   match   a connection exists: joining, spawning, playing or dead (World.phase()).
 *   retry   the connection ended (lost, server shut down, match full): a new one is made
 *           at `retryAt`, after reconnectDelayMs(attempt), or FULL_RETRY_MS when full.
 *   away    the tab was hidden for `awayMs`: the page said Disconnect; it rejoins when shown.
 *   ended   removed by the server for a reason retrying will not mend; a button rejoins.
 *   watch   the big-screen view (/watch): no slot, no menu; the watch feed, reopened
 *           WATCH_RETRY_MS after it ends.
 *
 * One panel at a time: panelFor() picks it, and nothing else shows or hides a panel.
 */
import { reconnectDelay } from "../modules/client/reconnect";
import type { Phase } from "./world";

/** The wait between tries while the match is full: the client library's (modules/client/reconnect.ts), as the bots wait. */
export const FULL_RETRY_MS = reconnectDelay(1, true);
/** The big-screen view reconnects this long after its feed ended. */
export const WATCH_RETRY_MS = 2000;
/** A tab hidden this long leaves the match. */
export const AWAY_MS = 15000;

/** How long to wait before try number `attempt` (0 for the first after the connection ended): the client library's schedule, 1, 2, 4, then every 5 s. */
export function reconnectDelayMs(attempt: number): number {
  return reconnectDelay(Math.max(attempt | 0, 0) + 1, false);
}

export type Stage = "menu" | "match" | "retry" | "away" | "ended" | "watch";
/** Why a connection ended, as the page acts on it. */
export type Outcome = "left" | "full" | "lost" | "shutdown" | "kicked";
export type Panel = "menu" | "notice" | "death" | "none";

/**
 * How a finished connection ended. `phase` is World.phase() once the socket has closed,
 * `code` the close frame's code (hosts/node/web.ts CloseCode).
 */
export function outcomeOf(phase: Phase, code: number, reason: string): Outcome {
  if (phase === "left") return "left";
  if (phase === "rejected") return "full";
  // 4102: removed for misbehaving. Trying again would only repeat it.
  if (code === 4102) return "kicked";
  if (phase === "kicked" || code === 4103 || code === 1001 || reason.indexOf("shut") >= 0) return "shutdown";
  return "lost";
}

/** The one panel on screen. The menu wins over everything, the notice over the death screen. */
export function panelFor(stage: Stage, phase: Phase, menuOpen: boolean): Panel {
  if (stage === "watch") return "none";
  if (stage === "menu" || menuOpen) return "menu";
  if (stage === "ended" || stage === "away") return "notice";
  if (stage === "retry") return "notice";
  return phase === "dead" ? "death" : "none";
}

/** "3 s", "1 min 5 s", "2 h 3 min": how long the tab was away. */
export function formatDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m} min` : `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/**
 * The away time from the page's address: `?away=MS` (tests use a short one); AWAY_MS
 * otherwise or when it is not a whole number of at least 100 ms.
 */
export function awayMsFrom(search: string): number {
  const m = /[?&]away=(\d+)/.exec(search);
  const n = m === null ? NaN : Number(m[1]);
  return Number.isInteger(n) && n >= 100 ? n : AWAY_MS;
}

/** Whether the page at `pathname` with `search` is the big-screen view: `/watch`, or `?watch` on any path. */
export function isWatchPage(pathname: string, search: string): boolean {
  return pathname === "/watch" || pathname === "/watch/" || /[?&]watch(?:[=&]|$)/.test(search);
}
