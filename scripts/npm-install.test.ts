/**
 * What a new user gets from `npm install`: every package the quick start needs is packed with pnpm (as
 * `pnpm publish` would), installed with plain npm into an empty project outside the repository (no
 * workspace, no pnpm, no repo node_modules above it), with a PATH holding only node and npm (no compiler,
 * no cmake), and the README's quick start runs there. The CPU EP must use the prebuilt oneDNN addon of
 * @switchyard/ep-cpu-linux-x64-gnu, with oneDNN loaded from that package, not from /usr/lib. Where the HIP
 * addon was built here for AMD, its prebuilt package @switchyard/native-hip-linux-x64-gnu is packed too:
 * the installed native-hip must load that addon, and ep-rocm must decline for want of a device (or of the
 * HIP runtime), never because nothing is built.
 *
 * The packages have no third-party runtime dependencies, so npm runs --offline with an empty cache:
 * nothing can come from a registry, and every @switchyard package must come from the tarballs.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publint } from 'publint';

const repo = fileURLToPath(new URL('..', import.meta.url));
const PLATFORM_PACKAGE = 'ep-cpu-linux-x64-gnu';
/**
 * The quick start imports core and asks for ['rocm', 'cpu']: ep-rocm (with native-hip, optional) and ep-cpu;
 * native-toolkit (the addons' shared loader, headers and build script) is a dependency of both addons.
 */
const HIP_PLATFORM_PACKAGE = 'native-hip-linux-x64-gnu';
const addon = join(repo, 'packages/ep-cpu/build/Release/switchyard_cpu.node');
const hipAddon = join(repo, 'packages/native-hip/build/Release/switchyard_hip.node');
const hipBuild = join(repo, 'packages/native-hip/build/Release/switchyard_hip.build.json');
/** The AMD build with the architectures the HIP platform package promises (fill-prebuilt checks the rest). */
const hipWhyNot = !existsSync(hipAddon) || !existsSync(hipBuild)
  ? `the HIP addon is not built (${hipAddon}; needs hipcc)`
  : ((b: { SWITCHYARD_GPU_PLATFORM?: string; SWITCHYARD_GPU_ARCHS?: string }) =>
      b.SWITCHYARD_GPU_PLATFORM !== 'amd' || b.SWITCHYARD_GPU_ARCHS !== 'gfx90a;gfx1030' ? `the HIP addon is not the AMD gfx90a;gfx1030 build (${JSON.stringify(b)})` : undefined)(
      JSON.parse(readFileSync(hipBuild, 'utf8')),
    );
if (hipWhyNot) console.warn(`[npm-install] the HIP platform package is not packed: ${hipWhyNot}`);
const PACKED = ['core', 'ep-cpu', PLATFORM_PACKAGE, 'ep-rocm', 'native-hip', ...(hipWhyNot ? [] : [HIP_PLATFORM_PACKAGE]), 'native-toolkit'];
const PLATFORM_PACKAGES = new Set([PLATFORM_PACKAGE, HIP_PLATFORM_PACKAGE]);
const COMPILERS = ['gcc', 'g++', 'cc', 'c++', 'cmake', 'clang', 'clang++', 'make'];

const onPath = (cmd: string) => (process.env.PATH ?? '').split(delimiter).some((dir) => dir && existsSync(join(dir, cmd)));
const skipWhy =
  process.platform !== 'linux' || process.arch !== 'x64'
    ? `only linux-x64 has a platform package (this is ${process.platform}-${process.arch})`
    : !existsSync(addon)
      ? `the CPU addon is not built (${addon})`
      : !onPath('npm') || !onPath('patchelf')
        ? 'npm or patchelf is not on PATH (scripts/setup.sh installs both)'
        : PACKED.some((p) => !PLATFORM_PACKAGES.has(p) && !existsSync(join(repo, 'packages', p, 'dist/index.js')))
          ? 'a package is not built (scripts/setup.sh builds them)'
          : undefined;
if (skipWhy) console.warn(`[npm-install] skipped: ${skipWhy}`);

const QUICK_START = `
import { readFileSync } from 'node:fs';
import { InferenceSession, Tensor } from '@switchyard/core';

const data = Float32Array.from({ length: 3 * 32 * 32 }, (_, i) => Math.sin(i));
const session = await InferenceSession.create('model.onnx', { executionProviders: ['rocm', 'cpu'] });
const out = await session.run({ input: new Tensor('float32', data, [1, 3, 32, 32]) });
console.table(session.placement.nodes.map((n) => ({ node: n.name, ep: n.ep, why: n.declined[0]?.reason.message })));
// For the test: what ran where, and which files this process mapped for the addon and oneDNN.
const mapped = [...new Set(readFileSync('/proc/self/maps', 'utf8').split('\\n').map((l) => l.split(/\\s+/)[5]).filter(Boolean))];
console.log('RESULT ' + JSON.stringify({
  nodes: session.placement.nodes.map((n) => ({ opType: n.opType, ep: n.ep, implementation: n.implementation })),
  output: Object.values(out)[0].dims,
  mapped: mapped.filter((p) => /switchyard_cpu\\.node|libdnnl|libgomp|libOpenCL/.test(p)),
}));
`;

/** What the installed native-hip loads, and why ep-rocm declines (this machine has no GPU). */
const HIP_PROBE = `
import { readFileSync } from 'node:fs';
import { loadNativeHip } from '@switchyard/native-hip';
import { RocmExecutionProvider } from '@switchyard/ep-rocm';

const r = loadNativeHip();
let declined;
try {
  await new RocmExecutionProvider().init();
} catch (e) {
  declined = { code: e.code, message: e.message };
}
const mapped = [...new Set(readFileSync('/proc/self/maps', 'utf8').split('\\n').map((l) => l.split(/\\s+/)[5]).filter(Boolean))];
console.log('HIP ' + JSON.stringify({
  loaded: r.ok ? { ok: true, path: r.path, ...r.binding.runtimeInfo() } : { ok: false, reason: r.reason },
  declined,
  mapped: mapped.filter((p) => /switchyard_hip\\.node|libamdhip64/.test(p)),
}));
`;

interface HipProbe {
  loaded: { ok: boolean; path?: string; reason?: string; platform?: string; compiledArchs?: string[] };
  declined?: { code: string; message: string };
  mapped: string[];
}

describe.skipIf(skipWhy !== undefined)('npm install of the packed packages (no compiler, no workspace)', () => {
  let work = '';
  let project = '';
  let env: NodeJS.ProcessEnv = {};
  const tarballs = new Map<string, string>();
  const seconds: Record<string, number> = {};
  const timed = <T>(label: string, f: () => T): T => {
    const t0 = performance.now();
    try {
      return f();
    } finally {
      seconds[label] = Math.round(performance.now() - t0) / 1000;
    }
  };

  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), 'switchyard-npm-'));
    // The platform package is filled in a copy, so the repository's folder (packed by the release-flow test
    // at the same time) is never half-written.
    const platformCopies = new Map<string, string>();
    for (const [dir, fill] of [
      [PLATFORM_PACKAGE, 'packages/ep-cpu/scripts/fill-prebuilt.mjs'],
      [HIP_PLATFORM_PACKAGE, 'packages/native-hip/scripts/fill-prebuilt.mjs'],
    ] as const) {
      if (!PACKED.includes(dir)) continue;
      const copy = join(work, dir);
      mkdirSync(copy);
      for (const f of ['package.json', 'README.md']) cpSync(join(repo, 'packages', dir, f), join(copy, f));
      timed(`fill-prebuilt ${dir}`, () => execFileSync(process.execPath, [join(repo, fill), '--out', copy], { stdio: 'pipe' }));
      platformCopies.set(dir, copy);
    }
    const packDir = join(work, 'tarballs');
    timed('pnpm pack', () => {
      for (const dir of PACKED) {
        const before = new Set(existsSync(packDir) ? readdirSync(packDir) : []);
        const cwd = platformCopies.get(dir) ?? join(repo, 'packages', dir);
        execFileSync('pnpm', ['pack', '--pack-destination', packDir], { cwd, stdio: 'pipe' });
        const added = readdirSync(packDir).filter((f) => !before.has(f));
        expect(added, `pnpm pack in packages/${dir}`).toHaveLength(1);
        tarballs.set(dir, join(packDir, added[0]!));
      }
    });

    // PATH: node and npm only. npm's launcher is `#!/usr/bin/env node`, which finds node here.
    const bin = join(work, 'bin');
    mkdirSync(bin);
    symlinkSync(process.execPath, join(bin, 'node'));
    const npm = (process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'npm')).find((p) => existsSync(p))!;
    symlinkSync(realpathSync(npm), join(bin, 'npm'));
    env = { PATH: bin, HOME: work, npm_config_cache: join(work, 'npm-cache'), npm_config_update_notifier: 'false', LANG: 'C.UTF-8' };

    project = join(work, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'quick-start', private: true, type: 'module' }, null, 2));
    writeFileSync(join(project, 'quick-start.mjs'), QUICK_START);
    writeFileSync(join(project, 'model.onnx'), readFileSync(join(repo, 'examples/models/tiny-cnn.onnx')));
    timed('npm install', () =>
      execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', ...tarballs.values()], { cwd: project, env, stdio: 'pipe', timeout: 120_000 }),
    );
  }, 300_000);

  afterAll(() => {
    console.log(`[npm-install] seconds: ${JSON.stringify(seconds)}; tarballs: ${[...tarballs].map(([d, t]) => `${d} ${(statSync(t).size / 1e6).toFixed(2)} MB`).join(', ')}`);
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('the PATH it installs and runs with has no compiler or cmake', () => {
    const dirs = env.PATH!.split(delimiter);
    expect(COMPILERS.filter((c) => dirs.some((d) => existsSync(join(d, c))))).toEqual([]);
  });

  it('installs every @switchyard package from the tarballs, with no dependency from a registry', () => {
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as { packages: Record<string, { resolved?: string }> };
    const installed = Object.entries(lock.packages).filter(([path]) => path !== '');
    expect(installed.map(([path]) => path).sort()).toEqual(PACKED.map((d) => `node_modules/@switchyard/${d}`).sort());
    for (const [path, entry] of installed) expect(entry.resolved, path).toMatch(/^file:.*\.tgz$/);
  });

  it("runs the README's quick start on the prebuilt addon, with oneDNN from the project's node_modules", () => {
    const stdout = timed('quick start', () => execFileSync('node', ['quick-start.mjs'], { cwd: project, env, encoding: 'utf8', timeout: 60_000 }));
    const result = JSON.parse(stdout.split('\n').find((l) => l.startsWith('RESULT '))!.slice(7)) as {
      nodes: Array<{ opType: string; ep: string; implementation: string }>;
      output: number[];
      mapped: string[];
    };
    expect(result.output).toEqual([1, 10]);
    // The demo CNN's heavy nodes are its two convolutions (the optimizer renames them to BlockedConv); its
    // 16→10 Gemm is small enough that the EP keeps it in TS by design (smallOpsInTs).
    const heavy = result.nodes.filter((n) => /Conv/.test(n.opType));
    expect(heavy.length, JSON.stringify(result.nodes)).toBeGreaterThanOrEqual(2);
    for (const n of heavy) expect(n, JSON.stringify(result.nodes)).toMatchObject({ ep: 'cpu', implementation: expect.stringMatching(/onednn/) });

    const prebuiltDir = realpathSync(join(project, 'node_modules/@switchyard', PLATFORM_PACKAGE));
    const loadedAddon = result.mapped.find((p) => p.endsWith('/switchyard_cpu.node'));
    expect(loadedAddon).toBe(join(prebuiltDir, 'switchyard_cpu.node'));
    for (const lib of ['libdnnl.so.2', 'libgomp.so.1']) expect(result.mapped, lib).toContain(join(prebuiltDir, lib));
    expect(result.mapped.filter((p) => p.startsWith('/usr/') || p.startsWith('/lib'))).toEqual([]);

    // ldd (outside the process) resolves the same way, through RUNPATH $ORIGIN.
    const ldd = execFileSync('ldd', [loadedAddon!], { encoding: 'utf8' });
    const resolved = Object.fromEntries([...ldd.matchAll(/^\s*(\S+) => (\S+)/gm)].map((m) => [m[1], m[2]]));
    console.log(`[npm-install] ldd ${loadedAddon}:\n${ldd.split('\n').filter((l) => /dnnl|gomp|OpenCL/.test(l)).join('\n')}`);
    for (const lib of ['libdnnl.so.2', 'libgomp.so.1', 'libOpenCL.so.1']) expect(resolved[lib], lib).toBe(join(prebuiltDir, lib));
  });

  it.skipIf(hipWhyNot !== undefined)("native-hip loads the prebuilt AMD addon; ep-rocm declines for want of a GPU, not of a build", () => {
    const prebuiltDir = realpathSync(join(project, 'node_modules/@switchyard', HIP_PLATFORM_PACKAGE));
    const prebuilt = join(prebuiltDir, 'switchyard_hip.node');
    writeFileSync(join(project, 'hip.mjs'), HIP_PROBE);
    const probe = () => JSON.parse(execFileSync('node', ['hip.mjs'], { cwd: project, env, encoding: 'utf8' }).split('\n').find((l) => l.startsWith('HIP '))!.slice(4)) as HipProbe;

    const found = probe();
    expect(found.loaded, JSON.stringify(found)).toMatchObject({ ok: true, path: prebuilt, platform: 'amd', compiledArchs: ['gfx90a', 'gfx1030'] });
    expect(found.mapped).toContain(prebuilt);
    // This machine has the HIP runtime (Debian's libamdhip64-5) and no AMD GPU: the EP says so.
    expect(found.declined?.code).toBe('EP_FAILED');
    expect(found.declined?.message).toMatch(/no AMD GPU is visible to HIP \(hipGetDeviceCount: hipErrorNoDevice\)/);
    expect(found.declined?.message).not.toMatch(/not built|not installed|build-native/);

    // It links the machine's HIP runtime, found through the system's folders or RUNPATH /opt/rocm/lib; nothing from node_modules.
    const ldd = execFileSync('ldd', [prebuilt], { encoding: 'utf8' });
    const resolved = Object.fromEntries([...ldd.matchAll(/^\s*(\S+) => (\S+)/gm)].map((m) => [m[1], m[2]]));
    expect(resolved['libamdhip64.so.5'], ldd).toMatch(/^\/(usr\/)?(lib|opt)/);
    expect(Object.values(resolved).filter((p) => p.includes('node_modules'))).toEqual([]);
    expect(execFileSync('readelf', ['-d', prebuilt], { encoding: 'utf8' })).toMatch(/\(RUNPATH\)\s+Library runpath: \[\/opt\/rocm\/lib\]/);
    console.log(`[npm-install] ${prebuilt}: ${ldd.split('\n').filter((l) => /amdhip|hsa/.test(l)).join(';').replace(/\s+/g, ' ')}`);

    // A machine whose HIP runtime is not ROCm 5's (ROCm 6 has libamdhip64.so.6 only): the addon there names
    // a library the loader cannot find, simulated by pointing its NEEDED entry at a soname no machine has.
    const saved = join(work, 'switchyard_hip.node.saved');
    cpSync(prebuilt, saved);
    try {
      execFileSync('patchelf', ['--replace-needed', 'libamdhip64.so.5', 'libamdhip64.so.99', prebuilt]);
      const missing = probe();
      expect(missing.loaded.ok).toBe(false);
      expect(missing.loaded.reason).toMatch(/libamdhip64\.so\.99: cannot open shared object file/);
      expect(missing.loaded.reason).toContain("the prebuilt AMD addon uses the machine's HIP runtime of ROCm 5 (libamdhip64.so.5)");
      expect(missing.loaded.reason).toContain('node node_modules/@switchyard/native-hip/scripts/build-native.mjs');
      expect(missing.loaded.reason).not.toMatch(/pnpm|--filter|damaged/);
      expect(missing.declined?.message).toContain(missing.loaded.reason!);
    } finally {
      cpSync(saved, prebuilt);
    }
  });

  it('installs and runs without the platform package, and says how to get the addon', () => {
    // As after `npm install --omit=optional` or on a platform with no prebuilt package.
    const bare = join(work, 'bare');
    mkdirSync(bare);
    writeFileSync(join(bare, 'package.json'), JSON.stringify({ name: 'bare', private: true, type: 'module' }));
    const script = "import { CpuExecutionProvider } from '@switchyard/ep-cpu'; console.log('DESCRIBE ' + new CpuExecutionProvider().describe());";
    writeFileSync(join(bare, 'describe.mjs'), script);
    writeFileSync(join(bare, 'hip.mjs'), HIP_PROBE);
    const bareTarballs = ['core', 'ep-cpu', 'native-toolkit', 'ep-rocm', 'native-hip'].map((d) => tarballs.get(d)!);
    timed('npm install without the platform packages', () =>
      execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', ...bareTarballs], { cwd: bare, env, stdio: 'pipe', timeout: 120_000 }),
    );
    expect(existsSync(join(bare, 'node_modules/@switchyard', PLATFORM_PACKAGE))).toBe(false);
    expect(existsSync(join(bare, 'node_modules/@switchyard', HIP_PLATFORM_PACKAGE))).toBe(false);
    // ep-rocm declines, naming the HIP platform package and how to get it or build it.
    const hip = JSON.parse(execFileSync('node', ['hip.mjs'], { cwd: bare, env, encoding: 'utf8' }).split('\n').find((l) => l.startsWith('HIP '))!.slice(4)) as HipProbe;
    expect(hip.loaded.ok).toBe(false);
    expect(hip.declined?.message).toContain(`HIP addon unavailable: the HIP addon is not installed`);
    expect(hip.declined?.message).toContain(`@switchyard/${HIP_PLATFORM_PACKAGE} is an optional dependency of @switchyard/native-hip`);
    expect(hip.declined?.message).toContain('node node_modules/@switchyard/native-hip/scripts/build-native.mjs');
    expect(hip.declined?.message).not.toMatch(/pnpm|--filter/);
    const described = execFileSync('node', ['describe.mjs'], { cwd: bare, env, encoding: 'utf8' });
    expect(described).toContain('DESCRIBE TypeScript kernels only');
    expect(described).toContain(`@switchyard/${PLATFORM_PACKAGE} is an optional dependency`);
    expect(described).toContain('npm install');
    expect(described).toContain('node node_modules/@switchyard/ep-cpu/scripts/build-native.mjs');
    expect(described).not.toMatch(/pnpm|--filter/);
  });

  it("a build from source in the user's project finds the shared native toolkit as CMake and the build scripts do", () => {
    // What each addon's CMakeLists.txt runs (node -p require.resolve) from its own folder, and what its
    // scripts/build-native.mjs imports: both must land in the project's node_modules.
    const toolkit = join(project, 'node_modules/@switchyard/native-toolkit');
    for (const [pkg, cmakeDir] of [['ep-cpu', 'native'], ['native-hip', '.']] as const) {
      const cwd = join(project, 'node_modules/@switchyard', pkg, cmakeDir);
      const found = execFileSync('node', ['-p', "require('path').dirname(require.resolve('@switchyard/native-toolkit/package.json'))"], { cwd, env, encoding: 'utf8' }).trim();
      expect(realpathSync(found), pkg).toBe(realpathSync(toolkit));
      const imported = execFileSync('node', ['--input-type=module', '-e', "const m = await import('@switchyard/native-toolkit/build-addon'); console.log(typeof m.buildAddon)"], { cwd, env, encoding: 'utf8' }).trim();
      expect(imported, pkg).toBe('function');
    }
    for (const f of ['include/switchyard/errors.h', 'include/switchyard/js_args.h', 'include/switchyard/promise_worker.h', 'native/js_args.cc', 'cmake/switchyard-native-toolkit.cmake']) {
      expect(existsSync(join(toolkit, f)), f).toBe(true);
    }
  });

  it('packs dist and types, no tests, no build folders, at reasonable sizes', () => {
    for (const [dir, tarball] of tarballs) {
      const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).split('\n').filter(Boolean);
      expect(files.filter((f) => /\.test\.|\.test-util\.|(^|\/)(build|node_modules|src\/native\/build)\//.test(f)), dir).toEqual([]);
      const size = statSync(tarball).size;
      if (dir === PLATFORM_PACKAGE) {
        for (const f of ['switchyard_cpu.node', 'libdnnl.so.2', 'libgomp.so.1', 'libOpenCL.so.1', 'LICENSES/README.md', 'LICENSES/libdnnl2.copyright', 'LICENSES/Apache-2.0.txt']) {
          expect(files, dir).toContain(`package/${f}`);
        }
        expect(size, `${dir} tarball bytes`).toBeLessThan(30e6);
      } else if (dir === HIP_PLATFORM_PACKAGE) {
        // The addon alone: no HIP runtime or other shared library inside (README: the machine's ROCm provides it).
        expect(files.sort(), dir).toEqual(['package/README.md', 'package/package.json', 'package/switchyard_hip.build.json', 'package/switchyard_hip.node']);
        expect(size, `${dir} tarball bytes`).toBeLessThan(10e6);
      } else {
        for (const f of ['package.json', 'dist/index.js', 'dist/index.d.ts']) expect(files, dir).toContain(`package/${f}`);
        expect(size, `${dir} tarball bytes`).toBeLessThan(3e6);
      }
    }
  });

  it('each tarball passes publint', async () => {
    for (const [dir, tarball] of tarballs) {
      const bytes = readFileSync(tarball);
      const { messages } = await publint({ pack: { tarball: bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) }, level: 'warning', strict: true });
      expect(messages.map((m) => `${dir}: ${m.code} ${JSON.stringify(m.args)}`)).toEqual([]);
    }
  });

  it('require() from CommonJS either works or says to use import()', () => {
    for (const [name, expected] of [
      ['@switchyard/core', 'InferenceSession'],
      ['@switchyard/ep-cpu', 'executionProviderFactory'],
      ['@switchyard/ep-rocm', 'executionProviderFactory'],
    ] as const) {
      const script = `try { const m = require(${JSON.stringify(name)}); console.log('OK ' + (${JSON.stringify(expected)} in m)); } catch (e) { console.log('ERR ' + e.code + ' ' + e.message); }`;
      const out = execFileSync('node', ['-e', script], { cwd: project, env, encoding: 'utf8' }).trim().split('\n').pop()!;
      if (out.startsWith('OK')) expect(out, name).toBe('OK true');
      else expect(out, name).toMatch(/^ERR ERR_REQUIRE_(ESM|ASYNC_MODULE) .*import\(\)/s);
    }
  });
});
