/**
 * Setting the board up from a phone, on the board's own HTTP server (web.ts):
 *
 *   GET  /welcome   the captive portal's page: "play here" or "set up"
 *   GET  /settings  the settings page (setup-page.ts: a constant, in flash on the board)
 *   GET  /settings/values  its fields and their values, as JSON (a password: only whether it is set)
 *   POST /settings  a form of settings (modules/board-settings.ts), taken whole or not at all;
 *                   stored in flash (Preference), applied by a restart
 *   POST /update    a firmware image as the body: written into the other app slot with the
 *                   SDK's OTA module, checked whole, then booted; kept only once it serves
 *                   (ESP-IDF's app rollback, board.c)
 *   POST /reset     a factory reset: every stored setting and the admin password forgotten
 *
 * Every settings route but the first setup's needs the admin password (none is asked
 * before one is set). It is HTTP Basic authentication, checked against its salted hash
 * (modules/admin.ts); wrong ones get 401, are counted, and slow further tries. It never
 * appears in a reply, a log line or /status. This is plain HTTP on the LAN (docs/operating.md).
 */
import { Digest } from "crypt";
import OTA from "./firmware";
import Preference from "preference";
import Timer from "timer";
import { AdminGate, ADMIN_COUNTER_NAMES, basicPassword, hashPassword, headerValue, passwordProblem, SALT_BYTES, Verdict } from "../../modules/admin";
import { BOARD_SETTINGS, checkForm, parseForm, type SettingValue } from "../../modules/board-settings";
import { restart, updateRoom } from "./board";
import { STORE, storedSetting } from "./settings";
import { SETTINGS_PAGE } from "./setup-page";
import type { BoardWeb, Reply, RequestRoute } from "./web";

const ADMIN_KEY = "adminHash";
/** A settings form's body, at most. */
const FORM_MAX = 2048;
/** A reply goes out before the restart. */
const RESTART_MS = 1500;
/** The first byte of an ESP32 app image (esp_image_header_t.magic). */
const IMAGE_MAGIC = 0xe9;

export const SETUP_COUNTER_NAMES: readonly string[] = Object.freeze([
  ...ADMIN_COUNTER_NAMES.map((n) => `admin.${n}`),
  "update.done",
  "update.refused",
  "update.abandoned",
  "settings.saved",
  "settings.refused",
]);
const C = Object.freeze({ UpdateDone: 3, UpdateRefused: 4, UpdateAbandoned: 5, SettingsSaved: 6, SettingsRefused: 7 } as const);

export interface SetupOptions {
  version: string;
  /** The host's clock, in ms. */
  now: () => number;
  /** The build's value of a setting (the default when none is stored). */
  buildValue: (name: string) => SettingValue;
  /** Why the board is its own access point when it was to join a network ("" when it was not). */
  networkNote: () => string;
}

function sha256(data: Uint8Array): Uint8Array {
  const d = new Digest("SHA256");
  d.write(data.byteOffset === 0 && data.byteLength === data.buffer.byteLength ? (data.buffer as ArrayBuffer) : data.slice().buffer);
  return new Uint8Array(d.close());
}

function htmlText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

function text(status: string, body: string, headers?: string[]): Reply {
  return { status, type: "text/plain; charset=utf-8", body: `${body}\n`, headers };
}

export class BoardSetup {
  readonly counters = new Uint32Array(SETUP_COUNTER_NAMES.length);
  readonly #gate: AdminGate;
  readonly #o: SetupOptions;
  /** An update under way: its writer, bytes so far, and whether its first byte was seen. */
  #ota: OTA | null = null;
  #written = 0;
  /** The SHA-256 of the image as it comes, for the log (a maker can compare it with the file's). */
  #digest: Digest | null = null;
  /** A settings form's body as it comes. */
  #form = "";
  #restarting = false;

  constructor(web: BoardWeb, options: SetupOptions) {
    this.#o = options;
    this.#gate = new AdminGate(sha256);
    this.counters.set(this.#gate.counters, 0);
    web.route("/welcome", () => ({ type: "text/html; charset=utf-8", body: this.#welcome() }));
    web.routeRequest("/settings", this.#settingsRoute());
    web.routeRequest("/settings/values", {
      begin: (method, _query, headers) => {
        if (method !== "GET") return text("405 Method Not Allowed", "GET only", ["Allow", "GET"]);
        return this.#authorize(headers, false) ?? { status: "200 OK", type: "application/json", body: this.#values() };
      },
      data: () => null,
      end: () => null,
    });
    web.routeRequest("/update", this.#updateRoute());
    web.routeRequest("/reset", this.#resetRoute());
  }

  /** An admin password is set (the first setup is done). */
  get adminSet(): boolean {
    return this.#stored(ADMIN_KEY) !== "";
  }

  /** The gate's counters copied in: call before reading `counters`. */
  refresh(): void {
    this.counters.set(this.#gate.counters, 0);
  }

  #stored(name: string): string {
    try {
      const v = Preference.get(STORE, name);
      return typeof v === "string" ? v : "";
    } catch {
      return "";
    }
  }

  #current(name: string): SettingValue {
    const stored = storedSetting(name);
    return stored !== undefined ? stored : this.#o.buildValue(name);
  }

  /** null when the request may go on; else the refusal (401, 429, or 403 before the first setup when `needSet`). */
  #authorize(headers: string, needSet: boolean): Reply | null {
    const stored = this.#stored(ADMIN_KEY);
    if (stored === "") return needSet ? text("403 Forbidden", "set an admin password at /settings first") : null;
    const verdict = this.#gate.judge(basicPassword(headerValue(headers, "authorization")), stored, this.#o.now());
    this.refresh();
    if (verdict === Verdict.Pass) return null;
    if (verdict === Verdict.Wait) {
      const s = Math.ceil(this.#gate.waitMs / 1000);
      return text("429 Too Many Requests", `too many wrong passwords: try again in ${s} s`, ["Retry-After", String(s)]);
    }
    if (this.#gate.failures > 0) trace(`lwar-xs setup: a wrong admin password (${this.#gate.failures} in a row)\n`);
    return text("401 Unauthorized", "this needs the board's admin password", ["WWW-Authenticate", 'Basic realm="lwar-xs admin", charset="UTF-8"']);
  }

  #restartSoon(why: string): void {
    if (this.#restarting) return;
    this.#restarting = true;
    trace(`lwar-xs setup: ${why}: restarting\n`);
    Timer.set(() => restart(), RESTART_MS);
  }

  // ------------------------------------------------------------------ pages

  #welcome(): string {
    const note = this.#o.networkNote();
    return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>lwar-xs</title><style>body{font:18px system-ui,sans-serif;max-width:30em;margin:1em auto;padding:0 1em;background:#0b0d17;color:#dde}a{display:block;padding:1em;margin:1em 0;border:1px solid #9cf;color:#9cf;text-align:center}p{color:#f88}small{color:#99a}</style></head><body><h1>lwar-xs</h1>${note !== "" ? `<p>${htmlText(note)}</p>` : ""}<a href="/">Play here</a><a href="/settings">Set up</a><small>version ${htmlText(this.#o.version)}</small></body></html>`;
  }

  /** /settings/values: the page's fields, their values (a password: only whether one is set), the version and the network's note. */
  #values(): string {
    let json = `{"version":${JSON.stringify(this.#o.version)},"note":${JSON.stringify(this.#o.networkNote())},"first":${!this.adminSet},"fields":[`;
    for (let i = 0; i < BOARD_SETTINGS.length; i++) {
      const spec = BOARD_SETTINGS[i];
      const value = this.#current(spec.name);
      json += `${i > 0 ? "," : ""}{"name":"${spec.name}","label":${JSON.stringify(spec.label)},"help":${JSON.stringify(spec.help)},"kind":"${spec.kind}",`;
      json += spec.kind === "secret" ? `"set":${value !== ""}}` : `"value":${JSON.stringify(value)}}`;
    }
    return `${json}]}\n`;
  }

  // ------------------------------------------------------------------ routes

  #settingsRoute(): RequestRoute {
    return {
      begin: (method, _query, headers, length) => {
        if (method !== "GET" && method !== "POST") return text("405 Method Not Allowed", "GET or POST", ["Allow", "GET, POST"]);
        const refused = this.#authorize(headers, false);
        if (refused !== null) return refused;
        if (method === "GET") return { status: "200 OK", type: "text/html; charset=utf-8", body: SETTINGS_PAGE };
        if (length > FORM_MAX) {
          this.counters[C.SettingsRefused]++;
          return { status: "413 Content Too Large", type: "text/plain", body: `a settings form has at most ${FORM_MAX} bytes\n` };
        }
        this.#form = "";
        return null;
      },
      data: (bytes, length) => {
        let s = "";
        for (let i = 0; i < length; i++) s += String.fromCharCode(bytes[i]);
        this.#form += s;
        return null;
      },
      end: (complete) => {
        const body = this.#form;
        this.#form = "";
        if (!complete) return null;
        return this.#saveForm(body);
      },
    };
  }

  #saveForm(body: string): Reply {
    const pairs = parseForm(body);
    const change = pairs === null ? { values: [], admin: null, errors: ["the form is not application/x-www-form-urlencoded UTF-8"] } : checkForm(pairs, (n) => this.#current(n), this.adminSet, passwordProblem);
    if (change.errors.length > 0) {
      this.counters[C.SettingsRefused]++;
      trace(`lwar-xs setup: settings refused: ${change.errors.join("; ")}\n`);
      return text("400 Bad Request", `nothing was saved:\n${change.errors.join("\n")}`);
    }
    let changed = 0;
    for (const [name, value] of change.values) {
      if (value === this.#current(name)) continue;
      Preference.set(STORE, name, value);
      changed++;
    }
    if (change.admin !== null) {
      const salt = new Uint8Array(SALT_BYTES);
      for (let i = 0; i < salt.length; i++) salt[i] = (Math.random() * 256) & 0xff;
      Preference.set(STORE, ADMIN_KEY, hashPassword(change.admin, salt, sha256));
    }
    this.counters[C.SettingsSaved]++;
    const names = change.values.map((v) => v[0]).join(", ");
    trace(`lwar-xs setup: saved ${changed} setting${changed === 1 ? "" : "s"}${changed > 0 ? ` (${names})` : ""}${change.admin !== null ? " and the admin password" : ""}\n`);
    if (changed > 0) this.#restartSoon("settings saved");
    return text("200 OK", changed > 0 ? `saved ${changed} setting${changed === 1 ? "" : "s"}: the board restarts now to apply them (back in a few seconds)` : "saved");
  }

  #updateRoute(): RequestRoute {
    return {
      begin: (method, _query, headers, length) => {
        if (method !== "POST") return { status: "405 Method Not Allowed", type: "text/plain", body: "POST the image\n", headers: ["Allow", "POST"] };
        const refused = this.#authorize(headers, true);
        if (refused !== null) return refused;
        const room = updateRoom();
        const no = (status: string, why: string): Reply => {
          this.counters[C.UpdateRefused]++;
          trace(`lwar-xs update: refused: ${why}\n`);
          return { status, type: "text/plain", body: `${why}\n` };
        };
        if (room === 0) return no("501 Not Implemented", "this build has no second app slot: no updates over the air");
        if (this.#ota !== null) return no("503 Service Unavailable", "an update is under way");
        if (length === 0) return no("400 Bad Request", "no image: POST the firmware file as the body");
        if (length > room) return no("413 Content Too Large", `the image has ${length} bytes; the app slot holds ${room}`);
        try {
          this.#ota = new OTA();
        } catch (e) {
          return no("500 Internal Server Error", `the app slot could not be opened: ${(e as Error).message}`);
        }
        this.#written = 0;
        this.#digest = new Digest("SHA256");
        trace(`lwar-xs update: receiving ${length} bytes\n`);
        return null;
      },
      data: (bytes, length) => {
        const ota = this.#ota as OTA;
        if (this.#written === 0 && bytes[0] !== IMAGE_MAGIC) return this.#abandon("400 Bad Request", "not an ESP32 app image (its first byte is not 0xE9)");
        const piece = bytes.slice(0, length);
        this.#digest?.write(piece.buffer as ArrayBuffer);
        try {
          ota.write(piece);
        } catch (e) {
          return this.#abandon("400 Bad Request", `the image could not be written: ${(e as Error).message}`);
        }
        this.#written += length;
        return null;
      },
      end: (complete) => {
        const ota = this.#ota;
        if (ota === null) return null;
        if (!complete) {
          this.counters[C.UpdateAbandoned]++;
          this.#abandon("", `the upload ended after ${this.#written} bytes`);
          return null;
        }
        this.#ota = null;
        const digest = this.#digest;
        this.#digest = null;
        let sha = "";
        if (digest !== null) {
          const h = new Uint8Array(digest.close());
          for (let i = 0; i < h.length; i++) sha += (h[i] < 16 ? "0" : "") + h[i].toString(16);
        }
        trace(`lwar-xs update: ${this.#written} bytes received, SHA-256 ${sha}\n`);
        try {
          ota.complete();
        } catch (e) {
          this.counters[C.UpdateRefused]++;
          trace(`lwar-xs update: refused: ${this.#written} bytes, not a whole, valid image (${(e as Error).message})\n`);
          return { status: "400 Bad Request", type: "text/plain", body: `refused: the image is damaged or incomplete (${this.#written} bytes checked); still running ${this.#o.version}\n` };
        }
        this.counters[C.UpdateDone]++;
        this.#restartSoon(`update of ${this.#written} bytes written and checked`);
        return { status: "200 OK", type: "text/plain", body: `updated: ${this.#written} bytes written and checked; restarting into it (it is kept once it serves, else the board goes back to ${this.#o.version})\n` };
      },
    };
  }

  /** Drop the update under way; a reply that says why (none when `status` is ""). */
  #abandon(status: string, why: string): Reply | null {
    const ota = this.#ota;
    this.#ota = null;
    this.#digest = null;
    if (ota !== null)
      try {
        ota.cancel();
      } catch {
        // gone with it
      }
    trace(`lwar-xs update: ${status === "" ? "abandoned" : "refused"}: ${why}\n`);
    if (status === "") return null;
    this.counters[C.UpdateRefused]++;
    return { status, type: "text/plain", body: `refused: ${why}; still running ${this.#o.version}\n` };
  }

  #resetRoute(): RequestRoute {
    let body = "";
    return {
      begin: (method, _query, headers, length) => {
        if (method !== "POST") return { status: "405 Method Not Allowed", type: "text/plain", body: "POST confirm=yes\n", headers: ["Allow", "POST"] };
        const refused = this.#authorize(headers, false);
        if (refused !== null) return refused;
        if (length > 64) return { status: "413 Content Too Large", type: "text/plain", body: "confirm=yes only\n" };
        body = "";
        return null;
      },
      data: (bytes, length) => {
        for (let i = 0; i < length; i++) body += String.fromCharCode(bytes[i]);
        return null;
      },
      end: (complete) => {
        if (!complete) return null;
        if (body.trim() !== "confirm=yes") return { status: "400 Bad Request", type: "text/plain", body: "send confirm=yes to forget every setting\n" };
        const n = factoryReset();
        this.#restartSoon(`factory reset: ${n} stored values forgotten`);
        return text("200 OK", "every setting and the admin password are forgotten: the board restarts with its built-in settings");
      },
    };
  }
}

/** Forget every stored setting and the admin password; how many values were stored. */
export function factoryReset(): number {
  let keys: string[] = [];
  try {
    keys = Preference.keys(STORE);
  } catch {
    // none
  }
  for (const k of keys) Preference.delete(STORE, k);
  return keys.length;
}
