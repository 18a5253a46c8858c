/** What a served model accepts and returns, in the terms request validation needs. */
import type { DataType, InferenceSession } from '@switchyard/core';

export interface TensorSpec {
  name: string;
  type: DataType;
  /** Fixed dims as numbers; dynamic ones as their symbolic name, or -1 when unnamed. Undefined: rank unknown. */
  shape: ReadonlyArray<number | string> | undefined;
}

export interface ModelSignature {
  inputs: readonly TensorSpec[];
  outputs: readonly TensorSpec[];
  /** Inputs with a default (an initializer of the same name): a request may leave them out. */
  optionalInputs: ReadonlySet<string>;
}

export function signatureOf(session: InferenceSession): ModelSignature {
  const spec = (m: InferenceSession['inputMetadata'][number]): TensorSpec => ({
    name: m.name,
    type: (m.type ?? 'float32') as DataType,
    shape: m.shape,
  });
  const initializers = session.model.graph.initializers;
  return {
    inputs: session.inputMetadata.map(spec),
    outputs: session.outputMetadata.map(spec),
    optionalInputs: new Set(session.inputNames.filter((n) => initializers.has(n))),
  };
}

/** A dim is fixed when it is a non-negative number; symbolic names and -1 accept any size. */
export function isFixedDim(d: number | string): d is number {
  return typeof d === 'number' && d >= 0;
}
