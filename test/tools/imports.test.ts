/**
 * The import check (tools/board/manifest.ts): every import reached from main must be a
 * module of the build for that platform, or the firmware aborts at boot with "module not
 * found" and resets forever. Fixtures run everywhere; the app's own variants are checked
 * against the Moddable SDK where it is installed (MODDABLE, or the ESP32 kit).
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { checkImports, importsOf, matchPlatform, readBuild, resolveSpecifier } from "../../tools/board/manifest";
import { buildEnv, importProblems, VARIANTS } from "../../tools/board/kit";

function fixture(files: Record<string, string>): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "lwar-imports-"));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
}

describe("import check", () => {
  it("reads static imports and re-exports, not type-only ones or comments", () => {
    const text = [
      'import A from "a";',
      'import { b, type B } from "./b";',
      'import type { C } from "c";',
      'import { type D } from "d";',
      'export { e } from "../e";',
      'import "side";',
      '// import X from "commented";',
      '/* import Y from "blocked"; */',
    ].join("\n");
    assert.deepEqual(importsOf(text), ["a", "./b", "../e", "side"]);
  });

  it("resolves a relative specifier against the module's name, as XS does", () => {
    assert.equal(resolveSpecifier("hosts/moddable/network", "./settings"), "hosts/moddable/settings");
    assert.equal(resolveSpecifier("hosts/moddable/network", "../../modules/config"), "modules/config");
    assert.equal(resolveSpecifier("main", "./modules/config"), "modules/config");
    assert.equal(resolveSpecifier("main", "wifi"), "wifi");
  });

  it("picks the platforms section as mcconfig does: exact, pattern, shorter, then ...", () => {
    const p = { esp32: { n: 1 }, "esp32/*": { n: 2 }, lin: { n: 3 }, "...": { n: 4 } };
    assert.deepEqual(matchPlatform(p, "esp32"), { n: 1 });
    assert.deepEqual(matchPlatform(p, "esp32/wt32_eth01"), { n: 2 });
    assert.deepEqual(matchPlatform(p, "lin"), { n: 3 });
    assert.deepEqual(matchPlatform(p, "pico"), { n: 4 });
    assert.deepEqual(matchPlatform({ esp32: { n: 1 } }, "esp32/m5stack"), { n: 1 });
  });

  it("finds an import that only another platform provides (the boot loop of a missing module)", () => {
    const dir = fixture({
      "manifest.json": JSON.stringify({
        modules: { "*": "./main", "net/*": "./net/*" },
        platforms: { lin: { modules: { "*": "./sim/wifi" } } },
      }),
      "main.ts": 'import WiFi from "wifi";\nimport { up } from "./net/up";\n',
      "net/up.js": 'import Timer from "timer";\nexport function up() {}\n',
      "sim/wifi.js": "export default class WiFi {}\n",
    });
    try {
      const lin = checkImports(readBuild(path.join(dir, "manifest.json"), "lin", "/nonexistent"));
      assert.deepEqual(lin.missing.map((m) => m.resolved), ["timer"]);
      const esp = checkImports(readBuild(path.join(dir, "manifest.json"), "esp32", "/nonexistent"));
      assert.deepEqual(esp.missing.map((m) => `${m.module} -> ${m.resolved}`).sort(), ["main -> wifi", "net/up -> timer"]);
      assert.equal(esp.reached, 2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("reports a platform's declared error", () => {
    const dir = fixture({ "manifest.json": JSON.stringify({ modules: { "*": "./main" }, platforms: { esp32: {}, "...": { error: "esp32 only" } } }), "main.js": "" });
    try {
      assert.deepEqual(readBuild(path.join(dir, "manifest.json"), "lin", "/nonexistent").errors.map((e) => e.replace(/^.*: /, "")), ["esp32 only"]);
      assert.deepEqual(readBuild(path.join(dir, "manifest.json"), "esp32", "/nonexistent").errors, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe("the app's variants against the Moddable SDK", function () {
    let moddable = "";
    before(function () {
      const env = buildEnv();
      if (env.MODDABLE === undefined || !fs.existsSync(path.join(env.MODDABLE, "examples", "manifest_base.json"))) {
        this.skip(); // no Moddable SDK here (MODDABLE unset and no ESP32 kit): nothing to check against
      }
      moddable = env.MODDABLE as string;
    });

    for (const [variant, platform] of [["wifi", "esp32"], ["wifi", "lin"], ["wired", "esp32"], ["emulator", "esp32"], ["wifi", "esp32/wt32_eth01"], ["wired", "esp32/wt32_eth01"]] as const) {
      it(`${variant} for ${platform}: every import resolves`, () => {
        const { lines, reached } = importProblems(VARIANTS[variant].manifest, platform, moddable);
        assert.deepEqual(lines, []);
        assert.ok(reached > 40, `only ${reached} modules reached from main`);
      });
    }

    it("the wired variant refuses the simulator", () => {
      const { lines } = importProblems(VARIANTS.wired.manifest, "lin", moddable);
      assert.ok(lines.some((l) => l.includes("the wired variant (Ethernet) is for ESP32 builds")), lines.join("\n"));
    });

    it("catches the old boot loop: the Wi-Fi network module without the SDK's wifi manifest on esp32", () => {
      const root = path.resolve("hosts/moddable");
      const dir = fs.mkdtempSync(path.join(root, ".imports-test-"));
      try {
        fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ include: ["../manifest_app.json"], modules: { "hosts/moddable/network": "../network-wifi" } }));
        const build = readBuild(path.join(dir, "manifest.json"), "esp32", moddable);
        const missing = checkImports(build).missing.map((m) => `${m.module} -> ${m.resolved}`);
        assert.ok(missing.includes("hosts/moddable/network -> wifi"), missing.join("\n"));
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
