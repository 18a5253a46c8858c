// Every partition, serialized alone, must be a valid ONNX model that computes what the same nodes
// compute inside the whole model. The session below hands each fused partition to a test EP whose
// compile() serializes it, reloads it with loadModel and runs it on ep-cpu alone; the core feeds each
// partition's outputs to the next, so the final outputs agree with an all-cpu run only if every
// partition's inputs, outputs, initializers and opsets were carried over faithfully.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  InferenceSession,
  Tensor,
  decodeTensor,
  loadModel,
  registerExecutionProvider,
  type CapabilityResult,
  type ExecutionProvider,
  type FusedPartition,
  type Graph,
  type Model,
  type Node,
  type RuntimeValue,
} from '@switchyard/core';
import { compareTensors } from '@switchyard/core/testing';
import { executionProviderFactory as cpuFactory } from '@switchyard/ep-cpu';
import { migraphxCapability } from '../capability/migraphx-capability.js';
import { STATIC_MIGRAPHX_ONNX_OPERATORS } from '../static-op-table.js';
import { encoderFeeds, seededRandom, tinyEncoder } from '../testing/tiny-encoder.js';
import { irVersionForOpset, serializePartition } from './partition-model.js';

registerExecutionProvider(cpuFactory);

const repoRoot = join(import.meta.dirname, '..', '..', '..', '..');
const PYTORCH = '/usr/share/libonnx-testdata/data/pytorch-converted';

type Cut = (graph: Graph, assigned: ReadonlySet<Node>) => CapabilityResult;

/** Consecutive runs of `size` unassigned nodes in topological order: always contractible, never connected on purpose. */
const chunks = (size: number): Cut => (graph, assigned) => {
  const free = graph.nodes.filter((n) => !assigned.has(n));
  const capabilities: CapabilityResult['capabilities'] = [];
  for (let i = 0; i < free.length; i += size) capabilities.push({ kind: 'fused', nodes: free.slice(i, i + size) });
  return { capabilities, declined: new Map() };
};

/** The EP's own rule, on the static table: the nodes MIGraphX would take, the rest to cpu. */
const migraphxLike: Cut = (graph, assigned) =>
  migraphxCapability(graph, assigned, { operators: new Set(STATIC_MIGRAPHX_ONNX_OPERATORS), operatorSource: 'static', minPartitionNodes: 1, minPartitionFlops: 0 });

/** Compiles a partition by serializing it, reloading the bytes and opening an ep-cpu session on them. */
class SerializingProvider implements ExecutionProvider {
  readonly name = 'serialized';
  readonly partitions: Array<{ partition: FusedPartition; reloaded: Model; bytes: number }> = [];
  readonly #sessions: InferenceSession[] = [];
  constructor(readonly cut: Cut) {}

  getCapability(graph: Graph, ctx: { assigned: ReadonlySet<Node> }): CapabilityResult {
    return this.cut(graph, ctx.assigned);
  }

  async compile(partition: FusedPartition) {
    const bytes = serializePartition(partition);
    const reloaded = await loadModel(bytes);
    const g = reloaded.graph;
    // The standalone model declares exactly the partition's boundary and the weights it reads.
    expect(g.inputs.map((i) => i.name)).toEqual(partition.inputNames);
    expect(g.outputs.map((o) => o.name)).toEqual(partition.outputNames);
    expect([...g.initializers.keys()].sort()).toEqual([...partition.graph.initializers.keys()].sort());
    for (const o of g.outputs) expect(o.type).toEqual(partition.graph.typeOf(o.name));
    expect(reloaded.opsetImports.get('')).toBe(partition.graph.opsetFor(''));
    expect(g.nodes.map((n) => n.opType)).toEqual(partition.nodes.map((n) => n.opType));
    this.partitions.push({ partition, reloaded, bytes: bytes.length });
    const session = await InferenceSession.fromModel(reloaded, { executionProviders: ['cpu'] });
    this.#sessions.push(session);
    return {
      run: async (inputs: RuntimeValue[]) => {
        const feeds = Object.fromEntries(partition.inputNames.map((name, i) => [name, inputs[i] as Tensor]));
        const out = await session.run(feeds);
        return partition.outputNames.map((name) => out[name] as RuntimeValue);
      },
    };
  }

  async dispose() {
    await Promise.all(this.#sessions.map((s) => s.release()));
  }
}

function randomFeeds(session: InferenceSession, seed: number): Record<string, Tensor> {
  const random = seededRandom(seed);
  return Object.fromEntries(
    session.inputMetadata.map((m) => {
      const dims = (m.shape ?? []).map((d) => (typeof d === 'number' && d > 0 ? d : 1));
      const size = dims.reduce((a, b) => a * b, 1);
      if (m.type !== 'float32') throw new Error(`randomFeeds: ${m.name} is ${m.type}`);
      return [m.name, new Tensor('float32', Float32Array.from({ length: size }, () => random() * 2 - 1), dims)];
    }),
  );
}

/** The backend test's stored inputs, which belong to the graph inputs that are not initializers, in order. */
function backendFeeds(dir: string, session: InferenceSession): Record<string, Tensor> {
  const data = join(dir, 'test_data_set_0');
  const graph = session.model.graph;
  const names = graph.inputs.filter((i) => !graph.initializers.has(i.name)).map((i) => i.name);
  return Object.fromEntries(names.map((name, i) => [name, decodeTensor(readFileSync(join(data, `input_${i}.pb`)))]));
}

const opened: Array<InferenceSession | SerializingProvider> = [];
afterAll(async () => {
  for (const o of opened) await ('release' in o ? o.release() : o.dispose());
});

/** Runs `model` whole on cpu and cut by `cut`; returns the partitions made. */
async function expectSameAsWhole(load: () => Promise<Model>, feedsFor: (s: InferenceSession) => Record<string, Tensor>, cut: Cut, minPartitions: number) {
  const whole = await InferenceSession.fromModel(await load(), { executionProviders: ['cpu'] });
  opened.push(whole);
  const ep = new SerializingProvider(cut);
  opened.push(ep);
  const split = await InferenceSession.fromModel(await load(), { executionProviders: [ep, 'cpu'] });
  opened.push(split);
  expect(ep.partitions.length).toBeGreaterThanOrEqual(minPartitions);
  const feeds = feedsFor(whole);
  const expected = await whole.run(feeds);
  const actual = await split.run(feeds);
  for (const name of whole.outputNames) {
    const problem = compareTensors(actual[name] as Tensor, expected[name] as Tensor, { atol: 1e-5, rtol: 1e-4 });
    expect(problem, name).toBeUndefined();
  }
  return ep.partitions;
}

const BACKEND_MODELS = [
  'test_Conv2d', 'test_Conv2d_groups', 'test_BatchNorm2d_eval', 'test_GLU', 'test_Embedding', 'test_PixelShuffle',
  'test_MaxPool2d', 'test_LogSoftmax', 'test_Linear', 'test_PReLU_2d', 'test_ConvTranspose2d', 'test_ReflectionPad2d',
  'test_Softmin', 'test_softmax_functional_dim3', 'test_AvgPool3d_stride', 'test_ELU',
].filter((name) => existsSync(join(PYTORCH, name, 'model.onnx')));

describe('serializePartition', () => {
  it('picks the lowest IR version an opset allows', () => {
    expect([7, 11, 13, 17, 18, 21].map(irVersionForOpset)).toEqual([3, 6, 7, 8, 9, 10]);
  });

  it.each([1, 2, 3])('tiny-cnn.onnx cut into chunks of %i node(s) computes what the whole model does', async (size) => {
    const path = join(repoRoot, 'examples', 'models', 'tiny-cnn.onnx');
    const parts = await expectSameAsWhole(() => loadModel(path), (s) => randomFeeds(s, size), chunks(size), 3);
    // Weights travel with the partitions that read them, and nowhere else.
    const weightUsers = parts.filter((p) => p.partition.graph.initializers.size > 0);
    expect(weightUsers.length).toBeGreaterThan(0);
    for (const p of parts) for (const name of p.partition.graph.initializers.keys()) expect(p.partition.nodes.some((n) => n.inputs.includes(name))).toBe(true);
  });

  it('tiny-cnn.onnx cut the way the MIGraphX EP cuts it', async () => {
    const path = join(repoRoot, 'examples', 'models', 'tiny-cnn.onnx');
    await expectSameAsWhole(() => loadModel(path), (s) => randomFeeds(s, 9), migraphxLike, 1);
  });

  it.each(BACKEND_MODELS)('pytorch-converted/%s, one node per partition', async (name) => {
    const dir = join(PYTORCH, name);
    await expectSameAsWhole(() => loadModel(join(dir, 'model.onnx')), (s) => backendFeeds(dir, s), chunks(1), 1);
  });

  it.each([1, 4, 7])('a BERT-style encoder in chunks of %i', async (size) => {
    const parts = await expectSameAsWhole(async () => tinyEncoder(2), () => encoderFeeds(2), chunks(size), 5);
    // Some partition starts mid-attention: its inputs are intermediate values, not model inputs.
    expect(parts.some((p) => p.partition.inputNames.some((n) => !['input_ids', 'attention_mask'].includes(n)))).toBe(true);
  });

  it('a BERT-style encoder with a symbolic batch, cut the way the MIGraphX EP cuts it', async () => {
    const parts = await expectSameAsWhole(async () => tinyEncoder('batch'), () => encoderFeeds(3), migraphxLike, 1);
    const inputs = parts[0].reloaded.graph.inputs;
    expect(inputs.find((i) => i.name === 'input_ids')?.type).toEqual({ kind: 'tensor', elemType: 'int64', shape: ['batch', 8] });
  });

  const squeezenet = join(repoRoot, 'models', 'squeezenet1_1', 'model.onnx');
  it.skipIf(!existsSync(squeezenet))('squeezenet1_1 cut the way the MIGraphX EP cuts it, and in chunks of 10', async () => {
    await expectSameAsWhole(() => loadModel(squeezenet), (s) => randomFeeds(s, 4), chunks(10), 3);
    await expectSameAsWhole(() => loadModel(squeezenet), (s) => randomFeeds(s, 5), migraphxLike, 1);
  });

  it('refuses partitions whose weights exceed what one protobuf message holds', () => {
    const g = tinyEncoder().graph;
    const huge = { type: 'float32', size: 2 ** 29, dims: [2 ** 29] } as unknown as Tensor;
    g.initializers.set('huge', huge);
    expect(() => serializePartition({ name: 'p', graph: g })).toThrow(/reads \d+ bytes of initializers; an ONNX model passed as one buffer holds less than 2 GiB/);
  });
});

describe('partition fixtures', () => {
  it('the pytorch-converted models are installed', () => {
    expect(readdirSync(PYTORCH).length).toBeGreaterThan(10);
    expect(BACKEND_MODELS.length).toBe(16);
  });
});
