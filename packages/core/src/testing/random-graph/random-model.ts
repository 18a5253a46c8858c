/**
 * Seeded random models for differential testing of optimization levels: valid graphs from a broad
 * set of ops with broadcasting shapes, the patterns the basic passes and the CPU EP's fusions look
 * for, several outputs (some also read inside the graph), and nodes shuffled in the file, as
 * converters leave them. The same seed always builds the same model.
 */
import { Graph, subgraphsOf, type Model } from '../../ir/graph.js';
import type { Tensor } from '../../tensor/tensor.js';
import { binary, clip, divide, float16Island, unary } from './elementwise-ops.js';
import { GraphBuilder, type RandomValue } from './graph-builder.js';
import { attention, convBlock, convChain, geluDecomposed, layerNormDecomposed, matMulBias, paddedWindow, skipLayerNorm } from './fusion-patterns.js';
import { batchNorm, conv, einsum, gemm, layerNorm, matMul, pool, reduce, softmax } from './nn-ops.js';
import { deadBranch, duplicate, foldable, identityChain, ifNode, loopNode, nearDuplicates } from './pass-patterns.js';
import { Random } from './random.js';
import { concat, expand, flatten, gather, reshape, shapeArithmetic, shapeChainReshape, slice, split, squeezeOrUnsqueeze, transpose } from './shape-ops.js';

export interface RandomModelOptions {
  /** Nodes to grow to, about (default: 8 to 40, by seed). */
  nodes?: number;
  /** Shuffle the node list (and every subgraph's), as converters may leave it (default true). */
  shuffle?: boolean;
}

export interface RandomModel {
  seed: number;
  model: Model;
  /** A value for every graph input. */
  feeds: Record<string, Tensor>;
  /** Outputs computed bit-identically at every optimization level (integers, moved elements). */
  exactOutputs: ReadonlySet<string>;
  /** Outputs computed through float16 arithmetic: compared at float16's precision. */
  float16Outputs: ReadonlySet<string>;
}

type Generator = (b: GraphBuilder) => RandomValue | RandomValue[] | undefined;

const GENERATORS: ReadonlyArray<readonly [Generator, number]> = [
  [unary, 6], [clip, 2], [binary, 8], [divide, 2], [float16Island, 1],
  [reshape, 3], [shapeChainReshape, 2], [shapeArithmetic, 1], [flatten, 1], [transpose, 2], [concat, 2],
  [slice, 2], [gather, 2], [squeezeOrUnsqueeze, 1], [expand, 1], [split, 1],
  [matMul, 3], [gemm, 2], [einsum, 1], [conv, 3], [batchNorm, 1], [pool, 2], [softmax, 1], [layerNorm, 1], [reduce, 2],
  [convBlock, 4], [matMulBias, 3], [layerNormDecomposed, 2], [geluDecomposed, 3], [attention, 1], [skipLayerNorm, 1], [convChain, 3], [paddedWindow, 2],
  [duplicate, 3], [nearDuplicates, 2], [identityChain, 2], [foldable, 2], [deadBranch, 1], [ifNode, 1], [loopNode, 1],
];

/** The inputs a graph starts from: an image, a sequence, a matrix (one to three of them). */
function addInputs(b: GraphBuilder): void {
  const r = b.rng;
  // A symbolic leading dim in the declared shape (the feed is concrete): fusions must handle symbols.
  const symbolic = r.chance(0.25);
  const declare = (shape: number[]) => (symbolic ? ['N', ...shape.slice(1)] : shape);
  const batch = r.int(1, 2);
  const kinds = r.shuffle(['image', 'sequence', 'matrix'] as const).slice(0, r.int(1, 3));
  for (const kind of kinds) {
    let shape: number[];
    if (kind === 'image') shape = [batch, r.pick([1, 2, 3, 4, 8, 16]), r.int(3, 10), r.int(3, 10)];
    else if (kind === 'sequence') shape = [batch, r.int(1, 8), r.pick([4, 6, 8, 12, 16])];
    else shape = [r.int(1, 8), r.int(1, 16)];
    b.input('float32', shape, kind === 'matrix' ? shape : declare(shape));
  }
}

export function randomModel(seed: number, options: RandomModelOptions = {}): RandomModel {
  const r = new Random(seed);
  // Mostly opset 17; some graphs at 13, 15 or 18, where ops are spelled differently (reduction axes as
  // inputs from 18, no LayerNormalization before 17) and fusions take other paths.
  const opset = r.weighted([[17, 5], [18, 2], [13, 1], [15, 1]] as const);
  const graph = new Graph({ name: `random_${seed}`, opsetImports: new Map([['', opset]]) });
  const b = new GraphBuilder(r, graph);
  addInputs(b);
  const target = options.nodes ?? r.int(8, 40);
  for (let attempts = 0; graph.nodes.length < target && attempts < target * 4; attempts++) {
    r.weighted(GENERATORS)(b);
  }
  chooseOutputs(b);
  if (options.shuffle !== false) shuffleNodes(graph, r);
  const valueOf = (name: string) => b.values.find((v) => v.name === name);
  const exactOutputs = new Set(graph.outputs.map((o) => o.name).filter((name) => valueOf(name)?.exact));
  const float16Outputs = new Set(graph.outputs.map((o) => o.name).filter((name) => valueOf(name)?.viaFloat16));
  return {
    seed,
    model: {
      irVersion: 8,
      opsetImports: graph.opsetImports,
      producerName: 'switchyard-random-model',
      producerVersion: '',
      domain: '',
      modelVersion: 1,
      docString: `randomModel(${seed})`,
      metadata: new Map(),
      graph,
      functionNames: [],
    },
    feeds: Object.fromEntries(b.feeds),
    exactOutputs,
    float16Outputs,
  };
}

/**
 * One to four outputs: the newest value, and others at random (some of them read further inside the
 * graph), rarely a graph input as well.
 */
function chooseOutputs(b: GraphBuilder): void {
  const produced = new Set<string>();
  for (const n of b.graph.nodes) for (const o of n.outputs) if (o) produced.add(o);
  const candidates = b.values.filter((v) => produced.has(v.name));
  if (candidates.length === 0) {
    const x = b.values.find((v) => v.dtype === 'float32')!;
    candidates.push(b.op('Relu', [x], { dtype: 'float32', shape: x.shape, mag: x.mag }));
  }
  const chosen = new Set<RandomValue>([candidates[candidates.length - 1]]);
  for (let k = b.rng.int(0, 3); k > 0; k--) chosen.add(b.rng.pick(candidates));
  // Rarely a graph input is passed straight through as an output too.
  if (b.rng.chance(0.03)) chosen.add(b.values.find((v) => b.feeds.has(v.name))!);
  b.graph.outputs = [...chosen].map((v) => ({ name: v.name, type: { kind: 'tensor', elemType: v.dtype } }));
}

function shuffleNodes(graph: Graph, r: Random): void {
  r.shuffle(graph.nodes);
  for (const n of graph.nodes) for (const g of subgraphsOf(n)) shuffleNodes(g, r);
}
