/** The board's admin password and its gate (modules/admin.ts), with Node's SHA-256 standing in for the SDK's. */
import assert from "node:assert/strict";
import crypto from "node:crypto";
import {
  AdminCounter,
  AdminGate,
  basicPassword,
  checkPassword,
  FREE_FAILURES,
  fromBase64,
  hashPassword,
  headerValue,
  MAX_DELAY_MS,
  passwordProblem,
  Verdict,
} from "../../modules/admin";

const sha256 = (data: Uint8Array): Uint8Array => new Uint8Array(crypto.createHash("sha256").update(data).digest());
const SALT = Uint8Array.from({ length: 16 }, (_, i) => i * 7 + 1);

describe("the admin password (modules/admin.ts)", () => {
  it("stores a salted, iterated SHA-256 that a reader can recompute, never the password", () => {
    const stored = hashPassword("correct horse", SALT, sha256, 3);
    const [kind, rounds, salt, hash] = stored.split("$");
    assert.equal(kind, "s256");
    assert.equal(rounds, "3");
    assert.equal(salt, Buffer.from(SALT).toString("hex"));
    let h = sha256(Buffer.concat([SALT, Buffer.from("correct horse", "utf8")]));
    for (let k = 1; k < 3; k++) h = sha256(Buffer.concat([h, SALT]));
    assert.equal(hash, Buffer.from(h).toString("hex"));
    assert.ok(!stored.includes("correct"));
  });

  it("checks the right password, refuses a wrong one, and another salt gives another hash", () => {
    const stored = hashPassword("pässwörd-123", SALT, sha256);
    assert.ok(checkPassword("pässwörd-123", stored, sha256));
    assert.ok(!checkPassword("passwörd-123", stored, sha256));
    assert.ok(!checkPassword("", stored, sha256));
    const other = hashPassword("pässwörd-123", new Uint8Array(16), sha256);
    assert.notEqual(other.split("$")[3], stored.split("$")[3]);
  });

  it("refuses stored values in another form", () => {
    for (const bad of ["", "plain", "s256$x$00$00", "md5$1$00$00", "s256$1$zz$00", "s256$0$00$00"]) assert.equal(checkPassword("anything", bad, sha256), false, bad);
  });

  it("wants 8 to 64 characters", () => {
    assert.match(passwordProblem("short") ?? "", /at least 8/);
    assert.equal(passwordProblem("12345678"), null);
    assert.match(passwordProblem("x".repeat(65)) ?? "", /at most 64/);
  });

  it("reads the password of a Basic Authorization header, whatever the user name", () => {
    const header = (s: string): string => `Basic ${Buffer.from(s, "utf8").toString("base64")}`;
    assert.equal(basicPassword(header("admin:secret:with:colons")), "secret:with:colons");
    assert.equal(basicPassword(header(":é-ü")), "é-ü");
    assert.equal(basicPassword(null), null);
    assert.equal(basicPassword("Bearer abc"), null);
    assert.equal(basicPassword("Basic !!!"), null);
    assert.equal(basicPassword(header("no colon")), null);
    assert.equal(basicPassword(`Basic ${Buffer.from([0x3a, 0xff, 0xfe]).toString("base64")}`), null);
  });

  it("decodes base64 as Node does", () => {
    for (const n of [0, 1, 2, 3, 4, 5, 31]) {
      const bytes = crypto.randomBytes(n);
      assert.deepEqual(fromBase64(bytes.toString("base64")), new Uint8Array(bytes));
      assert.deepEqual(fromBase64(bytes.toString("base64").replace(/=+$/, "")), new Uint8Array(bytes));
    }
    assert.equal(fromBase64("a"), null);
  });

  it("finds a header in any case", () => {
    const head = "Host: x\r\nauthorization: Basic eDp5\r\nContent-Length: 12";
    assert.equal(headerValue(head, "Authorization"), "Basic eDp5");
    assert.equal(headerValue(head, "content-length"), "12");
    assert.equal(headerValue(head, "Cookie"), null);
  });
});

describe("the admin gate (modules/admin.ts)", () => {
  const stored = hashPassword("right-password", SALT, sha256, 2);

  it("lets the right password through and counts it", () => {
    const gate = new AdminGate(sha256);
    assert.equal(gate.judge("right-password", stored, 0), Verdict.Pass);
    assert.equal(gate.counters[AdminCounter.Passed], 1);
  });

  it("a request without a password is refused but is no wrong guess", () => {
    const gate = new AdminGate(sha256);
    for (let i = 0; i < 10; i++) assert.equal(gate.judge(null, stored, i), Verdict.Refuse);
    assert.equal(gate.failures, 0);
    assert.equal(gate.counters[AdminCounter.Refused], 10);
  });

  it("after the free failures, each try waits twice as long, unheard until then, up to the cap", () => {
    const gate = new AdminGate(sha256);
    let now = 0;
    for (let i = 0; i < FREE_FAILURES; i++) assert.equal(gate.judge("wrong", stored, now), Verdict.Refuse);
    // The next wrong one starts the delay.
    assert.equal(gate.judge("wrong", stored, now), Verdict.Refuse);
    assert.equal(gate.judge("right-password", stored, now + 999), Verdict.Wait, "even the right password waits");
    assert.equal(gate.waitMs, 1);
    now += 1000;
    assert.equal(gate.judge("wrong", stored, now), Verdict.Refuse);
    assert.equal(gate.judge("wrong", stored, now + 1999), Verdict.Wait);
    const delays: number[] = [];
    for (let f = FREE_FAILURES + 1; f < FREE_FAILURES + 12; f++) delays.push(AdminGate.delayAfter(f));
    assert.deepEqual(delays.slice(0, 4), [1000, 2000, 4000, 8000]);
    assert.equal(Math.max(...delays), MAX_DELAY_MS);
    assert.equal(gate.counters[AdminCounter.Delayed], 2);
  });

  it("the right password after the delay clears it", () => {
    const gate = new AdminGate(sha256);
    for (let i = 0; i <= FREE_FAILURES; i++) gate.judge("wrong", stored, 0);
    assert.equal(gate.judge("right-password", stored, 1000), Verdict.Pass);
    assert.equal(gate.failures, 0);
    assert.equal(gate.judge("wrong", stored, 1000), Verdict.Refuse);
    assert.equal(gate.judge("wrong", stored, 1000), Verdict.Refuse, "the free failures start again");
  });
});
