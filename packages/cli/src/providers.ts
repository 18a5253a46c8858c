/** The CLI knows every EP package it ships with; registering them makes `--ep` names resolve. */
import { registerExecutionProvider } from '@switchyard/core';
import { executionProviderFactory as cpu } from '@switchyard/ep-cpu';
import { executionProviderFactory as rocm } from '@switchyard/ep-rocm';
import { executionProviderFactory as migraphx } from '@switchyard/ep-migraphx';

export function registerBundledProviders(): void {
  for (const f of [cpu, rocm, migraphx]) registerExecutionProvider(f);
}

export const DEFAULT_EPS = ['rocm', 'migraphx', 'cpu'];

/** `--ep rocm,cpu` → ['rocm', 'cpu']. */
export function parseEpList(value: string | undefined): string[] {
  if (!value) return DEFAULT_EPS;
  return value.split(',').map((s) => s.trim()).filter(Boolean);
}
