// The model cases the GPU benchmarks (bench/gpu) and scripts/gpu-host/opset-copies.mjs use, named `model:case[:precision]` (e.g. `bert:s128:fp16`):
// where a case's files are (committed beside the model, or written by `generate` under
// models/generated/<model>/) and its inputs as core Tensors.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readNpy } from '../lib/npy.mjs';

export const MODELS_ROOT = new URL('../../models/', import.meta.url).pathname;

export function readManifest() {
  return JSON.parse(readFileSync(join(MODELS_ROOT, 'manifest.json'), 'utf8'));
}

/**
 * Resolves one spec to its model file and feeds, or undefined when the case's files are not there.
 * @param {{models: any[]}} manifest
 * @param {string} spec `model:case[:precision]`
 * @param {typeof import('@switchyard/core').Tensor} Tensor
 */
export function loadCase(manifest, spec, Tensor) {
  const [name, caseName, precision = 'fp32'] = spec.split(':');
  const m = manifest.models.find((x) => x.name === name);
  if (!m) return undefined;
  const first = Object.values(m.cases)[0];
  const dir = [join(MODELS_ROOT, m.folder), join(MODELS_ROOT, 'generated', name)].find((d) =>
    existsSync(join(d, `${caseName}.out.${Object.keys(first.outputs)[0]}.npy`)),
  );
  if (!dir) return undefined;
  const own = join(dir, `${caseName}.model.onnx`);
  const model = existsSync(own) ? own : join(MODELS_ROOT, m.folder, m.model);
  const feeds = {};
  for (const input of Object.keys(first.inputs)) {
    const a = readNpy(join(dir, `${caseName}.in.${input}.npy`));
    feeds[input] = new Tensor(a.type, a.data, a.dims);
  }
  return { name, caseName, precision, model, feeds };
}

/**
 * Each spec's case in a session on `[{rocm, fp16 when the precision says so, ...rocmOptions}, 'cpu']`,
 * with the rocm EP's partitions; a spec whose files are missing is reported and skipped. `core` is
 * @switchyard/core, passed in so callers choose when it loads (profile.mjs sets an addon variable first).
 * @param {{models: any[]}} manifest
 * @param {string[]} specs
 * @param {typeof import('@switchyard/core')} core
 */
export async function* rocmSessions(manifest, specs, core, rocmOptions = {}) {
  for (const spec of specs) {
    const found = loadCase(manifest, spec, core.Tensor);
    if (!found) {
      console.log(`${spec}: case files not found`);
      continue;
    }
    const executionProviders = [{ name: 'rocm', fp16: found.precision === 'fp16', ...rocmOptions }, 'cpu'];
    const session = await core.InferenceSession.create(found.model, { executionProviders, logSeverityLevel: 3 });
    yield { ...found, spec, session, parts: session.providers.find((p) => p.name === 'rocm').partitions };
  }
}
