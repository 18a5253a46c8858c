/**
 * The two engines behind one shape: create a session at a thread count, turn plain inputs into the
 * engine's tensors once (outside the timed region), run, release. Each engine's package is
 * imported only when asked for, so an RSS child holds one engine, not both.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { ROOT } from './models.mjs';

export const ENGINES = ['switchyard', 'ort'];
export const ENGINE_LABELS = { switchyard: 'Switchyard CPU EP', ort: 'onnxruntime-node CPU EP' };

const require = createRequire(import.meta.url);

function packageVersion(name) {
  return JSON.parse(readFileSync(require.resolve(`${name}/package.json`, { paths: [ROOT] }), 'utf8')).version;
}

/** Versions of the packages under test, for the results file. The workspace packages' `exports` hide their package.json. */
export function engineVersions() {
  const workspace = (dir) => JSON.parse(readFileSync(`${ROOT}/packages/${dir}/package.json`, 'utf8')).version;
  // The bench runs packages/*/dist: when it was built says which sources were measured.
  const built = (dir) => statSync(`${ROOT}/packages/${dir}/dist/index.js`).mtime.toISOString();
  return {
    '@switchyard/core': workspace('core'),
    '@switchyard/core dist built': built('core'),
    '@switchyard/ep-cpu dist built': built('ep-cpu'),
    '@switchyard/ep-cpu': workspace('ep-cpu'),
    'onnxruntime-node': packageVersion('onnxruntime-node'),
  };
}

/**
 * @param {'switchyard' | 'ort'} name
 * @param {string} modelPath
 * @param {number} threads intra-op threads
 * @param {'all' | 'disabled'} [level] graphOptimizationLevel, the same for both engines (default 'all')
 */
export async function createEngine(name, modelPath, threads, level = 'all') {
  if (name === 'switchyard') return createSwitchyard(modelPath, threads, level);
  if (name === 'ort') return createOrt(modelPath, threads, { graphOptimizationLevel: level });
  throw new Error(`unknown engine '${name}'; expected one of ${ENGINES.join(', ')}`);
}

let switchyardRegistered = false;

async function createSwitchyard(modelPath, threads, level) {
  const core = await import('@switchyard/core');
  const cpu = await import('@switchyard/ep-cpu');
  if (!switchyardRegistered) {
    core.registerExecutionProvider(cpu.executionProviderFactory);
    switchyardRegistered = true;
  }
  const session = await core.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    graphOptimizationLevel: level,
    logSeverityLevel: 3,
  });
  const cpuSummary = session.placement.providers.find((p) => p.name === 'cpu');
  return {
    name: 'switchyard',
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    /** What actually ran: TS kernels only, or with the oneDNN addon. */
    describe: cpuSummary?.description ?? session.providers[0]?.describe?.(),
    /** The addon's oneDNN version, ISA and channel block (undefined: TS kernels only). */
    native: session.providers.find((p) => p.name === 'cpu')?.native,
    nodes: session.placement.totalNodes,
    /** Nodes per kernel implementation (e.g. ts, onednn): which ops took the native fast path. */
    implementations: countBy(session.placement.nodes, (n) => n.implementation),
    makeFeeds: (inputs) => mapValues(inputs, (v) => new core.Tensor(v.type, v.data, v.dims)),
    run: (feeds) => session.run(feeds),
    release: () => session.release(),
  };
}

async function createOrt(modelPath, threads, extra = {}) {
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(modelPath, {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    logSeverityLevel: 3,
    ...extra,
  });
  return {
    name: 'ort',
    inputNames: session.inputNames,
    outputNames: session.outputNames,
    describe: `onnxruntime-node ${packageVersion('onnxruntime-node')} (bundled CPU runtime)`,
    nodes: undefined,
    makeFeeds: (inputs) => mapValues(inputs, (v) => new ort.Tensor(v.type, v.data, v.dims)),
    run: (feeds) => session.run(feeds),
    release: () => session.release(),
  };
}

/**
 * How many nodes onnxruntime keeps after its own optimizations: writes its optimized model and
 * counts the nodes with Switchyard's loader. Used for the chain, where µs per node assumes that
 * neither engine removed nodes.
 */
export async function ortOptimizedNodeCount(modelPath, outPath, level = 'all') {
  const engine = await createOrt(modelPath, 1, { optimizedModelFilePath: outPath, graphOptimizationLevel: level });
  await engine.release();
  const { loadModel } = await import('@switchyard/core');
  const model = await loadModel(new Uint8Array(readFileSync(outPath)));
  return model.graph.nodes.length;
}

function countBy(items, key) {
  const counts = {};
  for (const item of items) counts[key(item)] = (counts[key(item)] ?? 0) + 1;
  return counts;
}

function mapValues(obj, fn) {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fn(v)]));
}
