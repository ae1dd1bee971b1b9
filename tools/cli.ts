/** Shared command-line helpers for the tools: clear errors, exit code 2 on bad usage. */

/** A `fail(message)` for tool `name`, run as `npm run <script>`. */
export function failer(name: string, script: string): (message: string) => never {
  return (message: string): never => {
    process.stderr.write(`${name}: ${message}\nTry 'npm run ${script} -- --help'.\n`);
    process.exit(2);
  };
}

/** Parse a numeric option in min..max, or fail with a message naming the flag. */
export function numberOption(
  fail: (message: string) => never, name: string, text: string | undefined, fallback: number, min: number, max: number,
): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || n < min || n > max) fail(`--${name} must be a number in ${min}..${max}, got '${text}'`);
  return n;
}
