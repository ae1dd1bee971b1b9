/** `npm start`'s command line (hosts/node/main.ts): bad values stop it with a clear error; good ones reach the banner. */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { createServer } from "node:net";
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
    for (const flag of ["--port", "--http-port", "--host", "--timeout-ms", "--max-players", "--max-entities", "--queue-bytes", "--status-s", "--seed"])
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
