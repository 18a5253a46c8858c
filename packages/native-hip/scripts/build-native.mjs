#!/usr/bin/env node
// Builds build/Release/switchyard_hip.node with cmake-js, for AMD (hipcc) or NVIDIA (nvcc).
//
//   node scripts/build-native.mjs            build when sources are newer than the addon (or the platform changed)
//   node scripts/build-native.mjs --force    always run cmake-js (it still only recompiles what changed)
//   node scripts/build-native.mjs --clean    remove build/ first
//   node scripts/build-native.mjs --no-install   compile and link in build/cmake-<platform> only, leaving
//                                            build/Release alone (e.g. checking the NVIDIA path on an AMD machine)
//
// Platform: SWITCHYARD_GPU_PLATFORM=amd|nvidia; otherwise amd when hipcc is found, nvidia when only
// nvcc is. Architectures: SWITCHYARD_HIP_ARCHS (default "gfx90a;gfx1030"), SWITCHYARD_CUDA_ARCHS
// (default "90"). With neither compiler present it prints why and exits 0: a machine without a GPU
// toolchain is a normal case, and the EP then declines with that reason at run time.
//
// Vendor libraries (BLAS/DNN seams): CMakeLists.txt looks for cuBLAS/cuDNN (NVIDIA, linked) and
// rocBLAS/MIOpen headers (AMD; the libraries are loaded at run time) in the toolchain's prefix,
// $ROCM_PATH, /opt/rocm and the prefixes in SWITCHYARD_ROCM_PATH / SWITCHYARD_VENDOR_ROOTS
// (:- or ;-lists, each with include/ and lib/). A change of those lists reconfigures the tree, and
// what was found is printed (build/cmake-<platform>/switchyard_vendor.json).
// Each platform keeps its own cmake tree (build/cmake-amd, build/cmake-nvidia); the finished addon is
// copied into place with a rename, so a process loading it never sees a half-written file.
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const buildDir = join(packageRoot, 'build');
const addonPath = join(buildDir, 'Release', 'switchyard_hip.node');
const stampPath = join(buildDir, 'Release', 'switchyard_hip.build.json');
const inputs = [join(packageRoot, 'src', 'native'), join(packageRoot, 'CMakeLists.txt')];
const args = new Set(process.argv.slice(2));
const env = process.env;

function findExecutable(name, extraDirs) {
  const dirs = [...(env.PATH ?? '').split(delimiter), ...extraDirs].filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

function newestMtime(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

const rocmPath = env.ROCM_PATH ?? '/opt/rocm';
const cudaPath = env.CUDA_HOME ?? env.CUDA_PATH ?? '/usr/local/cuda';
const hipcc = findExecutable('hipcc', [join(rocmPath, 'bin')]);
const nvcc = findExecutable('nvcc', [join(cudaPath, 'bin')]);

let platform = env.SWITCHYARD_GPU_PLATFORM;
if (platform && platform !== 'amd' && platform !== 'nvidia') {
  console.error(`build-native: SWITCHYARD_GPU_PLATFORM must be 'amd' or 'nvidia', got '${platform}'`);
  process.exit(1);
}
platform ??= hipcc ? 'amd' : nvcc ? 'nvidia' : undefined;
if (!platform) {
  console.log('build-native: skipped: neither hipcc nor nvcc was found. For AMD: apt-get install hipcc libamdhip64-dev (or install ROCm); for NVIDIA: install the CUDA toolkit and set SWITCHYARD_GPU_PLATFORM=nvidia.');
  process.exit(0);
}
const compiler = platform === 'amd' ? hipcc : nvcc;
if (!compiler) {
  console.error(`build-native: SWITCHYARD_GPU_PLATFORM=${platform} but ${platform === 'amd' ? 'hipcc' : 'nvcc'} is not on PATH (looked in ${platform === 'amd' ? rocmPath : cudaPath}/bin too)`);
  process.exit(1);
}
const archs = platform === 'amd' ? (env.SWITCHYARD_HIP_ARCHS ?? 'gfx90a;gfx1030') : (env.SWITCHYARD_CUDA_ARCHS ?? '90');
// Extra vendor prefixes, as one ;-list (CMake's list separator); part of the stamp, so a change rebuilds.
const vendorRoots = [env.SWITCHYARD_ROCM_PATH, env.SWITCHYARD_VENDOR_ROOTS]
  .flatMap((list) => (list ?? '').split(/[:;]/))
  .filter(Boolean)
  .join(';');
const wanted = { platform, compiler, archs, vendorRoots };

function upToDate() {
  if (!existsSync(addonPath) || !existsSync(stampPath)) return false;
  try {
    const built = JSON.parse(readFileSync(stampPath, 'utf8'));
    if (built.platform !== platform || built.compiler !== compiler || built.archs !== archs) return false;
    if ((built.vendorRoots ?? '') !== vendorRoots) return false;
  } catch {
    return false;
  }
  return statSync(addonPath).mtimeMs >= Math.max(...inputs.map(newestMtime));
}

// One line per vendor library: found (where, and linked or loaded at run time) or not.
function reportVendors(path) {
  if (!existsSync(path)) return;
  try {
    const report = JSON.parse(readFileSync(path, 'utf8'));
    for (const [name, entry] of Object.entries(report)) {
      if (typeof entry !== 'object' || entry === null) continue;
      const how = entry.mode === 'dlopen' ? `loaded at run time${entry.library ? `, ${entry.library} first` : ''}` : `linked: ${entry.library}`;
      console.log(`build-native: ${name}: ${entry.found ? `<${entry.header}> in ${entry.include} (${how})` : `not found (<${entry.header}>); its seam reports why`}`);
    }
  } catch {
    // only a report
  }
}

if (args.has('--clean')) rmSync(buildDir, { recursive: true, force: true });
if (!args.has('--force') && !args.has('--clean') && !args.has('--no-install') && upToDate()) {
  console.log(`switchyard_hip.node is up to date (${platform}, ${archs}; ${addonPath})`);
  process.exit(0);
}

const started = Date.now();
const cmakeOut = join(buildDir, `cmake-${platform}`);
// A configure that failed leaves a cache but no build file; cmake-js would then only try to build
// and fail with "loading 'build.ninja'". Start that tree over.
if (existsSync(join(cmakeOut, 'CMakeCache.txt')) && !['build.ninja', 'Makefile'].some((f) => existsSync(join(cmakeOut, f)))) {
  rmSync(cmakeOut, { recursive: true, force: true });
}
try {
  const require = createRequire(import.meta.url);
  const { BuildSystem } = require('cmake-js');
  const buildSystem = new BuildSystem({
    directory: packageRoot,
    out: cmakeOut,
    config: 'Release',
    parallel: availableParallelism(),
    cMakeOptions: {
      SWITCHYARD_GPU_PLATFORM: platform,
      SWITCHYARD_GPU_COMPILER: compiler,
      SWITCHYARD_GPU_ARCHS: archs,
      SWITCHYARD_VENDOR_ROOTS: vendorRoots,
    },
  });
  // cmake-js configures only a tree without a cache; the vendor search must run again when its
  // roots changed (CMakeLists.txt searches afresh on every configure).
  const rootsFile = join(cmakeOut, 'switchyard-vendor-roots.txt');
  const configuredRoots = existsSync(rootsFile) ? readFileSync(rootsFile, 'utf8') : undefined;
  if (existsSync(join(cmakeOut, 'CMakeCache.txt')) && configuredRoots !== vendorRoots) await buildSystem.configure();
  await buildSystem.build();
  writeFileSync(rootsFile, vendorRoots);
  reportVendors(join(cmakeOut, 'switchyard_vendor.json'));
  const built = join(cmakeOut, 'Release', 'switchyard_hip.node');
  if (args.has('--no-install')) {
    console.log(`switchyard_hip.node built for ${platform} (${archs}) in ${((Date.now() - started) / 1000).toFixed(1)} s, not installed (${built})`);
    process.exit(0);
  }
  mkdirSync(dirname(addonPath), { recursive: true });
  const temporary = `${addonPath}.${process.pid}.tmp`;
  copyFileSync(built, temporary);
  renameSync(temporary, addonPath);
  writeFileSync(stampPath, `${JSON.stringify(wanted, null, 2)}\n`);
} catch (error) {
  console.error(`\nbuild-native: failed: ${error instanceof Error ? error.message : String(error)}`);
  console.error(
    platform === 'amd'
      ? 'Possible fixes: apt-get install hipcc libamdhip64-dev cmake g++ | pnpm install (cmake-js, node-addon-api) | node scripts/build-native.mjs --clean'
      : 'Possible fixes: check nvcc supports the host g++ and SWITCHYARD_CUDA_ARCHS | pnpm install | node scripts/build-native.mjs --clean',
  );
  process.exit(1);
}
console.log(`switchyard_hip.node built for ${platform} (${archs}) in ${((Date.now() - started) / 1000).toFixed(1)} s (${addonPath})`);
