// Builds one Switchyard addon with cmake-js: the one build script behind every package's
// scripts/build-native.mjs (ep-cpu, ep-migraphx, native-hip), which only say what differs.
//
//   node scripts/build-native.mjs                build when a source (or a setting) is newer than the addon
//   node scripts/build-native.mjs --force        always run cmake-js (it still only recompiles what changed)
//   node scripts/build-native.mjs --clean        remove the package's build/ first (after moving the checkout, say)
//   node scripts/build-native.mjs --no-install   compile and link in the cmake tree only, leaving build/Release alone
//
// Up-to-date runs return in milliseconds: sources' mtimes and a stamp of the settings (build/Release/
// <addon>.build.json) are compared before cmake starts at all. cmake works in build/<cmakeDir>; the
// finished addon is copied into build/Release with a rename, so a process loading it (a test running
// beside the build) never sees a half-written file. cmake-js and node-addon-api are resolved from the
// addon's package (devDependencies in the workspace; `npm install --no-save cmake-js node-addon-api`
// in a user's project). Failures exit 1 with cmake's output above and the package's hint below; nothing
// runs this from `npm install` or `pnpm install`, so a machine that cannot build still installs.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** This package's root: its cmake/ and include/ are what the addons' CMakeLists include. */
export const toolkitRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

function newestMtime(path) {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function readStamp(path) {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** The nearest folder above `url` (a module's import.meta.url) with a package.json. */
function packageRootOf(url) {
  let dir = dirname(fileURLToPath(url));
  while (!existsSync(join(dir, 'package.json')) && dirname(dir) !== dir) dir = dirname(dir);
  return dir;
}

/**
 * @param {object} spec
 * @param {string} spec.from          import.meta.url of the package's build script (its package root is found above it)
 * @param {string} spec.addon         file name of the addon (`switchyard_cpu.node`)
 * @param {string} spec.sourceDir     the folder with CMakeLists.txt, relative to the package root
 * @param {string[]} spec.inputs      files and folders (relative) whose changes call for a rebuild (the toolkit's own are added)
 * @param {string} [spec.buildDir]    the build folder, relative to the package root (default `build`; ep-cpu's sanitizer build uses another)
 * @param {string} [spec.cmakeDir]    the cmake tree under the build folder (default `cmake`)
 * @param {Record<string, string>} [spec.cmakeOptions]  -D definitions; part of the settings stamp
 * @param {string} spec.hint          what to try when the build fails (words that work in a user's project)
 * @param {string} [spec.describe]    what was built, for the last line (`for amd (gfx90a)`)
 * @param {(cmakeOut: string) => void} [spec.afterBuild]  e.g. print what the configure found
 * @param {string[]} [argv]           command-line flags (default process.argv)
 */
export async function buildAddon(spec, argv = process.argv.slice(2)) {
  const args = new Set(argv);
  const packageRoot = packageRootOf(spec.from);
  const sourceDir = join(packageRoot, spec.sourceDir);
  const buildDir = join(packageRoot, spec.buildDir ?? 'build');
  const addonPath = join(buildDir, 'Release', spec.addon);
  const stampPath = join(buildDir, 'Release', spec.addon.replace(/\.node$/, '.build.json'));
  const cmakeOut = join(buildDir, spec.cmakeDir ?? 'cmake');
  const cmakeOptions = { ...spec.cmakeOptions, SWITCHYARD_NATIVE_TOOLKIT: toolkitRoot };
  const settings = `${JSON.stringify(cmakeOptions, null, 2)}\n`;
  const inputs = [...spec.inputs.map((p) => join(packageRoot, p)), join(toolkitRoot, 'include'), join(toolkitRoot, 'native'), join(toolkitRoot, 'cmake')];
  const what = `${spec.addon}${spec.describe ? ` ${spec.describe}` : ''}`;

  if (args.has('--clean')) rmSync(buildDir, { recursive: true, force: true });
  const fresh = existsSync(addonPath) && readStamp(stampPath) === settings && statSync(addonPath).mtimeMs >= Math.max(...inputs.map(newestMtime));
  if (!['--force', '--clean', '--no-install'].some((f) => args.has(f)) && fresh) {
    console.log(`${what} is up to date (${addonPath})`);
    return;
  }
  // A configure that failed leaves a cache but no build file (cmake-js would then only try to build and
  // fail with "loading 'build.ninja'"); a tree copied from another checkout has a cache naming that
  // checkout's sources, which cmake refuses. Start such a tree over.
  const cache = readStamp(join(cmakeOut, 'CMakeCache.txt'));
  const home = cache?.match(/^CMAKE_HOME_DIRECTORY:INTERNAL=(.*)$/m)?.[1];
  if (cache !== undefined && (!['build.ninja', 'Makefile'].some((f) => existsSync(join(cmakeOut, f))) || (home !== undefined && home !== sourceDir))) {
    rmSync(cmakeOut, { recursive: true, force: true });
  }
  const started = Date.now();
  try {
    const { BuildSystem } = createRequire(join(packageRoot, 'package.json'))('cmake-js');
    const buildSystem = new BuildSystem({ directory: sourceDir, out: cmakeOut, config: 'Release', parallel: availableParallelism(), cMakeOptions: cmakeOptions });
    // cmake-js decides "Node-API build, no Node header download" from `binary.napi_versions` in the
    // package.json beside CMakeLists.txt; ep-cpu's lives one level up, so say it here for all.
    buildSystem.options.isNodeApi = true;
    // cmake-js configures only a tree without a cache: a changed setting must configure again.
    const configured = join(cmakeOut, 'switchyard-settings.json');
    if (existsSync(join(cmakeOut, 'CMakeCache.txt')) && readStamp(configured) !== settings) await buildSystem.configure();
    await buildSystem.build();
    writeFileSync(configured, settings);
    spec.afterBuild?.(cmakeOut);
    const built = join(cmakeOut, 'Release', spec.addon);
    if (args.has('--no-install')) {
      console.log(`${what} built in ${((Date.now() - started) / 1000).toFixed(1)} s, not installed (${built})`);
      return;
    }
    mkdirSync(dirname(addonPath), { recursive: true });
    const temporary = `${addonPath}.${process.pid}.tmp`;
    copyFileSync(built, temporary);
    renameSync(temporary, addonPath);
    writeFileSync(stampPath, settings);
  } catch (error) {
    console.error(`\nbuild-native: failed: ${error instanceof Error ? error.message : String(error)}`);
    console.error(`Possible fixes: ${spec.hint} | node scripts/build-native.mjs --clean`);
    process.exit(1);
  }
  console.log(`${what} built in ${((Date.now() - started) / 1000).toFixed(1)} s (${addonPath})`);
}
