/**
 * `npm run build:page` (tools/page-resources.ts): the board's gzipped copy of the game page,
 * written where manifest.json takes its resources from. Runs without the Moddable SDK.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readBuild } from "../../tools/board/manifest";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { PAGE_FOLDER, PAGES } from "../../hosts/moddable/pages";
import { buildWeb, PAGE_GZIP_BUDGET } from "../../web/build";
import { writePageResources } from "../../tools/page-resources";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("page resources for the board", function () {
  this.timeout(30000);
  let dir = "";

  beforeEach(function () {
    dir = mkdtempSync(join(tmpdir(), "lwar-page-"));
  });
  afterEach(function () {
    rmSync(dir, { recursive: true, force: true });
  });

  it("writes each page the board serves, gzipped, and the bytes are the page's", async function () {
    const { resources, total } = await writePageResources(dir);
    assert.deepEqual(readdirSync(dir).sort(), PAGES.map((p) => p.resource).sort());
    const built = await buildWeb();
    for (const page of PAGES) {
      const gz = readFileSync(join(dir, page.resource));
      assert.deepEqual(gz.subarray(0, 2), Buffer.from([0x1f, 0x8b]), `${page.resource} is gzip`);
      const body = built.find((f) => f.path === page.path)!.body;
      assert.ok(Buffer.from(body).equals(gunzipSync(gz)), `${page.resource} holds ${page.path}`);
      assert.equal(resources.find((r) => r.name === page.resource)!.gzipBytes, gz.length);
    }
    assert.ok(total <= PAGE_GZIP_BUDGET, `${total} B gzipped, budget ${PAGE_GZIP_BUDGET}`);
  });

  it("is deterministic, and removes files that are not pages", async function () {
    writeFileSync(join(dir, "stale.js.gz"), "old");
    await writePageResources(dir);
    const first = PAGES.map((p) => readFileSync(join(dir, p.resource)));
    await writePageResources(dir);
    PAGES.forEach((p, k) => assert.ok(readFileSync(join(dir, p.resource)).equals(first[k]), p.resource));
    assert.deepEqual(readdirSync(dir).sort(), PAGES.map((p) => p.resource).sort());
  });

  it("writes where manifest.json takes resources from, a folder git ignores", function () {
    // manifest.json takes them through the app manifest all variants share.
    const { resources } = readBuild(join(ROOT, "manifest.json"), "esp32", "/nonexistent-moddable");
    assert.deepEqual(resources.map((r) => resolve(r.dir, r.source)), [join(ROOT, PAGE_FOLDER, "*")]);
    const ignored = readFileSync(join(ROOT, ".gitignore"), "utf8").split("\n").map((l) => l.trim());
    assert.ok(ignored.includes(PAGE_FOLDER.split("/")[0] + "/"), `${PAGE_FOLDER} is not under an ignored folder`);
  });
});
