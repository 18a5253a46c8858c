/** `--input name=file.npy|random` → feeds; inputs not named get seeded random values. */
import { randomFeeds, type RandomShapeOptions, type Tensor, type ValueMetadata } from '@switchyard/core';
import { readNpy } from './npy.js';
import { CliError } from './cli-error.js';

/** The .npy tensors named by `--input`; `random` entries are left to `feedsFor`. */
export function givenInputs(specs: readonly string[], inputNames?: readonly string[]): Record<string, Tensor> {
  const given: Record<string, Tensor> = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new CliError(`--input takes name=file.npy or name=random, got '${spec}'`);
    const name = spec.slice(0, eq);
    if (inputNames && !inputNames.includes(name)) throw new CliError(`--input: the model has no input '${name}' (inputs: ${inputNames.join(', ')})`);
    const source = spec.slice(eq + 1);
    if (source !== 'random') given[name] = readNpy(source);
  }
  return given;
}

export function feedsFor(inputs: readonly ValueMetadata[], specs: readonly string[], shape: RandomShapeOptions = {}): Record<string, Tensor> {
  return randomFeeds(inputs, givenInputs(specs, inputs.map((m) => m.name)), 42, shape);
}
