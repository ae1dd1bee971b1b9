#!/usr/bin/env node
// npm install's postinstall. Plain JavaScript: it runs before anything is built, and in a
// production install (`npm ci --omit=dev`), where neither tsx nor esbuild is there.
// With the development packages: builds the XS test host (tools/xs/build.mjs) and the game
// page into dist/web/ (web/build.ts). Without them: nothing to do, the server and the page
// come prebuilt in dist/. Never fails the install.
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const require = createRequire(join(root, 'package.json'));

function has(name) {
  try {
    require.resolve(`${name}/package.json`);
    return true;
  } catch {
    return false;
  }
}

function run(args, what) {
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) console.error(`lwar-xs: ${what} failed; npm install goes on (run it again with \`${what}\`)`);
}

if (has('@agoric/xsnap')) run(['tools/xs/build.mjs', '--postinstall'], 'npm run build:xs');
if (has('tsx') && has('esbuild')) run(['--import', 'tsx', 'web/build.ts'], 'npm run build:web');
else console.log('lwar-xs: no development packages; the server and the page are the prebuilt ones in dist/');
