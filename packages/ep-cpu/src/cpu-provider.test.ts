/** The provider factory's options: what it takes, what it refuses, and what `native` / `describe()` report. */
import { describe, expect, it } from 'vitest';
import { CpuExecutionProvider, executionProviderFactory } from './cpu-provider.js';

describe('cpu EP factory', () => {
  it('takes useNative and smallOpsInTs', async () => {
    const ts = (await executionProviderFactory.create({ useNative: false, smallOpsInTs: false })) as CpuExecutionProvider;
    expect(ts.options).toEqual({ useNative: false, smallOpsInTs: false });
    expect(ts.native).toBeUndefined();
    expect(ts.describe()).toMatch(/^TypeScript kernels only \(oneDNN addon: disabled by useNative: false\)/);
  });

  it('refuses unknown options and non-boolean values, naming them', () => {
    expect(() => executionProviderFactory.create({ useNatve: true })).toThrow(/unknown option\(s\) useNatve; it takes useNative, smallOpsInTs/);
    expect(() => executionProviderFactory.create({ smallOpsInTs: 'no' })).toThrow(/smallOpsInTs must be a boolean, got string/);
    expect(() => executionProviderFactory.create({ recycleOutputs: 1 })).toThrow(/recycleOutputs must be a boolean, got number/);
  });

  it('offers recycled host memory for outputs with the addon, unless recycleOutputs is false', async () => {
    const p = (await executionProviderFactory.create({})) as CpuExecutionProvider;
    expect(typeof p.hostBuffer).toBe(p.nativeUnavailable ? 'undefined' : 'function');
    const off = (await executionProviderFactory.create({ recycleOutputs: false })) as CpuExecutionProvider;
    expect(off.hostBuffer).toBeUndefined();
    expect(new CpuExecutionProvider({ useNative: false }).hostBuffer).toBeUndefined();
  });

  it('reports what the addon runs on when it loads', () => {
    const p = new CpuExecutionProvider();
    if (p.nativeUnavailable) {
      expect(p.native).toBeUndefined();
      return;
    }
    expect(p.native?.onednnVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect([0, 8, 16]).toContain(p.native?.channelBlock);
    expect(p.describe()).toContain(p.native!.cpuIsa);
  });
});
