/**
 * The app's manifests against the sources, read as mcconfig reads them
 * (tools/board/manifest.ts), for each firmware variant: every module of ours that the app
 * loads (main.ts and what it imports, transitively) is preloaded, so that its code and its
 * top-level objects live in flash; Wi-Fi code stays out of the wired builds; the creation
 * block cannot grow. Runs without the Moddable SDK (its manifests are then not read).
 */
import assert from "node:assert/strict";
import { existsSync, statSync, utimesSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { checkImports, readBuild } from "../../tools/board/manifest";
import { freshenKernelGlue, VARIANTS } from "../../tools/board/kit";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SDK = process.env.MODDABLE ?? "/nonexistent-moddable";

/** Our modules the build reaches from main (specifiers and files); the SDK's are not followed. */
function ours(manifest: string, platform: string): { reached: string[]; preload: string[]; files: string[] } {
  const build = readBuild(join(ROOT, manifest), platform, SDK);
  const local = new Map([...build.modules].filter(([, f]) => !relative(ROOT, f).startsWith("..")));
  const { visited } = checkImports({ ...build, modules: local });
  return { reached: visited, preload: build.preload, files: visited.map((m) => relative(ROOT, local.get(m) as string)) };
}

const builds = [
  { variant: "wifi", platform: "esp32" },
  { variant: "wifi", platform: "lin" },
  { variant: "wired", platform: "esp32" },
  { variant: "emulator", platform: "esp32" },
] as const;

describe("manifests", () => {
  for (const b of builds) {
    describe(`${b.variant} for ${b.platform}`, () => {
      const manifest = VARIANTS[b.variant].manifest;
      it("preloads every module of ours that main.ts loads", () => {
        const { reached, preload } = ours(manifest, b.platform);
        assert.ok(reached.includes("modules/server/server") && reached.includes("hosts/moddable/host"), "the import walk found the core");
        const missing = reached.filter((m) => m !== "main" && !preload.includes(m)).sort();
        assert.deepEqual(missing, [], "modules loaded at run time but not preloaded (their top level would take RAM)");
      });

      it("preloads nothing of ours that does not exist", () => {
        const build = readBuild(join(ROOT, manifest), b.platform, SDK);
        for (const m of build.preload) {
          const file = build.modules.get(m);
          if (file === undefined && (m.startsWith("hosts/") || m.startsWith("modules/"))) assert.fail(`${m} is preloaded but no module of the build has that name`);
          if (file !== undefined && !relative(ROOT, file).startsWith("..")) assert.ok(existsSync(file), `${m}: ${file}`);
        }
      });

      it("fixes both heaps: incremental 0", () => {
        const c = readBuild(join(ROOT, manifest), b.platform, SDK).creation as { chunk: { incremental: number }; heap: { incremental: number } };
        assert.equal(c.chunk.incremental, 0);
        assert.equal(c.heap.incremental, 0);
      });

      it(b.variant === "wifi" ? "brings the Wi-Fi network module" : "leaves every Wi-Fi module of ours out", () => {
        const { files } = ours(manifest, b.platform);
        const wifi = files.filter((f) => /wifi|captive-dns|hosts\/moddable\/dns\./.test(f)).sort();
        if (b.variant === "wifi") assert.deepEqual(wifi, ["hosts/moddable/captive-dns.ts", "hosts/moddable/dns.ts", "hosts/moddable/network-wifi.ts", "hosts/moddable/wifi-power.js"]);
        else assert.deepEqual(wifi, []);
        assert.ok(files.includes(b.variant === "wifi" ? "hosts/moddable/network-wifi.ts" : "hosts/moddable/network-eth.ts"), files.join(" "));
      });
    });
  }
});

describe("the app's build and the hot loops' C", () => {
  it("compiles XS and the C for speed on the ESP32, the device bench as the firmware", () => {
    // mcconfig writes a build variable's spaces escaped: the flags are separated by tabs.
    const flags = (manifest: string): string[] => (readBuild(join(ROOT, manifest), "esp32", SDK).vars.C_FLAGS_SUBPLATFORM ?? "").split("\t");
    const firmware = flags(VARIANTS.wifi.manifest);
    assert.ok(firmware.includes("-O3"), firmware.join(" "));
    // -O3 merges string constants into a section that XS's strings-in-flash attribute also names.
    assert.ok(firmware.includes("-fno-merge-constants"), firmware.join(" "));
    assert.ok(!firmware.some((f) => / /.test(f)), "no flag holds a space");
    for (const v of ["wired", "emulator"] as const) assert.deepEqual(flags(VARIANTS[v].manifest), firmware, v);
    assert.deepEqual(flags("bench/device/manifest.json"), firmware, "the device bench measures the firmware's code");
    assert.deepEqual(readBuild(join(ROOT, VARIANTS.wifi.manifest), "lin", SDK).vars.C_FLAGS_SUBPLATFORM, undefined, "the simulator keeps the SDK's flags");
  });

  it("moves the XS glue's time past the C it includes when that is newer, so that a kept build compiles it; else leaves it", () => {
    const glue = join(ROOT, "hosts", "moddable", "kernels.c");
    const loops = join(ROOT, "modules", "kernels", "loops.c");
    const then = new Date(statSync(loops).mtimeMs - 60000);
    utimesSync(glue, then, then);
    const newer = freshenKernelGlue();
    assert.ok(newer.includes("loops.c") && newer.includes("layout.h"), newer.join(", "));
    assert.ok(statSync(glue).mtimeMs > statSync(loops).mtimeMs, "the glue is newest now");
    assert.deepEqual(freshenKernelGlue(), [], "nothing newer the second time");
  });
});
