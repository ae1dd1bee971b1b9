/** The board's stored settings (modules/board-settings.ts): each value's checks, and a form taken whole or not at all. */
import assert from "node:assert/strict";
import { passwordProblem } from "../../modules/admin";
import { BOARD_SETTINGS, checkForm, checkSetting, parseForm, settingSpec, type SettingValue } from "../../modules/board-settings";

const spec = (name: string) => {
  const s = settingSpec(name);
  if (s === undefined) throw new Error(name);
  return s;
};

const CURRENT: Record<string, SettingValue> = { ssid: "", password: "", apSsid: "lwar", apPassword: "", hostName: "lwar", maxPlayers: 8, bots: 2, botSkill: "", timeoutMs: 15000, seed: "" };
const current = (name: string): SettingValue => CURRENT[name];

describe("the board's settings (modules/board-settings.ts)", () => {
  it("names each stored setting once", () => {
    const names = BOARD_SETTINGS.map((s) => s.name);
    assert.deepEqual(names, ["ssid", "password", "apSsid", "apPassword", "hostName", "maxPlayers", "bots", "botSkill", "timeoutMs", "seed"]);
  });

  it("takes good values", () => {
    assert.deepEqual(checkSetting(spec("maxPlayers"), "4"), { value: 4 });
    assert.deepEqual(checkSetting(spec("seed"), "4294967295"), { value: 4294967295 });
    assert.deepEqual(checkSetting(spec("seed"), ""), { value: "" });
    assert.deepEqual(checkSetting(spec("hostName"), "my-board2"), { value: "my-board2" });
    assert.deepEqual(checkSetting(spec("ssid"), "Café wifi"), { value: "Café wifi" });
    assert.deepEqual(checkSetting(spec("password"), "12345678"), { value: "12345678" });
    assert.deepEqual(checkSetting(spec("botSkill"), "hard"), { value: "hard" });
    assert.deepEqual(checkSetting(spec("botSkill"), ""), { value: "" });
  });

  for (const [name, text, why] of [
    ["maxPlayers", "0", /1 to 8/],
    ["maxPlayers", "9", /1 to 8/],
    ["maxPlayers", "4.5", /whole number/],
    ["maxPlayers", "-1", /whole number/],
    ["maxPlayers", "", /needed/],
    ["timeoutMs", "999", /1000 to 60000/],
    ["seed", "4294967296", /0 to 4294967295/],
    ["hostName", "My_Board", /lower-case/],
    ["botSkill", "expert", /easy, normal or hard/],
    ["botSkill", "Hard", /easy, normal or hard/],
    ["hostName", "-lwar", /lower-case/],
    ["ssid", "x".repeat(33), /1 to 32 characters/],
    ["password", "short", /8 to 63 characters/],
    ["apSsid", "tab\there", /control/],
  ] as const)
    it(`refuses ${name}="${text.length > 12 ? `${text.slice(0, 12)}…` : text}" with a clear message`, () => {
      const got = checkSetting(spec(name), text);
      assert.ok("error" in got, JSON.stringify(got));
      assert.match(got.error, why);
    });

  it("decodes a form as a browser sends it", () => {
    assert.deepEqual(parseForm("ssid=My+Net%C3%A9&password=a%26b%3Dc&empty="), [
      ["ssid", "My Neté"],
      ["password", "a&b=c"],
      ["empty", ""],
    ]);
    assert.deepEqual(parseForm(""), []);
    assert.equal(parseForm("ssid=%E0%A4"), null);
    assert.equal(parseForm("ssid=%zz"), null);
  });

  it("takes a whole good form: values, a new admin password; empty secrets keep theirs", () => {
    const form = parseForm("maxPlayers=4&bots=1&password=&hostName=arena&admin=new-password&admin2=new-password") ?? [];
    const change = checkForm(form, current, true, passwordProblem);
    assert.deepEqual(change.errors, []);
    assert.deepEqual(change.values, [
      ["maxPlayers", 4],
      ["bots", 1],
      ["hostName", "arena"],
    ]);
    assert.equal(change.admin, "new-password");
  });

  it("refuses the whole form for one bad value, and says why for each", () => {
    const form = parseForm("maxPlayers=4&timeoutMs=5&hostName=ok") ?? [];
    const change = checkForm(form, current, true, passwordProblem);
    assert.deepEqual(change.values, []);
    assert.equal(change.errors.length, 1);
    assert.match(change.errors[0], /Timeout/);
  });

  it("refuses more bots than players, counting stored values", () => {
    const change = checkForm([["maxPlayers", "1"]], current, true, passwordProblem);
    assert.match(change.errors.join(), /Bots: at most the players \(1\), got 2/);
  });

  it("refuses names that are no setting, and a field given twice", () => {
    const change = checkForm(
      [
        ["maxplayers", "4"],
        ["bots", "1"],
        ["bots", "2"],
      ],
      current,
      true,
      passwordProblem,
    );
    assert.deepEqual(change.errors, ["maxplayers: not a setting", "bots: given twice"]);
  });

  it("the first setup needs an admin password, a good one, typed twice alike", () => {
    assert.match(checkForm([["maxPlayers", "4"]], current, false, passwordProblem).errors.join(), /set an admin password first/);
    assert.match(checkForm([["admin", "short"]], current, false, passwordProblem).errors.join(), /at least 8/);
    assert.match(
      checkForm(
        [
          ["admin", "long-enough"],
          ["admin2", "long-enougH"],
        ],
        current,
        false,
        passwordProblem,
      ).errors.join(),
      /differ/,
    );
    assert.equal(checkForm([["admin", "long-enough"]], current, false, passwordProblem).admin, "long-enough");
  });

  it("clears a password only when asked", () => {
    const change = checkForm([["clear-apPassword", "1"]], current, true, passwordProblem);
    assert.deepEqual(change.values, [["apPassword", ""]]);
    assert.match(checkForm([["clear-hostName", "1"]], current, true, passwordProblem).errors.join(), /not a password setting/);
    assert.match(
      checkForm(
        [
          ["apPassword", "12345678"],
          ["clear-apPassword", "1"],
        ],
        current,
        true,
        passwordProblem,
      ).errors.join(),
      /both a new value and clear/,
    );
  });
});
