/**
 * The real models of models/ (listed in models/manifest.json by models/generate.py): where their
 * files are, generating the large ones on demand, and comparing outputs the ONNX way.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Tensor } from '@switchyard/core';
import { readNpy } from './npy.js';

export const MODELS_DIR = fileURLToPath(new URL('../../../../models/', import.meta.url));
/** Debian's interpreter: it has python3-torch; a pyenv `python3` earlier on PATH may not. */
export const PYTHON = '/usr/bin/python3';

export interface CaseFiles {
  inputs: Record<string, string>;
  outputs: Record<string, string>;
}

export interface ModelEntry {
  name: string;
  description: string;
  committed: boolean;
  folder: string;
  model: string;
  cases: Record<string, CaseFiles>;
  /**
   * Set for a converted copy ('float16', 'int8-dynamic'): its reference outputs are torch's float32
   * ones, which the copy only approximates.
   */
  conversion?: string;
  /** Set for a file from another exporter than generate.py's torch 1.13 (e.g. 'torch 2.13 dynamo'). */
  exporter?: string;
}

export function readManifest(): ModelEntry[] {
  const manifest = JSON.parse(readFileSync(join(MODELS_DIR, 'manifest.json'), 'utf8')) as { models: ModelEntry[] };
  return manifest.models;
}

export function modelPath(entry: ModelEntry): string {
  return join(MODELS_DIR, entry.folder, entry.model);
}

/** A file of the model's folder (a reference input or output). */
export function fileOf(entry: ModelEntry, file: string): string {
  return join(MODELS_DIR, entry.folder, file);
}

function allFiles(entry: ModelEntry): string[] {
  const files = [entry.model];
  for (const c of Object.values(entry.cases)) files.push(...Object.values(c.inputs), ...Object.values(c.outputs));
  return files.map((f) => fileOf(entry, f));
}

export function isPresent(entry: ModelEntry): boolean {
  return allFiles(entry).every((f) => existsSync(f));
}

/** Why the generator cannot run here, or undefined when it can. */
export function generatorUnavailable(): string | undefined {
  const probe = spawnSync(PYTHON, ['-c', 'import torch, torchvision, onnx, numpy'], { encoding: 'utf8' });
  if (probe.error) return `${PYTHON} cannot be started (${probe.error.message})`;
  if (probe.status !== 0) return `${PYTHON} lacks torch/torchvision/onnx (apt-get install python3-torch python3-torchvision python3-onnx): ${probe.stderr.trim().split('\n').pop()}`;
  return undefined;
}

/** Runs models/generate.py for these models; throws with its output when it fails. */
export function generate(names: readonly string[]): void {
  const run = spawnSync(PYTHON, [join(MODELS_DIR, 'generate.py'), '--only', names.join(',')], { encoding: 'utf8', maxBuffer: 16 << 20 });
  if (run.status !== 0) {
    throw new Error(`models/generate.py --only ${names.join(',')} failed (${run.error?.message ?? `exit ${run.status}`}):\n${run.stderr}`);
  }
}

export interface Comparison {
  /** Largest |actual − expected|. */
  maxAbs: number;
  /** Largest |actual − expected| / |expected| over elements with |expected| ≥ 1e-3 (smaller ones say nothing relative). */
  maxRel: number;
  /** Elements outside atol + rtol·|expected|, the first few described. */
  failures: number;
  firstFailures: string[];
}

/** ONNX's backend-test rule: |a − b| ≤ atol + rtol·|b|, element-wise; NaN never passes. */
export function compare(actual: Tensor, expected: Tensor, atol: number, rtol: number): Comparison {
  const a = actual.data as Float32Array;
  const b = expected.data as Float32Array;
  const result: Comparison = { maxAbs: 0, maxRel: 0, failures: 0, firstFailures: [] };
  for (let i = 0; i < b.length; i++) {
    const diff = Math.abs(a[i] - b[i]);
    if (!(diff <= atol + rtol * Math.abs(b[i]))) {
      result.failures++;
      if (result.firstFailures.length < 5) result.firstFailures.push(`[${i}] got ${a[i]}, torch ${b[i]}`);
    }
    if (Number.isNaN(diff)) continue;
    result.maxAbs = Math.max(result.maxAbs, diff);
    if (Math.abs(b[i]) >= 1e-3) result.maxRel = Math.max(result.maxRel, diff / Math.abs(b[i]));
  }
  return result;
}

export { readNpy };

/** Summary statistics of actual − expected, scaled by the spread of `expected` (its standard deviation σ). */
export interface ScaledDifference {
  /** σ of the expected values. */
  sigma: number;
  /** max |actual − expected| / σ. */
  max: number;
  /** √(mean (actual − expected)²) / σ. */
  rms: number;
}

export function scaledDifference(actual: Tensor, expected: Tensor): ScaledDifference {
  const a = actual.data as Float32Array;
  const b = expected.data as Float32Array;
  let mean = 0;
  for (let i = 0; i < b.length; i++) mean += b[i];
  mean /= b.length;
  let variance = 0;
  let max = 0;
  let squares = 0;
  for (let i = 0; i < b.length; i++) {
    variance += (b[i] - mean) ** 2;
    const d = Math.abs(a[i] - b[i]);
    max = Number.isNaN(d) ? Number.POSITIVE_INFINITY : Math.max(max, d);
    squares += d * d;
  }
  const sigma = Math.sqrt(variance / b.length);
  return { sigma, max: max / sigma, rms: Math.sqrt(squares / b.length) / sigma };
}
