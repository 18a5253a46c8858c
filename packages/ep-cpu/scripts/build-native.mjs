#!/usr/bin/env node
// Builds build/Release/switchyard_cpu.node (the oneDNN addon) with cmake-js.
//
//   node scripts/build-native.mjs            build if any file under native/ is newer than the addon
//   node scripts/build-native.mjs --force    always run cmake-js (it still only recompiles what changed)
//   node scripts/build-native.mjs --clean    remove build/ first (after moving the checkout, say)
//   node scripts/build-native.mjs --sanitize the ASan + UBSan build (-DSWITCHYARD_SANITIZE=ON) into build-sanitize/,
//                                            never over the production addon; load it with SWITCHYARD_CPU_ADDON
//                                            and the sanitizer runtime preloaded (scripts/sanitize.sh in the repository)
//
// Up-to-date runs return in milliseconds: we compare mtimes before starting cmake at all.
// Failures exit 1 with cmake's output above and a hint below; nothing calls this from `pnpm install`.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDir = join(packageRoot, 'native');
const args = new Set(process.argv.slice(2));
const sanitize = args.has('--sanitize');
const buildDir = join(packageRoot, sanitize ? 'build-sanitize' : 'build');
const addonPath = join(buildDir, 'Release', 'switchyard_cpu.node');

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function upToDate() {
  if (!existsSync(addonPath)) return false;
  return statSync(addonPath).mtimeMs >= newestMtime(nativeDir);
}

if (args.has('--clean')) rmSync(buildDir, { recursive: true, force: true });
if (!args.has('--force') && !args.has('--clean') && upToDate()) {
  console.log(`switchyard_cpu.node is up to date (${addonPath})`);
  process.exit(0);
}

const started = Date.now();
try {
  const require = createRequire(import.meta.url);
  const { BuildSystem } = require('cmake-js');
  const buildSystem = new BuildSystem({
    directory: nativeDir,
    out: buildDir,
    config: 'Release',
    parallel: availableParallelism(),
    cMakeOptions: { SWITCHYARD_SANITIZE: sanitize ? 'ON' : 'OFF' },
  });
  // cmake-js decides "Node-API build, no Node header download" from `binary.napi_versions` in the
  // package.json beside CMakeLists.txt; ours lives one level up (in the package root), so say it here.
  buildSystem.options.isNodeApi = true;
  await buildSystem.build();
} catch (error) {
  console.error(`\nbuild-native: failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error('Possible fixes: apt-get install libdnnl-dev cmake g++ | npm install --no-save cmake-js node-addon-api (build-time only; pnpm install in the Switchyard repository) | node scripts/build-native.mjs --clean');
  process.exit(1);
}
console.log(`switchyard_cpu.node built in ${((Date.now() - started) / 1000).toFixed(1)} s (${addonPath})`);
