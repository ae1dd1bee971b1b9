/**
 * A stand-in for `node:assert/strict` on XS: the strict-mode assertions the tests use,
 * with Node's semantics (Object.is for equality, prototypes and byte contents for deep
 * equality) and one-line messages. `tools/xs/bundle` aliases `node:assert` and
 * `node:assert/strict` to this file when a test file is bundled for XS.
 */

export class AssertionError extends Error {
  // Fields, not prototype assignments: XS may freeze Error.prototype.
  override name = "AssertionError";
  code = "ERR_ASSERTION";
  actual: unknown;
  expected: unknown;
  operator: string;
  generatedMessage: boolean;
  constructor(options: { message?: string | Error; actual?: unknown; expected?: unknown; operator?: string; generated?: string }) {
    const given = options.message;
    super(given === undefined ? options.generated ?? "Failed" : String(given instanceof Error ? given.message : given));
    this.actual = options.actual;
    this.expected = options.expected;
    this.operator = options.operator ?? "fail";
    this.generatedMessage = given === undefined;
  }
}

type Message = string | Error | undefined;

function raise(message: Message, generated: string, actual: unknown, expected: unknown, operator: string): never {
  if (message instanceof Error) throw message;
  throw new AssertionError({ message, generated, actual, expected, operator });
}

// ------------------------------------------------------------------ inspect

/** A short, one-line rendering of a value for messages. */
export function inspect(value: unknown, depth = 2): string {
  return show(value, depth, []);
}

function show(v: unknown, depth: number, seen: object[]): string {
  if (typeof v === "string") return JSON.stringify(v.length > 200 ? v.slice(0, 200) + "..." : v);
  if (typeof v === "number") return Object.is(v, -0) ? "-0" : String(v);
  if (typeof v === "bigint") return `${v}n`;
  if (typeof v === "function") return `[Function: ${v.name || "anonymous"}]`;
  if (typeof v === "symbol") return v.toString();
  if (v === null || typeof v !== "object") return String(v);
  if (seen.includes(v)) return "[Circular]";
  if (v instanceof Error) return `${v.name}: ${v.message}`;
  if (v instanceof RegExp) return String(v);
  if (v instanceof Date) return v.toISOString();
  const tag = tagOf(v);
  if (ArrayBuffer.isView(v) && !(v instanceof DataView)) {
    const a = v as unknown as ArrayLike<number>;
    const n = a.length;
    let s = `${tag}(${n}) [`;
    for (let i = 0; i < n && i < 64; i++) s += (i ? ", " : " ") + show(a[i], 0, seen);
    return s + (n > 64 ? `, ... ${n - 64} more ]` : n ? " ]" : "]");
  }
  if (depth < 0) return Array.isArray(v) ? "[Array]" : "[Object]";
  seen.push(v);
  let s: string;
  if (Array.isArray(v)) {
    s = "[";
    for (let i = 0; i < v.length && i < 64; i++) s += (i ? ", " : " ") + show(v[i], depth - 1, seen);
    s += v.length > 64 ? `, ... ${v.length - 64} more ]` : v.length ? " ]" : "]";
  } else if (v instanceof Map) {
    s = `Map(${v.size}) {`;
    let i = 0;
    for (const [key, value] of v) s += (i++ ? ", " : " ") + show(key, depth - 1, seen) + " => " + show(value, depth - 1, seen);
    s += i ? " }" : "}";
  } else if (v instanceof Set) {
    s = `Set(${v.size}) {`;
    let i = 0;
    for (const value of v) s += (i++ ? ", " : " ") + show(value, depth - 1, seen);
    s += i ? " }" : "}";
  } else {
    const keys = Object.keys(v);
    const proto = Object.getPrototypeOf(v);
    const name = proto === null ? "[Object: null prototype] " : proto === Object.prototype ? "" : `${proto.constructor?.name ?? tag} `;
    s = name + "{";
    for (let i = 0; i < keys.length; i++)
      s += (i ? ", " : " ") + keys[i] + ": " + show((v as Record<string, unknown>)[keys[i]], depth - 1, seen);
    s += keys.length ? " }" : "}";
  }
  seen.pop();
  return s;
}

function tagOf(v: object): string {
  return Object.prototype.toString.call(v).slice(8, -1);
}

// ------------------------------------------------------------------ deep strict equality

/**
 * Node's `isDeepStrictEqual`: Object.is for primitives; objects need the same prototype
 * and tag; typed arrays compare bytes; arrays and plain objects compare own enumerable
 * keys and values; Maps and Sets compare entries; Dates, RegExps, Errors and boxed
 * primitives compare what they hold. Returns the path of the first difference, or null.
 */
export function firstDifference(a: unknown, b: unknown): string | null {
  return diff(a, b, "", [], []);
}

export function isDeepStrictEqual(a: unknown, b: unknown): boolean {
  return firstDifference(a, b) === null;
}

function diff(a: unknown, b: unknown, path: string, stackA: object[], stackB: object[]): string | null {
  if (Object.is(a, b)) return null;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return path || "(value)";
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path || "(value)"} (prototype)`;
  const tag = tagOf(a);
  if (tag !== tagOf(b)) return `${path || "(value)"} (type)`;
  // A cycle is equal where both sides cycle back to the same depth.
  const ia = stackA.indexOf(a);
  if (ia >= 0) return ia === stackB.indexOf(b) ? null : path || "(value)";
  if (a instanceof Date && b instanceof Date && a.getTime() !== b.getTime()) return path || "(value)";
  if (a instanceof RegExp && b instanceof RegExp && (a.source !== b.source || a.flags !== b.flags || a.lastIndex !== b.lastIndex))
    return path || "(value)";
  if (a instanceof Error && b instanceof Error && (a.message !== b.message || a.name !== b.name)) return `${path}.message`;
  for (const Box of [Number, String, Boolean] as const) {
    if (a instanceof Box && b instanceof Box && !Object.is(a.valueOf(), b.valueOf())) return path || "(value)";
  }
  if (ArrayBuffer.isView(a)) {
    const x = a as ArrayBufferView;
    const y = b as ArrayBufferView;
    if (x.byteLength !== y.byteLength) return `${path}.length`;
    const bx = new Uint8Array(x.buffer, x.byteOffset, x.byteLength);
    const by = new Uint8Array(y.buffer, y.byteOffset, y.byteLength);
    const size = "BYTES_PER_ELEMENT" in x ? (x as unknown as { BYTES_PER_ELEMENT: number }).BYTES_PER_ELEMENT : 1;
    for (let i = 0; i < bx.length; i++) if (bx[i] !== by[i]) return `${path}[${Math.floor(i / size)}]`;
  } else if (a instanceof ArrayBuffer || tag === "SharedArrayBuffer") {
    const x = new Uint8Array(a as ArrayBuffer);
    const y = new Uint8Array(b as ArrayBuffer);
    if (x.length !== y.length) return `${path}.byteLength`;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return `${path}[${i}]`;
  }
  stackA.push(a);
  stackB.push(b);
  try {
    if (Array.isArray(a) && (a as unknown[]).length !== (b as unknown[]).length) return `${path}.length`;
    if (a instanceof Map && b instanceof Map) {
      if (a.size !== b.size) return `${path}.size`;
      for (const [key, value] of a) {
        if (b.has(key)) {
          const d = diff(value, b.get(key), `${path}.get(${inspect(key, 0)})`, stackA, stackB);
          if (d !== null) return d;
          continue;
        }
        if (typeof key !== "object" || key === null) return `${path}.get(${inspect(key, 0)})`;
        let found = false;
        for (const [other, otherValue] of b) {
          if (diff(key, other, "", stackA, stackB) === null && diff(value, otherValue, "", stackA, stackB) === null) {
            found = true;
            break;
          }
        }
        if (!found) return `${path}.get(${inspect(key, 0)})`;
      }
    } else if (a instanceof Set && b instanceof Set) {
      if (a.size !== b.size) return `${path}.size`;
      for (const value of a) {
        if (b.has(value)) continue;
        if (typeof value !== "object" || value === null) return `${path}.has(${inspect(value, 0)})`;
        let found = false;
        for (const other of b) {
          if (diff(value, other, "", stackA, stackB) === null) {
            found = true;
            break;
          }
        }
        if (!found) return `${path}.has(${inspect(value, 0)})`;
      }
    }
    // Own enumerable keys; typed arrays' indices were compared as bytes above.
    const view = ArrayBuffer.isView(a);
    const ka = ownKeys(a, view);
    const kb = ownKeys(b, view);
    if (ka.length !== kb.length) {
      for (const k of ka) if (!kb.includes(k)) return `${path}${key(k)} (missing on the right)`;
      for (const k of kb) if (!ka.includes(k)) return `${path}${key(k)} (missing on the left)`;
    }
    for (const k of ka) {
      if (!Object.prototype.propertyIsEnumerable.call(b, k)) return `${path}${key(k)} (missing on the right)`;
      const d = diff((a as Record<PropertyKey, unknown>)[k], (b as Record<PropertyKey, unknown>)[k], path + key(k), stackA, stackB);
      if (d !== null) return d;
    }
    return null;
  } finally {
    stackA.pop();
    stackB.pop();
  }
}

function ownKeys(o: object, skipIndices: boolean): PropertyKey[] {
  const keys: PropertyKey[] = [];
  for (const k of Object.keys(o)) if (!(skipIndices && /^\d+$/.test(k))) keys.push(k);
  for (const s of Object.getOwnPropertySymbols(o)) if (Object.prototype.propertyIsEnumerable.call(o, s)) keys.push(s);
  return keys;
}

function key(k: PropertyKey): string {
  if (typeof k === "symbol") return `[${k.toString()}]`;
  return /^\d+$/.test(k as string) ? `[${k as string}]` : `.${k as string}`;
}

// ------------------------------------------------------------------ the assertions

export function ok(value: unknown, message?: Message): asserts value {
  if (!value) raise(message, `The expression evaluated to a falsy value: ${inspect(value)}`, value, true, "==");
}

export function equal<T>(actual: unknown, expected: T, message?: Message): asserts actual is T {
  if (!Object.is(actual, expected))
    raise(message, `Expected values to be strictly equal: ${inspect(actual)} !== ${inspect(expected)}`, actual, expected, "strictEqual");
}

export function notEqual(actual: unknown, expected: unknown, message?: Message): void {
  if (Object.is(actual, expected))
    raise(message, `Expected "actual" to be strictly unequal to: ${inspect(expected)}`, actual, expected, "notStrictEqual");
}

export function deepEqual<T>(actual: unknown, expected: T, message?: Message): asserts actual is T {
  const d = firstDifference(actual, expected);
  if (d !== null)
    raise(message, `Expected values to be strictly deep-equal, differing at ${d}: ${inspect(actual)} vs ${inspect(expected)}`, actual, expected, "deepStrictEqual");
}

export function notDeepEqual(actual: unknown, expected: unknown, message?: Message): void {
  if (firstDifference(actual, expected) === null)
    raise(message, `Expected "actual" not to be strictly deep-equal to: ${inspect(expected)}`, actual, expected, "notDeepStrictEqual");
}

export function fail(message?: Message): never {
  raise(message, "Failed", undefined, undefined, "fail");
}

export function match(value: string, pattern: RegExp, message?: Message): void {
  if (typeof value !== "string" || !pattern.test(value))
    raise(message, `The input did not match the regular expression ${String(pattern)}. Input: ${inspect(value)}`, value, pattern, "match");
}

export function doesNotMatch(value: string, pattern: RegExp, message?: Message): void {
  if (typeof value !== "string" || pattern.test(value))
    raise(message, `The input was expected to not match the regular expression ${String(pattern)}. Input: ${inspect(value)}`, value, pattern, "doesNotMatch");
}

type Expected = RegExp | (new (...args: never[]) => unknown) | ((error: unknown) => boolean) | Record<string, unknown> | Error;

/** Whether `error` is what `expected` describes; throws an AssertionError when it is not. */
function check(error: unknown, expected: Expected | undefined, message: Message, operator: string): void {
  if (expected === undefined) return;
  if (expected instanceof RegExp) {
    if (!expected.test(String(error)))
      raise(message, `The error did not match ${String(expected)}: ${inspect(error)}`, error, expected, operator);
    return;
  }
  if (typeof expected === "function") {
    const proto = (expected as { prototype?: unknown }).prototype;
    if (proto !== undefined && (expected === Error || proto instanceof Error)) {
      if (!(error instanceof (expected as new () => unknown)))
        raise(message, `The error is expected to be an instance of "${expected.name}": ${inspect(error)}`, error, expected, operator);
      return;
    }
    if ((expected as (e: unknown) => boolean)(error) !== true)
      raise(message, `The validation function did not return true for ${inspect(error)}`, error, expected, operator);
    return;
  }
  for (const k of Object.keys(expected)) {
    const want = (expected as Record<string, unknown>)[k];
    const got = (error as Record<string, unknown> | null)?.[k];
    const good = want instanceof RegExp && typeof got === "string" ? want.test(got) : isDeepStrictEqual(got, want);
    if (!good) raise(message, `The error's "${k}" is ${inspect(got)}, expected ${inspect(want)}`, error, expected, operator);
  }
}

export function throws(fn: () => unknown, expected?: Expected | string, message?: Message): void {
  if (typeof expected === "string") {
    message = expected;
    expected = undefined;
  }
  try {
    fn();
  } catch (error) {
    check(error, expected, message, "throws");
    return;
  }
  raise(message, "Missing expected exception.", undefined, expected, "throws");
}

export function doesNotThrow(fn: () => unknown, message?: Message): void {
  try {
    fn();
  } catch (error) {
    raise(message, `Got unwanted exception: ${inspect(error)}`, error, undefined, "doesNotThrow");
  }
}

export async function rejects(promise: Promise<unknown> | (() => Promise<unknown>), expected?: Expected | string, message?: Message): Promise<void> {
  if (typeof expected === "string") {
    message = expected;
    expected = undefined;
  }
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    check(error, expected, message, "rejects");
    return;
  }
  raise(message, "Missing expected rejection.", undefined, expected, "rejects");
}

export async function doesNotReject(promise: Promise<unknown> | (() => Promise<unknown>), message?: Message): Promise<void> {
  try {
    await (typeof promise === "function" ? promise() : promise);
  } catch (error) {
    raise(message, `Got unwanted rejection: ${inspect(error)}`, error, undefined, "doesNotReject");
  }
}

export function ifError(value: unknown): void {
  if (value !== null && value !== undefined) {
    if (value instanceof Error) throw value;
    raise(undefined, `ifError got unwanted exception: ${inspect(value)}`, value, null, "ifError");
  }
}

// In strict mode the loose names are the strict assertions.
export const strictEqual = equal;
export const notStrictEqual = notEqual;
export const deepStrictEqual = deepEqual;
export const notDeepStrictEqual = notDeepEqual;

interface Assert {
  (value: unknown, message?: Message): asserts value;
  ok: typeof ok;
  equal: typeof equal;
  notEqual: typeof notEqual;
  strictEqual: typeof equal;
  notStrictEqual: typeof notEqual;
  deepEqual: typeof deepEqual;
  notDeepEqual: typeof notDeepEqual;
  deepStrictEqual: typeof deepEqual;
  notDeepStrictEqual: typeof notDeepEqual;
  fail: typeof fail;
  match: typeof match;
  doesNotMatch: typeof doesNotMatch;
  throws: typeof throws;
  doesNotThrow: typeof doesNotThrow;
  rejects: typeof rejects;
  doesNotReject: typeof doesNotReject;
  ifError: typeof ifError;
  AssertionError: typeof AssertionError;
  strict: Assert;
}

const assert: Assert = function assert(value: unknown, message?: Message): void {
  ok(value, message);
} as Assert;
Object.assign(assert, {
  ok, equal, notEqual, strictEqual, notStrictEqual, deepEqual, notDeepEqual, deepStrictEqual, notDeepStrictEqual,
  fail, match, doesNotMatch, throws, doesNotThrow, rejects, doesNotReject, ifError, AssertionError,
});
assert.strict = assert;

export const strict = assert;
export default assert;
