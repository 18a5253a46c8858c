#!/usr/bin/env node
// Fills the prebuilt platform package (packages/ep-cpu-linux-x64-gnu) from the local build:
//
//   node scripts/fill-prebuilt.mjs             (or: pnpm --filter @switchyard/ep-cpu run fill-prebuilt)
//   node scripts/fill-prebuilt.mjs --out DIR   fill a copy of that package folder instead (DIR holds its package.json)
//
// It copies build/Release/switchyard_cpu.node, the shared libraries it needs that a minimal machine may
// lack (oneDNN, and what oneDNN itself loads: libgomp, libOpenCL), and the Debian copyright notices of
// those libraries. The addon already carries RUNPATH $ORIGIN (CMakeLists.txt); the copied libraries get
// the same with patchelf, because a RUNPATH only applies to the object's own dependencies, so libdnnl
// must find its libgomp/libOpenCL beside itself too. Run it on the oldest glibc you support: the
// binaries require the glibc and libstdc++ of the machine that built them.
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const addon = join(packageRoot, 'build', 'Release', 'switchyard_cpu.node');
const outIndex = process.argv.indexOf('--out');
const target = outIndex > 0 ? process.argv[outIndex + 1] : join(packageRoot, '..', 'ep-cpu-linux-x64-gnu');
/** Sonames copied beside the addon; everything else (libc, libm, libstdc++, libgcc_s) is part of any glibc system with Node. */
const BUNDLED = ['libdnnl.so.2', 'libgomp.so.1', 'libOpenCL.so.1'];
/** Licence texts the Debian copyright files refer to by path rather than include. */
const COMMON_LICENSES = ['Apache-2.0', 'GPL-3', 'BSD'];

function fail(message) {
  console.error(`fill-prebuilt: ${message}`);
  process.exit(1);
}

const run = (cmd, args) => execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

if (!target || !existsSync(join(target, 'package.json'))) fail(`no package.json in ${target} (--out names a copy of packages/ep-cpu-linux-x64-gnu)`);
if (process.platform !== 'linux' || process.arch !== 'x64') fail(`only linux-x64 has a platform package (this is ${process.platform}-${process.arch})`);
if (!existsSync(addon)) fail(`no ${addon}; build it first: node scripts/build-native.mjs`);
const runpath = run('readelf', ['-d', addon]).match(/\((?:RUNPATH|RPATH)\)\s+Library (?:runpath|rpath): \[([^\]]*)\]/)?.[1] ?? '';
if (!runpath.split(':').includes('$ORIGIN')) {
  // A build configured before CMakeLists.txt set it (build folders outlive their configuration); the copy gets it below.
  console.warn(`fill-prebuilt: ${addon} has no RUNPATH $ORIGIN (has '${runpath}'); setting it on the copy (rebuild with --clean to get it from CMake)`);
}
try {
  run('patchelf', ['--version']);
} catch {
  fail('patchelf is not installed (apt-get install patchelf)');
}

/** soname → absolute path, for every library `ldd` resolves (the addon's, and transitively oneDNN's). */
function resolvedLibraries(file) {
  const found = new Map();
  for (const line of run('ldd', [file]).split('\n')) {
    const m = line.match(/^\s*(\S+) => (\/\S+) \(/);
    if (m) found.set(m[1], m[2]);
  }
  return found;
}

/** The Debian package that installed `path` (dpkg -S), with its version, for the licence notices. */
function debianPackageOf(path) {
  for (const candidate of [path, realpathSync(path)]) {
    try {
      const pkg = run('dpkg-query', ['-S', candidate]).split(':')[0].trim();
      const version = run('dpkg-query', ['-W', '-f', '${Version}', `${pkg}`]).trim();
      return { pkg, version };
    } catch {
      // Not owned under this spelling (usrmerge: /lib vs /usr/lib); try the real path.
    }
  }
  return undefined;
}

const libraries = resolvedLibraries(addon);
for (const lib of [...libraries.values()]) for (const [k, v] of resolvedLibraries(lib)) if (!libraries.has(k)) libraries.set(k, v);

for (const name of ['switchyard_cpu.node', ...BUNDLED]) rmSync(join(target, name), { force: true });
rmSync(join(target, 'LICENSES'), { recursive: true, force: true });
mkdirSync(join(target, 'LICENSES'), { recursive: true });

copyFileSync(addon, join(target, 'switchyard_cpu.node'));
run('patchelf', ['--set-rpath', '$ORIGIN', join(target, 'switchyard_cpu.node')]);
const notices = [];
for (const soname of BUNDLED) {
  const source = libraries.get(soname);
  if (!source) fail(`ldd does not resolve ${soname} for ${addon}; is libdnnl-dev installed?`);
  const dest = join(target, soname);
  copyFileSync(realpathSync(source), dest);
  chmodSync(dest, 0o755);
  run('patchelf', ['--set-rpath', '$ORIGIN', dest]);
  const owner = debianPackageOf(source);
  if (!owner) fail(`cannot tell which Debian package installed ${source} (its licence notice is required)`);
  const copyright = `/usr/share/doc/${owner.pkg}/copyright`;
  if (!existsSync(copyright)) fail(`${copyright} is missing (its licence notice is required)`);
  copyFileSync(copyright, join(target, 'LICENSES', `${owner.pkg}.copyright`));
  notices.push(`- ${soname}: Debian package ${owner.pkg} ${owner.version}; notice in ${owner.pkg}.copyright`);
}
for (const license of COMMON_LICENSES) copyFileSync(`/usr/share/common-licenses/${license}`, join(target, 'LICENSES', `${license}.txt`));

writeFileSync(
  join(target, 'LICENSES', 'README.md'),
  [
    '# Bundled libraries',
    '',
    `switchyard_cpu.node is @switchyard/ep-cpu's addon (MIT, like the rest of Switchyard). Beside it, found through RUNPATH $ORIGIN:`,
    '',
    ...notices,
    '',
    'The Debian copyright files name the licences by path under /usr/share/common-licenses; those texts are',
    `here as ${COMMON_LICENSES.map((l) => `${l}.txt`).join(', ')}. libgomp is GCC's runtime library, covered by the`,
    'GCC Runtime Library Exception (quoted in its copyright file).',
    '',
  ].join('\n'),
);

const pkg = JSON.parse(readFileSync(join(target, 'package.json'), 'utf8'));
console.log(`fill-prebuilt: ${pkg.name} filled with ${['switchyard_cpu.node', ...BUNDLED].map((f) => basename(f)).join(', ')} (${target})`);
