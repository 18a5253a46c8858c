/**
 * `session.memoryPlan`: what a session needs in memory before it runs, per device. Weights are the
 * initializers the device's nodes read (after optimization and constant folding; the packed copies
 * kernels keep of released ones count at their original size). Activations are, on the host, exactly
 * the arena a run reserves (the same planner and the same sizes as the executor's layout); on other
 * devices what their EP reports through `memoryEstimate()`, else an estimate from the same lifetime
 * planner over the values the device's nodes produce. Symbolic dims are bound from the sizes given;
 * a value whose size still depends on an unbound dim is listed, not guessed.
 */
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { Graph, type Node, type ValueType } from '../ir/graph.js';
import { planMemory } from '../memory/index.js';
import { deviceOf, HOST } from '../partition/copy-insertion.js';
import { BYTES_PER_ELEMENT } from '../tensor/data-type.js';
import type { Tensor } from '../tensor/tensor.js';
import type { ExecutionPlan } from './execution-plan.js';
import { planHostArena } from './host-arena.js';

export interface DeviceMemory {
  /** `cpu`, or an EP's device (`rocm:0`). */
  device: string;
  /** EPs whose nodes run on this device. */
  providers: string[];
  /**
   * Initializers read by this device's nodes (one read by two devices counts on both); on a device
   * whose EPs all report `memoryEstimate().weightsBytes`, their figure (weights as they hold them).
   */
  weightsBytes: number;
  /** Peak bytes of intermediate values live at once. */
  activationBytes: number;
  /**
   * `arena`: the host arena runs reserve (exact); `planned`: the host arena a run would reserve with
   * `enableMemPattern` on (it is off: runs allocate per value); `provider`: the device's EPs reported it;
   * `estimate`: the lifetime planner over the values this device's nodes produce (EPs allocate by their
   * own rules, so the real figure may differ).
   */
  activationSource: 'arena' | 'planned' | 'provider' | 'estimate';
  /**
   * Values allocated afresh by each run outside the planned activations: graph outputs, copies arriving
   * from another device, values with no arena slot. Counted whole, without reuse.
   */
  perRunBytes: number;
  /** Scratch the EPs reported (`memoryEstimate().workspaceBytes`); 0 when none did. */
  workspaceBytes: number;
  /** EPs that reported a workspace. */
  workspaceReportedBy: string[];
  totalBytes: number;
}

export interface SessionMemoryPlan {
  /** The host first, then each device in the order its first node runs. */
  devices: DeviceMemory[];
  totalBytes: number;
  /** Sizes used for symbolic dims (bound from the shapes given, or fixed by freeDimensionOverrides). */
  dims: Record<string, number>;
  /** Symbolic dims some value's size depends on that nothing bound: those values are in `unsized`. */
  unresolvedDims: string[];
  /** Values left out of every figure for want of a size. */
  unsized: string[];
  /** What the figures leave out (subgraphs, EPs without reports). */
  notes: string[];
}

/** Input shapes by name: dims as numbers (a Tensor's `dims` serves). */
export type ShapesByInput = Readonly<Record<string, readonly number[] | { readonly dims: readonly number[] }>>;

/** Binds the symbolic dims of `graph`'s inputs to the sizes in `shapes` (conflicts and rank mismatches are errors). */
export function bindInputDims(graph: Graph, shapes: ShapesByInput): Map<string, number> {
  const bindings = new Map<string, number>();
  const inputs = new Map(graph.inputs.map((i) => [i.name, i]));
  for (const [name, given] of Object.entries(shapes)) {
    const input = inputs.get(name);
    if (!input) throw new SwitchyardError('INVALID_ARGUMENT', `memoryPlanFor: the model has no input '${name}' (inputs: ${[...inputs.keys()].join(', ')})`);
    const dims = Array.isArray(given) ? (given as readonly number[]) : (given as { dims?: readonly number[] }).dims;
    if (!Array.isArray(dims) || !dims.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new SwitchyardError('INVALID_ARGUMENT', `memoryPlanFor: the shape of '${name}' must be an array of non-negative integers`);
    }
    const t = input.type;
    if (t?.kind !== 'tensor' || !t.shape) continue;
    if (t.shape.length !== dims.length) {
      throw new SwitchyardError('INVALID_ARGUMENT', `memoryPlanFor: '${name}' has rank ${t.shape.length} ([${t.shape.join(', ')}]), got a shape of rank ${dims.length}`);
    }
    t.shape.forEach((d, axis) => {
      const size = dims[axis];
      if (typeof d === 'number' && d !== size) {
        throw new SwitchyardError('INVALID_ARGUMENT', `memoryPlanFor: '${name}' axis ${axis} is ${d}, got ${size}`);
      }
      if (typeof d !== 'string') return;
      const bound = bindings.get(d);
      if (bound !== undefined && bound !== size) {
        throw new SwitchyardError('INVALID_ARGUMENT', `memoryPlanFor: dim '${d}' is ${bound} in one input and ${size} in '${name}'`);
      }
      bindings.set(d, size);
    });
  }
  return bindings;
}

export interface MemoryEstimateOptions {
  bindings: ReadonlyMap<string, number>;
  /** Dims fixed at creation (freeDimensionOverrides), reported with the bindings. */
  fixed?: Readonly<Record<string, number>>;
  maxTensorBytes: number;
  /** Whether runs use the planned host arena (enableMemPattern). */
  memoryPattern: boolean;
}

function tensorBytes(t: Tensor): number {
  const bytes = (t.data as { byteLength?: number } | undefined)?.byteLength;
  if (bytes !== undefined) return bytes;
  // Strings (and values on a device): 8 bytes per element, as the arena would count a reference.
  return t.size * 8;
}

export function estimateSessionMemory(plan: ExecutionPlan, options: MemoryEstimateOptions): SessionMemoryPlan {
  const graph = plan.graph;
  const { bindings } = options;
  const typeOf = (name: string): ValueType | undefined => {
    const t = graph.typeOf(name);
    if (t?.kind !== 'tensor' || !t.shape?.some((d) => typeof d === 'string')) return t;
    return { ...t, shape: t.shape.map((d) => (typeof d === 'string' ? bindings.get(d) ?? d : d)) };
  };
  const unresolved = new Set<string>();
  const unsized = new Set<string>();
  const sizeOf = (name: string): number | undefined => {
    const t = typeOf(name);
    if (t?.kind !== 'tensor' || !t.shape) {
      unsized.add(name);
      return undefined;
    }
    let n = 1;
    for (const d of t.shape) {
      if (typeof d === 'number') n *= d;
      else {
        if (typeof d === 'string') unresolved.add(d);
        n = NaN;
      }
    }
    if (Number.isNaN(n)) {
      unsized.add(name);
      return undefined;
    }
    return n * (t.elemType === 'string' ? 8 : BYTES_PER_ELEMENT[t.elemType]);
  };

  const devices = new Map<string, DeviceMemory>();
  const device = (name: string): DeviceMemory => {
    let d = devices.get(name);
    if (!d) {
      d = { device: name, providers: [], weightsBytes: 0, activationBytes: 0, activationSource: 'estimate', perRunBytes: 0, workspaceBytes: 0, workspaceReportedBy: [], totalBytes: 0 };
      devices.set(name, d);
    }
    return d;
  };
  device(HOST);
  const nodesOf = new Map<ExecutionProvider, Node[]>();
  const producedOn = new Map<string, string>();
  const order: Node[] = [];
  for (const step of plan.steps) {
    if (step.kind === 'copy') continue;
    const ep = step.unit.ep;
    const nodes = step.unit.kind === 'single' ? [step.unit.node] : step.unit.nodes;
    let mine = nodesOf.get(ep);
    if (!mine) nodesOf.set(ep, (mine = []));
    mine.push(...nodes);
    order.push(...nodes);
    const d = device(deviceOf(ep));
    if (!d.providers.includes(ep.name)) d.providers.push(ep.name);
    for (const n of nodes) for (const o of n.outputs) if (o) producedOn.set(o, d.device);
  }

  addWeights(plan, device);

  // Host activations: the arena the executor lays out for these sizes (dynamic-arena.ts keeps the
  // creation-time layout when it is the larger).
  const arena = planHostArena(plan, options.maxTensorBytes, typeOf);
  const host = device(HOST);
  host.activationBytes = options.memoryPattern ? Math.max(arena.arenaBytes, plan.arenaBytes) : arena.arenaBytes;
  host.activationSource = options.memoryPattern ? 'arena' : 'planned';

  // Other devices: the lifetime planner over the values their nodes produce, in execution order.
  const deviceValues = new Set([...producedOn].filter(([, d]) => d !== HOST).map(([v]) => v));
  if (deviceValues.size) {
    const inOrder = new Graph({ name: graph.name, nodes: order, inputs: graph.inputs, outputs: graph.outputs, initializers: graph.initializers, valueInfo: graph.valueInfo, opsetImports: graph.opsetImports, parent: graph.parent });
    const planned = planMemory(inOrder, {
      sizeOf: (name) => (deviceValues.has(name) ? sizeOf(name) : undefined),
      deviceOf: (name) => producedOn.get(name) ?? HOST,
    });
    for (const [name, d] of planned.devices) if (name !== HOST) device(name).activationBytes = d.arenaBytes;
  }

  // What each run allocates outside the planned activations.
  const graphOutputs = new Set(graph.outputs.map((o) => o.name));
  const perRun = (name: string, on: string): void => {
    const bytes = sizeOf(name);
    if (bytes !== undefined) device(on).perRunBytes += bytes;
  };
  const read = new Set<string>(plan.outputs.map((o) => o.hostName));
  for (const step of plan.steps) if (step.kind === 'unit') for (const i of step.inputs) read.add(i);
  for (const step of plan.steps) {
    if (step.kind === 'copy') {
      // Copies nothing reads never run (a fused partition carries its initializers), and a copied
      // initializer is already among the device's weights. A copy is its source's size.
      if (read.has(step.target) && !plan.constants.has(step.source)) perRun(step.source, step.to);
      continue;
    }
    const on = deviceOf(step.unit.ep);
    for (const out of step.outputs) {
      const inArena = on === HOST && step.unit.kind === 'single' && arena.arenaSlots.has(out);
      const inDevicePlan = on !== HOST && !graphOutputs.has(out) && deviceValues.has(out);
      if (!inArena && !inDevicePlan) perRun(out, on);
    }
  }

  // The EPs' own figures.
  const notes: string[] = [];
  const reported = new Map<string, { activation: number; all: boolean; weights: number; allWeights: boolean }>();
  for (const [ep, nodes] of nodesOf) {
    const d = device(deviceOf(ep));
    const estimate = ep.memoryEstimate?.({ graph, nodes, typeOf });
    if (estimate?.workspaceBytes !== undefined) {
      d.workspaceBytes += estimate.workspaceBytes;
      d.workspaceReportedBy.push(ep.name);
    }
    const r = reported.get(d.device) ?? { activation: 0, all: true, weights: 0, allWeights: true };
    if (estimate?.activationBytes !== undefined) r.activation += estimate.activationBytes;
    else r.all = false;
    if (estimate?.weightsBytes !== undefined) r.weights += estimate.weightsBytes;
    else r.allWeights = false;
    reported.set(d.device, r);
  }
  for (const [name, r] of reported) {
    if (name === HOST) continue;
    const d = device(name);
    if (r.all) {
      d.activationBytes = r.activation;
      d.activationSource = 'provider';
    } else notes.push(`${name}: activations estimated by the lifetime planner over the values its nodes produce (its EPs report none)`);
    // The device's copies of the weights, as its EPs hold them (every EP there must say, or core's count stands).
    if (r.allWeights) d.weightsBytes = r.weights;
  }
  if (plan.subplans.size) notes.push('values inside control-flow subgraphs (If, Loop, Scan bodies) are allocated per iteration and not counted');

  let totalBytes = 0;
  for (const d of devices.values()) {
    d.totalBytes = d.weightsBytes + d.activationBytes + d.perRunBytes + d.workspaceBytes;
    totalBytes += d.totalBytes;
  }
  const dims: Record<string, number> = { ...options.fixed };
  for (const [k, v] of bindings) dims[k] = v;
  return { devices: [...devices.values()], totalBytes, dims, unresolvedDims: [...unresolved].sort(), unsized: [...unsized], notes };
}

/**
 * Adds each initializer's bytes to the devices whose nodes read it: this plan's and its subplans'
 * (a subgraph's nodes reading an outer initializer count on their own device). An initializer nothing
 * reads (a graph input's default) counts on the host.
 */
function addWeights(root: ExecutionPlan, device: (name: string) => DeviceMemory): void {
  interface Weight {
    bytes: number;
    devices: Set<string>;
  }
  const all: Weight[] = [];
  const collect = (plan: ExecutionPlan, scope: ReadonlyArray<ReadonlyMap<string, Weight>>): void => {
    const own = new Map<string, Weight>();
    for (const [name, t] of plan.constants) own.set(name, { bytes: tensorBytes(t), devices: new Set() });
    for (const [name, bytes] of plan.releasedConstants ?? []) if (!own.has(name)) own.set(name, { bytes, devices: new Set() });
    const chain = [own, ...scope];
    const find = (name: string): Weight | undefined => {
      for (const m of chain) {
        const w = m.get(name);
        if (w) return w;
      }
      return undefined;
    };
    for (const step of plan.steps) {
      if (step.kind === 'copy') continue;
      const on = deviceOf(step.unit.ep);
      const nodes = step.unit.kind === 'single' ? [step.unit.node] : step.unit.nodes;
      for (const n of nodes) for (const i of n.inputs) if (i) find(i)?.devices.add(on);
      // A fused partition carries the initializers it uses.
      if (step.partition) for (const name of step.partition.graph.initializers.keys()) find(name)?.devices.add(on);
    }
    for (const sub of plan.subplans.values()) collect(sub, chain);
    all.push(...own.values());
  };
  collect(root, []);
  for (const w of all) {
    if (w.devices.size === 0) w.devices.add(HOST);
    for (const d of w.devices) device(d).weightsBytes += w.bytes;
  }
}
