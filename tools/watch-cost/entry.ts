/**
 * One run for tools/watch-cost/run.ts, on lwxs: 8 of the server's bots for `ms` of a match
 * in memory (with the game, or without it: no entities), then `frames` watch frames
 * (modules/watch.ts) written one after another. Prints `result <JSON>`: the entities, the
 * bytes of the last frame, and the frames' wall time on this engine.
 */
import { TestMatch } from "../../harness/match";
import { WatchFeed } from "../../modules/watch";

declare const xs: { now(): number; args: string[] };
declare const print: (s: string) => void;

function main(): void {
  const frames = Number(xs.args[0] ?? 0);
  const game = xs.args[1] === "game";
  const ms = Number(xs.args[2] ?? 3000);
  const m = new TestMatch({ bots: 8 }, { seed: 3, delayMs: 1 });
  if (game) m.withGame(3, null);
  m.run(ms);
  const feed = new WatchFeed(m.server);
  let bytes = 0;
  const t0 = xs.now();
  for (let k = 0; k < frames; k++) bytes = feed.write(1000 + k);
  const wall = xs.now() - t0;
  print("result " + JSON.stringify({ entities: m.server.entities.count, bytes, msPerFrame: frames > 0 ? wall / frames : 0 }));
}

main();
