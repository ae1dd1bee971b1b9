/**
 * The command-line layer of every lwar-xs command. A command is described by one table
 * of options (name, type, default, min, max, help); the same table drives the parser, the
 * range checks and the --help text, so the ranges printed in --help are the ranges checked.
 *
 * Every command shares:
 * - `-h, --help` (the table, the defaults, the ranges and the exit codes) and `-V, --version`;
 * - one error wording: `NAME: MESSAGE` and `Try 'SCRIPT -- --help'.` on stderr;
 * - exit codes: 0 ok, 1 failure (a check or a test failed), 2 bad usage.
 *
 * Dependency-free (node: modules only), so the hosts may use it too.
 */
import { readFileSync } from "node:fs";

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;

/** One option. `int` and `number` are checked against min..max; `choice` against `choices`. */
export type OptionSpec =
  | { type: "int" | "number"; default?: number; min: number; max: number; arg?: string; help: string; defaultText?: string; short?: string }
  | { type: "string"; default?: string; arg?: string; help: string; defaultText?: string; short?: string }
  | { type: "strings"; arg?: string; help: string; short?: string }
  | { type: "choice"; choices: readonly string[]; default?: string; arg?: string; help: string; defaultText?: string; short?: string }
  | { type: "flag"; help: string; short?: string };

export type OptionTable = Record<string, OptionSpec>;

type ValueOf<S extends OptionSpec> = S extends { type: "flag" }
  ? boolean
  : S extends { type: "strings" }
    ? string[]
    : S extends { type: "int" | "number" }
      ? S extends { default: number } ? number : number | undefined
      : S extends { default: string } ? string : string | undefined;

/** The parsed values, keyed by option name, typed from the table. */
export type Values<T extends OptionTable> = { -readonly [K in keyof T]: ValueOf<T[K]> };

export interface CommandSpec<T extends OptionTable> {
  /** Name used in messages, e.g. "bot". */
  name: string;
  /** How it is run, e.g. "npm run bot" or "npm start". */
  script: string;
  /** One line on what the command does. */
  summary: string;
  /** Text after `--`, e.g. "--to HOST:PORT [options]" (default "[options]"). */
  usage?: string;
  options: T;
  /** What exit code 1 means for this command (default "failure"). */
  failure?: string;
  /** Paragraphs printed after the options, separated by blank lines; each is wrapped to 80 columns. */
  notes?: string;
}

export interface Command<T extends OptionTable> {
  readonly spec: CommandSpec<T>;
  /** Parse `argv`; on --help or --version print and exit 0, on bad usage exit 2. */
  parse(argv?: readonly string[]): Values<T>;
  /** Parse without printing or exiting: throws UsageError; `help`/`version` requests come back as such. */
  tryParse(argv: readonly string[]): Values<T> | "help" | "version";
  /** The --help text. */
  help(): string;
  /** Report bad usage found after parsing (a combination of options) and exit 2. */
  usage(message: string): never;
  /** Report a failure and exit 1. */
  fail(message: string): never;
}

/** Bad usage: an unknown option, a missing value, a value out of range. */
export class UsageError extends Error {
  override name = "UsageError";
}

let version: string | undefined;

/** The version in package.json. */
export function packageVersion(): string {
  if (version === undefined) {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version?: string };
    version = pkg.version ?? "0.0.0";
  }
  return version;
}

export function defineCommand<const T extends OptionTable>(spec: CommandSpec<T>): Command<T> {
  for (const [name, o] of Object.entries(spec.options)) {
    if (name === "help" || name === "version") throw new Error(`option --${name} is built in`);
    if ((o.type === "int" || o.type === "number") && o.default !== undefined && (o.default < o.min || o.default > o.max))
      throw new Error(`--${name}: default ${o.default} is outside ${o.min}..${o.max}`);
  }
  const hint = `Try '${spec.script} -- --help'.`;
  const command: Command<T> = {
    spec,
    help: () => formatHelp(spec),
    tryParse: (argv) => parseArgv(spec.options, argv),
    usage(message: string): never {
      process.stderr.write(`${spec.name}: ${message}\n${hint}\n`);
      process.exit(EXIT_USAGE);
    },
    fail(message: string): never {
      process.stderr.write(`${spec.name}: ${message}\n`);
      process.exit(EXIT_FAILURE);
    },
    parse(argv = process.argv.slice(2)) {
      let r: Values<T> | "help" | "version";
      try {
        r = parseArgv(spec.options, argv);
      } catch (err) {
        if (err instanceof UsageError) command.usage(err.message);
        throw err;
      }
      if (r === "help") {
        process.stdout.write(formatHelp(spec));
        process.exit(EXIT_OK);
      }
      if (r === "version") {
        process.stdout.write(`${packageVersion()}\n`);
        process.exit(EXIT_OK);
      }
      return r;
    },
  };
  return command;
}

function findOption(table: OptionTable, token: string): [string, OptionSpec] | null {
  if (token.startsWith("--")) {
    const name = token.slice(2);
    return Object.hasOwn(table, name) ? [name, table[name]] : null;
  }
  for (const [name, o] of Object.entries(table)) if (o.short !== undefined && `-${o.short}` === token) return [name, o];
  return null;
}

/** Parse `argv` against `table`. Throws UsageError. */
export function parseArgv<T extends OptionTable>(table: T, argv: readonly string[]): Values<T> | "help" | "version" {
  const out: Record<string, unknown> = {};
  for (const [name, o] of Object.entries(table)) {
    if (o.type === "flag") out[name] = false;
    else if (o.type === "strings") out[name] = [];
    else out[name] = o.default;
  }
  const seen = new Set<string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h" || arg === "--help") return "help";
    if (arg === "-V" || arg === "--version") return "version";
    if (!arg.startsWith("-") || arg === "-" || arg === "--") throw new UsageError(`unexpected argument '${arg}'`);
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const token = eq > 0 ? arg.slice(0, eq) : arg;
    const found = findOption(table, token);
    if (found === null) throw new UsageError(`unknown option '${token}'`);
    const [name, o] = found;
    if (o.type !== "strings" && seen.has(name)) throw new UsageError(`--${name} given twice`);
    seen.add(name);
    if (o.type === "flag") {
      if (eq > 0) throw new UsageError(`--${name} takes no value`);
      out[name] = true;
      continue;
    }
    let text: string;
    if (eq > 0) text = arg.slice(eq + 1);
    else {
      if (i + 1 >= argv.length) throw new UsageError(`--${name} needs a value (${o.arg ?? defaultArg(o)})`);
      text = argv[++i];
    }
    if (o.type === "strings") (out[name] as string[]).push(text);
    else out[name] = convert(name, o, text);
  }
  return out as Values<T>;
}

function convert(name: string, o: OptionSpec, text: string): unknown {
  switch (o.type) {
    case "int":
      if (!/^-?\d+$/.test(text.trim())) throw new UsageError(`--${name} wants a whole number in ${o.min}..${o.max}, got '${text}'`);
      return checkRange(name, o.min, o.max, Number(text));
    case "number": {
      const n = Number(text);
      if (text.trim() === "" || !Number.isFinite(n)) throw new UsageError(`--${name} wants a number in ${o.min}..${o.max}, got '${text}'`);
      return checkRange(name, o.min, o.max, n);
    }
    case "choice":
      if (!o.choices.includes(text)) throw new UsageError(`--${name} must be one of ${o.choices.join(", ")}, got '${text}'`);
      return text;
    default:
      return text;
  }
}

function checkRange(name: string, min: number, max: number, n: number): number {
  if (n < min || n > max) throw new UsageError(`--${name} must be in ${min}..${max}, got ${n}`);
  return n;
}

function defaultArg(o: OptionSpec): string {
  if (o.type === "int" || o.type === "number") return "N";
  if (o.type === "choice") return "NAME";
  return "TEXT";
}

/** The range and default of an option as help text, e.g. "1..64; default 4". */
export function describeOption(o: OptionSpec): string {
  const parts: string[] = [];
  if (o.type === "int" || o.type === "number") parts.push(`${o.min}..${o.max}`);
  if (o.type === "choice") parts.push(`one of ${o.choices.join(", ")}`);
  if (o.type === "strings") parts.push("repeatable");
  if (o.type !== "flag" && o.type !== "strings") {
    const d = o.defaultText ?? (o.default === undefined ? undefined : String(o.default));
    if (d !== undefined) parts.push(`default ${d}`);
  }
  return parts.join("; ");
}

const WIDTH = 80;

function wrap(text: string, indent: number, first: number): string[] {
  const lines: string[] = [];
  let line = "";
  let room = WIDTH - first;
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
      room = WIDTH - indent;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines;
}

export function formatHelp<T extends OptionTable>(spec: CommandSpec<T>): string {
  const rows: [string, string][] = [];
  for (const [name, o] of Object.entries(spec.options)) {
    const flag = `${o.short !== undefined ? `-${o.short}, ` : ""}--${name}`;
    const left = o.type === "flag" ? flag : `${flag} ${o.arg ?? defaultArg(o)}`;
    const range = describeOption(o);
    rows.push([left, range === "" ? o.help : `${o.help} (${range})`]);
  }
  rows.push(["-h, --help", "show this help and exit"]);
  rows.push(["-V, --version", `print the version (${packageVersion()}) and exit`]);
  const col = Math.min(26, Math.max(...rows.map(([l]) => l.length)) + 4);
  const out: string[] = [...wrap(`${spec.name}: ${spec.summary}`, 0, 0), "", `Usage: ${spec.script} -- ${spec.usage ?? "[options]"}`, "", "Options:"];
  for (const [left, right] of rows) {
    const pad = left.length + 2 < col ? `  ${left}`.padEnd(col) : null;
    const body = wrap(right, col, col);
    if (pad === null) out.push(`  ${left}`);
    out.push(`${pad ?? " ".repeat(col)}${body[0]}`);
    for (const more of body.slice(1)) out.push(`${" ".repeat(col)}${more}`);
  }
  // Notes are paragraphs, separated by blank lines, wrapped to the width.
  if (spec.notes !== undefined) for (const p of spec.notes.trim().split(/\n\s*\n/)) out.push("", ...wrap(p, 0, 0));
  out.push("", "Exit codes:", "  0  ok");
  out.push(...wrap(spec.failure ?? "failure", 5, 5).map((l, i) => `${i === 0 ? "  1  " : "     "}${l}`));
  out.push("  2  bad usage (an unknown option, a value out of range)");
  return `${out.join("\n")}\n`;
}
