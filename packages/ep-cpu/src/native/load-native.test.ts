import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILD_COMMAND, defaultAddonPath, loadNative } from './load-native.js';

describe('loadNative', () => {
  it('explains how to build the addon when the .node file is absent', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'switchyard-native-')), 'switchyard_cpu.node');
    const result = loadNative({ path, env: {} });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.reason).toContain('not built');
    expect(result.reason).toContain(path);
    expect(result.reason).toContain(BUILD_COMMAND);
    expect(result.reason).toContain('apt-get install libdnnl-dev');
  });

  it('explains a file that is there but does not load', () => {
    const path = join(mkdtempSync(join(tmpdir(), 'switchyard-native-')), 'switchyard_cpu.node');
    writeFileSync(path, 'not a shared object');
    const result = loadNative({ path, env: {} });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/loading .* failed .*Fix: rebuild/);
  });

  it('is disabled by SWITCHYARD_CPU_NATIVE=0 (to test the TS fallback)', () => {
    const result = loadNative({ env: { SWITCHYARD_CPU_NATIVE: '0' } });
    expect(result).toEqual({ ok: false, reason: expect.stringContaining('SWITCHYARD_CPU_NATIVE=0') });
  });

  it('looks in the package build folder by default', () => {
    expect(defaultAddonPath()).toMatch(/packages[/\\]ep-cpu[/\\]build[/\\]Release[/\\]switchyard_cpu\.node$/);
  });

  const built = loadNative({ env: {} });
  // The addon suites skip themselves when it is not built; say so once, loudly.
  if (!built.ok) console.warn(`[ep-cpu native] oneDNN addon tests are skipped: ${built.reason}`);
  it.skipIf(!built.ok)(built.ok ? 'loads the built addon' : `loads the built addon (skipped: ${built.ok ? '' : built.reason})`, () => {
    expect(built.ok && built.binding.runtimeInfo().threadingRuntime).toBe('omp');
  });
});
