/**
 * The app's settings: manifest.json "config", overridden by `name=value` arguments of
 * mcconfig (those arrive as strings, hence the parsing).
 */
import config from "mc/config";

export function intSetting(name: string, fallback: number): number {
  const v = config[name];
  if (v === undefined || v === "") return fallback;
  const n = Number(v);
  if (!Number.isInteger(n)) throw new RangeError(`config.${name} must be an integer, got ${String(v)}`);
  return n;
}

export function textSetting(name: string, fallback: string): string {
  const v = config[name];
  return v === undefined || v === null ? fallback : String(v);
}

export function flagSetting(name: string, fallback = false): boolean {
  const v = config[name];
  if (v === undefined || v === "") return fallback;
  return v === true || v === 1 || v === "1" || v === "true";
}
