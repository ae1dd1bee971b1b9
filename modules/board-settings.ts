/**
 * The settings a maker changes on the board itself (`/settings`), kept in its flash and
 * applied at boot: what each one is, its limits, and the checks a value must pass. The
 * firmware's build-time values (`--set`, manifest.json "config") are only their defaults.
 * Host-free: the board's store (hosts/moddable/setup.ts) and the tests use the same checks.
 *
 * A form is taken whole or not at all: any bad value refuses it, with a message for each,
 * and every stored value stays as it was.
 */
import { MAX_PLAYERS } from "./protocol/constants";

export type SettingKind = "text" | "secret" | "int";

export interface SettingSpec {
  readonly name: string;
  readonly kind: SettingKind;
  /** For the page. */
  readonly label: string;
  readonly help: string;
  /** Text: its length (in characters); int: its value. */
  readonly min: number;
  readonly max: number;
  /** Text: the characters it may hold. */
  readonly pattern?: RegExp;
  readonly patternHelp?: string;
  /** An empty value is allowed (text: none; int: its default). */
  readonly optional: boolean;
}

/** The stored settings, in the page's order. */
export const BOARD_SETTINGS: readonly SettingSpec[] = Object.freeze([
  { name: "ssid", kind: "text", label: "Wi-Fi network", help: "the network to join; empty: the board is its own access point", min: 1, max: 32, optional: true },
  { name: "password", kind: "secret", label: "Wi-Fi password", help: "8 to 63 characters; empty for an open network", min: 8, max: 63, optional: true },
  { name: "apSsid", kind: "text", label: "Access point name", help: "the network the board makes when it joins none", min: 1, max: 32, optional: false },
  { name: "apPassword", kind: "secret", label: "Access point password", help: "8 to 63 characters; empty for an open access point", min: 8, max: 63, optional: true },
  {
    name: "hostName",
    kind: "text",
    label: "Board name",
    help: "its mDNS name: http://NAME.local/",
    min: 1,
    max: 32,
    pattern: /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/,
    patternHelp: "lower-case letters, digits and inner hyphens",
    optional: false,
  },
  { name: "maxPlayers", kind: "int", label: "Players", help: `at most, 1 to ${MAX_PLAYERS}`, min: 1, max: MAX_PLAYERS, optional: false },
  { name: "bots", kind: "int", label: "Bots", help: "the server's own pilots in empty slots, 0 to the players", min: 0, max: MAX_PLAYERS, optional: false },
  {
    name: "botSkill",
    kind: "text",
    label: "Bot skill",
    help: "easy, normal or hard; empty: normal",
    min: 4,
    max: 6,
    pattern: /^(easy|normal|hard)$/,
    patternHelp: "easy, normal or hard",
    optional: true,
  },
  { name: "timeoutMs", kind: "int", label: "Timeout (ms)", help: "a silent player is dropped after this, 1000 to 60000", min: 1000, max: 60000, optional: false },
  { name: "seed", kind: "int", label: "World seed", help: "0 to 4294967295; empty: a new world each boot", min: 0, max: 4294967295, optional: true },
]);

export type SettingValue = string | number;

/** A setting's spec by name; undefined for a name that is not one. */
export function settingSpec(name: string): SettingSpec | undefined {
  for (const s of BOARD_SETTINGS) if (s.name === name) return s;
  return undefined;
}

/** `text` checked for `spec`: its value, or why not. "" for an optional setting means "none" (stored as ""). */
export function checkSetting(spec: SettingSpec, text: string): { value: SettingValue } | { error: string } {
  if (text === "") return spec.optional ? { value: "" } : { error: `${spec.label}: needed` };
  if (spec.kind === "int") {
    if (!/^[0-9]+$/.test(text)) return { error: `${spec.label}: a whole number, got "${text.slice(0, 20)}"` };
    const n = Number(text);
    if (n < spec.min || n > spec.max) return { error: `${spec.label}: ${spec.min} to ${spec.max}, got ${text}` };
    return { value: n };
  }
  if (text.length < spec.min || text.length > spec.max) return { error: `${spec.label}: ${spec.min} to ${spec.max} characters, got ${text.length}` };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return { error: `${spec.label}: no control characters` };
  }
  if (spec.pattern !== undefined && !spec.pattern.test(text)) return { error: `${spec.label}: ${spec.patternHelp ?? "not allowed"}` };
  return { value: text };
}

/** An application/x-www-form-urlencoded body's pairs, in order; null when it is malformed (bad escapes or UTF-8). */
export function parseForm(body: string): [string, string][] | null {
  const pairs: [string, string][] = [];
  if (body === "") return pairs;
  for (const part of body.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? "" : part.slice(eq + 1);
    try {
      pairs.push([decodeURIComponent(rawName.replace(/\+/g, " ")), decodeURIComponent(rawValue.replace(/\+/g, " "))]);
    } catch {
      return null;
    }
  }
  return pairs;
}

/** What a settings form asks: the values to store, the admin password to set, and every problem found. */
export interface SettingsChange {
  values: [string, SettingValue][];
  /** A new admin password, or null to keep the one stored. */
  admin: string | null;
  errors: string[];
}

/**
 * Check a settings form's pairs against the current values (`current(name)`).
 * - a secret left empty keeps its stored value; `clear-NAME=1` empties it;
 * - `admin` sets a new admin password (`admin2`, when present, must repeat it); it is
 *   needed when `adminSet` is false (the first setup);
 * - fields that are not settings are errors, so a typo is never silently dropped;
 * - bots may not exceed players.
 */
export function checkForm(pairs: [string, string][], current: (name: string) => SettingValue, adminSet: boolean, passwordProblem: (p: string) => string | null): SettingsChange {
  const values: [string, SettingValue][] = [];
  const errors: string[] = [];
  let admin: string | null = null;
  let admin2: string | null = null;
  const clear = new Set<string>();
  const seen = new Set<string>();
  for (const [name, text] of pairs) {
    if (seen.has(name)) {
      errors.push(`${name}: given twice`);
      continue;
    }
    seen.add(name);
    if (name === "admin") admin = text === "" ? null : text;
    else if (name === "admin2") admin2 = text;
    else if (name.startsWith("clear-")) {
      const spec = settingSpec(name.slice(6));
      if (spec === undefined || spec.kind !== "secret") errors.push(`${name}: not a password setting`);
      else if (text === "1" || text === "on") clear.add(spec.name);
    } else {
      const spec = settingSpec(name);
      if (spec === undefined) {
        errors.push(`${name.slice(0, 32)}: not a setting`);
        continue;
      }
      if (spec.kind === "secret" && text === "") continue;
      const checked = checkSetting(spec, text);
      if ("error" in checked) errors.push(checked.error);
      else values.push([spec.name, checked.value]);
    }
  }
  for (const name of clear) {
    let given = false;
    for (const v of values) if (v[0] === name) given = true;
    if (given) errors.push(`${name}: both a new value and clear`);
    else values.push([name, ""]);
  }
  if (admin !== null) {
    const problem = passwordProblem(admin);
    if (problem !== null) errors.push(problem);
    else if (admin2 !== null && admin2 !== admin) errors.push("the two admin passwords differ");
  } else if (!adminSet) errors.push("set an admin password first: it guards these settings and updates");
  const after = (name: string): SettingValue => {
    for (const v of values) if (v[0] === name) return v[1];
    return current(name);
  };
  const players = after("maxPlayers");
  const bots = after("bots");
  if (typeof players === "number" && typeof bots === "number" && bots > players) errors.push(`Bots: at most the players (${players}), got ${bots}`);
  return { values: errors.length > 0 ? [] : values, admin: errors.length > 0 ? null : admin, errors };
}
