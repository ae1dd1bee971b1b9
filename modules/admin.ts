/**
 * The board's admin password, and the gate in front of what it guards (`/settings`,
 * `/update`). Host-free: the board passes its SHA-256 (the SDK's Digest), the tests Node's.
 *
 * The password is kept as a salted, iterated SHA-256, never in clear:
 *
 *   "s256$" rounds "$" salt (hex) "$" hash (hex)
 *   h(1) = SHA-256(salt || password in UTF-8); h(k+1) = SHA-256(h(k) || salt); hash = h(rounds)
 *
 * It arrives with each request as HTTP Basic authentication (the browser asks once and
 * repeats it), over plain HTTP on the LAN, as WLED and ESPHome's web server do:
 * docs/operating.md says what that protects and what it does not.
 *
 * The gate: the first FREE_FAILURES wrong passwords in a row cost nothing more than a 401;
 * after that, each try must wait twice as long as the last (1 s, 2 s, 4 s... at most
 * MAX_DELAY_MS) and is refused unheard (429) before then. A right password clears it.
 */

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 64;
/** Rounds of SHA-256 per check: about 0.1 s on the board. */
export const HASH_ROUNDS = 500;
export const SALT_BYTES = 16;
export const FREE_FAILURES = 3;
export const MAX_DELAY_MS = 64000;

export type Sha256 = (data: Uint8Array) => Uint8Array;

/** What the gate counts, as indices into AdminGate.counters. */
export const AdminCounter = Object.freeze({
  /** Requests let through with the right password. */
  Passed: 0,
  /** Wrong or missing passwords (401). */
  Refused: 1,
  /** Tries refused unheard while the delay ran (429). */
  Delayed: 2,
} as const);
export const ADMIN_COUNTER_NAMES: readonly string[] = Object.freeze(["passed", "refused", "delayed"]);

function utf8(text: string): Uint8Array {
  const out: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let c = text.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

function hex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
  return s;
}

function unhex(text: string): Uint8Array | null {
  if (text.length % 2 !== 0 || !/^[0-9a-f]*$/.test(text)) return null;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

function join(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Why `password` cannot be the admin password, or null when it can. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `the admin password needs at least ${PASSWORD_MIN} characters`;
  if (password.length > PASSWORD_MAX) return `the admin password has at most ${PASSWORD_MAX} characters`;
  return null;
}

/** The stored form of `password` with `salt` (SALT_BYTES random bytes). */
export function hashPassword(password: string, salt: Uint8Array, sha256: Sha256, rounds = HASH_ROUNDS): string {
  if (!Number.isInteger(rounds) || rounds < 1) throw new RangeError(`rounds must be a positive integer, got ${rounds}`);
  let h = sha256(join(salt, utf8(password)));
  for (let k = 1; k < rounds; k++) h = sha256(join(h, salt));
  return `s256$${rounds}$${hex(salt)}$${hex(h)}`;
}

/** Whether `password` matches `stored` (hashPassword's form); false for a stored value in any other form. */
export function checkPassword(password: string, stored: string, sha256: Sha256): boolean {
  const parts = stored.split("$");
  if (parts.length !== 4 || parts[0] !== "s256") return false;
  const rounds = Number(parts[1]);
  const salt = unhex(parts[2]);
  if (!Number.isInteger(rounds) || rounds < 1 || rounds > 100000 || salt === null) return false;
  const made = hashPassword(password, salt, sha256, rounds);
  // Every character compared, whatever the first difference: the time says nothing.
  let diff = made.length ^ stored.length;
  for (let i = 0; i < made.length && i < stored.length; i++) diff |= made.charCodeAt(i) ^ stored.charCodeAt(i);
  return diff === 0;
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Bytes of base64 `text` (padding optional); null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const clean = text.replace(/=+$/, "");
  if (clean.length % 4 === 1) return null;
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let n = 0;
  for (let i = 0; i < clean.length; i++) {
    const v = B64.indexOf(clean[i]);
    if (v < 0) return null;
    value = (value << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (value >> bits) & 0xff;
    }
  }
  return out;
}

/** UTF-8 bytes as text; null when they are not UTF-8. */
function fromUtf8(bytes: Uint8Array): string | null {
  let s = "";
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    let c: number;
    let more: number;
    if (b < 0x80) [c, more] = [b, 0];
    else if (b >= 0xc2 && b < 0xe0) [c, more] = [b & 31, 1];
    else if (b >= 0xe0 && b < 0xf0) [c, more] = [b & 15, 2];
    else if (b >= 0xf0 && b < 0xf5) [c, more] = [b & 7, 3];
    else return null;
    for (let k = 1; k <= more; k++) {
      const x = bytes[i + k];
      if (x === undefined || (x & 0xc0) !== 0x80) return null;
      c = (c << 6) | (x & 63);
    }
    i += more + 1;
    s += String.fromCodePoint(c);
  }
  return s;
}

/**
 * The password of an `Authorization: Basic …` header's value (the user name is ignored: the
 * board has one admin); null when the header is absent, of another scheme or malformed.
 */
export function basicPassword(value: string | null): string | null {
  if (value === null) return null;
  const m = /^\s*Basic\s+([A-Za-z0-9+/]+=*)\s*$/i.exec(value);
  if (m === null) return null;
  const bytes = fromBase64(m[1]);
  if (bytes === null) return null;
  const text = fromUtf8(bytes);
  if (text === null) return null;
  const colon = text.indexOf(":");
  return colon < 0 ? null : text.slice(colon + 1);
}

/** The value of header `name` (any case) in a request head's header lines; null when absent. */
export function headerValue(headers: string, name: string): string | null {
  const want = name.toLowerCase();
  for (const line of headers.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0 && line.slice(0, colon).trim().toLowerCase() === want) return line.slice(colon + 1).trim();
  }
  return null;
}

/** The answer to one try: let through, refused (401), or refused unheard for `waitMs` more (429). */
export const Verdict = Object.freeze({ Pass: 0, Refuse: 1, Wait: 2 } as const);

export class AdminGate {
  readonly counters = new Uint32Array(ADMIN_COUNTER_NAMES.length);
  /** Wrong passwords in a row. */
  failures = 0;
  /** When the next try may be heard (ms, the host's clock); 0: now. */
  #next = 0;
  /** After a Wait verdict: how long is left. */
  waitMs = 0;
  readonly #sha256: Sha256;

  constructor(sha256: Sha256) {
    this.#sha256 = sha256;
  }

  /** The delay after the `failures`-th wrong password in a row. */
  static delayAfter(failures: number): number {
    if (failures <= FREE_FAILURES) return 0;
    const ms = 1000 * 2 ** (failures - FREE_FAILURES - 1);
    return ms > MAX_DELAY_MS ? MAX_DELAY_MS : ms;
  }

  /** Judge `password` (null: none given) against `stored` at time `now`. */
  judge(password: string | null, stored: string, now: number): number {
    const wait = this.#next - now;
    if (wait > 0) {
      this.counters[AdminCounter.Delayed]++;
      this.waitMs = wait;
      return Verdict.Wait;
    }
    if (password !== null && checkPassword(password, stored, this.#sha256)) {
      this.failures = 0;
      this.#next = 0;
      this.counters[AdminCounter.Passed]++;
      return Verdict.Pass;
    }
    this.counters[AdminCounter.Refused]++;
    // A browser's first request carries no password: that is a question, not a wrong guess.
    if (password !== null) {
      this.failures++;
      const delay = AdminGate.delayAfter(this.failures);
      this.#next = delay > 0 ? now + delay : 0;
    }
    return Verdict.Refuse;
  }
}
