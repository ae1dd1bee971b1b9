/**
 * The report's output for a fixed match, for XS (bundled and run by tools/xs/build/lwxs,
 * as on the board) and for Node alike: `render()` gives every kind of text it makes.
 */
import { makeConfig } from "../../modules/config";
import { createMatch } from "../../modules/match";
import { Reporter } from "../../modules/report";
import { deathValue, KickReason, LogEvent } from "../../modules/server/events";
import { TickCost } from "../../modules/tickcost";
import { FakeHost } from "../helpers/fake-host";

export function render(): string {
  const host = new FakeHost();
  const { server, game } = createMatch(makeConfig({ maxPlayers: 4 }), host, 11);
  const cost = new TickCost(10, "test");
  for (let k = 0; k < 200; k++) {
    host.t += 10;
    server.tick(host.t);
    cost.record(40 + (k % 7) * 13);
  }
  const report = new Reporter({
    server, game, tickCost: cost, seed: 11, host: "xs",
    describePeer: (address, port) => address + ":" + port,
    now: () => host.t,
  });
  report.count(LogEvent.Kick, KickReason.Misbehaviour);
  const lines: string[] = [];
  const death = report.event(LogEvent.Death, 0, deathValue(1, 7));
  const sun = report.event(LogEvent.Death, 2, deathValue(-1, 0));
  lines.push(death === null ? "null" : death.text, sun === null ? "null" : JSON.stringify(sun.fields));
  host.t += 1000;
  lines.push(report.status().text, report.scoreboard().text, report.statusJson(), report.metrics());
  return lines.join("\n");
}

declare const xs:
  | { gc(): void; slotsUsed(): number; chunksUsed(): number; run(tick: (() => void) | null, intervalMs?: number): void }
  | undefined;
declare const print: (s: string) => void;

// Renders three times, with a full collection after each: the slot heap ends each as the
// first left it, so the report keeps no object between calls.
if (typeof xs !== "undefined") {
  xs.run(() => {
    const x = xs!;
    x.run(null);
    const text = render();
    x.gc();
    const slots = x.slotsUsed();
    const chunks = x.chunksUsed();
    render();
    x.gc();
    const slots2 = x.slotsUsed();
    const chunks2 = x.chunksUsed();
    render();
    x.gc();
    print(`heaps ${slots} ${slots2} ${x.slotsUsed()} ${chunks} ${chunks2} ${x.chunksUsed()}\n${text}`);
  }, 1);
}
