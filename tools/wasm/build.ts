/**
 * `npm run build:wasm`: the hot loops (modules/kernels/loops.c, through modules/kernels/wasm.c)
 * compiled to WebAssembly with clang and wasm-ld (Debian: `apt-get install clang lld`),
 * into dist/web/kernels.wasm, which is committed so that running the server needs no compiler.
 *
 * No libc and no start function: the module imports its memory (`env.memory`, fixed in size
 * by whoever instantiates it: modules/native-wasm.ts), keeps an 8 KiB stack at its start and
 * exports the seven loops and `__heap_base`, where the memory's free part begins.
 *
 * `--check` writes nothing and exits 1 when dist/web/kernels.wasm is not what the sources build
 * (test/native/wasm.test.ts does the same, when clang is installed).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const WASM_SOURCE = join(ROOT, "modules", "kernels", "wasm.c");
/** With the page, which serves it; the Node server reads it there too. */
export const WASM_PATH = join(ROOT, "dist", "web", "kernels.wasm");

export const CFLAGS = ["--target=wasm32", "-mbulk-memory", "-O2", "-ffreestanding", "-nostdlib", "-Wall", "-Wextra", "-Werror"];
export const LDFLAGS = ["--no-entry", "--import-memory", "--stack-first", "-z", "stack-size=8192", "--export=__heap_base", "--strip-all"];

/** The first of `names` that runs, or null. */
function findTool(names: string[]): string | null {
  for (const name of names) {
    try {
      execFileSync(name, ["--version"], { stdio: "ignore" });
      return name;
    } catch {
      // not this one
    }
  }
  return null;
}

/** clang and wasm-ld, or null when either is missing. */
export function findCompiler(): { clang: string; ld: string } | null {
  const clang = findTool([process.env.CLANG ?? "clang", "clang-14", "clang-15", "clang-16"]);
  const ld = findTool([process.env.WASM_LD ?? "wasm-ld", "wasm-ld-14", "wasm-ld-15", "wasm-ld-16"]);
  return clang !== null && ld !== null ? { clang, ld } : null;
}

/** The bytes the sources build. Throws when the compiler is missing or fails. */
export function buildWasm(): Uint8Array {
  const tools = findCompiler();
  if (tools === null) throw new Error("build:wasm needs clang and wasm-ld (Debian: apt-get install clang lld)");
  const work = mkdtempSync(join(tmpdir(), "lwar-wasm-"));
  try {
    const object = join(work, "kernels.o");
    const out = join(work, "kernels.wasm");
    execFileSync(tools.clang, [...CFLAGS, "-c", WASM_SOURCE, "-o", object], { stdio: ["ignore", "ignore", "inherit"] });
    execFileSync(tools.ld, [...LDFLAGS, object, "-o", out], { stdio: ["ignore", "ignore", "inherit"] });
    return new Uint8Array(readFileSync(out));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

function same(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function main(argv: string[]): number {
  if (argv.includes("-h") || argv.includes("--help")) {
    process.stdout.write(
      "build:wasm: compiles modules/kernels/wasm.c (the hot loops) into dist/web/kernels.wasm with clang and wasm-ld\n\n" +
        "Usage: npm run build:wasm -- [--check]\n\n  --check     write nothing; exit 1 when dist/web/kernels.wasm is stale\n  -h, --help  show this help and exit\n",
    );
    return 0;
  }
  const bytes = buildWasm();
  let old: Uint8Array = new Uint8Array(0);
  try {
    old = new Uint8Array(readFileSync(WASM_PATH));
  } catch {
    // not built yet
  }
  const fresh = same(bytes, old);
  if (argv.includes("--check")) {
    process.stdout.write(`build:wasm: dist/web/kernels.wasm ${fresh ? "is up to date" : "is stale (npm run build:wasm)"}\n`);
    return fresh ? 0 : 1;
  }
  writeFileSync(WASM_PATH, bytes);
  process.stdout.write(`build:wasm: wrote dist/web/kernels.wasm, ${bytes.length} bytes (${fresh ? "unchanged" : "changed"})\n`);
  return 0;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) process.exitCode = main(process.argv.slice(2));
