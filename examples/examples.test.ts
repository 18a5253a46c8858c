import { describe, expect, it } from 'vitest';
import { registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpu } from '@switchyard/ep-cpu';
import { main as customEp } from './custom-ep.js';
import { main as priority } from './provider-priority.js';

registerExecutionProvider(cpu);

describe('examples', () => {
  it('custom-ep: a mixed placement with outputs equal to CPU-only', async () => {
    const { placement, maxDiff } = await customEp();
    const eps = new Set(placement.nodes.map((n) => n.ep));
    expect(eps).toEqual(new Set(['tiny-js', 'cpu']));
    expect(placement.nodes.filter((n) => n.ep === 'tiny-js').every((n) => ['Relu', 'Add'].includes(n.opType))).toBe(true);
    expect(maxDiff).toBeLessThan(1e-6);
  });

  it('provider-priority: the list order decides placement', async () => {
    const p = await priority();
    expect(p['cpu, tiny-js'].nodes.every((n) => n.ep === 'cpu')).toBe(true);
    expect(p['tiny-js, cpu'].nodes.some((n) => n.ep === 'tiny-js')).toBe(true);
    expect(p['rocm, migraphx, cpu'].skipped.map((s) => s.name)).toEqual(['rocm', 'migraphx']);
  });
});
