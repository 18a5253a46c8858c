/**
 * Shape arithmetic once per input shape. Models exported with symbolic dims (a decoder's sequence
 * length, a detector's H and W) compute their Reshape targets, masks and position ranges at run time:
 * Shape → Gather → Unsqueeze → Concat chains, hundreds of tiny host nodes per run in a transformer,
 * whose results only change when an input's shape does. This remembers them.
 *
 * A step is a *source* when it is a Shape or Size node, and *memoizable* when it is a pure host node
 * (no subgraphs, no randomness) whose every input is a constant, a source's output or a memoizable
 * step's output. A memoizable value is then a function of the source outputs upstream of it, so a run
 * may take it from an earlier run's record once every source upstream of it has given, in this run,
 * the same output as in that record. The executor keeps running the sources (they are cheap and read
 * only dims), checks each against the records still consistent with this run, and takes memoizable
 * outputs from the first consistent record; when none is left, it runs those steps as usual and the
 * run's values become a new record. Nothing is assumed about shape inference: a record is used only
 * after the actual source outputs match it.
 *
 * Records hold small host tensors only (copied out of the run's arena when they live there), are not
 * handed out as graph outputs, and never feed an in-place input. `SWITCHYARD_SHAPE_MEMO=0` turns the
 * memo off (for A/B measurements); profiled runs never use it, so profiles list every node.
 */
import { isPure } from '../optimize/node-traits.js';
import type { RuntimeValue } from '../registry/kernel-def.js';
import { Tensor } from '../tensor/tensor.js';
import type { ExecutionPlan } from './execution-plan.js';

/** Per step: what the memo does with it. */
export const MemoRole = { None: 0, Source: 1, Memoized: 2 } as const;

/** Records kept per plan (distinct input shapes remembered), most recently used first. */
const MAX_RECORDS = 8;
/** A memoizable output larger than this is not recorded: the step then runs every time. */
const MAX_RECORDED_ELEMENTS = 4096;

/** A step's outputs as recorded (undefined where the node omits one). */
type Outputs = (RuntimeValue | undefined)[];
/** One run's source and memoizable outputs, by step index. */
type MemoRecord = (Outputs | undefined)[];

/** The slots the memo needs from a program (run-program.ts's numbering). */
export interface MemoSlots {
  bounds: Int32Array;
  io: Int32Array;
  names: readonly string[];
}

export class ShapeMemo {
  readonly #records: MemoRecord[] = [];

  private constructor(
    /** MemoRole per step. */
    readonly roles: Uint8Array,
  ) {}

  /** The memo for `plan`, or undefined when it has no memoizable step or the memo is switched off. */
  static of(plan: ExecutionPlan, slots: MemoSlots): ShapeMemo | undefined {
    if (process.env.SWITCHYARD_SHAPE_MEMO === '0') return undefined;
    const roles = memoRoles(plan, slots);
    return roles.includes(MemoRole.Memoized) ? new ShapeMemo(roles) : undefined;
  }

  /** State for one run. */
  begin(): MemoRun {
    return new MemoRun(this, [...this.#records]);
  }

  /** Keeps `record` as the most recently used; drops the oldest beyond the limit. */
  remember(record: MemoRecord, replaces?: MemoRecord): void {
    const at = replaces ? this.#records.indexOf(replaces) : -1;
    if (at >= 0) this.#records.splice(at, 1);
    this.#records.unshift(record);
    if (this.#records.length > MAX_RECORDS) this.#records.length = MAX_RECORDS;
  }
}

/** One run's view of the memo: the records still consistent with it, and what it saw. */
export class MemoRun {
  readonly #record: MemoRecord = [];
  /** Set when a memoizable step had to run: the run's values make a new record. */
  #missed = false;

  constructor(
    readonly memo: ShapeMemo,
    /** Records whose source outputs equal every source output this run has produced so far. */
    private candidates: MemoRecord[],
  ) {}

  /** For a memoizable step: the outputs of a consistent record, or undefined when the step must run. */
  take(step: number): Outputs | undefined {
    const outs = this.candidates.length ? this.candidates[0][step] : undefined;
    if (outs) this.#record[step] = outs;
    return outs;
  }

  /** After a source or memoizable step ran: narrows the candidates (source) and records its outputs. */
  ran(step: number, outputs: readonly (RuntimeValue | undefined)[], arena: ArrayBuffer | undefined): void {
    const role = this.memo.roles[step];
    const kept = recordable(outputs, arena);
    if (role === MemoRole.Source) {
      if (this.candidates.length) this.candidates = this.candidates.filter((r) => sameValues(r[step], outputs));
    } else if (kept) {
      this.#missed = true;
    }
    if (kept) this.#record[step] = kept;
  }

  /** At the end of a successful run: a run that computed memoizable steps leaves its record. */
  finish(): void {
    if (this.#missed) this.memo.remember(this.#record);
    else if (this.candidates.length) this.memo.remember(this.candidates[0], this.candidates[0]);
  }
}

/** `outputs` as the memo keeps them (small host tensors, out of the arena), or undefined if any is not one. */
function recordable(outputs: readonly (RuntimeValue | undefined)[], arena: ArrayBuffer | undefined): Outputs | undefined {
  const kept: Outputs = [];
  for (const v of outputs) {
    if (v === undefined) {
      kept.push(undefined);
      continue;
    }
    if (!(v instanceof Tensor) || v.location !== 'cpu' || v.size > MAX_RECORDED_ELEMENTS) return undefined;
    const data = v.data as { buffer?: ArrayBufferLike };
    kept.push(arena !== undefined && data.buffer === arena ? new Tensor(v.type, (v.data as Float32Array).slice() as never, v.dims) : v);
  }
  return kept;
}

function sameValues(recorded: Readonly<Outputs> | undefined, outputs: Readonly<Outputs>): boolean {
  if (!recorded || recorded.length !== outputs.length) return false;
  for (let k = 0; k < outputs.length; k++) {
    const a = recorded[k] as Tensor | undefined;
    const b = outputs[k];
    if (a === undefined || b === undefined) {
      if (a !== b) return false;
      continue;
    }
    if (!(b instanceof Tensor) || a.type !== b.type || a.dims.length !== b.dims.length) return false;
    for (let d = 0; d < a.dims.length; d++) if (a.dims[d] !== b.dims[d]) return false;
    const x = a.data as ArrayLike<unknown>;
    const y = b.data as ArrayLike<unknown>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  }
  return true;
}

/** MemoRole of every step of `plan`. */
function memoRoles(plan: ExecutionPlan, slots: MemoSlots): Uint8Array {
  const roles = new Uint8Array(plan.steps.length);
  const graph = plan.graph;
  const feeds = new Set(graph.inputs.map((v) => v.name));
  const returned = new Set(plan.outputs.flatMap((o) => [o.name, o.hostName]));
  // Values a later kernel may overwrite in place: a recorded tensor must never be one.
  const overwritten = new Set<string>();
  // So may the caller, through a graph output that is a view of a step's input (Identity, Reshape).
  for (const step of plan.steps) {
    if (step.kind !== 'unit' || step.unit.kind !== 'single') continue;
    const inPlace = step.kernel?.inPlace;
    if (inPlace && step.inputRefs[inPlace.input]) overwritten.add(step.inputRefs[inPlace.input]);
    if (step.unit.node.outputs.some((name) => returned.has(name))) for (const name of step.inputRefs) if (name) overwritten.add(name);
  }
  /** Values whose contents are a function of source outputs (or constants). */
  const derived = new Set<string>();
  const isConstant = (name: string) => plan.constants.has(name) && !feeds.has(name);
  plan.steps.forEach((step, i) => {
    if (step.kind !== 'unit' || step.unit.kind !== 'single' || !step.kernel) return;
    const node = step.unit.node;
    if (!isPure(node)) return;
    const outs = node.outputs.filter(Boolean);
    if (outs.length === 0) return;
    const first = slots.bounds[3 * i + 1];
    // Only nodes whose outputs the run keeps under their own names (no renamed device values).
    if (node.outputs.some((name, k) => name && name !== slots.names[slots.io[first + k]])) return;
    if ((node.opType === 'Shape' || node.opType === 'Size') && (node.domain === '' || node.domain === 'ai.onnx')) {
      roles[i] = MemoRole.Source;
      for (const name of outs) derived.add(name);
      return;
    }
    const inputs = step.inputRefs;
    if (!inputs.every((name) => !name || isConstant(name) || derived.has(name))) return;
    for (const name of outs) derived.add(name);
    if (outs.some((name) => returned.has(name) || overwritten.has(name))) return;
    roles[i] = MemoRole.Memoized;
  });
  return roles;
}
