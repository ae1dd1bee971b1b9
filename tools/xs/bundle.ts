// Bundles a TypeScript entry into one classic script for lwxs (and XS in
// general): an IIFE, ES2022, and no Node built-ins.
import { resolve } from "node:path";
import { build, type Plugin } from "esbuild";

export interface BundleOptions {
  /** Assign the entry's exports to this global (`var name = ...`). */
  globalName?: string;
  /** Replace these identifiers at build time, as esbuild's `define`. */
  define?: Record<string, string>;
  minify?: boolean;
  /**
   * Resolve these import specifiers (exact, e.g. `"node:assert/strict"`) to these files
   * instead, so a module written for Node can run on XS against a stand-in.
   */
  alias?: Record<string, string>;
  /** Files whose exports stand in for free globals of the same name, as esbuild's `inject`. */
  inject?: string[];
}

export interface BundleResult {
  outfile: string;
  bytes: number;
}

export async function bundle(entry: string, outfile: string, options: BundleOptions = {}): Promise<BundleResult> {
  const result = await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    format: "iife",
    target: "es2022",
    // neutral: importing node:* or any other Node built-in fails the build
    platform: "neutral",
    mainFields: ["module", "main"],
    charset: "utf8",
    legalComments: "none",
    minify: options.minify ?? false,
    globalName: options.globalName,
    define: options.define,
    inject: options.inject,
    plugins: options.alias ? [aliasPlugin(options.alias)] : [],
    metafile: true,
    logLevel: "silent",
  });
  const bytes = Object.values(result.metafile.outputs).reduce((total, output) => total + output.bytes, 0);
  return { outfile, bytes };
}

function aliasPlugin(alias: Record<string, string>): Plugin {
  const names = Object.keys(alias).map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"));
  const filter = new RegExp(`^(?:${names.join("|")})$`);
  return {
    name: "alias",
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: resolve(alias[args.path]) }));
    },
  };
}
