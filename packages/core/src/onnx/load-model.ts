/** `loadModel`: a path or bytes → Model, with external data resolved beside the model. */
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { SwitchyardError } from '../errors.js';
import type { Model } from '../ir/graph.js';
import type { ExternalDataReader, RawDataSource } from './decode-tensor.js';
import { decodeModel } from './decode-model.js';
import { type ExternalDataFiles, externalDataFiles } from './external-data.js';
import { readModelFile } from './read-model-file.js';

export interface LoadModelOptions {
  /**
   * Folder that external data `location`s are relative to. Defaults to the model file's folder when
   * loading from a path; required when loading bytes of a model with external data.
   */
  baseDir?: string;
  /** Upper bound on the external data bytes one model may read. Default: no bound beyond tensor size limits. */
  maxExternalBytes?: number;
}

/** Loads an ONNX model (ModelProto) from a file path or its bytes. */
export async function loadModel(source: string | Uint8Array, options: LoadModelOptions = {}): Promise<Model> {
  let bytes: Uint8Array;
  let baseDir = options.baseDir;
  let hoisted: Map<number, Uint8Array> | undefined;
  if (typeof source === 'string') {
    try {
      // Large initializer payloads come in buffers of their own, so the weights are never held twice.
      ({ bytes, rawData: hoisted } = await readModelFile(source));
    } catch (e) {
      throw new SwitchyardError('INVALID_ARGUMENT', `cannot read model file '${source}': ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    baseDir ??= path.dirname(path.resolve(source));
  } else if (source instanceof Uint8Array) {
    bytes = source;
  } else {
    throw new SwitchyardError('INVALID_ARGUMENT', 'loadModel: source must be a file path or a Uint8Array');
  }
  const what = typeof source === 'string' ? `model '${source}'` : 'model bytes';

  let files: ExternalDataFiles | undefined;
  const external: ExternalDataReader = (req) => {
    if (baseDir === undefined) {
      throw new SwitchyardError(
        'INVALID_ARGUMENT',
        `tensor '${req.tensor}' keeps its data in external file '${req.location}', but the model was given as bytes: pass options.baseDir`,
      );
    }
    files ??= externalDataFiles(baseDir, options.maxExternalBytes);
    return files.read(req);
  };
  try {
    if (!hoisted?.size) return decodeModel(bytes, external);
    const taken = new Set<number>();
    const rawData: RawDataSource = {
      take(start, length) {
        const own = hoisted!.get(start);
        if (own?.length !== length) return undefined;
        taken.add(start);
        return own;
      },
    };
    const model = decodeModel(bytes, external, rawData);
    if (taken.size === hoisted.size) return model;
    // A payload the decoder did not ask for (a repeated raw_data field, say) means the zeroed ranges
    // may have been read as data: decode again from the whole file.
    files?.close();
    files = undefined;
    return decodeModel(await readFile(source as string), external);
  } catch (e) {
    if (e instanceof SwitchyardError && typeof source === 'string') {
      throw new SwitchyardError(e.code, `${what}: ${e.message}`, { cause: e });
    }
    throw e;
  } finally {
    files?.close();
  }
}
