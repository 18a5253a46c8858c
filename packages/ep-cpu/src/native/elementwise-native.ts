/**
 * Every float32 elementwise op on the addon's elementwise engine (native/src/elementwise_*): the
 * activations, Add/Sub/Mul/Div/Pow/PRelu and the comparisons with full numpy broadcasting, the
 * variadic Sum/Mean/Max/Min, Clip, Where, com.microsoft Gelu/FastGelu, and the chains the elementwise
 * fusion merges (com.switchyard::FusedElementwise). Each def stands before its TS kernel, built beside
 * it: other dtypes, tensors below native-support.ts's sizes, and inputs the TS kernel must reject
 * (Clip bounds that are not scalars, shapes that do not broadcast) go to the TS kernel, which keeps
 * the semantics and the error messages.
 */
import { AttributeReader, SwitchyardError, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node, type Tensor, type ValueType } from '@switchyard/core';
import type { ElementwisePrimitive, NativeBinding } from './binding.js';
import { fromNativeError, withNativeErrors } from './native-errors.js';
import { SMALL_ELEMENTWISE_ELEMENTS, SMALL_TRANSCENDENTAL_ELEMENTS, SYNC_ELEMENTWISE_LIMIT, dispatchFor, effectiveThreads, sameDims, staticDims } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { broadcastShape } from '../math/broadcast.js';
import { legacyDimsOfB } from '../math/elementwise.js';
import { nodeProgram, type NodeProgram } from '../elementwise/node-programs.js';
import { fusedInstructions, isFusedElementwise } from '../elementwise/fused-node.js';
import { hasTranscendental, type ProgramElementType } from '../elementwise/program.js';
import { legacySlopeDims, pReluKernel } from '../kernels/PRelu.js';
import { reluKernel } from '../kernels/Relu.js';
import { leakyReluKernel } from '../kernels/LeakyRelu.js';
import { clipAttributeKernel, clipKernel } from '../kernels/Clip.js';
import { sigmoidKernel } from '../kernels/Sigmoid.js';
import { hardSigmoidKernel } from '../kernels/HardSigmoid.js';
import { hardSwishKernel } from '../kernels/HardSwish.js';
import { tanhKernel } from '../kernels/Tanh.js';
import { erfKernel } from '../kernels/Erf.js';
import { expKernel } from '../kernels/Exp.js';
import { logKernel } from '../kernels/Log.js';
import { sqrtKernel } from '../kernels/Sqrt.js';
import { absKernel } from '../kernels/Abs.js';
import { negKernel } from '../kernels/Neg.js';
import { reciprocalKernel } from '../kernels/Reciprocal.js';
import { floorKernel } from '../kernels/Floor.js';
import { ceilKernel } from '../kernels/Ceil.js';
import { roundKernel } from '../kernels/Round.js';
import { signKernel } from '../kernels/Sign.js';
import { eluKernel } from '../kernels/Elu.js';
import { seluKernel } from '../kernels/Selu.js';
import { celuKernel } from '../kernels/Celu.js';
import { softplusKernel } from '../kernels/Softplus.js';
import { softsignKernel } from '../kernels/Softsign.js';
import { mishKernel } from '../kernels/Mish.js';
import { thresholdedReluKernel } from '../kernels/ThresholdedRelu.js';
import { sinKernel } from '../kernels/Sin.js';
import { cosKernel } from '../kernels/Cos.js';
import { addKernel } from '../kernels/Add.js';
import { subKernel } from '../kernels/Sub.js';
import { mulKernel } from '../kernels/Mul.js';
import { divKernel } from '../kernels/Div.js';
import { powKernel } from '../kernels/Pow.js';
import { maxKernel } from '../kernels/Max.js';
import { minKernel } from '../kernels/Min.js';
import { sumKernel } from '../kernels/Sum.js';
import { meanKernel } from '../kernels/Mean.js';
import { whereKernel } from '../kernels/Where.js';
import { equalKernel } from '../kernels/Equal.js';
import { lessKernel } from '../kernels/Less.js';
import { greaterKernel } from '../kernels/Greater.js';
import { lessOrEqualKernel } from '../kernels/LessOrEqual.js';
import { greaterOrEqualKernel } from '../kernels/GreaterOrEqual.js';
import { fusedGeluKernel } from '../kernels/FusedGelu.js';
import { fastGeluKernel } from '../kernels/FastGelu.js';
import { fusedElementwiseKernel } from '../kernels/FusedElementwise.js';

/** The TS kernels the engine stands in front of (same op, domain and opset range). */
const SERVED: readonly KernelDef[] = [
  reluKernel, leakyReluKernel, clipAttributeKernel, clipKernel, sigmoidKernel, hardSigmoidKernel, hardSwishKernel, tanhKernel, erfKernel,
  expKernel, logKernel, sqrtKernel, absKernel, negKernel, reciprocalKernel, floorKernel, ceilKernel, roundKernel, signKernel, eluKernel,
  seluKernel, celuKernel, softplusKernel, softsignKernel, mishKernel, thresholdedReluKernel, sinKernel, cosKernel, addKernel, subKernel,
  mulKernel, divKernel, powKernel, maxKernel, minKernel, sumKernel, meanKernel, pReluKernel, whereKernel, equalKernel, lessKernel,
  greaterKernel, lessOrEqualKernel, greaterOrEqualKernel, fusedGeluKernel, fastGeluKernel, fusedElementwiseKernel,
];

/** A node's program, or why it has none: the node's own program, or a fused node's with its inputs' types. */
function programOf(node: Node, graph: Graph): NodeProgram | string {
  let instructions;
  try {
    if (!isFusedElementwise(node)) {
      const domain = node.domain === 'ai.onnx' ? '' : node.domain;
      return nodeProgram(node, graph.opsetFor(domain) ?? 1, new AttributeReader(node));
    }
    instructions = fusedInstructions(node);
  } catch (error) {
    return (error as Error).message; // malformed attributes: the TS kernel reports them
  }
  const inputTypes = node.inputs.map((name): ProgramElementType => (graph.elemTypeOf(name) === 'bool' ? 'bool' : 'float32'));
  return { inputs: node.inputs.map((_, i) => i), program: { inputTypes, instructions, outputType: 'float32' }, scalarInputs: [] };
}

/** Why the engine cannot run `program` on the node's inputs (dtypes at session creation, ops of this build). */
function programReason(node: Node, graph: Graph, np: NodeProgram, ops: ReadonlySet<string>): string | undefined {
  for (const ins of np.program.instructions) if (!ops.has(ins.op)) return `this addon build has no elementwise '${ins.op}'`;
  for (let k = 0; k < np.inputs.length; k++) {
    const name = node.inputs[np.inputs[k]];
    const want = np.program.inputTypes[k];
    const got = graph.elemTypeOf(name);
    if (got === undefined) return `input ${np.inputs[k]} dtype is unknown at session creation; the native engine serves float32`;
    if (got !== want) return `input ${np.inputs[k]} is ${got}; the native engine serves ${want} there`;
  }
  return undefined;
}

/** The program's input dims and their broadcast when every input shape is static (undefined otherwise, or when they do not broadcast). */
function staticShapes(np: NodeProgram, typeOf: (input: number) => ValueType | undefined): { inputs: number[][]; output: number[] } | undefined {
  const inputs: number[][] = [];
  for (const i of np.inputs) {
    const dims = staticDims(typeOf(i));
    if (!dims) return undefined;
    inputs.push(dims);
  }
  try {
    return { inputs, output: broadcastShape(inputs) };
  } catch {
    return undefined;
  }
}

const elementsOf = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);

/** Output elements when every input shape is static (undefined otherwise, or when they do not broadcast). */
function staticOutputElements(node: Node, graph: Graph, np: NodeProgram): number | undefined {
  const shapes = staticShapes(np, (i) => graph.typeOf(node.inputs[i]));
  return shapes && elementsOf(shapes.output);
}

/** Whether a run of this output goes to the engine rather than the TS kernel (nonempty, at or above the TS threshold, rank ≤ 12). */
function engineServes(size: number, outputDims: readonly number[], smallLimit: number): boolean {
  return size > 0 && size >= smallLimit && outputDims.length <= 12;
}

/**
 * The input whose memory the output may take (Kernel.inPlace): the first of the output's dims and element
 * type, which the engine reads element by element before writing that element. Decided at session creation
 * and only for static shapes the engine serves (nonempty, at or above the TS threshold): the TS kernel,
 * which takes every other run, asks for a zeroed output, and must never be handed its own input.
 */
function inPlaceInput(init: KernelInit, np: NodeProgram, smallLimit: number): { input: number; output: number } | undefined {
  if (np.legacy) return undefined;
  const shapes = staticShapes(np, (i) => init.inputTypes[i]);
  if (!shapes || !engineServes(elementsOf(shapes.output), shapes.output, smallLimit)) return undefined;
  for (const k of np.scalarInputs) if (elementsOf(shapes.inputs[k]) !== 1) return undefined;
  const k = shapes.inputs.findIndex((dims, j) => np.program.inputTypes[j] === np.program.outputType && sameDims(dims, shapes.output));
  return k < 0 ? undefined : { input: np.inputs[k], output: 0 };
}

/** One set of input dims: the output's dims and size, and the primitive (built on first native run). */
interface ShapeEntry {
  dims: readonly (readonly number[])[];
  outputDims: readonly number[] | undefined; // undefined: the shapes do not broadcast (the TS kernel reports it)
  size: number;
  primitive: ElementwisePrimitive | undefined;
  dispose(): void;
}

function sameShapes(a: readonly (readonly number[])[], b: readonly (readonly number[])[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) {
    const x = a[k];
    const y = b[k];
    if (x === y) continue;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

function createElementwise(
  binding: NativeBinding,
  Primitive: NonNullable<NativeBinding['ElementwisePrimitive']>,
  fallbackDef: KernelDef,
  np: NodeProgram,
  smallLimit: number,
  init: KernelInit,
): Kernel {
  const { node } = init;
  const fallback = fallbackDef.create(init);
  const { program } = np;
  const cache = new PrimitiveCache<ShapeEntry>();
  let last: ShapeEntry | undefined; // the last shapes seen: most runs repeat them (frozen dims arrays)

  const entryFor = (dims: readonly (readonly number[])[]): ShapeEntry => {
    if (last && sameShapes(last.dims, dims)) return last;
    const entry = cache.get(dims.map((d) => d.join(',')).join('|'), () => {
      let outputDims: number[] | undefined;
      try {
        outputDims = broadcastShape(dims);
      } catch {
        outputDims = undefined;
      }
      const made: ShapeEntry = {
        dims,
        outputDims,
        size: outputDims ? outputDims.reduce((a, b) => a * b, 1) : 0,
        primitive: undefined,
        dispose: () => made.primitive?.dispose(),
      };
      return made;
    });
    last = entry;
    return entry;
  };

  const threads = effectiveThreads(binding, init.threads);
  const primitiveOf = (entry: ShapeEntry): ElementwisePrimitive => {
    if (!entry.primitive) {
      const inputs = entry.dims.map((d, k) => ({ dims: d, type: program.inputTypes[k] }));
      try {
        entry.primitive = new Primitive({ inputs, program: program.instructions, outputType: program.outputType, threads });
      } catch (error) {
        throw fromNativeError(node, error);
      }
    }
    return entry.primitive;
  };

  /** The input dims the engine broadcasts, or undefined when the TS kernel must take this run. */
  const dimsOf = (tensors: Tensor[]): (readonly number[])[] | undefined => {
    const dims: (readonly number[])[] = [];
    for (let k = 0; k < tensors.length; k++) {
      const t = tensors[k];
      if (t.type !== program.inputTypes[k]) return undefined;
      dims.push(t.dims);
    }
    for (const k of np.scalarInputs) if (tensors[k].size !== 1) return undefined;
    if (np.legacy) {
      try {
        dims[1] = np.legacy.kind === 'axis' ? legacyDimsOfB(node.opType, np.legacy.axis, dims[0], dims[1]) : legacySlopeDims(dims[0], dims[1]);
      } catch {
        return undefined;
      }
    }
    return dims;
  };

  return {
    implementation: 'native',
    inPlace: inPlaceInput(init, np, smallLimit),
    // Synchronous below SYNC_ELEMENTWISE_LIMIT elements: no promise or microtask per node.
    run(ctx: KernelRunContext) {
      const tensors = np.inputs.map((i) => ctx.input(i));
      const dims = dimsOf(tensors);
      const entry = dims && entryFor(dims);
      if (!entry?.outputDims || !engineServes(entry.size, entry.outputDims, smallLimit)) return fallback.run(ctx);
      const primitive = primitiveOf(entry);
      const out = ctx.output(0, program.outputType, entry.outputDims, { uninitialized: true });
      const data = tensors.map((t) => t.data as Float32Array | Uint8Array);
      const y = out.data as Float32Array | Uint8Array;
      const { inline } = dispatchFor(binding, ctx.threads, entry.size, SYNC_ELEMENTWISE_LIMIT);
      if (inline) {
        try {
          primitive.runSync(data, y);
        } catch (error) {
          throw fromNativeError(node, error);
        }
        return [out];
      }
      return withNativeErrors(node, () => primitive.run(data, y)).then(() => [out]);
    },
    dispose() {
      cache.dispose();
      fallback.dispose?.();
    },
  };
}

function typeConstraintsFor(def: KernelDef): KernelDef['typeConstraints'] {
  const constraints: Record<string, readonly ('float32' | 'bool')[]> = {};
  for (const name of Object.keys(def.typeConstraints ?? {})) constraints[name] = ['float32'];
  if (def.opType === 'Where') constraints.B = ['bool'];
  if (['Equal', 'Less', 'Greater', 'LessOrEqual', 'GreaterOrEqual'].includes(def.opType)) constraints.T1 = ['bool'];
  if (def.opType === 'FusedElementwise') constraints.T = ['float32', 'bool'];
  return constraints;
}

/** Below this many output elements the node's TS kernel is faster (native-support.ts). */
function smallLimitOf(np: NodeProgram, smallOpsInTs: boolean): number {
  if (!smallOpsInTs) return 0;
  return hasTranscendental(np.program) ? SMALL_TRANSCENDENTAL_ELEMENTS : SMALL_ELEMENTWISE_ELEMENTS;
}

/**
 * The elementwise kernel defs, when the addon has the engine. `smallOpsInTs`: outputs below
 * native-support.ts's sizes stay with the TS kernels (declined at session creation when the shapes
 * are static, handed over at run time otherwise).
 */
export function nativeElementwiseKernels(binding: NativeBinding, smallOpsInTs = true): KernelDef[] {
  const Primitive = binding.ElementwisePrimitive;
  const names = binding.elementwiseOps?.();
  if (!Primitive || !names) return [];
  const ops = new Set(names);
  return SERVED.map(
    (fallbackDef): KernelDef => ({
      ep: 'cpu',
      domain: fallbackDef.domain,
      opType: fallbackDef.opType,
      sinceVersion: fallbackDef.sinceVersion,
      endVersion: fallbackDef.endVersion,
      typeConstraints: typeConstraintsFor(fallbackDef),
      implementation: 'native',
      supports(node, graph) {
        const np = programOf(node, graph);
        if (typeof np === 'string') return np;
        const reason = programReason(node, graph, np, ops);
        if (reason) return reason;
        const elements = staticOutputElements(node, graph, np);
        if (elements !== undefined && elements < smallLimitOf(np, smallOpsInTs)) return `${elements} elements: faster in TypeScript than through a native call`;
        return true;
      },
      create(init) {
        const np = programOf(init.node, init.graph);
        if (typeof np === 'string') throw new SwitchyardError('RUNTIME', `node '${init.node.name}' (${init.node.opType}): not elementwise: ${np}`);
        return createElementwise(binding, Primitive, fallbackDef, np, smallLimitOf(np, smallOpsInTs), init);
      },
    }),
  );
}
