/**
 * FLOP counts of the placement for models whose inputs have symbolic dims. At creation such a
 * model's values have no size, so `estimateFlops` cannot count the nodes that read them and the
 * placement's coverage by FLOPs is 0% or 100% by accident. Shape inference wrote those shapes in terms
 * of the inputs' symbols, so binding the symbols to sizes -- the last run's feeds, or dims a caller
 * gives -- makes them numbers again, and the count is redone with them.
 *
 * A run only notes its input sizes (a few number compares); the placement is counted again when it is
 * read after sizes changed. Dims that shape inference named by no input symbol (a data-dependent
 * size, say) stay unknown, and the placement reports how many nodes that leaves uncounted.
 */
import { SwitchyardError } from '../errors.js';
import type { Graph, Node, ValueType } from '../ir/graph.js';
import type { FlopShapes, Placement } from '../partition/placement.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { estimateFlopsOrUnknown, type ShapeSource } from '../shape-inference/flops.js';
import { Tensor } from '../tensor/tensor.js';

/** Builds the placement with the FLOPs a counter gives and the shapes it says it used. */
export type PlacementBuilder = (flopsOf: (node: Node, graph: Graph) => number | undefined, shapes: Omit<FlopShapes, 'unknownNodes'>) => Placement;

/** `graph` seen with its symbolic dims replaced by the bound sizes. */
export function boundShapes(graph: Graph, sizes: ReadonlyMap<string, number>): ShapeSource {
  const bind = (t: ValueType | undefined): ValueType | undefined => {
    if (t?.kind !== 'tensor' || !t.shape?.some((d) => typeof d === 'string')) return t;
    return { ...t, shape: t.shape.map((d) => (typeof d === 'string' ? (sizes.get(d) ?? d) : d)) };
  };
  return { typeOf: (name: string) => bind(graph.typeOf(name)) };
}

/** The FLOP counter for one binding of the symbols (a ShapeSource per graph, subgraphs included). */
export function counterFor(sizes: ReadonlyMap<string, number>): (node: Node, graph: Graph) => number | undefined {
  const views = new WeakMap<Graph, ShapeSource>();
  return (node, graph) => {
    let view = views.get(graph);
    if (!view) views.set(graph, (view = boundShapes(graph, sizes)));
    return estimateFlopsOrUnknown(node, view);
  };
}

export class RealizedFlops {
  /** Symbolic dims of the graph inputs: [input name, axis, symbol]. */
  readonly #symbolic: ReadonlyArray<readonly [string, number, string]>;
  readonly #build: PlacementBuilder;
  /** Sizes of the last run, in `#symbolic` order (-1 where a feed did not give one). */
  readonly #last: number[];
  #seen = false;
  /** The placement counted from `#countedKey`'s sizes, if any. */
  #counted?: { key: string; placement: Placement };

  /** Undefined when no graph input has a symbolic dim (the creation-time count is exact). */
  static for(graph: Graph, build: PlacementBuilder): RealizedFlops | undefined {
    const symbolic: Array<readonly [string, number, string]> = [];
    for (const input of graph.inputs) {
      const t = input.type;
      if (t?.kind === 'tensor') t.shape?.forEach((d, axis) => typeof d === 'string' && symbolic.push([input.name, axis, d]));
    }
    return symbolic.length ? new RealizedFlops(symbolic, build) : undefined;
  }

  private constructor(symbolic: ReadonlyArray<readonly [string, number, string]>, build: PlacementBuilder) {
    this.#symbolic = symbolic;
    this.#build = build;
    this.#last = symbolic.map(() => -1);
  }

  /** Notes a run's (validated) feeds: their sizes of the symbolic dims. */
  note(feeds: ReadonlyMap<string, RuntimeValue>): void {
    for (let i = 0; i < this.#symbolic.length; i++) {
      const [input, axis] = this.#symbolic[i];
      const v = feeds.get(input);
      this.#last[i] = v instanceof Tensor && axis < v.dims.length ? v.dims[axis] : -1;
    }
    this.#seen = true;
  }

  /** The placement counted from the last run's sizes; `declared` before the first run. */
  placement(declared: Placement): Placement {
    if (!this.#seen) return declared;
    const key = this.#last.join(',');
    if (this.#counted?.key !== key) {
      const sizes = new Map<string, number>();
      this.#symbolic.forEach(([, , symbol], i) => {
        if (this.#last[i] >= 0) sizes.set(symbol, this.#last[i]);
      });
      this.#counted = { key, placement: this.#build(counterFor(sizes), { source: 'lastRun', dims: Object.fromEntries(sizes) }) };
    }
    return this.#counted.placement;
  }

}

/** The placement counted with symbols bound to `dims` (symbol → size), as `placementFor` gives it. */
export function placementForDims(build: PlacementBuilder, dims: Readonly<Record<string, number>>): Placement {
  if (dims === null || typeof dims !== 'object' || Array.isArray(dims)) throw new SwitchyardError('INVALID_ARGUMENT', 'placementFor: dims must be an object of symbol → size');
  for (const [name, size] of Object.entries(dims)) {
    if (!Number.isSafeInteger(size) || size < 0) throw new SwitchyardError('INVALID_ARGUMENT', `placementFor: dim '${name}' must be a non-negative integer, got ${String(size)}`);
  }
  return build(counterFor(new Map(Object.entries(dims))), { source: 'given', dims: { ...dims } });
}
