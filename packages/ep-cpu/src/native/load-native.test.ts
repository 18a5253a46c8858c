import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_FROM_SOURCE, defaultAddonPath, loadNative, platformPackageName } from './load-native.js';

describe('loadNative', () => {
  it('says when an explicit path does not exist', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'switchyard-native-')), 'switchyard_cpu.node');
    const result = loadNative({ path, env: {} });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining(`no ${path}`) });
    const fromEnv = loadNative({ env: { SWITCHYARD_CPU_ADDON: path } });
    expect(fromEnv).toEqual({ ok: false, reason: expect.stringContaining('SWITCHYARD_CPU_ADDON') });
  });

  it('names the platform package, or building from source, when nothing is installed (no monorepo commands)', () => {
    // A platform with no published package: neither the local build (absent for it) nor a package can serve.
    const platform = { os: 'freebsd', arch: 'riscv64', libc: 'gnu' as const };
    expect(platformPackageName(platform)).toBe('@switchyard/ep-cpu-freebsd-riscv64');
    expect(platformPackageName({ os: 'linux', arch: 'x64', libc: 'gnu' })).toBe('@switchyard/ep-cpu-linux-x64-gnu');
    const localPath = join(mkdtempSync(join(tmpdir(), 'switchyard-native-')), 'switchyard_cpu.node');
    const result = loadNative({ env: {}, platform, localPath });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain('no prebuilt addon for freebsd-riscv64');
    expect(result.reason).toContain(BUILD_FROM_SOURCE);
    expect(result.reason).toContain(localPath);
    expect(result.reason).not.toMatch(/pnpm|--filter/);
  });

  it('falls back to the platform package after the local build, or says how to install it', () => {
    const localPath = join(mkdtempSync(join(tmpdir(), 'switchyard-native-')), 'switchyard_cpu.node');
    const result = loadNative({ env: {}, localPath, platform: { os: 'linux', arch: 'x64', libc: 'gnu' } });
    // In the workspace the platform package is linked but only filled by fill-prebuilt.mjs (the npm-install test does).
    if (result.ok) expect(result.path).toMatch(/ep-cpu-linux-x64-gnu[/\\]switchyard_cpu\.node$/);
    else expect(result.reason).toMatch(/@switchyard\/ep-cpu-linux-x64-gnu (is installed but has no .*switchyard_cpu\.node|is an optional dependency .* npm install)/);
  });

  it('the build-from-source hint works outside the monorepo', () => {
    expect(BUILD_FROM_SOURCE).toContain('node node_modules/@switchyard/ep-cpu/scripts/build-native.mjs');
    expect(BUILD_FROM_SOURCE).not.toMatch(/pnpm|--filter/);
  });

  it('explains a file that is there but does not load', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'switchyard-native-')), 'switchyard_cpu.node');
    writeFileSync(path, 'not a shared object');
    const result = loadNative({ path, env: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/loading .* failed .*rebuild it/);
  });

  it('is disabled by SWITCHYARD_CPU_NATIVE=0 (to test the TS fallback)', () => {
    const result = loadNative({ env: { SWITCHYARD_CPU_NATIVE: '0' } });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('SWITCHYARD_CPU_NATIVE=0') });
  });

  it('looks in the package build folder by default', () => {
    expect(defaultAddonPath()).toMatch(/packages[/\\]ep-cpu[/\\]build[/\\]Release[/\\]switchyard_cpu\.node$/);
  });

  const built = loadNative({ env: { SWITCHYARD_CPU_ADDON: process.env.SWITCHYARD_CPU_ADDON } });
  // The addon suites skip themselves when it is not built; say so once, loudly.
  if (!built.ok) console.warn(`[ep-cpu native] oneDNN addon tests are skipped: ${built.reason}`);
  it.skipIf(!built.ok)(built.ok ? 'loads the built addon' : `loads the built addon (skipped: ${built.ok ? '' : built.reason})`, () => {
    expect(built.ok && built.binding.runtimeInfo().threadingRuntime).toBe('omp');
  });
});
