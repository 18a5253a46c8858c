/** `--load-ep ./my-ep.mjs`: a user's EP module, registered so `--ep <its name>` resolves. */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { registerExecutionProvider, type ExecutionProviderFactory } from '@switchyard/core';
import { CliError } from './cli-error.js';

function isFactory(v: unknown): v is ExecutionProviderFactory {
  return typeof v === 'object' && v !== null && typeof (v as ExecutionProviderFactory).name === 'string' && typeof (v as ExecutionProviderFactory).create === 'function';
}

/** Imports each module and registers its `executionProviderFactory` export (or default export); returns the EP names. */
export async function loadProviderModules(paths: readonly string[]): Promise<string[]> {
  const names: string[] = [];
  for (const path of paths) {
    let mod: Record<string, unknown>;
    try {
      mod = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
    } catch (err) {
      throw new CliError(`--load-ep ${path}: ${(err as Error).message.split('\n')[0]}`);
    }
    const factory = [mod.executionProviderFactory, mod.default].find(isFactory);
    if (!factory) throw new CliError(`--load-ep ${path}: the module exports no executionProviderFactory ({ name, create })`);
    registerExecutionProvider(factory);
    names.push(factory.name);
  }
  return names;
}
