#!/usr/bin/env node
// Builds tools/xs/build/lwxs from lwxs.c and the XS sources shipped in the
// @agoric/xsnap package. Plain JavaScript so that it runs from postinstall.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const buildDir = join(here, 'build');
const objDir = join(buildDir, 'obj');
export const binary = join(buildDir, 'lwxs');

// The engine files of Moddable's ESP32 build (tools/mcconfig/make.esp32.mk),
// plus xsDefaults.c and xsPlatforms.c of newer XS releases.
const XS_SOURCES = [
  'xsAll', 'xsAPI', 'xsArguments', 'xsArray', 'xsAtomics', 'xsBigInt', 'xsBoolean',
  'xsCode', 'xsCommon', 'xsDataView', 'xsDate', 'xsDebug', 'xsDefaults', 'xsError',
  'xsFunction', 'xsGenerator', 'xsGlobal', 'xsJSON', 'xsLexical', 'xsMapSet',
  'xsMarshall', 'xsMath', 'xsMemory', 'xsModule', 'xsNumber', 'xsObject',
  'xsPlatforms', 'xsPromise', 'xsProperty', 'xsProxy', 'xsRegExp', 'xsRun',
  'xsScope', 'xsScript', 'xsSourceMap', 'xsString', 'xsSymbol', 'xsSyntaxical',
  'xsTree', 'xsType', 'xsdtoa', 'xsmc', 'xsre',
];

const DEFINES = [
  '-DINCLUDE_XSPLATFORM=1',
  '-DXSPLATFORM="lwxsPlatform.h"',
  '-DmxRun=1',
  '-DmxParse=1',
  // what Moddable's device builds define (xs/platforms/esp/xsPlatform.h)
  '-DmxHostFunctionPrimitive=1',
  // as in device debug builds: file and line in error stacks, stack bound
  // checks, the garbage collection count, and the count of emulated
  // floating-point operations (the->floatingPointOps, read by xs.floatOps())
  '-DmxDebug=1',
  '-DmxInstrument=1',
];

const WARNINGS = ['-Wno-misleading-indentation', '-Wno-implicit-fallthrough', '-Wno-unused-result'];

function usage() {
  console.log(`usage: node tools/xs/build.mjs [--clean] [--postinstall] [--verbose] [--help]
Builds ${relative(process.cwd(), binary) || binary} from tools/xs/lwxs.c and the XS sources in @agoric/xsnap.
  --clean        remove tools/xs/build first
  --postinstall  never fail: report a failed build and exit 0 (used by npm install)
  --verbose      print every compiler command
Environment: CC (default cc), XSNAP_DIR (default: resolved @agoric/xsnap).`);
}

function findXsnap() {
  if (process.env.XSNAP_DIR) return process.env.XSNAP_DIR;
  const require = createRequire(import.meta.url);
  return dirname(require.resolve('@agoric/xsnap/package.json'));
}

function run(command, args, label, verbose) {
  if (verbose) console.log([command, ...args].join(' '));
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', (error) => reject(new Error(`${command}: ${error.message}`)));
    child.on('close', (code) => {
      if (code === 0) resolve(stderr);
      else reject(new Error(`${label}: ${command} exited with ${code}\n${stderr}`));
    });
  });
}

function mtime(path) {
  try {
    return statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

export async function build({ clean = false, verbose = false } = {}) {
  const started = performance.now();
  const xsnap = findXsnap();
  const xs = join(xsnap, 'moddable', 'xs');
  const version = JSON.parse(readFileSync(join(xsnap, 'package.json'), 'utf8')).version;
  for (const dir of ['sources', 'includes', 'platforms']) {
    if (!existsSync(join(xs, dir))) throw new Error(`@agoric/xsnap ${version} does not ship moddable/xs/${dir}`);
  }
  if (clean) rmSync(buildDir, { recursive: true, force: true });
  mkdirSync(objDir, { recursive: true });

  const cc = process.env.CC || 'cc';
  const flags = ['-O2', '-fno-common', ...DEFINES, ...WARNINGS,
    `-I${here}`, `-I${join(xs, 'includes')}`, `-I${join(xs, 'platforms')}`, `-I${join(xs, 'sources')}`];
  const units = [
    ...XS_SOURCES.map((name) => ({ name, source: join(xs, 'sources', `${name}.c`) })),
    { name: 'lwxs', source: join(here, 'lwxs.c') },
    // The server's native loops: the Moddable app's glue, which compiles modules/kernels/loops.c in.
    { name: 'kernels', source: join(here, '..', '..', 'hosts', 'moddable', 'kernels.c'), extra: ['-DLWXS_KERNELS'] },
  ];

  // Rebuild everything when the compiler, the flags or a header change.
  const loops = join(here, '..', '..', 'modules', 'kernels');
  const headers = [join(here, 'lwxsPlatform.h'), join(loops, 'loops.c'), join(loops, 'game.c'), join(loops, 'shots.c'), join(loops, 'layout.h'), join(xs, 'includes', 'xs.h'), join(xs, 'platforms', 'xsPlatform.h'),
    join(xs, 'sources', 'xsAll.h'), join(xs, 'sources', 'xsCommon.h'), join(xs, 'sources', 'xsScript.h')];
  const stampPath = join(objDir, 'stamp');
  const stamp = createHash('sha256').update(JSON.stringify([cc, flags, version])).digest('hex');
  const stale = !existsSync(stampPath) || readFileSync(stampPath, 'utf8') !== stamp;
  const newestHeader = Math.max(...headers.map(mtime));

  const pending = units.filter(({ name, source }) => {
    const object = mtime(join(objDir, `${name}.o`));
    return stale || object < mtime(source) || object < newestHeader;
  });
  if (stale) rmSync(stampPath, { force: true });
  // largest first, so that the jobs end together
  pending.sort((a, b) => statSync(b.source).size - statSync(a.source).size);

  let next = 0;
  let failed = false;
  const jobs = Math.max(1, availableParallelism());
  const worker = async () => {
    while (!failed && next < pending.length) {
      const { name, source, extra } = pending[next++];
      try {
        const warnings = await run(cc, ['-c', ...flags, ...(extra ?? []), source, '-o', join(objDir, `${name}.o`)], `compiling ${name}.c`, verbose);
        if ((name === 'lwxs' || name === 'kernels') && warnings) process.stderr.write(warnings);
      } catch (error) {
        failed = true;
        throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, pending.length) }, worker));
  writeFileSync(stampPath, stamp);

  const objects = units.map(({ name }) => join(objDir, `${name}.o`));
  if (pending.length || mtime(binary) < Math.max(...objects.map(mtime))) {
    await run(cc, ['-o', binary, ...objects, '-lm', '-lpthread'], 'linking lwxs', verbose);
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  return { binary, compiled: pending.length, total: units.length, seconds, version };
}

async function main(argv) {
  if (argv.includes('--help') || argv.includes('-h')) {
    usage();
    return 0;
  }
  const postinstall = argv.includes('--postinstall');
  try {
    const result = await build({ clean: argv.includes('--clean'), verbose: argv.includes('--verbose') });
    console.log(`lwxs: built ${relative(process.cwd(), result.binary)} from @agoric/xsnap ${result.version}` +
      ` (${result.compiled} of ${result.total} files compiled) in ${result.seconds} s`);
    return 0;
  } catch (error) {
    console.error(`lwxs: build failed: ${error instanceof Error ? error.message : error}`);
    if (postinstall) {
      console.error('lwxs: npm install goes on; the XS tests will fail until `npm run build:xs` succeeds.');
      return 0;
    }
    return 1;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.slice(2));
}
