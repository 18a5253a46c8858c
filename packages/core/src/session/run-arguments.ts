/**
 * `run(feeds, options)` and `run(feeds, fetches, options)` told apart as onnxruntime-node does: the
 * second argument is fetches when it is an array of output names, or an object with at least one
 * output name as a key (its values `null`, or a Tensor to write that output into); any other object
 * is the run options. Unlike onnxruntime, names that are neither outputs nor options are errors.
 */
import { SwitchyardError } from '../errors.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import { checkRunOptions } from './check-options.js';
import type { ValueMetadata } from './inference-session.js';
import type { RunOptions } from './session-options.js';

export interface RunArguments {
  /** Outputs to return; undefined: all. */
  wanted: ReadonlySet<string> | undefined;
  /** Outputs to write into caller-allocated tensors. */
  preallocated: ReadonlyMap<string, Tensor> | undefined;
  options: RunOptions;
  /** Given options that have no effect here. */
  notes: string[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Tensor);

function outputList(outputs: readonly ValueMetadata[]): string {
  return outputs.map((o) => `'${o.name}'`).join(', ');
}

export function parseRunArguments(outputs: readonly ValueMetadata[], second: unknown, third: unknown): RunArguments {
  const names = outputs.map((o) => o.name);
  const known = (n: string) => names.includes(n);
  let wanted: Set<string> | undefined;
  let preallocated: Map<string, Tensor> | undefined;
  let options: unknown = third;
  if (second === undefined) {
    // run(feeds) or run(feeds, undefined, options)
  } else if (Array.isArray(second)) {
    if (second.length === 0) throw new SwitchyardError('INVALID_ARGUMENT', 'run: fetches cannot be an empty array (omit it to get every output)');
    wanted = new Set();
    for (const n of second) {
      if (typeof n !== 'string') throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches must be output names (strings), got ${typeof n}`);
      if (!known(n)) throw new SwitchyardError('INVALID_ARGUMENT', `run: unknown output '${n}'; the model's outputs are ${outputList(outputs)}`);
      wanted.add(n);
    }
  } else if (second instanceof Tensor) {
    throw new SwitchyardError('INVALID_ARGUMENT', 'run: the second argument cannot be a Tensor: pass fetches ({ outputName: tensor }) or options');
  } else if (isPlainObject(second)) {
    const keys = Object.keys(second);
    if (keys.some(known) || (keys.length === 0 && third !== undefined)) {
      wanted = new Set();
      for (const n of keys) {
        if (!known(n)) throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches names unknown output '${n}'; the model's outputs are ${outputList(outputs)}`);
        const v = second[n];
        if (v instanceof Tensor) (preallocated ??= new Map()).set(n, checkPreallocated(n, v, outputs));
        else if (v !== null) throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches['${n}'] must be null or a Tensor to write the output into, got ${typeof v}`);
        wanted.add(n);
      }
      // {} with options after it: onnxruntime reads it as "no particular outputs", i.e. all.
      if (wanted.size === 0) wanted = undefined;
    } else {
      if (third !== undefined) {
        throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches names no output (${keys.map((k) => `'${k}'`).join(', ')}); the model's outputs are ${outputList(outputs)}`);
      }
      options = second;
    }
  } else {
    throw new SwitchyardError('INVALID_ARGUMENT', `run: the second argument must be fetches (output names, or { outputName: null | Tensor }) or options, got ${second === null ? 'null' : typeof second}`);
  }
  const notes = options === undefined ? [] : checkRunOptions(options, options === second ? names : undefined);
  return { wanted, preallocated, options: (options ?? {}) as RunOptions, notes };
}

function checkPreallocated(name: string, t: Tensor, outputs: readonly ValueMetadata[]): Tensor {
  if (t.location !== 'cpu') throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches['${name}'] is on '${t.location}'; outputs can be written into host (cpu) tensors only`);
  const meta = outputs.find((o) => o.name === name);
  if (meta && !meta.isTensor) throw new SwitchyardError('INVALID_ARGUMENT', `run: output '${name}' is not a tensor; it cannot be written into a Tensor`);
  if (meta?.type !== undefined && meta.type !== t.type) throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches['${name}'] is ${t.type}, but output '${name}' is ${meta.type}`);
  const shape = meta?.shape;
  if (shape && shape.length > 0) {
    const fits = shape.length === t.dims.length && shape.every((d, i) => typeof d !== 'number' || d < 0 || d === t.dims[i]);
    if (!fits) throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches['${name}'] has shape [${t.dims.join(', ')}], but output '${name}' has shape [${shape.join(', ')}]`);
  }
  return t;
}

/** Copies a computed output into the caller's tensor once its shape is known, and returns that tensor. */
export async function writeInto(name: string, target: Tensor, value: RuntimeValue): Promise<Tensor> {
  if (!(value instanceof Tensor)) throw new SwitchyardError('INVALID_ARGUMENT', `run: output '${name}' is not a tensor; it cannot be written into a Tensor`);
  if (value.type !== target.type) throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches['${name}'] is ${target.type}, but output '${name}' is ${value.type}`);
  const same = value.dims.length === target.dims.length && value.dims.every((d, i) => d === target.dims[i]);
  if (!same) throw new SwitchyardError('INVALID_ARGUMENT', `run: fetches['${name}'] has shape [${target.dims.join(', ')}], but this run's output '${name}' has shape [${value.dims.join(', ')}]`);
  if (value === target) return target;
  const data = await value.getData();
  const into = target.data;
  if (Array.isArray(into)) (data as string[]).forEach((s, i) => (into[i] = s));
  else (into as Float32Array).set(data as Float32Array);
  return target;
}
