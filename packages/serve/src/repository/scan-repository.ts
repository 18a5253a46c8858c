/**
 * A model repository in Triton's layout: `REPO/<model>/<version>/model.onnx`, versions being
 * positive integers, plus an optional `REPO/<model>/config.json`. Scanning reads only names and the
 * config files; sessions are made later, by the registry.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { SwitchyardError } from '@switchyard/core';
import { CONFIG_FILE, parseModelConfig, type ModelConfig } from './model-config.js';

export const MODEL_FILE = 'model.onnx';

/** Names that are safe in a URL path segment and a file name. */
const MODEL_NAME = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const VERSION_NAME = /^[1-9][0-9]{0,8}$/;

export interface RepositoryModel {
  name: string;
  /** Version names, ascending numerically. */
  versions: string[];
  /** Path of each version's model file. */
  files: Map<string, string>;
  config: ModelConfig;
}

/** Lists the models under `root`; a folder that is not a model (no version holding model.onnx) is skipped. */
export function scanRepository(root: string): RepositoryModel[] {
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new SwitchyardError('INVALID_ARGUMENT', `model repository '${root}' is not a folder`);
  }
  const models: RepositoryModel[] = [];
  for (const name of readdirSync(root).sort()) {
    const dir = join(root, name);
    if (!MODEL_NAME.test(name) || !statSync(dir).isDirectory()) continue;
    const versions = readdirSync(dir)
      .filter((v) => VERSION_NAME.test(v) && existsSync(join(dir, v, MODEL_FILE)))
      .sort((a, b) => Number(a) - Number(b));
    if (versions.length === 0) continue;
    const configPath = join(dir, CONFIG_FILE);
    let raw: unknown;
    if (existsSync(configPath)) {
      try {
        raw = JSON.parse(readFileSync(configPath, 'utf8'));
      } catch (err) {
        throw new SwitchyardError('INVALID_ARGUMENT', `${configPath}: not valid JSON (${(err as Error).message})`);
      }
    }
    models.push({
      name,
      versions,
      files: new Map(versions.map((v) => [v, join(dir, v, MODEL_FILE)])),
      config: parseModelConfig(raw, configPath),
    });
  }
  if (models.length === 0) {
    throw new SwitchyardError('INVALID_ARGUMENT', `model repository '${root}' holds no model: expected ${root}/<model>/<version>/${MODEL_FILE}`);
  }
  return models;
}
