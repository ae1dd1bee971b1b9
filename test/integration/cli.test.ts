/** `npm start`'s command line (hosts/node/main.ts): bad values stop it with a clear error; good ones reach the banner. */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
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
    for (const flag of ["--port", "--host", "--timeout-ms", "--max-players", "--max-entities", "--queue-bytes", "--status-s", "--seed"])
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
    const child = spawn(TSX, [MAIN, "--port", "0", "--max-entities", "128", "--queue-bytes", "1024", "--status-s", "0"], { cwd: ROOT });
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
    assert.match(out, /lwar-xs listening on udp 0\.0\.0\.0:\d+ \(max 8 players/);
    child.kill("SIGTERM");
    assert.equal(await exited, 0);
    assert.match(out, /SIGTERM: shut down/);
  });
});
