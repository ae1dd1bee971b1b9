/** cli/index.ts: one option table drives parsing, range checks and --help. */
import assert from "node:assert/strict";
import { defineCommand, formatHelp, packageVersion, parseArgv, UsageError } from "../../cli";

const table = {
  host: { type: "string", default: "127.0.0.1", arg: "ADDR", help: "server address" },
  count: { type: "int", default: 4, min: 1, max: 64, help: "number of bots" },
  loss: { type: "number", min: 0, max: 1, arg: "P", help: "loss probability" },
  engine: { type: "choice", choices: ["node", "xs"], default: "node", help: "where to run" },
  set: { type: "strings", arg: "FIELD=N", help: "change a config field" },
  "no-color": { type: "flag", help: "plain text" },
} as const;

function usageError(argv: string[]): string {
  try {
    parseArgv(table, argv);
  } catch (err) {
    assert.ok(err instanceof UsageError);
    return err.message;
  }
  assert.fail(`${argv.join(" ")} parsed`);
}

describe("command-line layer", function () {
  it("defaults when nothing is given", function () {
    assert.deepEqual(parseArgv(table, []), { host: "127.0.0.1", count: 4, loss: undefined, engine: "node", set: [], "no-color": false });
  });

  it("values as `--name value` and `--name=value`; repeatable options collect", function () {
    const v = parseArgv(table, ["--count", "64", "--loss=0.25", "--set", "a=1", "--set=b=2", "--no-color", "--engine", "xs"]);
    assert.deepEqual(v, { host: "127.0.0.1", count: 64, loss: 0.25, engine: "xs", set: ["a=1", "b=2"], "no-color": true });
  });

  it("--help and --version win over everything else", function () {
    assert.equal(parseArgv(table, ["--count", "9", "-h"]), "help");
    assert.equal(parseArgv(table, ["--version"]), "version");
    assert.match(packageVersion(), /^\d+\.\d+\.\d+/);
  });

  it("every bad usage has one wording", function () {
    assert.equal(usageError(["--count", "0"]), "--count must be in 1..64, got 0");
    assert.equal(usageError(["--count", "65"]), "--count must be in 1..64, got 65");
    assert.equal(usageError(["--count", "2.5"]), "--count wants a whole number in 1..64, got '2.5'");
    assert.equal(usageError(["--loss", "lots"]), "--loss wants a number in 0..1, got 'lots'");
    assert.equal(usageError(["--engine", "v8"]), "--engine must be one of node, xs, got 'v8'");
    assert.equal(usageError(["--nonsense"]), "unknown option '--nonsense'");
    assert.equal(usageError(["stray"]), "unexpected argument 'stray'");
    assert.equal(usageError(["--count"]), "--count needs a value (N)");
    assert.equal(usageError(["--count", "2", "--count", "3"]), "--count given twice");
    assert.equal(usageError(["--no-color=yes"]), "--no-color takes no value");
  });

  it("--help shows each option's range and default from the same table, and the exit codes", function () {
    const help = formatHelp({ name: "demo", script: "npm run demo", summary: "a demo.", options: table, failure: "the demo failed" });
    assert.match(help, /^demo: a demo\.\n\nUsage: npm run demo -- \[options\]\n/);
    assert.match(help, /--count N +number of bots \(1\.\.64; default 4\)/);
    assert.match(help, /--loss P +loss probability \(0\.\.1\)/);
    assert.match(help, /--engine NAME +where to run \(one of node, xs; default node\)/);
    assert.match(help, /--set FIELD=N +change a config field \(repeatable\)/);
    assert.match(help, /-V, --version +print the version/);
    assert.match(help, /\nExit codes:\n  0  ok\n  1  the demo failed\n  2  bad usage/);
    for (const line of help.split("\n")) assert.ok(line.length <= 80, line);
  });

  it("a default outside its own range is a mistake in the table", function () {
    assert.throws(
      () => defineCommand({ name: "x", script: "x", summary: "x", options: { n: { type: "int", default: 0, min: 1, max: 2, help: "n" } } }),
      /--n: default 0 is outside 1\.\.2/,
    );
  });
});
