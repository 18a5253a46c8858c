/**
 * What the dtype-generic native kernel defs share (data movement, Cast, reductions, Softmax, the
 * normalizations): each is built beside its TS def, takes the same node, and hands a run to the TS kernel
 * when the tensor is small (the addon crossing costs more than the work), of a dtype the addon does not
 * move (strings), or otherwise outside what the native entry serves.
 */
import { elementCount, type DataType, type Graph, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { NativeBinding, NativeElements } from './binding.js';
import { effectiveThreads, smallProblem, staticDims } from './native-support.js';

/** Every dtype the native data movement copies: all but strings (and complex, which no kernel moves). */
export const NATIVE_MOVABLE_TYPES: readonly DataType[] = [
  'float32', 'float64', 'float16', 'bfloat16', 'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool',
];

const MOVABLE = new Set<DataType>(NATIVE_MOVABLE_TYPES);

/** The typed array behind a tensor the addon can move, or undefined (strings, complex). */
export function nativeElements(t: Tensor): NativeElements | undefined {
  return MOVABLE.has(t.type) ? (t.data as NativeElements) : undefined;
}

/** The session's thread count as the addon's team size. */
export function teamSize(binding: NativeBinding, ctx: KernelRunContext): number {
  return effectiveThreads(binding, ctx.threads);
}

/**
 * How a native def beside a TS def decides size: `small` elements (of the tensor `measure` names) and
 * fewer run in TypeScript when `smallOpsInTs` is on — declined at session creation when the shape is
 * static, handed to the TS kernel at run time when it is not.
 */
export interface SizeRule {
  smallOpsInTs: boolean;
  /** Below this many elements the TS kernel is faster (native-support.ts's SMALL_* sizes). */
  small: number;
  /** Which value's element count decides: the node's first output (default) or first input. */
  measure?: 'output' | 'input';
}

/** Whether a run of `elements` should go to the TS kernel under `rule`. */
export function runsInTs(rule: SizeRule, elements: number): boolean {
  return rule.smallOpsInTs && elements < rule.small;
}

function staticElements(node: Node, graph: Graph, measure: 'output' | 'input'): number | undefined {
  const name = measure === 'input' ? node.inputs[0] : node.outputs[0];
  const dims = name ? staticDims(graph.typeOf(name)) : undefined;
  return dims ? elementCount(dims) : undefined;
}

export interface NativeBesideOptions {
  /** The dtypes served (default NATIVE_MOVABLE_TYPES) … */
  types?: readonly DataType[];
  /** … of these type constraints (default ['T']). */
  constraints?: readonly string[];
  /** Further checks at session creation. */
  supports?(node: Node, graph: Graph): true | string;
  /** Builds the native kernel; `fallback` is the TS kernel for this node. */
  create(init: KernelInit, fallback: Kernel): Kernel;
}

/**
 * A native def for the same op, domain and opset range as `ts`, with `T` narrowed to the dtypes served,
 * declining statically small problems (the TS def, registered after it, takes those).
 */
export function nativeBeside(ts: KernelDef, rule: SizeRule, options: NativeBesideOptions): KernelDef {
  const types = options.types ?? NATIVE_MOVABLE_TYPES;
  // A def without constraints (a contrib op with no schema here) keeps none: `supports` checks dtypes then.
  let typeConstraints: Record<string, readonly DataType[]> | undefined;
  if (ts.typeConstraints) {
    typeConstraints = { ...ts.typeConstraints };
    for (const name of options.constraints ?? ['T']) {
      const allowed = ts.typeConstraints[name];
      typeConstraints[name] = allowed ? allowed.filter((t) => types.includes(t)) : types;
    }
  }
  return {
    ep: 'cpu',
    domain: ts.domain,
    opType: ts.opType,
    sinceVersion: ts.sinceVersion,
    endVersion: ts.endVersion,
    typeConstraints,
    implementation: 'native',
    supports(node, graph) {
      const own = options.supports?.(node, graph) ?? true;
      if (own !== true || !rule.smallOpsInTs) return own;
      return smallProblem(staticElements(node, graph, rule.measure ?? 'output'), rule.small, 'elements');
    },
    create(init) {
      const fallback = ts.create(init);
      const kernel = options.create(init, fallback);
      return {
        implementation: 'native',
        run: (ctx) => kernel.run(ctx),
        dispose() {
          kernel.dispose?.();
          fallback.dispose?.();
        },
      };
    },
  };
}
