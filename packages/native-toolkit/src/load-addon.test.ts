import { copyFileSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildCommand, loadAddon, platformPackageName, type AddonSpec, type Platform } from './load-addon.js';

// A real addon to load: the MIGraphX loader shim is small and needs no library to load (setup.sh builds it).
const REAL_ADDON = join(import.meta.dirname, '..', '..', 'ep-migraphx', 'build', 'Release', 'switchyard_migraphx.node');
const LINUX: Platform = { os: 'linux', arch: 'x64', libc: 'gnu' };

type Shim = { loadLibrary: unknown };
const isShim = (loaded: unknown): loaded is Shim => typeof (loaded as Shim | undefined)?.loadLibrary === 'function';

/** A package `@test/addon` in a temporary folder, with the module that loads it at src/load.js. */
function fakePackage(): { root: string; spec: AddonSpec<Shim> } {
  const root = mkdtempSync(join(tmpdir(), 'switchyard-toolkit-'));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: '@test/addon', version: '0.0.0' }));
  const spec: AddonSpec<Shim> = {
    packageName: '@test/addon',
    addon: 'test_addon.node',
    from: pathToFileURL(join(root, 'src', 'load.js')).href,
    what: 'the test addon',
    isBinding: isShim,
    exportsText: 'loadLibrary',
    prebuiltPlatforms: ['linux-x64-gnu'],
    buildFromSource: `build it: ${buildCommand('@test/addon')}`,
    disableVariable: 'TEST_ADDON_NATIVE',
    disabledMeans: 'use it',
    pathVariable: 'TEST_ADDON_PATH',
  };
  return { root, spec };
}

/** Installs the platform package `@test/addon-linux-x64-gnu` beside the package, with `addon` copied in when given. */
function installPrebuilt(root: string, addon?: string): string {
  const dir = join(root, 'node_modules', '@test', 'addon-linux-x64-gnu');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: '@test/addon-linux-x64-gnu', version: '0.0.0' }));
  if (addon) copyFileSync(addon, join(dir, 'test_addon.node'));
  return join(dir, 'test_addon.node');
}

function localBuild(root: string, content: string | { copyOf: string }): string {
  const path = join(root, 'build', 'Release', 'test_addon.node');
  mkdirSync(join(root, 'build', 'Release'), { recursive: true });
  if (typeof content === 'string') writeFileSync(path, content);
  else copyFileSync(content.copyOf, path);
  return path;
}

describe('loadAddon (the loader shared by ep-cpu, ep-migraphx and native-hip)', () => {
  it('names the package and its platform packages', () => {
    expect(platformPackageName('@test/addon', LINUX)).toBe('@test/addon-linux-x64-gnu');
    expect(platformPackageName('@test/addon', { os: 'darwin', arch: 'arm64', libc: 'gnu' })).toBe('@test/addon-darwin-arm64');
    expect(buildCommand('@test/addon')).toBe('node node_modules/@test/addon/scripts/build-native.mjs');
  });

  it('says what is missing, and how to get it, when there is no binary anywhere', () => {
    const { root, spec } = fakePackage();
    const result = loadAddon(spec, { env: {}, platform: LINUX });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain(join(root, 'build', 'Release', 'test_addon.node'));
    expect(result.reason).toContain('@test/addon-linux-x64-gnu is an optional dependency of @test/addon that was not installed');
    expect(result.reason).toContain('node node_modules/@test/addon/scripts/build-native.mjs');
    expect(result.reason).not.toMatch(/pnpm|--filter/);
    // A platform without a prebuilt package, and a package with none at all: building is the way.
    const other = loadAddon(spec, { env: {}, platform: { os: 'freebsd', arch: 'riscv64', libc: 'gnu' } });
    expect(other.ok || other.reason).toContain('no prebuilt addon for freebsd-riscv64');
    const sourceOnly = loadAddon({ ...spec, prebuiltPlatforms: [] }, { env: {}, platform: LINUX });
    expect(sourceOnly.ok || sourceOnly.reason).toMatch(/^the test addon is not built \(no .*test_addon\.node\)\. Fix: build it: node node_modules/);
  });

  it('says an installed platform package lacks its binary', () => {
    const { spec, root } = fakePackage();
    const missing = installPrebuilt(root);
    const result = loadAddon(spec, { env: {}, platform: LINUX });
    expect(result.ok || result.reason).toContain(`@test/addon-linux-x64-gnu is installed but has no ${missing}`);
  });

  it('explains a binary that is there but does not load: rebuild a local one, reinstall a prebuilt one', () => {
    const { spec, root } = fakePackage();
    const local = localBuild(root, 'not a shared object');
    const result = loadAddon(spec, { env: {}, platform: LINUX });
    expect(result.ok || result.reason).toMatch(new RegExp(`^loading ${local} failed \\(.*\\): rebuild it: node node_modules/@test/addon/scripts/build-native\\.mjs --clean$`));
    // The package's own reading of the failure comes first.
    const own = loadAddon({ ...spec, explainLoadError: (m) => (/invalid ELF|too short|not a/i.test(m) ? 'install libtest' : undefined) }, { env: {}, platform: LINUX });
    expect(own.ok || own.reason).toMatch(/failed \(.*\): install libtest$/);

    const other = fakePackage();
    const prebuilt = installPrebuilt(other.root);
    writeFileSync(prebuilt, 'truncated');
    const damaged = loadAddon(other.spec, { env: {}, platform: LINUX });
    expect(damaged.ok || damaged.reason).toMatch(/the prebuilt package looks damaged; reinstall it/);
    // A prebuilt addon may need a library of the user's system (native-hip: the HIP runtime): its own
    // reading comes first there; the local-build reading does not apply to it.
    const explained = loadAddon(
      { ...other.spec, explainLoadError: () => 'rebuild locally', explainPrebuiltLoadError: (m) => (/invalid ELF|too short|not a/i.test(m) ? 'install the runtime' : undefined) },
      { env: {}, platform: LINUX },
    );
    expect(explained.ok || explained.reason).toMatch(/failed \(.*\): install the runtime$/);
    const unexplained = loadAddon({ ...other.spec, explainLoadError: () => 'rebuild locally' }, { env: {}, platform: LINUX });
    expect(unexplained.ok || unexplained.reason).toMatch(/the prebuilt package looks damaged; reinstall it/);
  });

  it('is disabled by its variable, and loads only the file its path variable names', () => {
    const { spec } = fakePackage();
    expect(loadAddon(spec, { env: { TEST_ADDON_NATIVE: '0' } })).toEqual({ ok: false, reason: 'the test addon is disabled by TEST_ADDON_NATIVE=0 (unset it to use it)' });
    const nowhere = join(tmpdir(), 'no-such-dir', 'x.node');
    expect(loadAddon(spec, { env: { TEST_ADDON_PATH: nowhere } })).toEqual({ ok: false, reason: expect.stringContaining(`named by TEST_ADDON_PATH does not exist (no ${nowhere})`) });
  });

  describe.skipIf(!existsSync(REAL_ADDON))(`with a real addon (${REAL_ADDON})`, () => {
    it('loads the prebuilt platform package when there is no local build', () => {
      const { spec, root } = fakePackage();
      const prebuilt = installPrebuilt(root, REAL_ADDON);
      const result = loadAddon(spec, { env: {}, platform: LINUX });
      expect(result).toMatchObject({ ok: true, path: prebuilt });
      expect(result.ok && typeof result.binding.loadLibrary).toBe('function');
    });

    it('prefers a local build (made on purpose, from source) over the prebuilt package', () => {
      const { spec, root } = fakePackage();
      installPrebuilt(root, REAL_ADDON);
      const local = localBuild(root, { copyOf: REAL_ADDON });
      expect(loadAddon(spec, { env: {}, platform: LINUX })).toMatchObject({ ok: true, path: local });
      // An explicit path beats both.
      const explicit = join(mkdtempSync(join(tmpdir(), 'switchyard-toolkit-')), 'chosen.node');
      copyFileSync(REAL_ADDON, explicit);
      expect(loadAddon(spec, { env: { TEST_ADDON_PATH: explicit }, platform: LINUX })).toMatchObject({ ok: true, path: explicit });
    });

    it('says a binary without the expected exports is a stale build', () => {
      const { spec, root } = fakePackage();
      const local = localBuild(root, { copyOf: REAL_ADDON });
      const result = loadAddon({ ...spec, isBinding: (x: unknown): x is Shim => false, exportsText: 'somethingNew' }, { env: {}, platform: LINUX });
      expect(result.ok || result.reason).toBe(`${local} does not export somethingNew (a stale build?); rebuild it (node node_modules/@test/addon/scripts/build-native.mjs --clean), or reinstall @test/addon`);
    });
  });
});
