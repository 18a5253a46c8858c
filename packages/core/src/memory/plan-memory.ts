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
import type { Graph } from '../ir/graph.js';
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

  const devices = new Map<string, DeviceMemoryPlan>();
  let peakBytes = 0;
  let naiveBytes = 0;
  for (const [device, list] of requests) {
    const { offsets, arenaBytes } = assignOffsets(list);
    const slots = new Map<string, MemorySlot>();
    // Slots in graph order, which is easier to read than placement order.
    for (const r of list) slots.set(r.name, { offset: offsets.get(r.name)!, bytes: sizes.get(r.name)! });
    const naive = list.reduce((s, r) => s + r.bytes, 0);
    devices.set(device, { arenaBytes, naiveBytes: naive, slots });
    peakBytes += arenaBytes;
    naiveBytes += naive;
  }
  return { devices, peakBytes, naiveBytes, unplanned, lifetimes: planned };
}
