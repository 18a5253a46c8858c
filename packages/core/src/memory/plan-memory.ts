/**
 * The memory planner: lays out the intermediate values of a graph in one arena per device so values
 * whose lifetimes do not overlap share memory. The session backs each arena with one allocation and
 * hands kernels views at the planned offsets.
 *
 * Planned: values produced by the graph's nodes whose size is known. Not planned: graph inputs,
 * initializers and graph outputs (they outlive a run or come from the caller), names in `exclude`,
 * values inside subgraphs (they belong to the subgraph's own runs), and values of unknown size
 * (listed in `unplanned`; the session allocates them on the fly).
 */
import { SwitchyardError } from '../errors.js';
import { subgraphsOf, type Graph } from '../ir/graph.js';
import { assignOffsets, type OffsetRequest } from './best-fit.js';
import { valueLifetimes, type ValueLifetime } from './lifetimes.js';

export const DEFAULT_ALIGNMENT = 64;

export interface MemoryPlanOptions {
  /** Byte size of a value, or undefined when it is not known before the run. */
  sizeOf: (valueName: string) => number | undefined;
  /** The device a value lives on (default `'cpu'`); each device gets its own arena. */
  deviceOf?: (valueName: string) => string;
  /** Offsets are multiples of this and reservations are rounded up to it (default 64 bytes). */
  alignment?: number;
  /** Values the planner must leave alone (e.g. values the caller binds to its own buffers). */
  exclude?: ReadonlySet<string>;
  /**
   * Outputs that may take an input's memory (`Kernel.inPlace`). A pair shares one slot when both values
   * are planned on one device with the same size, the output's node is the input's last reader and
   * reads it once; any other pair is planned as usual.
   */
  inPlace?: ReadonlyArray<{ input: string; output: string }>;
}

export interface MemorySlot {
  offset: number;
  /** The value's size as `sizeOf` gave it; the reservation is this rounded up to the alignment. */
  bytes: number;
}

export interface DeviceMemoryPlan {
  /** Size the device's arena must have. */
  arenaBytes: number;
  /** What one buffer per value would take (aligned sizes summed). */
  naiveBytes: number;
  slots: Map<string, MemorySlot>;
}

export interface MemoryPlan {
  devices: Map<string, DeviceMemoryPlan>;
  /** Sum of the arenas over all devices. */
  peakBytes: number;
  /** Sum of the naive sizes over all devices. */
  naiveBytes: number;
  /** Values that would be planned but whose size is unknown, in graph order. */
  unplanned: string[];
  /** Step ranges of the planned values (step = node index), for callers that check or free by time. */
  lifetimes: Map<string, ValueLifetime>;
}

function alignUp(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

export function planMemory(graph: Graph, options: MemoryPlanOptions): MemoryPlan {
  const alignment = options.alignment ?? DEFAULT_ALIGNMENT;
  if (!Number.isSafeInteger(alignment) || alignment <= 0) {
    throw new SwitchyardError('INVALID_ARGUMENT', `planMemory: alignment must be a positive integer, got ${String(alignment)}`);
  }
  if (typeof options.sizeOf !== 'function') {
    throw new SwitchyardError('INVALID_ARGUMENT', 'planMemory: sizeOf must be a function');
  }

  const skip = new Set<string>([...graph.inputs.map((v) => v.name), ...graph.outputs.map((v) => v.name), ...graph.initializers.keys()]);
  for (const name of options.exclude ?? []) skip.add(name);

  const lifetimes = valueLifetimes(graph);
  const requests = new Map<string, OffsetRequest[]>();
  const sizes = new Map<string, number>();
  const planned = new Map<string, ValueLifetime>();
  const unplanned: string[] = [];

  for (const [name, life] of lifetimes) {
    if (skip.has(name)) continue;
    const bytes = options.sizeOf(name);
    if (bytes === undefined) {
      unplanned.push(name);
      continue;
    }
    if (!Number.isSafeInteger(bytes) || bytes < 0) {
      throw new SwitchyardError('INVALID_ARGUMENT', `planMemory: size of '${name}' must be a non-negative integer, got ${String(bytes)}`);
    }
    const device = options.deviceOf?.(name) ?? 'cpu';
    if (typeof device !== 'string' || device === '') {
      throw new SwitchyardError('INVALID_ARGUMENT', `planMemory: deviceOf('${name}') must return a device name`);
    }
    let list = requests.get(device);
    if (!list) requests.set(device, (list = []));
    list.push({ name, bytes: alignUp(bytes, alignment), start: life.start, end: life.end });
    sizes.set(name, bytes);
    planned.set(name, life);
  }

  const shareWith = inPlaceGroups(graph, options.inPlace ?? [], requests, planned);
  const devices = new Map<string, DeviceMemoryPlan>();
  let peakBytes = 0;
  let naiveBytes = 0;
  for (const [device, list] of requests) {
    const { offsets, arenaBytes } = assignOffsets(mergeGroups(list, shareWith));
    const slots = new Map<string, MemorySlot>();
    // Slots in graph order, which is easier to read than placement order.
    for (const r of list) slots.set(r.name, { offset: offsets.get(shareWith.get(r.name) ?? r.name)!, bytes: sizes.get(r.name)! });
    const naive = list.reduce((s, r) => s + r.bytes, 0);
    devices.set(device, { arenaBytes, naiveBytes: naive, slots });
    peakBytes += arenaBytes;
    naiveBytes += naive;
  }
  return { devices, peakBytes, naiveBytes, unplanned, lifetimes: planned };
}

/**
 * The in-place pairs that hold, as value → the first value of its chain (an output that took an
 * input's memory may lend it on again). Each value gives its memory to at most one output.
 */
function inPlaceGroups(
  graph: Graph,
  pairs: ReadonlyArray<{ input: string; output: string }>,
  requests: ReadonlyMap<string, OffsetRequest[]>,
  lifetimes: ReadonlyMap<string, ValueLifetime>,
): Map<string, string> {
  const request = new Map<string, { device: string; bytes: number }>();
  for (const [device, list] of requests) for (const r of list) request.set(r.name, { device, bytes: r.bytes });
  const rootOf = new Map<string, string>();
  const lent = new Set<string>();
  for (const { input, output } of pairs) {
    const from = request.get(input);
    const to = request.get(output);
    const inLife = lifetimes.get(input);
    const outLife = lifetimes.get(output);
    if (!from || !to || !inLife || !outLife || from.device !== to.device || from.bytes !== to.bytes) continue;
    if (lent.has(input) || rootOf.has(output) || inLife.end !== outLife.start) continue;
    const node = graph.nodes[outLife.start];
    if (node.inputs.filter((name) => name === input).length !== 1 || subgraphsOf(node).length > 0) continue;
    lent.add(input);
    rootOf.set(output, rootOf.get(input) ?? input);
  }
  return rootOf;
}

/** One request per chain of shared values: the first value's name, covering every member's steps. */
function mergeGroups(list: readonly OffsetRequest[], rootOf: ReadonlyMap<string, string>): OffsetRequest[] {
  if (rootOf.size === 0) return [...list];
  const merged = new Map<string, OffsetRequest>();
  for (const r of list) {
    const root = rootOf.get(r.name) ?? r.name;
    const group = merged.get(root);
    if (!group) merged.set(root, { ...r, name: root });
    else merged.set(root, { name: root, bytes: Math.max(group.bytes, r.bytes), start: Math.min(group.start, r.start), end: Math.max(group.end, r.end) });
  }
  return [...merged.values()];
}
