/**
 * `npm start`'s command line (hosts/node/main.ts): bad values stop it with a clear error;
 * good ones reach the banner; a --config file sets the same options, under the flags;
 * --log json prints one JSON object a line.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSX = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
const MAIN = "hosts/node/main.ts";

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(TSX, [MAIN, ...args], { cwd: ROOT, encoding: "utf8", timeout: 30000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("server command line", function () {
  this.timeout(60000);

  it("--help lists every flag", function () {
    const r = run(["--help"]);
    assert.equal(r.status, 0);
    for (const flag of ["--config", "--port", "--http-port", "--host", "--timeout-ms", "--max-players", "--max-entities", "--queue-bytes", "--status-s", "--seed", "--log"])
      assert.ok(r.stdout.includes(flag), `${flag} in --help`);
  });

  it("an entity pool too small for the game is refused before binding", function () {
    const r = run(["--port", "0", "--max-entities", "10"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /maxEntities must be at least 16 \(sun, 6 planets, 8 ships, a projectile\)/);
  });

  it("a queue below one packet is refused", function () {
    const r = run(["--port", "0", "--queue-bytes", "100"]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--queue-bytes must be in 512\.\.65535, got 100/);
  });

  it("smaller pools start, print the banner and shut down on SIGTERM", async function () {
    const child = spawn(TSX, [MAIN, "--port", "0", "--http-port", "0", "--max-entities", "128", "--queue-bytes", "1024", "--status-s", "0"], { cwd: ROOT });
    let out = "";
    child.stdout.setEncoding("utf8");
    const banner = new Promise<void>((resolve) =>
      child.stdout.on("data", (d: string) => {
        out += d;
        if (out.includes("listening on udp")) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await Promise.race([banner, exited]);
    assert.match(out, /lwar-xs listening on udp \[::\]:\d+, IPv6 and IPv4 \(max 8 players/);
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
    assert.match(out, /SIGTERM: shut down/);
    assert.doesNotMatch(out, /serving the game/);
  });

  it("--http-port serves the page and prints a URL for each IPv4 address", async function () {
    const httpPort = await freePort();
    const child = spawn(TSX, [MAIN, "--port", "0", "--http-port", String(httpPort), "--status-s", "0"], { cwd: ROOT });
    let out = "";
    child.stdout.setEncoding("utf8");
    const banner = new Promise<void>((resolve) =>
      child.stdout.on("data", (d: string) => {
        out += d;
        if (/serving the game[^\n]*\n(  http:\/\/\S+\n)+/.test(out)) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    await Promise.race([banner, exited]);
    assert.match(out, new RegExp(`serving the game on http \\[::\\]:${httpPort}, WebSocket at /ws`));
    const urls = [...out.matchAll(/^  (http:\/\/[\d.]+:\d+\/)$/gm)].map((m) => m[1]);
    assert.ok(urls.includes(`http://127.0.0.1:${httpPort}/`), urls.join(" "));
    const res = await fetch(`http://127.0.0.1:${httpPort}/`);
    assert.equal(res.status, 200);
    assert.match(await res.text(), /<script src="app.js"/);
    const js = await fetch(`http://127.0.0.1:${httpPort}/app.js`);
    assert.equal(js.status, 200);
    assert.match(js.headers.get("content-type") ?? "", /javascript/);
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
    assert.match(out, /page requests 2/);
  });

  it("an HTTP port in use is a clear error", async function () {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, "::", () => r()));
    const port = (blocker.address() as { port: number }).port;
    try {
      const r = run(["--port", "0", "--http-port", String(port)]);
      assert.equal(r.status, 2);
      assert.match(r.stderr, new RegExp(`cannot listen on http \\[::\\]:${port}: .*EADDRINUSE.*--http-port 0 serves no page`));
    } finally {
      blocker.close();
    }
  });
});

/** A running server: its output so far, a wait for a pattern in it, and its exit code. */
interface Running {
  child: ChildProcess;
  out: () => string;
  waitFor(pattern: RegExp): Promise<void>;
  exited: Promise<number | null>;
}

function start(args: string[]): Running {
  const child = spawn(TSX, [MAIN, ...args], { cwd: ROOT });
  let out = "";
  const waiters: { pattern: RegExp; resolve: () => void }[] = [];
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (d: string) => {
    out += d;
    for (const w of waiters) if (w.pattern.test(out)) w.resolve();
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  return {
    child,
    out: () => out,
    exited,
    waitFor(pattern) {
      return Promise.race([
        new Promise<void>((resolve) => {
          if (pattern.test(out)) resolve();
          else waiters.push({ pattern, resolve });
        }),
        exited.then((code) => {
          if (!pattern.test(out)) throw new Error(`exited ${code} before ${pattern}; stdout: ${out}`);
        }),
      ]);
    },
  };
}

describe("server --config and --log", function () {
  this.timeout(60000);
  let dir: string;

  before(function () {
    dir = mkdtempSync(join(tmpdir(), "lwar-config-"));
  });

  after(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  it("a --config file sets the options, and flags given as well win", async function () {
    const path = file("good.json", JSON.stringify({ port: 0, "http-port": 0, "max-players": 3, "timeout-ms": 5000, seed: 77, "status-s": 0 }));
    const r = start(["--config", path, "--max-players", "5"]);
    await r.waitFor(/listening on udp/);
    assert.match(r.out(), /\(max 5 players, timeout 5000 ms, seed 77\)/);
    r.child.kill("SIGTERM");
    assert.equal(await r.exited, 0);
  });

  it("--log json prints one JSON object a line: banner, status with tick cost, scoreboard, totals", async function () {
    const path = file("json.json", JSON.stringify({ log: "json", "status-s": 1 }));
    const r = start(["--config", path, "--port", "0", "--http-port", "0", "--seed", "5"]);
    await r.waitFor(/"event":"status"/);
    r.child.kill("SIGTERM");
    assert.equal(await r.exited, 0);
    const lines = r.out().trimEnd().split("\n");
    const records = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const rec of records) {
      assert.equal(typeof rec.event, "string");
      assert.match(String(rec.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const events = records.map((rec) => rec.event);
    assert.equal(events[0], "listening");
    assert.equal(records[0].seed, 5);
    assert.equal(events[events.length - 1], "shutdown");
    assert.ok(events.indexOf("scoreboard") > events.indexOf("status"), events.join(" "));
    const status = records.find((rec) => rec.event === "status")!;
    assert.equal(status.players, 0);
    const tick = status.tick as { meanUs: number; p99Us: number; share: number; ticks: number };
    assert.ok(tick.ticks > 50, JSON.stringify(tick));
    assert.equal(typeof tick.meanUs, "number");
    assert.equal(typeof tick.share, "number");
    assert.deepEqual(status.drops, []);
    assert.equal(records[records.length - 1].signal, "SIGTERM");
  });

  it("the text status line labels rates and totals and shows the tick cost", async function () {
    const r = start(["--port", "0", "--http-port", "0", "--status-s", "1"]);
    await r.waitFor(/status {2}players/);
    r.child.kill("SIGTERM");
    assert.equal(await r.exited, 0);
    assert.match(
      r.out(),
      /^\d\d:\d\d:\d\d status {2}players 0\/8, entities 7 \| rate in 0 pkt\/s 0 B\/s, out 0 pkt\/s 0 B\/s \| tick mean \d+ µs, p99 \d+ µs, [\d.]+% of 10 ms \| total drops none$/m,
    );
    assert.match(r.out(), /scoreboard \(0 players\)\n[\s\S]*SIGTERM: shut down/);
  });

  const bad: [string, string, RegExp][] = [
    ["an unknown key", JSON.stringify({ port: 0, max_players: 4 }), /unknown key "max_players" \(known: port, http-port, host, [^)]*\blog\b/],
    ["a value out of range", JSON.stringify({ "max-players": 12 }), /"max-players" must be in 1\.\.8, got 12/],
    ["a string for a number", JSON.stringify({ port: "abc" }), /"port" wants a whole number, got "abc"/],
    ["a fraction", JSON.stringify({ "timeout-ms": 1.5 }), /"timeout-ms" wants a whole number in 100\.\.3600000, got '1\.5'/],
    ["a number for a string", JSON.stringify({ host: 1 }), /"host" wants a string, got 1/],
    ["an unknown log format", JSON.stringify({ log: "xml" }), /"log" must be one of text, json, got 'xml'/],
    ["--config inside the file", JSON.stringify({ config: "other.json" }), /unknown key "config"/],
    ["not JSON", "{ port: 0 ", /not JSON: /],
    ["an array", "[1, 2]", /wants a JSON object of options/],
    ["a pool the game cannot use", JSON.stringify({ "max-entities": 10 }), /maxEntities must be at least 16/],
  ];
  for (const [what, text, message] of bad) {
    it(`a config file with ${what} stops with exit code 2 and says why`, function () {
      const path = file("bad.json", text);
      const r = run(["--config", path, "--port", "0", "--http-port", "0"]);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, message);
      assert.match(r.stderr, /^lwar-xs: /);
      assert.match(r.stderr, /Try 'npm start -- --help'\./);
      assert.equal(r.stdout, "");
    });
  }

  it("a missing config file is exit code 2, naming the file", function () {
    const r = run(["--config", join(dir, "absent.json")]);
    assert.equal(r.status, 2);
    assert.match(r.stderr, /--config .*absent\.json: ENOENT/);
  });
});

/** A TCP port nobody is using right now (the kernel's pick, released again). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.listen(0, "127.0.0.1", () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}
