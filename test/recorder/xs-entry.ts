/**
 * Replays a recording through a fresh server and game and prints the outcome. Host-free:
 * the recorder test bundles it into one script for lwxs, where a script loaded before this
 * one defines RECORDING (the file's bytes as 32-bit words, zero-padded past its End).
 */
import { hex, Replayer, stateHash } from "../../modules/recording/replay";

declare const xs: { args: string[] } | undefined;
declare const print: (s: string) => void;
declare const RECORDING: ArrayLike<number> | undefined;

if (typeof xs !== "undefined" && typeof RECORDING !== "undefined") {
  const words = new Int32Array(RECORDING.length);
  for (let i = 0; i < words.length; i++) words[i] = RECORDING[i];
  const r = new Replayer(new Uint8Array(words.buffer));
  r.run(false);
  print(`replayed ${hex(stateHash(r.game))} diverged ${r.diverged} hashes ${r.hashesChecked} ticks ${r.reader.ticks}`);
}
