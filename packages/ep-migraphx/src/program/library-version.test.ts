import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkLibraryVersion } from './library-version.js';
import { deviceArchitecture, gfxName, gpuArchitectures } from './device-arch.js';

describe('checkLibraryVersion', () => {
  it('accepts ROCm 7.1 to 7.x, and source builds (left to the datatype probe)', () => {
    for (const v of ['3.0.70100', '3.0.70200', '3.0.79999', '3.0', '3', null]) expect(checkLibraryVersion(v).ok, String(v)).toBe(true);
  });

  it('declines other ABIs and ROCm releases outside the range, saying which', () => {
    const reason = (v: string) => {
      const r = checkLibraryVersion(v);
      return r.ok ? 'accepted' : r.reason;
    };
    expect(reason('2.0.50700')).toMatch(/has C ABI 2; this EP is declared against ABI 3/);
    expect(reason('3.0.60400')).toMatch(/from ROCm 6\.4\.0, whose MIGraphX numbers datatypes differently; this EP supports ROCm 7\.1 to 7\.x/);
    expect(reason('3.0.70000')).toMatch(/ROCm 7\.0\.0/);
    expect(reason('3.0.80000')).toMatch(/from ROCm 8\.0\.0, newer than the ROCm 7\.1 to 7\.x/);
  });
});

describe('device architecture', () => {
  it('names gfx targets from the driver topology', () => {
    expect([90010, 90402, 110000, 100300, 120001].map(gfxName)).toEqual(['gfx90a', 'gfx942', 'gfx1100', 'gfx1030', 'gfx1201']);
    const topology = mkdtempSync(join(tmpdir(), 'sy-kfd-'));
    const node = (n: number, version: number) => {
      mkdirSync(join(topology, String(n)));
      writeFileSync(join(topology, String(n), 'properties'), `cpu_cores_count 0\ngfx_target_version ${version}\nvendor_id 4098\n`);
    };
    node(0, 0); // the CPU
    node(2, 110000);
    node(1, 90010);
    expect(gpuArchitectures(topology)).toEqual(['gfx90a', 'gfx1100']);
    expect(deviceArchitecture('gpu', 1, topology)).toBe('gfx1100');
    expect(deviceArchitecture('gpu', 5, topology)).toBe('gpu-unknown');
    expect(deviceArchitecture('ref', 0, topology)).toBe(`host-${process.arch}`);
    expect(gpuArchitectures(join(topology, 'missing'))).toEqual([]);
  });
});
