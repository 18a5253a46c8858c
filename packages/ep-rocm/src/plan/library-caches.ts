/**
 * What a plan's stream will take from the libraries, read from native-hip's caches of earlier
 * searches (native-hip/README.md: text files per device and library version in the convolution
 * cache directory, lines `<key>\t<value>`, a later line for a key winning):
 *
 * - the DNN workspace: a plan build prepares each Conv step with the library (whichever form then
 *   runs it) and grows its stream's one workspace to the step's algorithm's need, in step order; each
 *   growth takes a new block from the default arena (the old one stays cached there, too small for
 *   the next), so the device memory taken is the sum of the growths. A problem with no cached answer
 *   (a first search, or convAlgoSearch DEFAULT) counts as 0.
 * - whether a Conv step prepares its im2col + GEMM form (and so a BLAS handle): not when the cached
 *   form of its problem is the library's, nor with tuning off.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanBuffer, PlanStepDescription } from './plan-description.js';

/** Cached workspace bytes by problem key. */
export type ConvAlgoCache = ReadonlyMap<string, number>;
/** The forms ('gemm', 'library') cached for each Conv problem, keyed without the epilogue (bias, residual, activation). */
export type ConvFormCache = ReadonlyMap<string, ReadonlySet<string>>;

/** native-hip's dnn/algo_cache.cc ResolveCacheDir with no directory requested: '' when there is none. */
export function convAlgoCacheDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const chosen = env.SWITCHYARD_CONV_ALGO_CACHE;
  if (chosen) return chosen === '-' ? '' : chosen;
  if (env.XDG_CACHE_HOME) return `${env.XDG_CACHE_HOME}/switchyard/conv-algos`;
  if (env.HOME) return `${env.HOME}/.cache/switchyard/conv-algos`;
  return '';
}

/** algo_cache.cc DeviceCacheName: `sm_90-NVIDIA_H200`, `gfx90a_sramecc__xnack--AMD_Instinct_MI210`. */
export function deviceCacheName(device: { name: string; major: number; minor: number; archName: string }, platform: 'amd' | 'nvidia'): string {
  const raw = platform === 'nvidia' ? `sm_${device.major}${device.minor}-${device.name}` : `${device.archName}-${device.name}`;
  return raw.replace(/[^A-Za-z0-9_-]/g, '_');
}

/** The entries of the most recently written file in `dir` whose name starts with `prefix` (several library versions may have left theirs). */
function readCacheFile(dir: string, prefix: string, accept: (file: string) => boolean = () => true): Map<string, string[]> {
  const entries = new Map<string, string[]>();
  if (!dir) return entries;
  let files: string[];
  try {
    files = readdirSync(dir).filter((f) => f.endsWith('.txt') && f.startsWith(prefix) && accept(f));
  } catch {
    return entries;
  }
  const newest = files.map((f) => ({ f, at: statSync(join(dir, f)).mtimeMs })).sort((a, b) => b.at - a.at)[0];
  if (!newest) return entries;
  for (const line of readFileSync(join(dir, newest.f), 'utf8').split('\n')) {
    const [key, ...value] = line.split('\t');
    if (key && value.length > 0) entries.set(key, value);
  }
  return entries;
}

/** Cached workspace bytes by convolution problem key (`<device>-cudnn<version>.txt` or `-miopen`). */
export function readConvAlgoCache(dir: string, deviceName: string): ConvAlgoCache {
  const entries = new Map<string, number>();
  const library = (f: string) => f.startsWith(`${deviceName}-cudnn`) || f.startsWith(`${deviceName}-miopen`);
  for (const [key, [algo, bytes]] of readCacheFile(dir, `${deviceName}-`, library)) {
    if (algo !== undefined && bytes !== undefined && /^\d+$/.test(bytes)) entries.set(key, Number(bytes));
  }
  return entries;
}

/** Cached Conv forms (`<device>-convform-<library><version>.txt`): by problem, without its epilogue, the forms seen. */
export function readConvFormCache(dir: string, deviceName: string): ConvFormCache {
  const forms = new Map<string, Set<string>>();
  for (const [key, [form]] of readCacheFile(dir, `${deviceName}-convform-`)) {
    if (form !== 'gemm' && form !== 'library') continue;
    const problem = key.slice(0, key.lastIndexOf('|') + 1);
    if (!forms.has(problem)) forms.set(problem, new Set());
    forms.get(problem)!.add(form);
  }
  return forms;
}

/**
 * dnn_cudnn.cc ProblemKey of a Conv / ConvNHWC step (attrs [group, pads t l b r, strides h w,
 * dilations h w, search, ...]; X [n,c,h,w] or [n,h,w,c]; W [k,c/g,kh,kw] or [k,kh,kw,c/g]), or
 * undefined for other steps and for convAlgoSearch DEFAULT (which the cache does not keep).
 */
export function convProblemKey(step: PlanStepDescription, buffers: readonly PlanBuffer[]): string | undefined {
  const search = step.attrs[9];
  const p = convProblem(step, buffers);
  if (!p || (search !== 1 && search !== 2)) return undefined;
  const fields = [p.n, p.c, p.h, p.w, p.k, p.kh, p.kw, p.group, p.pads[0], p.pads[1], p.strides[0], p.strides[1], p.dilations[0], p.dilations[1], 0, 0];
  return `fwd${p.nhwc ? '-nhwc' : ''}|${p.half ? 'f16' : 'f32'}|${search === 2 ? 'x' : 'h'}|${p.integer ? 'int|' : ''}${fields.map((f) => `${f},`).join('')}`;
}

/** conv_gemm.cc ConvFormKey of a Conv step up to its epilogue flags (`…|d1,1|`). */
export function convFormProblem(step: PlanStepDescription, buffers: readonly PlanBuffer[]): string | undefined {
  const p = convProblem(step, buffers);
  if (!p) return undefined;
  return `${p.nhwc ? 'nhwc|' : ''}${p.integer ? 'int|' : ''}${p.half ? 1 : 0}|${p.n},${p.c},${p.h},${p.w}|${p.k},${p.kh},${p.kw}|g${p.group}|p${p.pads.join(',')}|s${p.strides.join(',')}|d${p.dilations.join(',')}|`;
}

/** A Conv / ConvNHWC step's problem as step_ops_dnn.cc ConvDesc reads it from the attrs and buffers. */
function convProblem(step: PlanStepDescription, buffers: readonly PlanBuffer[]) {
  if ((step.op !== 'Conv' && step.op !== 'ConvNHWC' && step.op !== 'ConvIntegerF32') || step.inputs[0] < 0 || step.inputs[1] < 0) return undefined;
  const nhwc = step.op === 'ConvNHWC';
  const x = buffers[step.inputs[0]];
  const w = buffers[step.inputs[1]].dims;
  if (x.dims.length !== 4 || w.length !== 4) return undefined;
  const [n, c, h, wd] = nhwc ? [x.dims[0], x.dims[3], x.dims[1], x.dims[2]] : x.dims;
  const [kh, kw] = nhwc ? [w[1], w[2]] : [w[2], w[3]];
  const a = step.attrs;
  return { nhwc, integer: step.op === 'ConvIntegerF32', half: x.dtype === 10, n, c, h, w: wd, k: w[0], kh, kw, group: a[0], pads: a.slice(1, 5), strides: a.slice(5, 7), dilations: a.slice(7, 9) };
}

/** The device memory the plan's DNN workspace takes: the sum of its growths over the Conv steps, in order. */
export function dnnWorkspaceBytes(steps: readonly PlanStepDescription[], buffers: readonly PlanBuffer[], cache: ConvAlgoCache): number {
  let held = 0;
  let taken = 0;
  for (const step of steps) {
    const key = convProblemKey(step, buffers);
    const need = key === undefined ? 0 : (cache.get(key) ?? 0);
    if (need <= held) continue;
    held = need;
    taken += Math.ceil(need / 256) * 256;
  }
  return taken;
}
