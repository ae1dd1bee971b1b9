/** The terminal view of `npm run watch` (tools/watch.ts), drawn from a client in a real match. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import dgram from "node:dgram";
import { fileURLToPath } from "node:url";
import { makeConfig } from "../../modules/config";
import { createClient, type Client } from "../../modules/client/client";
import { createServer } from "../../modules/server/server";
import { createGame } from "../../modules/match";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { Network } from "../../harness/link";
import { behaviourInput } from "../../harness/behaviours";
import { renderFrame } from "../../tools/watch";

describe("watch view", function () {
  it("draws the sun, planets, ships with names, projectiles and the scoreboard", function () {
    const net = new Network({ seed: 2 });
    const config = makeConfig();
    const sh = net.host("mem:server", 32422);
    const server = createServer(config, sh);
    sh.core = server;
    createGame(config, server, 5);
    const clients: Client[] = [];
    for (let k = 0; k < 3; k++) {
      const h = net.host(`mem:c${k}`, 5000 + k);
      const c = createClient(config, h, "mem:server", 32422);
      h.core = {
        receive: (b, l, a, p) => c.receive(b, l, a, p),
        tick: (now) => {
          c.setInput(behaviourInput("wander", c, now) | INPUT_SHOOTING);
          c.tick(now);
        },
      };
      c.connect();
      clients.push(c);
    }
    net.run(500);
    clients[0].rename("Vega");
    clients[1].rename("Rigel");
    net.run(2500);
    server.scores[1] = 7;
    net.run(600);
    const frame = renderFrame(clients[2], { cols: 120, rows: 40, color: false });
    const lines = frame.split("\n");
    assert.equal(lines.length, 40);
    assert.ok(lines.every((l) => [...l].length <= 120));
    assert.ok(lines.every((l) => l.length <= 120));
    assert.match(frame, /@/, "the sun");
    assert.match(frame, /[oO]/, "planets");
    assert.match(frame, /[→↗↑↖←↙↓↘] Vega/, "a ship with its name");
    assert.match(frame, /[·•*]/, "projectiles");
    assert.match(frame, /Rigel +7 /, "the scoreboard");
    assert.match(frame, /Player 3 \(me\)/);
    assert.match(frame, /3 players, 3 ships, \d+ projectiles/);
    assert.doesNotMatch(frame, /\x1b/, "no colour when asked for none");
    assert.match(renderFrame(clients[2], { cols: 120, rows: 40, color: true }), /\x1b\[1;33m@/);

    // An 80 × 24 terminal holds the whole arena, the whole scoreboard and the status line.
    const small = renderFrame(clients[2], { cols: 80, rows: 24, color: false });
    const rows = small.split("\n");
    assert.ok(rows.length <= 24, `${rows.length} lines`);
    for (const l of rows) assert.ok([...l].length <= 80, `${[...l].length} columns: ${l}`);
    assert.match(small, /Rigel +7 +\d+ {2}\w+\/\w+/, "a whole scoreboard row");
    assert.match(small, /Player 3 \(me\)/);
    assert.match(rows[rows.length - 1], /^3 players, 3 ships, \d+ projectiles, \d+ entities$/);
    assert.match(small, /@/);
  });

  it("says which server it is connecting to until it is in", function () {
    const net = new Network({ seed: 3 });
    const h = net.host("mem:c0", 5000);
    const c = createClient(makeConfig(), h, "mem:server", 32422);
    h.core = c;
    c.connect();
    net.run(200);
    const frame = renderFrame(c, { cols: 80, rows: 24, color: false, server: "10.0.0.9:32422" });
    const rows = frame.split("\n");
    assert.equal(rows[rows.length - 1], "connecting to 10.0.0.9:32422…");
    assert.ok(rows.length <= 24 && rows.every((l) => [...l].length <= 80));
  });

  it("npm run watch against a silent server: 'connecting to H:P…', then 'no answer', exit 1", async function () {
    this.timeout(20_000);
    const silent = dgram.createSocket("udp4");
    await new Promise<void>((r) => silent.bind(0, "127.0.0.1", () => r()));
    try {
      const port = silent.address().port;
      const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
      const r = spawnSync(tsx, ["tools/watch.ts", "--port", String(port), "--duration", "1"], {
        cwd: fileURLToPath(new URL("../..", import.meta.url)), encoding: "utf8", timeout: 15_000,
      });
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stdout, new RegExp(`^watch: connecting to 127\\.0\\.0\\.1:${port}…\nwatch: no answer from 127\\.0\\.0\\.1:${port} after 1\\.\\d s\n$`));
    } finally {
      silent.close();
    }
  });
});
