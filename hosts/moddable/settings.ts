/**
 * The app's settings. A setting a maker can change on the board (modules/board-settings.ts)
 * comes from the board's flash when one is stored there (`/settings`, hosts/moddable/setup.ts),
 * else from manifest.json "config" as overridden by `name=value` arguments of mcconfig (those
 * arrive as strings, hence the parsing). Every other setting comes from the build only.
 */
import config from "mc/config";
import Preference from "preference";
import { checkSetting, settingSpec, type SettingValue } from "../../modules/board-settings";

/** The Preference domain (an NVS namespace on ESP32) of the stored settings and the admin password's hash. */
export const STORE = "lwarcfg";

/** The stored value of board setting `name`; undefined when none is stored, or what is stored does not check (it is then ignored, and said so). */
export function storedSetting(name: string): SettingValue | undefined {
  const spec = settingSpec(name);
  if (spec === undefined) return undefined;
  let v: unknown;
  try {
    v = Preference.get(STORE, name);
  } catch {
    return undefined;
  }
  if (v === undefined || v === null) return undefined;
  const checked = checkSetting(spec, String(v));
  if ("error" in checked) {
    trace(`lwar-xs settings: the stored ${name} is ignored: ${checked.error}\n`);
    return undefined;
  }
  return checked.value;
}

/** Where a setting's value came from, for the banner. */
export function settingSource(name: string): "stored" | "build" {
  return storedSetting(name) !== undefined ? "stored" : "build";
}

/** The build's value of a board setting (manifest.json "config" and mcconfig's arguments), "" when it has none. */
export function buildSetting(name: string): SettingValue {
  const v = config[name];
  if (v === undefined || v === null) return "";
  const spec = settingSpec(name);
  return spec !== undefined && spec.kind === "int" && v !== "" && Number.isInteger(Number(v)) ? Number(v) : String(v);
}

function raw(name: string): unknown {
  const stored = storedSetting(name);
  return stored !== undefined ? stored : config[name];
}

export function intSetting(name: string, fallback: number): number {
  const v = raw(name);
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new RangeError(`config.${name} must be an integer, got ${String(v)}`);
  return n;
}

export function textSetting(name: string, fallback: string): string {
  const v = raw(name);
  return v === undefined || v === null ? fallback : String(v);
}

export function flagSetting(name: string, fallback = false): boolean {
  const v = raw(name);
  if (v === undefined || v === "") return fallback;
  return v === true || v === 1 || v === "1" || v === "true";
}
