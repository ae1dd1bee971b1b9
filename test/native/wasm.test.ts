/**
 * The hot loops as WebAssembly (modules/native-wasm.ts, dist/web/kernels.wasm): the committed
 * file is what the C builds, a match's arrays all live in its instance's fixed memory, and
 * that memory holds a match at the config's limits.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { makeConfig } from "../../modules/config";
import { createMatch } from "../../modules/match";
import type { Binding } from "../../modules/native";
import { nativeMemoryBytes, WasmKernels } from "../../modules/native-wasm";
import { nodeKernels, nodeNative } from "../../hosts/node/kernels";
import { buildWasm, findCompiler, WASM_PATH } from "../../tools/wasm/build";

interface ModuleApi {
  Module: {
    new (bytes: Uint8Array): object;
    exports(m: object): Array<{ name: string }>;
    imports(m: object): Array<{ module: string; name: string; kind: string }>;
  };
}
const Wasm = (globalThis as unknown as { WebAssembly: ModuleApi }).WebAssembly;

class QuietHost {
  send(): void {}
  now(): number {
    return 1000;
  }
  log(): void {}
}

describe("kernels.wasm", function () {
  it("is what modules/kernels/ builds (npm run build:wasm)", function () {
    if (findCompiler() === null) {
      console.log("      skipped: clang and wasm-ld are not installed (Debian: apt-get install clang lld)");
      this.skip();
    }
    this.timeout(60000);
    assert.ok(Buffer.from(buildWasm()).equals(readFileSync(WASM_PATH)), "dist/web/kernels.wasm is stale: npm run build:wasm, and commit it");
  });

  it("exports the nine loops and imports only its memory", function () {
    const m = new Wasm.Module(readFileSync(WASM_PATH));
    const exported = Wasm.Module.exports(m).map((e) => e.name).sort();
    assert.deepEqual(exported, ["__heap_base", "commit", "game", "mark", "name", "notify", "pack", "plan", "ship", "sync", "transport"]);
    assert.deepEqual(Wasm.Module.imports(m).map((i) => `${i.module}.${i.name}:${i.kind}`), ["env.memory:memory"]);
  });

  it("a match's arrays and every binding's words live in its instance's memory", function () {
    const config = makeConfig({ maxPlayers: 8, maxEntities: 192 });
    const bindings: Binding[] = [];
    const native = { ...nodeNative(config), bindings };
    const { server, game } = createMatch(config, new QuietHost(), 1, native);
    assert.ok(game !== null);
    const buffer = native.memory!.buffer;
    // The transport, the names, the planner, the entries, the sync (again when the game's planner comes
    // in) and its marking, the game's step (the ship loop's own binding is the page's).
    assert.equal(bindings.length, 8);
    for (const b of bindings) {
      assert.equal(b.words.buffer, buffer);
      for (const [name, a] of Object.entries(b.arrays)) assert.equal(a.buffer, buffer, `${b.declared.arrays}: ${name}`);
    }
    assert.equal(server.entities.x.buffer, buffer);
  });

  for (const [players, entities, queue] of [[1, 14, 654], [8, 192, 2048], [8, 4096, 65535], [8, 65535, 4096]]) {
    it(`sizes its memory for ${players} players, ${entities} entities, ${queue}-byte queues`, function () {
      const config = makeConfig({ maxPlayers: players, maxEntities: entities, reliableQueueBytes: queue });
      const native = nodeNative(config);
      createMatch(config, new QuietHost(), 1, native);
      const m = native.memory!;
      assert.ok(m.left > 0 && m.used <= nativeMemoryBytes(config) + 65536, `used ${m.used} of ${m.used + m.left}`);
    });
  }

  it("runs out with a clear error, never past its memory", function () {
    const config = makeConfig({ maxPlayers: 8, maxEntities: 192 });
    const kernels = WasmKernels.create(nodeKernels(), 1024);
    kernels.memory.take(kernels.memory.left - 4096);
    assert.throws(() => createMatch(config, new QuietHost(), 1, { kernels, memory: kernels.memory }), /fixed memory of \d+ bytes: no room/);
  });
});
