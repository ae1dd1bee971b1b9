/** The terminal view of `npm run watch` (tools/watch.ts), drawn from a client in a real match. */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import dgram from "node:dgram";
import { fileURLToPath } from "node:url";
import { makeConfig } from "../../modules/config";
import { createClient, type Client } from "../../modules/client/client";
import { createServer } from "../../modules/server/server";
import { createGame } from "../../modules/match";
import { INPUT_SHOOTING } from "../../modules/protocol/codec";
import { Network } from "../../harness/link";
import { behaviourInput } from "../../harness/behaviours";
import { placeLabels, renderFrame, watchFeed } from "../../tools/watch";
import { serve } from "../../hosts/node/serve";

describe("watch view", function () {
  it("draws the sun, planets, ships with names, projectiles and the scoreboard", function () {
    const net = new Network({ seed: 2 });
    const config = makeConfig();
    const sh = net.host("mem:server", 32422);
    const server = createServer(config, sh);
    sh.core = server;
    // A match whose frame below has no projectile in the cell between Vega's ship and its name.
    createGame(config, server, 6);
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
    // Beside its ship, or above, below or to its left where something is in the way (placeLabels).
    assert.match(frame, /[→↗↑↖←↙↓↘]/, "ships");
    assert.match(frame, /Vega/, "a ship's name");
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
      // It gives up on its first frame past the 1 s, which a busy machine draws late.
      const m = new RegExp(`^watch: connecting to 127\\.0\\.0\\.1:${port}…\nwatch: no answer from 127\\.0\\.0\\.1:${port} after (\\d+\\.\\d) s\n$`).exec(r.stdout);
      assert.ok(m !== null && Number(m[1]) >= 1, r.stdout);
    } finally {
      silent.close();
    }
  });
});

describe("watch labels (placeLabels)", function () {
  const cols = 20;
  const rows = 5;
  const none = new Uint8Array(cols * rows);

  it("a label goes right of its ship, one cell apart", function () {
    assert.deepEqual(placeLabels(cols, rows, none, [{ x: 3, y: 2, width: 4 }]), [{ x: 5, y: 2 }]);
  });

  it("two ships side by side: the second label moves, and the two never touch", function () {
    const spots = placeLabels(cols, rows, none, [{ x: 3, y: 2, width: 4 }, { x: 6, y: 2, width: 4 }]);
    assert.deepEqual(spots[0], { x: 5, y: 2 });
    assert.ok(spots[1] !== null);
    const a = spots[0]!;
    const b = spots[1]!;
    assert.ok(b.y !== a.y || b.x > a.x + 4 || b.x + 4 < a.x, JSON.stringify(spots));
    assert.deepEqual(b, { x: 7, y: 1 }, "above, to the right");
  });

  it("a blocked cell (the edge, a body) on the right sends it left; off the grid is not a place", function () {
    const blocked = new Uint8Array(cols * rows);
    blocked[2 * cols + 8] = 1;
    assert.deepEqual(placeLabels(cols, rows, blocked, [{ x: 6, y: 2, width: 4 }]), [{ x: 1, y: 2 }]);
    // At the right-hand side of the grid (where the scoreboard begins) it goes left.
    assert.deepEqual(placeLabels(cols, rows, none, [{ x: 18, y: 2, width: 4 }]), [{ x: 13, y: 2 }]);
  });

  it("no room anywhere: dropped (null), and the input mask is left alone", function () {
    const blocked = new Uint8Array(cols * rows).fill(1);
    blocked[2 * cols + 10] = 0;
    const copy = blocked.slice();
    assert.deepEqual(placeLabels(cols, rows, blocked, [{ x: 10, y: 2, width: 3 }]), [null]);
    assert.deepEqual(blocked, copy);
  });

  it("a crowd: every label placed lies inside the grid, on free cells, with a gap to every other", function () {
    const blocked = new Uint8Array(cols * rows);
    for (let x = 0; x < cols; x++) blocked[x] = 1; // the top row is the edge
    const reqs = [0, 1, 2, 3, 4, 5].map((k) => ({ x: 4 + 2 * k, y: 2 + (k % 2), width: 5 }));
    const spots = placeLabels(cols, rows, blocked, reqs);
    const used = new Uint8Array(cols * rows);
    spots.forEach((p, k) => {
      if (p === null) return;
      for (let x = p.x - 1; x <= p.x + reqs[k].width; x++) {
        if (x < 0 || x >= cols) continue;
        const inside = x >= p.x && x < p.x + reqs[k].width;
        if (inside) assert.equal(blocked[p.y * cols + x], 0, `label ${k} on a blocked cell`);
        assert.equal(used[p.y * cols + x], 0, `label ${k} touches another`);
      }
      assert.ok(p.x >= 0 && p.x + reqs[k].width <= cols && p.y >= 0 && p.y < rows);
      for (let x = p.x; x < p.x + reqs[k].width; x++) used[p.y * cols + x] = 1;
    });
    assert.ok(spots.filter((p) => p !== null).length >= 3, JSON.stringify(spots));
  });

  it("in a real frame no name crosses the arena's edge or the scoreboard, and the feed sits under the arena", function () {
    const net = new Network({ seed: 4 });
    const config = makeConfig();
    const sh = net.host("mem:server", 32422);
    const server = createServer(config, sh);
    sh.core = server;
    createGame(config, server, 9);
    const clients: Client[] = [];
    for (let k = 0; k < 8; k++) {
      const h = net.host(`mem:c${k}`, 5000 + k);
      const c = createClient(config, h, "mem:server", 32422);
      c.joinAs(`Pilot${k}`);
      h.core = {
        receive: (b, l, a, p) => c.receive(b, l, a, p),
        tick: (now) => {
          c.setInput(behaviourInput("hunt", c, now));
          c.tick(now);
        },
      };
      c.connect();
      clients.push(c);
    }
    const feed = watchFeed(clients[0]);
    net.run(1000);
    assert.ok(clients[1].chat("hello there"));
    net.run(20000);
    assert.ok(feed.includes("<Pilot1> hello there"), feed.join("\n"));
    assert.ok(feed.some((l) => / destroyed | fell into the sun| rammed | crashed into a planet| was /.test(l)), feed.join("\n"));
    for (const [cols, rows] of [[80, 24], [120, 40], [60, 16]]) {
      const frame = renderFrame(clients[0], { cols, rows, color: false, feed });
      const lines = frame.split("\n");
      assert.equal(lines.length, rows);
      const mapH = rows - 1 - 4;
      // The feed's last lines, then the status line.
      assert.deepEqual(lines.slice(mapH, mapH + 4), feed.slice(-4).map((l) => l.slice(0, cols)));
      assert.match(lines[rows - 1], /^8 players, \d+ ships/);
      // Every name drawn lies inside the arena's circle (so never on its edge, nor in the scoreboard's columns).
      const mapW = Math.min(cols - 36 - 3, mapH * 2);
      const R = 3000;
      let names = 0;
      for (let y = 0; y < mapH; y++) {
        // The arena's columns, and one more: a name running on into the scoreboard shows there.
        const arena = [...lines[y]].slice(0, mapW + 2).join("");
        for (const m of arena.matchAll(/Pilot\d/g)) {
          const at = [...arena.slice(0, m.index)].length;
          names++;
          assert.ok(at + 6 <= mapW + 1, `a name in the scoreboard's columns: ${lines[y]}`);
          for (let x = at; x < at + 6; x++) {
            const wx = (x + 0.5) * ((2 * R) / mapW) - R;
            const wy = R - (y + 0.5) * ((2 * R) / mapH);
            assert.ok(wx * wx + wy * wy < R * R, `a name across the edge at row ${y}: ${lines[y]}`);
          }
        }
      }
      assert.ok(names >= 3, `names are drawn: ${names}\n${frame}`);
    }
  });

  it("npm run watch --no-slot: follows the server's watch feed over HTTP, takes no slot, draws the match; exit 0", async function () {
    this.timeout(30_000);
    const served = await serve({ config: makeConfig({ bots: 3 }), seed: 11, address: "127.0.0.1", udpPort: 0, httpPort: 0, files: [] });
    try {
      const tsx = fileURLToPath(new URL("../../node_modules/.bin/tsx", import.meta.url));
      const child = spawn(tsx, ["tools/watch.ts", "--no-slot", "--host", "127.0.0.1", "--http-port", String(served.http!.port), "--duration", "3", "--no-color"], {
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      let watched = false;
      const code = await new Promise<number>((resolve) => {
        const poll = setInterval(() => {
          if (served.web!.watchers > 0) {
            watched = true;
            // A watcher is no player: the bots keep the only slots taken.
            assert.equal(served.server.playerCount(), 3);
            assert.equal(served.web!.open, 0);
          }
        }, 50);
        child.on("exit", (c) => {
          clearInterval(poll);
          resolve(c ?? -1);
        });
      });
      assert.equal(code, 0, out);
      assert.ok(watched, "it connected as a watcher");
      assert.match(out, /^watch: following ws:\/\/127\.0\.0\.1:\d+\/watch\/ws \(no slot\)…\n/);
      // A label goes right of its ship, or left of it when the right is taken (placeLabels): where the ships are when the run ends decides.
      assert.match(out, /[→↗↑↖←↙↓↘] (Vega|Rigel|Deneb) \[bot\]|(Vega|Rigel|Deneb) \[bot\] [→↗↑↖←↙↓↘]/, `ships with names:\n${out}`);
      assert.match(out, /3 players, \d ships/);
      // It stops on its first frame past the 3 s, which a busy machine draws late.
      const summary = /watch: (\d+\.\d) s, \d+ frames drawn, \d+ watch frames, no slot; scores: /.exec(out);
      assert.ok(summary !== null && Number(summary[1]) >= 3, out);
    } finally {
      await served.close();
    }
  });
});
