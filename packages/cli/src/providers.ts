/** The CLI knows every EP package it ships with; registering them makes `--ep` names resolve. */
import { registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpu } from '@switchyard/ep-cpu';
import { executionProviderFactory as rocm } from '@switchyard/ep-rocm';
import { executionProviderFactory as migraphx } from '@switchyard/ep-migraphx';
import { DEFAULT_EPS } from './ep-options.js';

export { DEFAULT_EPS };

export function registerBundledProviders(): void {
  for (const f of [cpu, rocm, migraphx]) registerExecutionProvider(f);
}

/** `--ep rocm,cpu` → ['rocm', 'cpu'] (names only; options are read by `resolveEpSpecs`). */
export function parseEpList(value: string | undefined): string[] {
  if (!value) return DEFAULT_EPS;
  return value.split(',').map((s) => s.trim().split(':')[0]).filter((s) => s && !s.includes('='));
}
