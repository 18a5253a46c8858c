#!/usr/bin/env node
// Fills the prebuilt platform package (packages/native-hip-linux-x64-gnu) from the local AMD build:
//
//   node scripts/fill-prebuilt.mjs             (or: pnpm --filter @switchyard/native-hip run fill-prebuilt)
//   node scripts/fill-prebuilt.mjs --out DIR   fill a copy of that package folder instead (DIR holds its package.json)
//
// It copies build/Release/switchyard_hip.node and writes switchyard_hip.build.json beside it (architectures,
// the HIP runtime it links, which vendor seams were compiled in, the newest glibc/libstdc++ symbol versions
// it needs). Unlike ep-cpu's package it bundles no library: the HIP runtime must be the one of the machine's
// ROCm (the package README says why), so the addon may link only that and the C/C++ runtime, and gets
// RUNPATH /opt/rocm/lib (where ROCm 5 installs it when it is not in the loader's cache; LD_LIBRARY_PATH
// still wins, a Debian/Ubuntu libamdhip64-5 is found in the system folders). Build it first for AMD with the
// rocBLAS and MIOpen headers (scripts/amd-vendor-headers.sh), or those seams report "built without" at run
// time; this script says which.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const addon = join(packageRoot, 'build', 'Release', 'switchyard_hip.node');
const settingsPath = join(packageRoot, 'build', 'Release', 'switchyard_hip.build.json');
const outIndex = process.argv.indexOf('--out');
const target = outIndex > 0 ? process.argv[outIndex + 1] : join(packageRoot, '..', 'native-hip-linux-x64-gnu');
/** The HIP runtime soname the package promises (load-native.ts PREBUILT_HIP_RUNTIME; the README). */
const HIP_RUNTIME = 'libamdhip64.so.5';
/** What the addon may link besides the HIP runtime: what any glibc system with Node has. */
const SYSTEM = new Set(['libstdc++.so.6', 'libgcc_s.so.1', 'libc.so.6', 'libm.so.6', 'ld-linux-x86-64.so.2', 'libdl.so.2', 'libpthread.so.0']);
const ARCHS = ['gfx90a', 'gfx1030'];
const RUNPATH = '/opt/rocm/lib';

function fail(message) {
  console.error(`fill-prebuilt: ${message}`);
  process.exit(1);
}

const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

if (!target || !existsSync(join(target, 'package.json'))) fail(`no package.json in ${target} (--out names a copy of packages/native-hip-linux-x64-gnu)`);
if (process.platform !== 'linux' || process.arch !== 'x64') fail(`only linux-x64 has a platform package (this is ${process.platform}-${process.arch})`);
if (!existsSync(addon) || !existsSync(settingsPath)) fail(`no ${addon}; build it first: SWITCHYARD_GPU_PLATFORM=amd node scripts/build-native.mjs`);
try {
  run('patchelf', ['--version']);
} catch {
  fail('patchelf is not installed (apt-get install patchelf)');
}

const settings = JSON.parse(readFileSync(settingsPath, 'utf8'));
if (settings.SWITCHYARD_GPU_PLATFORM !== 'amd') fail(`${addon} is a ${settings.SWITCHYARD_GPU_PLATFORM || 'unknown'} build; the package holds the AMD one (SWITCHYARD_GPU_PLATFORM=amd)`);
if (settings.SWITCHYARD_SANITIZE) fail(`${addon} is a sanitizer build`);
const archs = String(settings.SWITCHYARD_GPU_ARCHS).split(';');
if (ARCHS.some((a) => !archs.includes(a))) fail(`${addon} has kernels for ${archs.join(', ')}; the package promises ${ARCHS.join(', ')} (unset SWITCHYARD_HIP_ARCHS and rebuild)`);

const needed = [...run('readelf', ['-d', addon]).matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
if (!needed.includes(HIP_RUNTIME)) fail(`${addon} does not link ${HIP_RUNTIME} (it links ${needed.join(', ')}): built against another HIP?`);
const unexpected = needed.filter((n) => n !== HIP_RUNTIME && !SYSTEM.has(n));
if (unexpected.length > 0) fail(`${addon} links ${unexpected.join(', ')}, which a user's machine may lack and this package does not bundle`);

// The newest symbol versions it needs: the oldest glibc and libstdc++ it runs on.
const versions = (prefix) => {
  const found = [...run('objdump', ['-T', addon]).matchAll(new RegExp(`\\b${prefix}_([0-9.]+)\\b`, 'g'))].map((m) => m[1]);
  const key = (v) => v.split('.').map((n) => n.padStart(4, '0')).join('.');
  return found.sort((a, b) => key(a).localeCompare(key(b))).at(-1) ?? '';
};

// Which seams the build has (a seam compiled without its headers says so at run time).
const binding = createRequire(import.meta.url)(addon);
const seams = { rocBLAS: binding.blasInfo(), MIOpen: binding.dnnInfo() };
const compiledIn = (info) => info.available || !/built without/.test(info.reason ?? '');

for (const name of ['switchyard_hip.node', 'switchyard_hip.build.json']) rmSync(join(target, name), { force: true });
copyFileSync(addon, join(target, 'switchyard_hip.node'));
run('patchelf', ['--set-rpath', RUNPATH, join(target, 'switchyard_hip.node')]);
const info = {
  platform: 'amd',
  archs,
  hipRuntime: HIP_RUNTIME,
  links: needed,
  runpath: RUNPATH,
  needs: { glibc: versions('GLIBC'), glibcxx: versions('GLIBCXX') },
  builtWith: (run(settings.SWITCHYARD_GPU_COMPILER, ['--version']).match(/HIP version: (\S+)/) ?? [])[1] ?? 'unknown',
  seams: Object.fromEntries(Object.entries(seams).map(([k, v]) => [k, compiledIn(v) ? 'compiled in, loaded from the machine at run time' : 'not compiled in'])),
};
writeFileSync(join(target, 'switchyard_hip.build.json'), `${JSON.stringify(info, null, 2)}\n`);

const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
console.log(`fill-prebuilt: ${pkg.name} filled with switchyard_hip.node (${archs.join(', ')}; links ${needed.join(', ')}; RUNPATH ${RUNPATH}) (${target})`);
for (const [name, state] of Object.entries(info.seams)) {
  if (state === 'not compiled in') console.warn(`fill-prebuilt: warning: the ${name} seam is not compiled in (build with its headers: scripts/amd-vendor-headers.sh)`);
}
