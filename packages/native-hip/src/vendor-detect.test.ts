/**
 * Build-time detection of the vendor libraries behind the BLAS and DNN seams (CMakeLists.txt,
 * scripts/build-native.mjs): CMake is configured against a fake ROCm prefix holding only
 * rocblas/rocblas.h, miopen/miopen.h and a librocblas.so, and must turn each on (with the library
 * to dlopen first, and that library's backend file in the build) -- then, reconfigured without it, or
 * with a seam set to none, off again. The addon built here must report what its own build tree found.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadNativeHip } from './load-native.js';

const packageRoot = join(import.meta.dirname, '..');
const findOnPath = (name: string) =>
  [...(process.env.PATH ?? '').split(delimiter), '/opt/rocm/bin'].map((dir) => join(dir, name)).find((path) => existsSync(path));
const hipcc = findOnPath('hipcc');
const cmake = findOnPath('cmake');

interface VendorEntry {
  found: boolean;
  header: string;
  mode: 'dlopen' | 'link';
  include: string;
  library: string;
}
type VendorReport = Record<string, VendorEntry | string>;
// Host sources are compiled once, for both addons, by this object library.
const HOST_OBJECTS = 'switchyard_hip_objects';

const readReport = (buildDir: string): VendorReport => JSON.parse(readFileSync(join(buildDir, 'switchyard_vendor.json'), 'utf8')) as VendorReport;
const entry = (report: VendorReport, name: string): VendorEntry => {
  const value = report[name];
  if (typeof value !== 'object') throw new Error(`switchyard_vendor.json has no ${name}`);
  return value;
};
/** The host sources' compile flags as the generator wrote them (Ninja or Makefiles). */
function compileFlags(buildDir: string): string {
  const candidates = [join(buildDir, 'build.ninja'), join(buildDir, 'CMakeFiles', `${HOST_OBJECTS}.dir`, 'flags.make')];
  return candidates.filter((path) => existsSync(path)).map((path) => readFileSync(path, 'utf8')).join('\n');
}

describe.skipIf(!hipcc || !cmake)('vendor library detection (cmake configure, AMD)', () => {
  let work: string;
  let fakeRocm: string;
  let buildDir: string;
  const configure = (env: Record<string, string>, backends: { blas?: string; dnn?: string } = {}) => {
    const clean = { ...process.env, SWITCHYARD_ROCM_PATH: '', SWITCHYARD_VENDOR_ROOTS: '', ...env };
    const seams = [`-DSWITCHYARD_BLAS_BACKEND=${backends.blas ?? 'auto'}`, `-DSWITCHYARD_DNN_BACKEND=${backends.dnn ?? 'auto'}`];
    execFileSync(
      cmake as string,
      ['-S', packageRoot, '-B', buildDir, '-DSWITCHYARD_GPU_PLATFORM=amd', `-DSWITCHYARD_GPU_COMPILER=${hipcc}`, '-DSWITCHYARD_GPU_ARCHS=gfx90a', ...seams],
      { env: clean, stdio: 'pipe' },
    );
  };

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'switchyard-vendor-'));
    fakeRocm = join(work, 'rocm');
    buildDir = join(work, 'build');
    for (const dir of ['include/rocblas', 'include/miopen', 'lib']) mkdirSync(join(fakeRocm, dir), { recursive: true });
    writeFileSync(join(fakeRocm, 'include/rocblas/rocblas.h'), '#error "only configured, never compiled"\n');
    writeFileSync(join(fakeRocm, 'include/miopen/miopen.h'), '#error "only configured, never compiled"\n');
    writeFileSync(join(fakeRocm, 'lib/librocblas.so'), '');
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it('turns rocBLAS and MIOpen on from SWITCHYARD_ROCM_PATH, headers only, and off again without it', () => {
    // ':'-separated, as ROCm-style path lists are; the first entry does not exist.
    configure({ SWITCHYARD_ROCM_PATH: `${join(work, 'missing')}:${fakeRocm}` });
    let report = readReport(buildDir);
    expect(report.platform).toBe('amd');
    expect(entry(report, 'ROCBLAS')).toMatchObject({ found: true, mode: 'dlopen', include: join(fakeRocm, 'include'), library: join(fakeRocm, 'lib/librocblas.so') });
    // MIOpen has a header but no library here: still built (loaded at run time), with no path to try first.
    expect(entry(report, 'MIOPEN')).toMatchObject({ found: true, mode: 'dlopen', include: join(fakeRocm, 'include'), library: '' });
    let flags = compileFlags(buildDir);
    expect(flags).toMatch(/-DSWITCHYARD_HAVE_ROCBLAS=1/);
    expect(flags).toMatch(/-DSWITCHYARD_HAVE_MIOPEN=1/);
    expect(flags).toContain(`SWITCHYARD_ROCBLAS_LIBRARY=\\"${join(fakeRocm, 'lib/librocblas.so')}\\"`);
    expect(flags).not.toMatch(/SWITCHYARD_MIOPEN_LIBRARY=/);
    expect(flags).toContain(`-I${join(fakeRocm, 'include')}`);
    expect(report).toMatchObject({ blasBackend: 'blas/blas_rocblas.cc', dnnBackend: 'dnn/dnn_miopen.cc' });

    // The prefix still there, but the BLAS seam set to none: rocBLAS is not searched, MIOpen still is.
    configure({ SWITCHYARD_ROCM_PATH: fakeRocm }, { blas: 'none' });
    report = readReport(buildDir);
    expect(entry(report, 'ROCBLAS')).toMatchObject({ found: false, include: '' });
    expect(entry(report, 'MIOPEN')).toMatchObject({ found: true });
    expect(report).toMatchObject({ blasBackend: 'blas/blas_none.cc', dnnBackend: 'dnn/dnn_miopen.cc' });
    expect(compileFlags(buildDir)).not.toMatch(/SWITCHYARD_HAVE_ROCBLAS/);

    // The same tree, reconfigured without the prefix: the search runs again and finds nothing.
    configure({});
    report = readReport(buildDir);
    expect(entry(report, 'ROCBLAS')).toMatchObject({ found: false, include: '' });
    expect(entry(report, 'MIOPEN')).toMatchObject({ found: false });
    expect(report).toMatchObject({ blasBackend: 'blas/blas_none.cc', dnnBackend: 'dnn/dnn_none.cc' });
    flags = compileFlags(buildDir);
    expect(flags).not.toMatch(/SWITCHYARD_HAVE_(ROCBLAS|MIOPEN)/);
    expect(flags).not.toContain(fakeRocm);
  }, 120_000);
});

describe.skipIf(!hipcc && !findOnPath('nvcc'))('the addon built here reports what its build found', () => {
  it('says "built without <header> headers" exactly for the seams whose headers were missing', () => {
    // The addon SWITCHYARD_HIP_ADDON names (scripts/sanitize.sh's build-sanitize/Release/…) is checked against
    // its own build tree, and not rebuilt; otherwise the production build, made up to date first.
    const named = process.env.SWITCHYARD_HIP_ADDON;
    if (!named) execFileSync(process.execPath, [join(packageRoot, 'scripts', 'build-native.mjs')], { stdio: 'pipe' });
    const buildRoot = named ? dirname(dirname(named)) : join(packageRoot, 'build');
    const stamp = JSON.parse(readFileSync(join(buildRoot, 'Release', 'switchyard_hip.build.json'), 'utf8')) as { SWITCHYARD_GPU_PLATFORM: string };
    const report = readReport(join(buildRoot, `cmake-${stamp.SWITCHYARD_GPU_PLATFORM}`));
    const loaded = loadNativeHip();
    if (!loaded.ok) throw new Error(loaded.reason);
    const amd = stamp.SWITCHYARD_GPU_PLATFORM === 'amd';
    const seams = [
      { info: loaded.binding.blasInfo(), vendor: entry(report, amd ? 'ROCBLAS' : 'CUBLAS'), backend: amd ? 'rocBLAS' : 'cuBLAS' },
      { info: loaded.binding.dnnInfo(), vendor: entry(report, amd ? 'MIOPEN' : 'CUDNN'), backend: amd ? 'MIOpen' : 'cuDNN' },
    ];
    for (const { info, vendor, backend } of seams) {
      if (!vendor.found) {
        expect(info).toMatchObject({ available: false, backend: 'none' });
        expect(info.reason).toContain(`built without <${vendor.header}> headers`);
      } else {
        expect(info.backend).toBe(backend);
        // Built with the header: either the library loads, or the seam says it could not be loaded.
        if (!info.available) expect(info.reason).toMatch(/could not be loaded at run time|built with/);
      }
    }
  }, 300_000);
});
