/**
 * com.switchyard BlockedConvConcat (from the blocked-conv-concat fusion): Y = Concat(conv_0, ..., conv_k-1)
 * on channels, each conv_i a BlockedConv with inputs X_i, W_i, B_i (three per branch, B_i may be '')
 * and the attributes `b<i>_*`; Y is blocked by `y_block` and every branch fills whole channel blocks.
 *
 * Each branch runs through the BlockedConv kernel itself, handed a context whose output is the
 * branch's slice of Y: for one image that slice is contiguous in the blocked layout, so the conv
 * writes its part of Y in place and nothing is copied. With a larger batch the slices interleave
 * per image; the branches then write temporaries that are copied in per image.
 */
import {
  AttributeReader,
  SwitchyardError,
  Tensor,
  type DataType,
  type Kernel,
  type KernelDef,
  type KernelInit,
  type KernelRunContext,
  type Node,
  type OutputOptions,
  type RuntimeValue,
} from '@switchyard/core';
import type { NativeBinding } from './binding.js';
import { BLOCKED_DOMAIN, isChannelBlock } from './channel-blocked.js';
import { nativeConvKernels } from './conv-native.js';

function invalidModel(node: Node, message: string): SwitchyardError {
  return new SwitchyardError('INVALID_MODEL', `node '${node.name}' (BlockedConvConcat): ${message}`);
}

/** Branch `i` of the fused node as the BlockedConv it was. */
function branchNode(node: Node, i: number): Node {
  const prefix = `b${i}_`;
  const attributes = new Map([...node.attributes].filter(([name]) => name.startsWith(prefix)).map(([name, v]) => [name.slice(prefix.length), v]));
  return {
    id: node.id,
    name: `${node.name}/branch${i}`,
    opType: 'BlockedConv',
    domain: BLOCKED_DOMAIN,
    inputs: node.inputs.slice(3 * i, 3 * i + 3),
    outputs: [`${node.outputs[0]}/branch${i}`],
    attributes,
  };
}

/** The state of one run: Y, allocated when the first branch asks for its output, and where each branch writes. */
class ConcatRun {
  y: Tensor<'float32'> | undefined;
  /** Branch outputs written elsewhere (a batch > 1), to copy into Y at the end. */
  readonly pending: { branch: number; t: Tensor<'float32'> }[] = [];

  constructor(
    readonly ctx: KernelRunContext,
    /** Each branch's channel blocks, and the number before it. */
    readonly blocks: readonly number[],
    readonly blocksBefore: readonly number[],
    readonly block: number,
  ) {}

  /** Branch `i`'s output of `dims` ([N, blocks_i, H, W, block]): a view into Y for one image, else a temporary. */
  output(i: number, dims: readonly number[]): Tensor<'float32'> {
    const [n, cb, ...rest] = dims;
    if (dims.length !== 5 || cb !== this.blocks[i] || rest[rest.length - 1] !== this.block) {
      throw new SwitchyardError('RUNTIME', `BlockedConvConcat: branch ${i} produced [${dims.join(', ')}], expected ${this.blocks[i]} blocks of ${this.block}`);
    }
    const total = this.blocks.reduce((a, b) => a + b, 0);
    const yDims = [n, total, ...rest];
    if (!this.y) {
      this.y = this.ctx.output(0, 'float32', yDims, { uninitialized: true });
    } else if (this.y.dims.some((d, k) => d !== yDims[k])) {
      throw new SwitchyardError('INVALID_SHAPE', `BlockedConvConcat: branch ${i}'s output [${dims.join(', ')}] does not line up with Y [${this.y.dims.join(', ')}]`);
    }
    const plane = rest.reduce((a, b) => a * b, 1); // H · W · block
    if (n === 1) {
      const start = this.blocksBefore[i] * plane;
      return new Tensor('float32', this.y.data.subarray(start, start + cb * plane), dims);
    }
    const t = new Tensor('float32', new Float32Array(n * cb * plane), dims);
    this.pending.push({ branch: i, t });
    return t;
  }

  finish(): Tensor[] {
    const y = this.y;
    if (!y) throw new SwitchyardError('RUNTIME', 'BlockedConvConcat: no branch produced an output');
    const plane = y.dims.slice(2).reduce((a, b) => a * b, 1);
    const imageSize = y.dims[1] * plane;
    for (const { branch, t } of this.pending) {
      const run = this.blocks[branch] * plane;
      for (let img = 0; img < y.dims[0]; img++) y.data.set(t.data.subarray(img * run, (img + 1) * run), img * imageSize + this.blocksBefore[branch] * plane);
    }
    return [y];
  }
}

/** What branch `i`'s kernel sees: its three inputs, and an output that lands in Y. */
class BranchContext implements KernelRunContext {
  readonly node: Node;
  readonly inputs: readonly (RuntimeValue | undefined)[];
  readonly threads: number;

  constructor(
    node: Node,
    private readonly run: ConcatRun,
    private readonly branch: number,
  ) {
    this.node = node;
    this.inputs = run.ctx.inputs.slice(3 * branch, 3 * branch + 3);
    this.threads = run.ctx.threads;
  }

  input(i: number): Tensor {
    return this.run.ctx.input(3 * this.branch + i);
  }

  optionalInput(i: number): Tensor | undefined {
    return this.run.ctx.optionalInput(3 * this.branch + i);
  }

  sequenceInput(): Tensor[] {
    throw new SwitchyardError('RUNTIME', 'BlockedConvConcat: a conv branch has no sequence input');
  }

  output<T extends DataType>(i: number, type: T, dims: readonly number[], options?: OutputOptions): Tensor<T> {
    if (i !== 0 || type !== 'float32' || !options?.uninitialized) throw new SwitchyardError('RUNTIME', 'BlockedConvConcat: a conv branch writes one float32 output');
    return this.run.output(this.branch, dims) as Tensor<T>;
  }

  runSubgraph(): Promise<RuntimeValue[]> {
    return Promise.reject(new SwitchyardError('RUNTIME', 'BlockedConvConcat: a conv branch runs no subgraph'));
  }
}

function createConvConcat(blockedConv: KernelDef, init: KernelInit): Kernel {
  const { node } = init;
  const count = init.attrs.int('branches', 0);
  const block = init.attrs.int('y_block', 0);
  if (count < 1 || node.inputs.length !== 3 * count) throw invalidModel(node, `branches (${count}) must be >= 1 with three inputs each, got ${node.inputs.length} inputs`);
  if (!isChannelBlock(block)) throw invalidModel(node, `y_block must be 8 or 16, got ${block}`);
  const blocks: number[] = [];
  const kernels: Kernel[] = [];
  const released: number[] = [];
  const nodes: Node[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const sub = branchNode(node, i);
      const w = init.constantInputs.get(3 * i + 1);
      if (!w || w.dims[0] % block !== 0) throw invalidModel(node, `branch ${i}: W must be a constant whose output channels fill blocks of ${block}`);
      if (init.attrs.int(`b${i}_y_block`, 0) !== block) throw invalidModel(node, `branch ${i}: y_block must be ${block}`);
      blocks.push(w.dims[0] / block);
      const constantInputs = new Map<number, Tensor>();
      for (let j = 0; j < 3; j++) {
        const t = init.constantInputs.get(3 * i + j);
        if (t) constantInputs.set(j, t);
      }
      const kernel = blockedConv.create({
        ...init,
        node: sub,
        attrs: new AttributeReader(sub),
        inputTypes: init.inputTypes.slice(3 * i, 3 * i + 3),
        outputTypes: [undefined],
        constantInputs,
      });
      kernels.push(kernel);
      nodes.push(sub);
      for (const j of kernel.releasedConstants ?? []) released.push(3 * i + j);
    }
  } catch (error) {
    for (const k of kernels) k.dispose?.();
    throw error;
  }
  const blocksBefore = blocks.map((_, i) => blocks.slice(0, i).reduce((a, b) => a + b, 0));

  const finishAsync = async (pending: Promise<RuntimeValue[]>, from: number, run: ConcatRun): Promise<Tensor[]> => {
    await pending;
    for (let i = from + 1; i < count; i++) await kernels[i].run(new BranchContext(nodes[i], run, i));
    return run.finish();
  };

  return {
    implementation: 'onednn',
    releasedConstants: released.length ? released : undefined,
    run(ctx: KernelRunContext): Tensor[] | Promise<Tensor[]> {
      const run = new ConcatRun(ctx, blocks, blocksBefore, block);
      for (let i = 0; i < count; i++) {
        const result = kernels[i].run(new BranchContext(nodes[i], run, i));
        if (result instanceof Promise) return finishAsync(result, i, run);
      }
      return run.finish();
    },
    dispose() {
      for (const k of kernels) k.dispose?.();
    },
  };
}

/** The BlockedConvConcat kernel, built on the BlockedConv one. */
export function nativeConvConcatKernels(binding: NativeBinding): KernelDef[] {
  const blockedConv = nativeConvKernels(binding).find((d) => d.opType === 'BlockedConv' && d.domain === BLOCKED_DOMAIN);
  if (!blockedConv) return [];
  return [
    {
      ep: 'cpu',
      domain: BLOCKED_DOMAIN,
      opType: 'BlockedConvConcat',
      sinceVersion: 1,
      implementation: 'onednn',
      create: (init) => createConvConcat(blockedConv, init),
    },
  ];
}
