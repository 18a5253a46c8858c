/**
 * Host arenas for models whose inputs have symbolic dims (a `batch` axis, say). At session creation
 * such values have no size, so no arena slot, and every run allocates each output afresh: garbage
 * the collector frees late, which raises the high-water mark well above what a run needs. The
 * sizes are known once a run's feeds bind the symbols, and shape inference wrote most values'
 * shapes in terms of those same symbols: substituting them gives an arena layout per binding,
 * planned once and reused by every run with the same sizes.
 *
 * A layout is only a proposal: a kernel output whose actual size differs from its slot's is
 * allocated afresh, exactly as without an arena.
 *
 * Some sizes no inference states (outputs downstream of an If whose branches differ in shape,
 * data-dependent shapes): a layout lacking them is marked to observe its runs, which record the
 * bytes of each output they allocate outside the arena; after the first such run the layout for
 * those symbol sizes is planned again with the observed bytes, once. Later runs of shapes seen
 * before then allocate nothing per node, as onnxruntime's arena gives them memory it already holds.
 */
import type { ValueType } from '../ir/graph.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import type { ExecutionPlan } from './execution-plan.js';
import { planHostArena } from './host-arena.js';
import { programOf } from './run-program.js';
import { DEFAULT_MAX_TENSOR_BYTES } from './session-options.js';

/** Distinct bindings whose layouts are kept (least recently used goes first). */
const MAX_LAYOUTS = 8;

export class DynamicArenas {
  readonly #plan: ExecutionPlan;
  /** Symbolic dims of the graph inputs: [input name, axis, symbol]. */
  readonly #symbolic: Array<[string, number, string]>;
  readonly #layouts = new Map<string, ExecutionPlan>();
  /** Observing layouts, with the key and bindings they were planned for. */
  readonly #observing = new WeakMap<ExecutionPlan, { key: string; bindings: ReadonlyMap<string, number> }>();

  /** Undefined when the graph inputs have no symbolic dims (the plan's own arena serves). */
  static for(plan: ExecutionPlan, maxTensorBytes = DEFAULT_MAX_TENSOR_BYTES): DynamicArenas | undefined {
    const symbolic: Array<[string, number, string]> = [];
    for (const input of plan.graph.inputs) {
      const t = input.type;
      if (t?.kind === 'tensor') t.shape?.forEach((d, axis) => typeof d === 'string' && symbolic.push([input.name, axis, d]));
    }
    // Graphs with control flow too: the memory planner keeps a value a subgraph reads alive until the
    // node that runs the subgraph (memory/lifetimes.ts), and a branch output that aliases the arena is
    // copied out by the executor, as with the static arena.
    return symbolic.length ? new DynamicArenas(plan, symbolic, maxTensorBytes) : undefined;
  }

  private constructor(
    plan: ExecutionPlan,
    symbolic: Array<[string, number, string]>,
    readonly maxTensorBytes: number,
  ) {
    this.#plan = plan;
    this.#symbolic = symbolic;
  }

  /** The plan with an arena laid out for the sizes these (validated) feeds give the symbols. */
  planFor(feeds: ReadonlyMap<string, RuntimeValue>): ExecutionPlan {
    // The key is the sizes in `#symbolic` order (validated feeds give one size per symbol): built
    // without the bindings map, which only a new layout needs.
    let key = '';
    for (const [input, axis] of this.#symbolic) {
      const v = feeds.get(input);
      key += v instanceof Tensor && axis < v.dims.length ? `${v.dims[axis]},` : '?,';
    }
    const known = this.#layouts.get(key);
    if (known) {
      if (this.#layouts.size > 1) {
        this.#layouts.delete(key);
        this.#layouts.set(key, known);
      }
      return known;
    }
    const bindings = new Map<string, number>();
    for (const [input, axis, symbol] of this.#symbolic) {
      const v = feeds.get(input);
      if (v instanceof Tensor && axis < v.dims.length) bindings.set(symbol, v.dims[axis]);
    }
    const plan = this.#layOut(bindings);
    if (plan.observeSizes) this.#observing.set(plan, { key, bindings });
    this.#layouts.set(key, plan);
    if (this.#layouts.size > MAX_LAYOUTS) this.#layouts.delete(this.#layouts.keys().next().value!);
    return plan;
  }

  /** Layouts planned so far (for tests and diagnostics). */
  get layouts(): number {
    return this.#layouts.size;
  }

  /**
   * After a run of `plan`: when it was an observing layout and its runs recorded sizes, the layout
   * for its symbol sizes is planned again with them (once: the new one observes no more). True when
   * that happened: the values the observing run allocated one by one have slots from now on.
   */
  observed(plan: ExecutionPlan): boolean {
    if (!plan.observeSizes) return false;
    const of = this.#observing.get(plan);
    if (!of || this.#layouts.get(of.key) !== plan) return false;
    const program = programOf(plan);
    const observed = program.layout.observed;
    if (!observed) return false;
    const bytes = new Map<string, number>();
    for (let p = 0; p < observed.length; p++) if (observed[p] >= 0 && program.io[p] >= 0) bytes.set(program.names[program.io[p]], observed[p]);
    if (bytes.size === 0) return false;
    this.#observing.delete(plan);
    this.#layouts.set(of.key, this.#layOut(of.bindings, bytes));
    return true;
  }

  #layOut(bindings: ReadonlyMap<string, number>, observedBytes?: ReadonlyMap<string, number>): ExecutionPlan {
    const graph = this.#plan.graph;
    const typeOf = (name: string): ValueType | undefined => {
      const t = graph.typeOf(name);
      if (t?.kind !== 'tensor' || !t.shape?.some((d) => typeof d === 'string')) return t;
      return { ...t, shape: t.shape.map((d) => (typeof d === 'string' ? bindings.get(d) ?? d : d)) };
    };
    try {
      const arena = planHostArena(this.#plan, this.maxTensorBytes, typeOf, (name) => observedBytes?.get(name));
      const observeSizes = observedBytes === undefined && arena.unsized > 0;
      if (arena.arenaBytes <= this.#plan.arenaBytes && !observeSizes) return this.#plan;
      return { ...this.#plan, arenaSlots: arena.arenaSlots, arenaBytes: arena.arenaBytes, memoryPlan: arena.memoryPlan, observeSizes };
    } catch {
      // A layout is an optimisation: without one, runs allocate their outputs as they go.
      return this.#plan;
    }
  }
}
