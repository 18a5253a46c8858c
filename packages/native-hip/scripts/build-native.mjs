#!/usr/bin/env node
// Builds build/Release/switchyard_hip.node, for AMD (hipcc) or NVIDIA (nvcc), with the shared build
// script of @switchyard/native-toolkit (flags: --force, --clean, and --no-install: compile and link in
// build/cmake-<platform> only, e.g. checking the NVIDIA path on an AMD machine). In the repository it
// then builds build/Release/switchyard_hip_test.node too (the addon plus kernelsJs, for the package's
// tests; src/native/test_addon is not published); when that fails, the addon is still installed.
//
//   --sanitize   the host code with AddressSanitizer + UndefinedBehaviorSanitizer (-DSWITCHYARD_SANITIZE=ON)
//                into build-sanitize/, never over the production addon (the kernels are not instrumented;
//                scripts/sanitize.sh builds them for one architecture, SWITCHYARD_HIP_ARCHS=gfx90a, since
//                each is minutes of hipcc). Load it with SWITCHYARD_HIP_ADDON and the sanitizer runtime
//                preloaded (scripts/sanitize.sh does both).
//
// Platform: SWITCHYARD_GPU_PLATFORM=amd|nvidia; otherwise amd when hipcc is found, nvidia when only
// nvcc is. Architectures: SWITCHYARD_HIP_ARCHS (default "gfx90a;gfx1030"), SWITCHYARD_CUDA_ARCHS
// (default "90"). With neither compiler present it prints why and exits 0: a machine without a GPU
// toolchain is a normal case, and the EP then declines with that reason at run time.
//
// Vendor libraries (BLAS/DNN seams): CMakeLists.txt looks for cuBLAS/cuDNN (NVIDIA, linked) and
// rocBLAS/MIOpen headers (AMD; the libraries are loaded at run time) in the toolchain's prefix,
// $ROCM_PATH, /opt/rocm and the prefixes in SWITCHYARD_ROCM_PATH / SWITCHYARD_VENDOR_ROOTS
// (:- or ;-lists, each with include/ and lib/). They are cmake settings, so a change reconfigures the
// tree; what was found, and which backend file each seam compiles, is printed
// (build/cmake-<platform>/switchyard_vendor.json). SWITCHYARD_BLAS_BACKEND=none / SWITCHYARD_DNN_BACKEND=none
// build a seam without its library even where it is installed (to check the "none" backends).
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAddon } from '@switchyard/native-toolkit/build-addon';

const env = process.env;
const argv = process.argv.slice(2);
const sanitize = argv.includes('--sanitize');
const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const TEST_ADDON = 'switchyard_hip_test';

function findExecutable(name, extraDirs) {
  const dirs = [...(env.PATH ?? '').split(delimiter), ...extraDirs].filter(Boolean);
  for (const dir of dirs) {
    const candidate = join(dir, name);
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

// One line per vendor library: found (where, and linked or loaded at run time) or not.
function reportVendors(cmakeOut) {
  const path = join(cmakeOut, 'switchyard_vendor.json');
  if (!existsSync(path)) return;
  try {
    const report = JSON.parse(readFileSync(path, 'utf8'));
    for (const [name, entry] of Object.entries(report)) {
      if (typeof entry !== 'object' || entry === null) continue;
      const how = entry.mode === 'dlopen' ? `loaded at run time${entry.library ? `, ${entry.library} first` : ''}` : `linked: ${entry.library}`;
      console.log(`build-native: ${name}: ${entry.found ? `<${entry.header}> in ${entry.include} (${how})` : `not found (<${entry.header}>); its seam reports why`}`);
    }
    console.log(`build-native: backends: BLAS ${report.blasBackend}, DNN ${report.dnnBackend}`);
  } catch {
    // only a report
  }
}

// The test addon is a cmake target outside the default build (CMakeLists.txt), built here after the
// production addon. A failure only warns, and removes an older test addon so no test runs a stale one.
function buildTestAddon(cmakeOut) {
  if (!existsSync(join(packageRoot, 'src', 'native', 'test_addon'))) return;  // an installed package
  const installed = join(dirname(cmakeOut), 'Release', `${TEST_ADDON}.node`);
  try {
    execFileSync('cmake', ['--build', cmakeOut, '--config', 'Release', '--target', TEST_ADDON, '--parallel', String(availableParallelism())], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().split('\n').slice(-20).join('\n');
    console.warn(`build-native: ${TEST_ADDON}.node was not built (switchyard_hip.node is unaffected; the tests that need kernelsJs skip):\n${output || error.message}`);
    if (!argv.includes('--no-install')) rmSync(installed, { force: true });
    return;
  }
  const built = join(cmakeOut, 'Release', `${TEST_ADDON}.node`);
  if (argv.includes('--no-install')) {
    console.log(`build-native: ${TEST_ADDON}.node built, not installed (${built})`);
    return;
  }
  mkdirSync(dirname(installed), { recursive: true });
  const temporary = `${installed}.${process.pid}.tmp`;
  copyFileSync(built, temporary);
  renameSync(temporary, installed);
  console.log(`build-native: ${TEST_ADDON}.node built (${installed})`);
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
// Extra vendor prefixes, as one ;-list (CMake's list separator).
const vendorRoots = [env.SWITCHYARD_ROCM_PATH, env.SWITCHYARD_VENDOR_ROOTS]
  .flatMap((list) => (list ?? '').split(/[:;]/))
  .filter(Boolean)
  .join(';');

await buildAddon(
  {
    from: import.meta.url,
    addon: 'switchyard_hip.node',
    sourceDir: '.',
    inputs: ['src/native', 'CMakeLists.txt'],
    cmakeDir: `cmake-${platform}`,
    cmakeOptions: {
      SWITCHYARD_GPU_PLATFORM: platform,
      SWITCHYARD_GPU_COMPILER: compiler,
      SWITCHYARD_GPU_ARCHS: archs,
      SWITCHYARD_VENDOR_ROOTS: vendorRoots,
      SWITCHYARD_BLAS_BACKEND: env.SWITCHYARD_BLAS_BACKEND || 'auto',
      SWITCHYARD_DNN_BACKEND: env.SWITCHYARD_DNN_BACKEND || 'auto',
      ...(sanitize ? { SWITCHYARD_SANITIZE: 'ON' } : {}),
    },
    describe: `for ${platform} (${archs})${sanitize ? ' (ASan + UBSan)' : ''}`,
    ...(sanitize ? { buildDir: 'build-sanitize' } : {}),
    afterBuild: (cmakeOut) => {
      reportVendors(cmakeOut);
      buildTestAddon(cmakeOut);
    },
    hint:
      platform === 'amd'
        ? 'apt-get install hipcc libamdhip64-dev cmake g++ | npm install --no-save cmake-js node-addon-api (build-time only)'
        : 'check nvcc supports the host g++ and SWITCHYARD_CUDA_ARCHS | npm install --no-save cmake-js node-addon-api (build-time only)',
  },
  argv.filter((a) => a !== '--sanitize'),
);
