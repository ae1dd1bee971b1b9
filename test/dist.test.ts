/**
 * dist/ (tools/dist.ts), committed so that `npm ci --omit=dev && npm start` needs neither
 * tsx nor esbuild: it is exactly what the sources build, and the server's bundle runs
 * with node and `ws` alone, serving the built page and answering a UDP Join.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUILD_COMMAND, buildDist, buildServer, SERVER_BUNDLE, staleFiles } from "../tools/dist";
import { connected, udpPlayer, waitFor, type UdpPlayer } from "./integration/players";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

describe("dist/: the prebuilt server and page", function () {
  this.timeout(60000);

  it("is what the sources build, byte for byte", async function () {
    const stale = staleFiles(await buildDist());
    assert.deepEqual(stale, [], `dist/ is stale: run \`${BUILD_COMMAND}\` and commit dist/\n  ${stale.join("\n  ")}`);
  });

  it("the server's bundle is deterministic and imports only node: built-ins and ws", async function () {
    const [a, b] = await Promise.all([buildServer(), buildServer()]);
    assert.ok(Buffer.from(a).equals(Buffer.from(b)), "two builds differ");
    const text = new TextDecoder().decode(a);
    assert.ok(text.startsWith("#!/usr/bin/env node\n"), "the bin has its shebang");
    const specifiers = new Set([...text.matchAll(/^import\b[^"'\n]*["']([^"']+)["'];?$/gm)].map((m) => m[1]));
    assert.ok(specifiers.has("ws") && specifiers.has("node:dgram"), [...specifiers].join(" "));
    assert.deepEqual([...specifiers].filter((s) => s !== "ws" && !s.startsWith("node:")), []);
    assert.doesNotMatch(text, /\bimport\(/, "no dynamic import");
  });

  it("runs with node and ws alone: serves dist/web/ over HTTP and answers a UDP Join", async function () {
    // A folder with what a production install has: package.json, dist/ and node_modules/ws.
    const dir = mkdtempSync(join(tmpdir(), "lwar-dist-"));
    cpSync(join(ROOT, "package.json"), join(dir, "package.json"));
    cpSync(join(ROOT, "dist"), join(dir, "dist"), { recursive: true });
    mkdirSync(join(dir, "node_modules"));
    symlinkSync(join(ROOT, "node_modules", "ws"), join(dir, "node_modules", "ws"), "dir");
    let player: UdpPlayer | null = null;
    const httpPort = await freePort();
    const server = spawn(process.execPath, [SERVER_BUNDLE, "--port", "0", "--http-port", String(httpPort), "--host", "127.0.0.1", "--status-s", "0"], { cwd: dir });
    let out = "";
    let err = "";
    server.stdout.setEncoding("utf8");
    server.stderr.setEncoding("utf8");
    server.stdout.on("data", (d: string) => (out += d));
    server.stderr.on("data", (d: string) => (err += d));
    const exited = new Promise<number | null>((resolve) => server.on("exit", (code) => resolve(code)));
    try {
      await waitFor(() => out.includes("serving the game") || server.exitCode !== null, 20000, "the banner");
      const udp = /listening on udp 127\.0\.0\.1:(\d+)/.exec(out);
      assert.ok(udp !== null, `stdout: ${out}\nstderr: ${err}`);
      const page = await fetch(`http://127.0.0.1:${httpPort}/`);
      assert.equal(page.status, 200);
      assert.ok(Buffer.from(await page.arrayBuffer()).equals(readFileSync(join(ROOT, "dist/web/index.html"))), "GET / is dist/web/index.html");
      const app = await fetch(`http://127.0.0.1:${httpPort}/app.js`);
      assert.ok(Buffer.from(await app.arrayBuffer()).equals(readFileSync(join(ROOT, "dist/web/app.js"))), "GET /app.js is dist/web/app.js");
      player = await udpPlayer(Number(udp[1]));
      const p = player;
      await waitFor(() => connected(p.client), 5000, "the UDP player to join");
      await waitFor(() => / join /.test(out), 5000, "the join line");
      server.kill("SIGTERM");
      assert.equal(await exited, 0, err);
    } finally {
      if (player !== null) await player.host.close();
      if (server.exitCode === null) server.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
