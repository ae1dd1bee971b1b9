/**
 * Setting the board up from a phone, on the board's own HTTP server (web.ts):
 *
 *   GET  /welcome   the captive portal's page: "play here" or "set up"
 *   GET  /settings  the settings page (the admin password; none asked at the first setup)
 *   POST /settings  a form of settings (modules/board-settings.ts), taken whole or not at all;
 *                   stored in flash (Preference), applied by a restart
 *   POST /update    a firmware image as the body: written into the other app slot with the
 *                   SDK's OTA module, checked whole, then booted; kept only once it serves
 *                   (ESP-IDF's app rollback, board.c)
 *   POST /reset     a factory reset: every stored setting and the admin password forgotten
 *
 * The admin password is HTTP Basic authentication, checked against its salted hash
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

function html(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${title}</title><style>body{font:16px system-ui,sans-serif;max-width:34em;margin:1em auto;padding:0 1em;background:#0b0d17;color:#dde}a,button{color:#9cf}input{width:100%;box-sizing:border-box;padding:.4em;margin:.2em 0 .8em}label{display:block}small{color:#99a}.bad{color:#f88}.big{display:block;padding:1em;margin:1em 0;border:1px solid #9cf;text-align:center;font-size:1.2em}</style></head><body><h1>${title}</h1>${body}</body></html>`;
}

function page(status: string, title: string, body: string, headers?: string[]): Reply {
  return { status, type: "text/html; charset=utf-8", body: html(title, body), headers };
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
    if (stored === "") return needSet ? page("403 Forbidden", "Set up first", `<p>Set an admin password on the <a href="/settings">settings page</a> first.</p>`) : null;
    const verdict = this.#gate.judge(basicPassword(headerValue(headers, "authorization")), stored, this.#o.now());
    this.refresh();
    if (verdict === Verdict.Pass) return null;
    if (verdict === Verdict.Wait) {
      const s = Math.ceil(this.#gate.waitMs / 1000);
      return page("429 Too Many Requests", "Wait", `<p>Too many wrong passwords: try again in ${s} s.</p>`, ["Retry-After", String(s)]);
    }
    if (this.#gate.failures > 0) trace(`lwar-xs setup: a wrong admin password (${this.#gate.failures} in a row)\n`);
    return page("401 Unauthorized", "Password", "<p>This needs the board's admin password.</p>", ["WWW-Authenticate", 'Basic realm="lwar-xs admin", charset="UTF-8"']);
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
    return html(
      "lwar-xs",
      `${note !== "" ? `<p class="bad">${htmlText(note)}</p>` : ""}<a class="big" href="/">Play here</a><a class="big" href="/settings">Set up</a><p><small>version ${htmlText(this.#o.version)}</small></p>`,
    );
  }

  #settingsPage(errors: string[]): string {
    const first = !this.adminSet;
    const note = this.#o.networkNote();
    let form = "";
    for (const spec of BOARD_SETTINGS) {
      const value = this.#current(spec.name);
      if (spec.kind === "secret") {
        const set = value !== "";
        form += `<label>${spec.label}<input type="password" name="${spec.name}" autocomplete="new-password" placeholder="${set ? "unchanged" : "none"}"><small>${htmlText(spec.help)}${set ? ` · <input type="checkbox" name="clear-${spec.name}" value="1" style="width:auto"> clear it` : ""}</small></label>`;
      } else
        form += `<label>${spec.label}<input name="${spec.name}" value="${htmlText(String(value))}"${spec.kind === "int" ? ' inputmode="numeric"' : ""}><small>${htmlText(spec.help)}</small></label>`;
    }
    form += `<label>${first ? "Admin password (needed: it guards these settings and updates)" : "New admin password"}<input type="password" name="admin" autocomplete="new-password"${first ? " required" : ' placeholder="unchanged"'}></label>`;
    form += `<label>The admin password again<input type="password" name="admin2" autocomplete="new-password"></label>`;
    const bad = errors.length > 0 ? `<ul class="bad">${errors.map((e) => `<li>${htmlText(e)}</li>`).join("")}</ul><p>Nothing was saved.</p>` : "";
    const update = first
      ? ""
      : `<h2>Update</h2><p>Running version ${htmlText(this.#o.version)}. Choose a firmware image (lwar-xs-VARIANT-VERSION.bin's app, xs_esp32.bin):</p><input type="file" id="image" accept=".bin"><button id="send">Update</button><p id="progress"></p><script>document.getElementById("send").onclick=function(){var f=document.getElementById("image").files[0];if(!f)return;var p=document.getElementById("progress"),x=new XMLHttpRequest();x.open("POST","/update");x.upload.onprogress=function(e){p.textContent=Math.round(100*e.loaded/e.total)+" %"};x.onload=function(){p.textContent=x.responseText.replace(/<[^>]*>/g," ")};x.onerror=function(){p.textContent="the board did not answer"};x.send(f)}</script><h2>Factory reset</h2><form method="post" action="/reset" onsubmit="return confirm('Forget every setting and the admin password?')"><input type="hidden" name="confirm" value="yes"><button>Forget every setting</button></form>`;
    return html(
      first ? "Set up lwar-xs" : "lwar-xs settings",
      `${note !== "" ? `<p class="bad">${htmlText(note)}</p>` : ""}${bad}<form method="post" action="/settings">${form}<button>Save and restart</button></form>${update}<p><a href="/">Play</a></p>`,
    );
  }

  // ------------------------------------------------------------------ routes

  #settingsRoute(): RequestRoute {
    return {
      begin: (method, _query, headers, length) => {
        if (method !== "GET" && method !== "POST") return { status: "405 Method Not Allowed", type: "text/plain", body: "GET or POST\n", headers: ["Allow", "GET, POST"] };
        const refused = this.#authorize(headers, false);
        if (refused !== null) return refused;
        if (method === "GET") return { status: "200 OK", type: "text/html; charset=utf-8", body: this.#settingsPage([]) };
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
      return { status: "400 Bad Request", type: "text/html; charset=utf-8", body: this.#settingsPage(change.errors) };
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
    return page(
      "200 OK",
      "Saved",
      changed > 0 ? `<p>Saved ${changed} setting${changed === 1 ? "" : "s"}. The board restarts now to apply them; <a href="/settings">back</a> in a few seconds.</p>` : `<p>Saved. <a href="/settings">Back</a></p>`,
    );
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
        return page("200 OK", "Reset", "<p>Every setting and the admin password are forgotten. The board restarts with its built-in settings.</p>");
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
