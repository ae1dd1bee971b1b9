/** Every command of the tools on the shared command line: help that fits, ranges in help that are the ranges checked. */
import assert from "node:assert/strict";
import { describeOption, UsageError, type Command, type OptionTable } from "../../cli";
import { botCommand } from "../../tools/bot";
import { watchCommand } from "../../tools/watch";
import { killsCommand } from "../../tools/kills";
import { newcomerCommand } from "../../tools/newcomer";
import { fuzzCommand } from "../../tools/fuzz";
import { fuzzRelayCommand } from "../../tools/fuzz/relay";
import { relayCommand } from "../../tools/relay";
import { soakCommand } from "../../tools/soak";
import { budgetCommand } from "../../tools/budget";
import { simCommand } from "../../tools/sim-test";
import { benchCommand } from "../../bench/bench";
import { deviceBenchCommand } from "../../bench/device/run";
import { esp32BenchCommand } from "../../bench/device/esp32";
import { esp32Command, simCommand as buildSimCommand } from "../../tools/board/build";
import { esp32TestCommand } from "../../tools/board/esp32-test";

const COMMANDS: Command<OptionTable>[] = [
  botCommand, watchCommand, killsCommand, newcomerCommand, fuzzCommand, fuzzRelayCommand, relayCommand, soakCommand, budgetCommand, simCommand, benchCommand, deviceBenchCommand,
  esp32Command, buildSimCommand, esp32TestCommand, esp32BenchCommand,
];

function usageError(c: Command<OptionTable>, argv: string[]): string {
  try {
    c.tryParse(argv);
  } catch (err) {
    assert.ok(err instanceof UsageError, String(err));
    return err.message;
  }
  return "";
}

describe("the tools' command lines", function () {
  for (const c of COMMANDS) {
    const { name, script, options } = c.spec;

    it(`${script}: --help fits 80 columns and lists every option, its range and default, and the exit codes`, function () {
      const help = c.help();
      for (const line of help.split("\n")) assert.ok([...line].length <= 80, `${[...line].length} columns: ${line}`);
      assert.match(help, new RegExp(`^Usage: ${script} -- `, "m"));
      const flat = help.replace(/\s+/g, " ");
      for (const [flag, o] of Object.entries(options)) {
        assert.ok(help.includes(`--${flag}`), `--${flag}`);
        const range = describeOption(o);
        if (range !== "") assert.ok(flat.includes(`(${range})`), `--${flag} shows (${range})`);
      }
      assert.match(help, /\nExit codes:\n {2}0 {2}ok\n {2}1 {2}\S[^\n]*\n(?: {5}[^\n]*\n)* {2}2 {2}bad usage/);
    });

    it(`${script}: the range in --help is the range checked`, function () {
      assert.equal(typeof c.tryParse([]), "object", "no options at all is good usage");
      for (const [flag, o] of Object.entries(options)) {
        if (o.type !== "int" && o.type !== "number") continue;
        for (const bad of [o.min - 1, o.max + 1]) assert.equal(usageError(c, [`--${flag}`, String(bad)]), `--${flag} must be in ${o.min}..${o.max}, got ${bad}`);
        for (const good of [o.min, o.max]) assert.equal(usageError(c, [`--${flag}`, String(good)]), "", `--${flag} ${good}`);
      }
      assert.equal(usageError(c, ["--no-such-option"]), "unknown option '--no-such-option'");
      assert.equal(c.tryParse(["--version"]), "version");
      assert.ok(name.length > 0);
    });
  }
});
