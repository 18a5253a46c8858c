/**
 * Drops initializers that no step of the plan will read again. A kernel that copies a constant into
 * a form of its own at creation (oneDNN's packed weights) lists it in `Kernel.releasedConstants`;
 * once every reader of an initializer has done so, the session lets go of it, so the weights are not
 * held twice (the model's copy and the packed one) for the session's whole life.
 *
 * Dropping the reference frees nothing until the garbage collector runs, and nothing during session
 * creation makes it run: the packed copies are native memory V8 does not see. When the session owns
 * the data (it decoded the model itself), the buffers are detached and freed right away instead.
 */
import { MessageChannel } from 'node:worker_threads';
import { subgraphsOf, type Graph } from '../ir/graph.js';
import type { Kernel } from '../registry/kernel-def.js';
import type { Tensor } from '../tensor/tensor.js';
import type { PlannedStep } from '../partition/copy-insertion.js';

/** What to do with a constant no reader needs: keep it, drop the reference, or also free its buffer. */
export type ConstantRelease = 'keep' | 'drop' | 'free';

/** Freed bytes are handed back in batches of about this size, so the high-water mark stays low while packing. */
const FLUSH_BYTES = 32 * 1024 * 1024;

export class ConstantReleaser {
  readonly #graph: Graph;
  readonly #mode: ConstantRelease;
  /** Initializer name → readers that have not released it yet. Names absent here are never released. */
  readonly #pending = new Map<string, number>();
  #queued: Tensor[] = [];
  #queuedBytes = 0;
  /** Names released so far and their bytes. */
  readonly released = new Map<string, number>();

  constructor(graph: Graph, steps: readonly PlannedStep[], mode: ConstantRelease) {
    this.#graph = graph;
    this.#mode = mode;
    if (mode === 'keep') return;
    const pinned = new Set<string>([...graph.outputs, ...graph.inputs].map((v) => v.name));
    for (const node of graph.nodes) for (const sub of subgraphsOf(node)) namesReadIn(sub, pinned);
    for (const s of steps) {
      if (s.kind === 'copy') pinned.add(s.source);
      else if (s.unit.kind === 'fused') for (const n of s.inputs) pinned.add(n);
      else for (const n of s.unit.node.inputs) if (n) this.#pending.set(n, (this.#pending.get(n) ?? 0) + 1);
    }
    for (const name of [...this.#pending.keys()]) if (pinned.has(name) || !graph.initializers.has(name)) this.#pending.delete(name);
  }

  /** Records what a freshly built kernel released; drops the constants no reader needs any more. */
  kernelBuilt(inputs: readonly string[], kernel: Kernel): void {
    for (const i of kernel.releasedConstants ?? []) {
      const name = inputs[i];
      const left = name ? this.#pending.get(name) : undefined;
      if (left === undefined) continue;
      if (left > 1) {
        this.#pending.set(name, left - 1);
        continue;
      }
      this.#pending.delete(name);
      this.#release(name);
    }
  }

  /** Frees what was queued once a batch is big enough (`force`: whatever is queued). */
  async flush(force = false): Promise<void> {
    if (this.#queued.length === 0 || (!force && this.#queuedBytes < FLUSH_BYTES)) return;
    const inUse = buffersInUse(this.#graph);
    const buffers = new Set<ArrayBuffer>();
    for (const t of this.#queued) {
      const buffer = (t.data as { buffer?: ArrayBufferLike }).buffer;
      if (buffer instanceof ArrayBuffer && !inUse.has(buffer)) buffers.add(buffer);
    }
    this.#queued = [];
    this.#queuedBytes = 0;
    if (buffers.size) await detachAndFree([...buffers]);
  }

  #release(name: string): void {
    const graph = this.#graph;
    const t = graph.initializers.get(name)!;
    graph.initializers.delete(name);
    // Its type stays known to everything that asks the graph (placement, FLOP estimates).
    if (!graph.valueInfo.get(name)?.type) graph.valueInfo.set(name, { name, type: { kind: 'tensor', elemType: t.type, shape: [...t.dims] } });
    const bytes = (t.data as { byteLength?: number }).byteLength ?? 0;
    this.released.set(name, bytes);
    if (this.#mode === 'free') {
      this.#queued.push(t);
      this.#queuedBytes += bytes;
    }
  }
}

/**
 * Every value name read inside `graph` and its subgraphs (outer-scope references included): node
 * inputs, and graph outputs, since a branch may return an outer value that no node inside reads.
 */
function namesReadIn(graph: Graph, into: Set<string>): void {
  for (const o of graph.outputs) if (o.name) into.add(o.name);
  for (const node of graph.nodes) {
    for (const n of node.inputs) if (n) into.add(n);
    for (const sub of subgraphsOf(node)) namesReadIn(sub, into);
  }
}

/** Buffers still behind an initializer or tensor attribute anywhere in the graph: a released tensor sharing one stays. */
function buffersInUse(graph: Graph, into = new Set<ArrayBufferLike>()): Set<ArrayBufferLike> {
  const add = (t: Tensor) => {
    const b = (t.data as { buffer?: ArrayBufferLike }).buffer;
    if (b) into.add(b);
  };
  for (const t of graph.initializers.values()) add(t);
  for (const node of graph.nodes) {
    for (const a of node.attributes.values()) {
      if (a.type === 'tensor') add(a.value);
      else if (a.type === 'tensors') a.value.forEach(add);
    }
    for (const sub of subgraphsOf(node)) buffersInUse(sub, into);
  }
  return into;
}

/**
 * Detaches `buffers` and frees their memory now rather than at some later collection: Node 20 has no
 * ArrayBuffer.prototype.transfer, but transferring them into a message that is never delivered hands
 * the backing stores to the port, which frees them when it closes (a couple of event-loop turns).
 */
async function detachAndFree(buffers: ArrayBuffer[]): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  try {
    port1.postMessage(null, buffers);
  } catch {
    // One of them cannot be transferred (a pooled or otherwise pinned buffer): move the others one by one.
    for (const b of buffers) {
      try {
        port1.postMessage(null, [b]);
      } catch {
        // left to the garbage collector
      }
    }
  }
  port1.close();
  port2.close();
  for (let i = 0; i < 2; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
