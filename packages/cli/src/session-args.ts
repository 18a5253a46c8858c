/** The flags every command shares, turned into `SessionOptions`: EPs and their options, level, threads, profile, optimized-model output. */
import type { InferenceSession, SessionOptions } from '@switchyard/core';
import { CliError } from './cli-error.js';
import { resolveEpSpecs } from './ep-options.js';

export type Level = 'disabled' | 'basic' | 'extended' | 'all';
export const LEVELS: readonly Level[] = ['disabled', 'basic', 'extended', 'all'];

export interface SessionArgs {
  /** `--ep` values, as given (repeatable). */
  ep?: string[];
  /** `--ep-options FILE`. */
  epOptions?: string;
  level?: Level;
  threads?: number;
  /** `--save-optimized FILE`: the optimized model as ONNX. */
  saveOptimized?: string;
  /** `--profile FILE`: a Chrome trace of the runs. */
  profile?: string;
  /** `--partitioning first-capable|cost`. */
  partitioning?: 'first-capable' | 'cost';
  /** `--free-dim NAME=SIZE` (repeatable): freeDimensionOverrides. */
  freeDims?: Record<string, number>;
}

export function parsePartitioning(value: string | undefined): SessionArgs['partitioning'] {
  if (value === undefined) return undefined;
  if (value !== 'first-capable' && value !== 'cost') throw new CliError(`--partitioning takes first-capable|cost, got '${value}'`);
  return value;
}

/** `--free-dim batch=8` (repeatable) → `{ batch: 8 }`. */
export function parseFreeDims(values: readonly string[] | undefined): Record<string, number> | undefined {
  if (!values?.length) return undefined;
  const dims: Record<string, number> = {};
  for (const v of values) {
    const m = /^([^=]+)=(\d+)$/.exec(v);
    if (!m || Number(m[2]) < 1 || !Number.isSafeInteger(Number(m[2]))) throw new CliError(`--free-dim takes NAME=SIZE with a positive size, got '${v}'`);
    dims[m[1]] = Number(m[2]);
  }
  return dims;
}

export function parseLevel(value: string | undefined, flag = '--level'): Level | undefined {
  if (value === undefined) return undefined;
  if (!(LEVELS as string[]).includes(value)) throw new CliError(`${flag} takes ${LEVELS.join('|')}, got '${value}'`);
  return value as Level;
}

/**
 * Session options and the EP names in priority order, for display. `extra` adds what a command
 * sets itself (e.g. a log level when its own output already states each EP's state and reason).
 */
export function sessionOptionsFrom(args: SessionArgs, extra: SessionOptions = {}): { options: SessionOptions; names: string[] } {
  const { configs, names } = resolveEpSpecs(args.ep, args.epOptions);
  const options: SessionOptions = {
    executionProviders: configs,
    intraOpNumThreads: args.threads,
    graphOptimizationLevel: args.level,
    optimizedModelFilePath: args.saveOptimized,
    enableProfiling: args.profile !== undefined,
    ...(args.partitioning ? { partitioning: args.partitioning } : {}),
    ...(args.freeDims ? { freeDimensionOverrides: args.freeDims } : {}),
    ...extra,
  };
  return { options, names };
}

/** Writes the session's trace to `--profile FILE` (when given) and says where. */
export function finishProfile(session: InferenceSession, path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  return session.endProfiling(path);
}

/** Trace events of nodes, slowest first (summed per node over the runs so far). */
export function slowestNodes(session: InferenceSession, count = 10): Array<{ name: string; op: string; ep: string; ms: number; calls: number }> {
  const byNode = new Map<string, { name: string; op: string; ep: string; ms: number; calls: number }>();
  for (const e of session.profileEvents) {
    if (e.op === 'Session') continue;
    const entry = byNode.get(e.name) ?? { name: e.name, op: e.op, ep: e.ep, ms: 0, calls: 0 };
    entry.ms += e.end - e.start;
    entry.calls++;
    byNode.set(e.name, entry);
  }
  return [...byNode.values()].sort((a, b) => b.ms - a.ms).slice(0, count);
}
