/**
 * What a Moddable build would contain, read from the manifests the way mcconfig reads them:
 * includes (and the `platforms` section that matches the platform, as mcconfig's
 * matchPlatform picks it), build variables, and the `modules` table with its wildcards.
 * `checkImports` then follows every import from the app's main module and reports each one
 * that no module of the build provides. On the board such an import aborts XS at boot
 * ("module not found") and the firmware resets forever; here it fails the build instead.
 *
 * It reads the SDK's manifests and sources ($MODDABLE) but runs none of its tools.
 */
import fs from "node:fs";
import path from "node:path";

type Json = Record<string, unknown>;

export interface BuildModules {
  /** Module specifier -> source file (.js or .ts). */
  modules: Map<string, string>;
  /** Errors the manifests declare for this platform (`"error"` in a platforms section). */
  errors: string[];
  /** Manifests read, in order. */
  manifests: string[];
  /** Module specifiers preloaded (into flash), from every manifest read. */
  preload: string[];
  /** Resource sources, as written in the manifests that name them, with the manifest's folder. */
  resources: { dir: string; source: string }[];
  /** The creation block, merged (a later manifest's fields override). */
  creation: Record<string, unknown>;
  /** The build variables, resolved (a later manifest's override), the SDK's own paths among them. */
  vars: Record<string, string>;
}

const SOURCE_EXTENSIONS = [".ts", ".js", ".mjs"];
/** Modules mcconfig generates for every app rather than listing in a manifest. */
const GENERATED = ["mc/config"];

/** mcconfig's platform match: the exact name, a `head/*` or `*\/tail` pattern, shorter names, then "...". */
export function matchPlatform(platforms: Json, fullPlatform: string): Json | undefined {
  const parts = fullPlatform.split("/");
  while (parts.length > 0) {
    const partial = parts.join("/");
    for (const n of Object.keys(platforms)) {
      if (n.endsWith("/*")) {
        if (partial.startsWith(n.slice(0, -1))) return platforms[n] as Json;
      } else if (n.startsWith("*/")) {
        if (partial.endsWith(n.slice(1))) return platforms[n] as Json;
      } else if (partial === n) return platforms[n] as Json;
    }
    parts.length -= 1;
  }
  return "..." in platforms ? (platforms["..."] as Json) : undefined;
}

function asList(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/**
 * The modules a build of `manifestPath` for `fullPlatform` ("esp32", "esp32/wt32_eth01",
 * "lin") would contain. `moddable` is the SDK's root.
 */
export function readBuild(manifestPath: string, fullPlatform: string, moddable: string): BuildModules {
  const [platform, subplatform] = fullPlatform.split("/");
  const vars: Record<string, string> = {
    MODDABLE: moddable,
    MODULES: path.join(moddable, "modules"),
    BUILD: path.join(moddable, "build"),
    COMMODETTO: path.join(moddable, "modules", "commodetto"),
    PIU: path.join(moddable, "modules", "piu"),
    BUILD_SIMULATOR: path.join(moddable, "build", "simulators"),
    PLATFORM: platform,
    FULLPLATFORM: fullPlatform,
  };
  if (subplatform !== undefined) {
    vars.SUBPLATFORM = subplatform;
    vars.SUBPLATFORMDIRECTORY = path.join(moddable, "build", "devices", platform, "targets", subplatform);
    vars.SUBPLATFORMMANIFEST = path.join(vars.SUBPLATFORMDIRECTORY, "manifest.json");
  }
  const resolve = (value: string): string | null => {
    let unknown = false;
    const out = value.replace(/\$\(([A-Za-z_0-9]+)\)/g, (_, name: string) => {
      const v = vars[name];
      if (v === undefined) unknown = true;
      return v ?? "";
    });
    return unknown ? null : out;
  };
  const result: BuildModules = { modules: new Map(), errors: [], manifests: [], preload: [], resources: [], creation: {}, vars };
  const seen = new Set<string>();
  const pending: { dir: string; modules: Json }[] = [];

  const readBuildVars = (section: Json): void => {
    const build = section.build as Record<string, string> | undefined;
    if (build === undefined) return;
    for (const [k, v] of Object.entries(build)) {
      if (typeof v !== "string") continue;
      const r = resolve(v);
      if (r !== null && !(k in vars && k === "MODDABLE")) vars[k] = r;
    }
  };

  const parse = (file: string): void => {
    const abs = path.resolve(file);
    if (seen.has(abs)) return;
    seen.add(abs);
    result.manifests.push(abs);
    let manifest: Json;
    try {
      manifest = JSON.parse(fs.readFileSync(abs, "utf8")) as Json;
    } catch (e) {
      result.errors.push(`${abs}: ${(e as Error).message}`);
      return;
    }
    const dir = path.dirname(abs);
    readBuildVars(manifest);
    const includes = asList(manifest.include);
    const sections: Json[] = [manifest];
    if (manifest.platforms !== undefined) {
      const p = matchPlatform(manifest.platforms as Json, fullPlatform);
      if (p !== undefined) {
        readBuildVars(p);
        includes.push(...asList(p.include));
        sections.push(p);
        for (const e of asList(p.error)) result.errors.push(`${path.relative(process.cwd(), abs)}: ${String(e)}`);
      }
    }
    for (const inc of includes) {
      if (typeof inc !== "string") continue;
      const r = resolve(inc);
      if (r === null) continue;
      parse(path.resolve(dir, r));
    }
    for (const s of sections) {
      if (s.modules !== undefined) pending.push({ dir, modules: s.modules as Json });
      for (const p of asList(s.preload)) if (typeof p === "string") result.preload.push(p);
      const res = s.resources as Json | undefined;
      if (res !== undefined) for (const list of Object.values(res)) for (const r of asList(list)) if (typeof r === "string") result.resources.push({ dir, source: r });
      if (s.creation !== undefined) Object.assign(result.creation, s.creation as Json);
    }
  };
  parse(manifestPath);

  // Module tables after every include, as mcconfig does once all manifests are merged.
  for (const { dir, modules } of pending) {
    for (const [target, sources] of Object.entries(modules)) {
      for (const source of asList(sources)) {
        const s = typeof source === "string" ? source : typeof source === "object" && source !== null ? String((source as Json).source) : "";
        const r = resolve(s);
        if (r === null || r === "") continue;
        addModules(result.modules, target, path.resolve(dir, r));
      }
    }
  }
  return result;
}

function sourceFile(base: string): string | null {
  if (SOURCE_EXTENSIONS.some((e) => base.endsWith(e)) && !base.endsWith(".d.ts") && fs.existsSync(base)) return base;
  for (const e of SOURCE_EXTENSIONS) if (fs.existsSync(base + e)) return base + e;
  return null;
}

function moduleName(file: string): string {
  return path.basename(file).replace(/\.(ts|js|mjs)$/, "");
}

function addModules(out: Map<string, string>, target: string, source: string): void {
  const star = source.endsWith("*");
  if (star) {
    const dir = source.slice(0, -1).replace(/[\\/]$/, "");
    let entries: string[] = [];
    try {
      entries = fs.readdirSync(dir);
    } catch {
      return;
    }
    for (const e of entries) {
      if (!SOURCE_EXTENSIONS.some((x) => e.endsWith(x)) || e.endsWith(".d.ts")) continue;
      const file = path.join(dir, e);
      const name = moduleName(file);
      if (target === "*") out.set(name, file);
      else if (target.endsWith("*")) out.set(target.slice(0, -1) + name, file);
    }
    return;
  }
  const file = sourceFile(source);
  if (file === null) return; // a C file, a data file or nothing: not a module
  if (target === "*") out.set(moduleName(file), file);
  else if (target.endsWith("/*")) out.set(target.slice(0, -1) + moduleName(file), file);
  else out.set(target, file);
}

/** Static import and re-export specifiers of a source file (type-only imports left out). */
export function importsOf(text: string): string[] {
  const found: string[] = [];
  // Comments out, so that an import in a comment is not one.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const re = /(?:^|[;\s}])(import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']/g;
  for (let m = re.exec(code); m !== null; m = re.exec(code)) {
    if (m[2] !== undefined) continue;
    // `import { type A, type B } from` is erased too when every name is a type.
    const clause = m[0];
    const braces = /\{([^}]*)\}/.exec(clause);
    if (braces !== null && !/\bfrom\b[^{]*$/.test(clause.slice(0, braces.index))) {
      const names = braces[1].split(",").map((x) => x.trim()).filter((x) => x !== "");
      const head = clause.slice(0, braces.index);
      const hasDefault = /import\s+[\w$]+\s*,/.test(head);
      if (names.length > 0 && names.every((x) => x.startsWith("type ")) && !hasDefault) continue;
    }
    found.push(m[3]);
  }
  return found;
}

/** XS resolves a relative specifier against the importing module's name, not its file. */
export function resolveSpecifier(from: string, specifier: string): string {
  if (!specifier.startsWith("./") && !specifier.startsWith("../")) return specifier;
  const parts = from.split("/");
  parts.pop();
  for (const p of specifier.split("/")) {
    if (p === ".") continue;
    if (p === "..") parts.pop();
    else parts.push(p);
  }
  return parts.join("/");
}

export interface ImportProblem {
  module: string;
  file: string;
  specifier: string;
  resolved: string;
}

/**
 * Follows the imports from `main` through every module of the build. Returns the imports
 * no module provides, and how many modules were reached.
 */
export function checkImports(build: BuildModules, main = "main"): { missing: ImportProblem[]; reached: number; visited: string[] } {
  const missing: ImportProblem[] = [];
  const visited = new Set<string>();
  const queue = [main];
  if (!build.modules.has(main)) return { missing: [{ module: "(app)", file: "", specifier: main, resolved: main }], reached: 0, visited: [] };
  while (queue.length > 0) {
    const name = queue.shift() as string;
    if (visited.has(name)) continue;
    visited.add(name);
    const file = build.modules.get(name) as string;
    for (const spec of importsOf(fs.readFileSync(file, "utf8"))) {
      const resolved = resolveSpecifier(name, spec);
      if (build.modules.has(resolved)) queue.push(resolved);
      else if (!GENERATED.includes(resolved)) missing.push({ module: name, file, specifier: spec, resolved });
    }
  }
  return { missing, reached: visited.size, visited: [...visited] };
}
