/** The page as built (web/build.ts): within its size budget, and its browser code typechecks against the DOM. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { buildWeb, gzipTotal, PAGE_GZIP_BUDGET } from "../../web/build";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const TSC = fileURLToPath(new URL("../../node_modules/.bin/tsc", import.meta.url));

describe("web page", function () {
  this.timeout(60000);

  it(`all assets together are at most ${PAGE_GZIP_BUDGET / 1024} KiB gzipped`, async function () {
    const files = await buildWeb();
    assert.deepEqual(files.map((f) => f.path), ["/", "/app.js", "/kernels.wasm"]);
    for (const f of files) console.log(`      ${f.path.padEnd(13)} ${String(f.body.length).padStart(6)} B, gzipped ${String(f.gzip!.length).padStart(6)} B`);
    const total = gzipTotal(files);
    console.log(`      total gzipped ${total} B of ${PAGE_GZIP_BUDGET}`);
    assert.ok(total <= PAGE_GZIP_BUDGET, `${total} B gzipped`);
  });

  it("the bundle is deterministic and carries the client library, not the server or the game", async function () {
    const [a, b] = await Promise.all([buildWeb(), buildWeb()]);
    assert.deepEqual(a[1].body, b[1].body);
    assert.deepEqual(a[1].gzip, b[1].gzip);
    const js = new TextDecoder().decode(a[1].body);
    assert.match(js, /\/ws/);
    assert.doesNotMatch(js, /disconnectPeer|ReachGrid/);
  });

  it("web/ typechecks with the DOM library (web/tsconfig.json)", function () {
    const r = spawnSync(TSC, ["-p", "web/tsconfig.json", "--noEmit"], { cwd: ROOT, encoding: "utf8" });
    assert.equal(r.status, 0, r.stdout + r.stderr);
  });
});
