/**
 * `npm run kills -- --seconds 60`: how well the client library names kills. A match of
 * hunting bots runs in memory over a seeded link (harness/match.ts); the server's own Death
 * events (LogEvent.Death, `deathValue(killerSlot, cause)`) are the truth, and every bot's
 * `onKill` (modules/client/kills.ts) is compared with them: victim, killer and cause.
 */
import { pathToFileURL } from "node:url";
import { defineCommand, EXIT_FAILURE, EXIT_OK } from "../cli";
import { KillCause } from "../modules/client/client";
import { causeOfTemplate } from "../modules/client/kills";
import { Kind, kindOf } from "../modules/game/templates";
import { deathCause, deathKiller, deathValue, LogEvent } from "../modules/server/events";
import { ClientState } from "../modules/client/client";
import { TestMatch } from "../harness/match";
import { BEHAVIOURS } from "../harness/behaviours";
import { installNodeKernels } from "../hosts/node/kernels";

export interface KillRunOptions {
  seconds: number;
  seed: number;
  players: number;
  behaviour: string;
  /** Link: loss probability and one-way delay and jitter, ms. */
  loss: number;
  delayMs: number;
  jitterMs: number;
}

export const KILL_DEFAULTS: KillRunOptions = Object.freeze({ seconds: 60, seed: 1, players: 8, behaviour: "hunt", loss: 0, delayMs: 20, jitterMs: 5 });

/** One death: when (ms of the match), victim slot, killer slot (-1: none), KillCause, weapon template (-1). */
export interface KillRecord {
  at: number;
  victim: number;
  killer: number;
  cause: number;
  weapon: number;
}

export interface KillReport {
  options: KillRunOptions;
  /** The server's deaths in the match. */
  deaths: KillRecord[];
  /** Deaths times observers (each bot judges every death). */
  judged: number;
  /** Of those, reported with the server's victim, killer and cause. */
  agreed: number;
  /** Of shots agreed on, also with the server's weapon. */
  shots: number;
  weaponsAgreed: number;
  /** Deaths an observer never reported, and reports matching no death. */
  missed: number;
  spurious: number;
  /** Fewest agreed by one observer, as a fraction of the deaths. */
  worstObserver: number;
  /** Server deaths by KillCause, and disagreements as "server → inferred" counts. */
  byCause: number[];
  confusions: Map<string, number>;
}

export const CAUSE_NAMES: readonly string[] = Object.freeze(["unknown", "shot", "sun", "planet", "ram", "edge"]);

/** Run the match and compare. */
export function measureKills(o: KillRunOptions): KillReport {
  const m = new TestMatch({}, { seed: o.seed, delayMs: o.delayMs, jitterMs: o.jitterMs, loss: o.loss });
  const game = m.withGame(o.seed, o.behaviour, false);
  const deaths: KillRecord[] = [];
  // What the Node host logs, decoded back: the same value LogEvent.Death carries.
  game.onDeath = (slot, killer, cause) => {
    const value = deathValue(killer, cause);
    m.serverHost.log(LogEvent.Death, slot, value);
    const template = deathCause(value);
    deaths.push({ at: m.net.now, victim: slot, killer: deathKiller(value), cause: causeOfTemplate(template), weapon: kindOf(template) === Kind.Shot ? template : -1 });
  };
  const seen: KillRecord[][] = [];
  for (let i = 0; i < o.players; i++) {
    const c = m.client();
    const mine: KillRecord[] = [];
    seen.push(mine);
    c.onKill = (victim, killer, cause, weapon) => {
      mine.push({ at: m.net.now, victim: victim & 0xffff, killer: killer < 0 ? -1 : killer & 0xffff, cause, weapon });
    };
    c.connect();
  }
  m.until(() => m.clients.every((c) => c.state === ClientState.Connected), 5000);
  const start = m.net.now;
  m.run(o.seconds * 1000);
  const end = m.net.now;
  // Time for the last deaths to be reported.
  m.run(3000);
  const counted = deaths.filter((d) => d.at <= end && d.at >= start);
  const report: KillReport = {
    options: o, deaths: counted, judged: 0, agreed: 0, shots: 0, weaponsAgreed: 0, missed: 0, spurious: 0,
    worstObserver: counted.length > 0 ? 1 : 0, byCause: [0, 0, 0, 0, 0, 0], confusions: new Map(),
  };
  for (const d of counted) report.byCause[d.cause]++;
  for (const mine of seen) {
    const used = new Uint8Array(mine.length);
    let agreed = 0;
    for (const d of counted) {
      report.judged++;
      let k = -1;
      for (let j = 0; j < mine.length; j++) {
        if (used[j] === 0 && mine[j].victim === d.victim && mine[j].at >= d.at && mine[j].at <= d.at + 3000) {
          k = j;
          break;
        }
      }
      if (k < 0) {
        report.missed++;
        continue;
      }
      used[k] = 1;
      const r = mine[k];
      if (r.killer === d.killer && r.cause === d.cause) {
        agreed++;
        if (d.cause === KillCause.Shot) {
          report.shots++;
          if (r.weapon === d.weapon) report.weaponsAgreed++;
        }
      } else {
        const self = (s: number): string => (s < 0 ? "none" : s === d.victim ? "self" : "other");
        const key = `${CAUSE_NAMES[d.cause]}/${self(d.killer)} → ${CAUSE_NAMES[r.cause]}/${r.killer === d.killer ? "same" : self(r.killer)}`;
        report.confusions.set(key, (report.confusions.get(key) ?? 0) + 1);
      }
    }
    for (let j = 0; j < mine.length; j++) if (used[j] === 0 && mine[j].at <= end) report.spurious++;
    report.agreed += agreed;
    if (counted.length > 0) report.worstObserver = Math.min(report.worstObserver, agreed / counted.length);
  }
  return report;
}

/** The agreement as a fraction (1 when there was nothing to judge). */
export function agreement(r: KillReport): number {
  return r.judged > 0 ? r.agreed / r.judged : 1;
}

export function describeReport(r: KillReport): string[] {
  const o = r.options;
  const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
  const lines = [
    `kills: ${o.players} ${o.behaviour} bots, ${o.seconds} s, seed ${o.seed}, link ${o.delayMs}±${o.jitterMs} ms, loss ${o.loss}`,
    `server deaths: ${r.deaths.length} (` + CAUSE_NAMES.map((n, i) => `${n} ${r.byCause[i]}`).filter((_, i) => r.byCause[i] > 0).join(", ") + ")",
    `judged ${r.judged} (deaths × observers): agreed ${r.agreed}, missed ${r.missed}, spurious ${r.spurious}; weapon right in ${r.weaponsAgreed}/${r.shots} shots`,
  ];
  for (const [k, n] of [...r.confusions].sort((a, b) => b[1] - a[1])) lines.push(`  disagreed: ${k}  ×${n}`);
  lines.push(`agreement: ${pct(agreement(r))} (worst observer ${pct(r.worstObserver)})`);
  return lines;
}

export const killsCommand = defineCommand({
  name: "kills",
  script: "npm run kills",
  summary: "measure how often the client library names the server's kills (killer, victim, cause).",
  options: {
    seconds: { type: "number", default: KILL_DEFAULTS.seconds, min: 1, max: 3600, arg: "S", help: "length of the match" },
    seed: { type: "int", default: KILL_DEFAULTS.seed, min: 0, max: 0xffffffff, help: "seed of the game and the link" },
    players: { type: "int", default: KILL_DEFAULTS.players, min: 2, max: 8, help: "bots in the match" },
    behaviour: { type: "choice", choices: BEHAVIOURS, default: KILL_DEFAULTS.behaviour, help: "how the bots steer and shoot" },
    loss: { type: "number", default: KILL_DEFAULTS.loss, min: 0, max: 0.5, arg: "P", help: "packet loss probability of the link" },
    delay: { type: "int", default: KILL_DEFAULTS.delayMs, min: 0, max: 500, arg: "MS", help: "one-way delay of the link" },
    jitter: { type: "int", default: KILL_DEFAULTS.jitterMs, min: 0, max: 500, arg: "MS", help: "extra random delay of the link" },
    min: { type: "number", default: 0.95, min: 0, max: 1, arg: "F", help: "agreement below this fails" },
  },
  notes: "The match runs in memory on a virtual clock, faster than real time. Every bot judges every death, so a kill far from it counts as much as one next to it.",
  failure: "the agreement was below --min",
});

function main(): void {
  installNodeKernels();
  const v = killsCommand.parse();
  const r = measureKills({ seconds: v.seconds, seed: v.seed, players: v.players, behaviour: v.behaviour, loss: v.loss, delayMs: v.delay, jitterMs: v.jitter });
  for (const l of describeReport(r)) console.log(l);
  process.exit(agreement(r) >= v.min ? EXIT_OK : EXIT_FAILURE);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) main();
