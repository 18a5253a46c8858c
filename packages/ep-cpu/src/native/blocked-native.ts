/**
 * Kernels of the com.switchyard ops the blocked-layout pass creates besides BlockedConv (in
 * conv-native.ts): BlockedPool (MaxPool / AveragePool / GlobalAveragePool / GlobalMaxPool on a channel-blocked
 * tensor, no reorder) and the region boundaries ReorderFromBlocked / ReorderToBlocked. They exist only
 * with the oneDNN addon; the pass runs only then, so they have no TS twin.
 */
import { SwitchyardError, elementCount, type Kernel, type KernelDef, type KernelInit, type KernelRunContext, type Node, type Tensor } from '@switchyard/core';
import type { ChannelBlock, NativeBinding, PoolPrimitive, ReorderPrimitive } from './binding.js';
import { BLOCKED_DOMAIN, blockedDims, isChannelBlock, logicalDims } from './channel-blocked.js';
import { fromNativeError, withNativeErrors, withNodeErrors } from './native-errors.js';
import { MIN_ELEMENTS_PER_THREAD, SYNC_ELEMENT_LIMIT, dispatchFor, float32Data, hasZeroDim, sameDims, staticDims, teamFor } from './native-support.js';
import { PrimitiveCache } from './primitive-cache.js';
import { poolOptions, type PoolOp } from './pool-native.js';


const POOL_OPS: readonly string[] = ['MaxPool', 'AveragePool', 'GlobalAveragePool', 'GlobalMaxPool'];

function fail(node: Node, message: string): SwitchyardError {
  return new SwitchyardError('INVALID_ARGUMENT', `node '${node.name}' (${node.opType}): ${message}`);
}

function blockAttr(init: KernelInit): Exclude<ChannelBlock, 0> {
  const b = init.attrs.int('block', 0);
  if (!isChannelBlock(b)) throw new SwitchyardError('INVALID_MODEL', `node '${init.node.name}' (${init.node.opType}): block must be 8 or 16, got ${b}`);
  return b;
}

function checkBlocked(node: Node, dims: readonly number[], block: number): void {
  if (dims.length < 4 || dims[dims.length - 1] !== block) throw fail(node, `X [${dims.join(', ')}] is not a tensor blocked by ${block}`);
}

function createBlockedPool(binding: NativeBinding, Primitive: NonNullable<NativeBinding['PoolPrimitive']>, init: KernelInit): Kernel {
  const { node } = init;
  const block = blockAttr(init);
  const op = init.attrs.string('pool_op', '');
  if (!POOL_OPS.includes(op)) throw new SwitchyardError('INVALID_MODEL', `node '${node.name}' (BlockedPool): pool_op must be MaxPool, AveragePool, GlobalAveragePool or GlobalMaxPool, got '${op}'`);
  const cache = new PrimitiveCache<PoolPrimitive>();
  // Padding lanes are pooled like channels (zeros stay zero); the logical C is every lane.
  const primitiveFor = (xBlocked: readonly number[], threads: number) =>
    cache.get(`${xBlocked.join(',')}|${threads}`, () => {
      checkBlocked(node, xBlocked, block);
      const options = poolOptions(op as PoolOp, init.attrs, logicalDims(xBlocked, block), threads);
      if (!options) throw fail(node, 'onednn cannot pool this window exactly (the blocked-layout pass should have left it)');
      return new Primitive({ ...options, block });
    });

  const xStatic = staticDims(init.inputTypes[0]);
  if (xStatic) {
    try {
      primitiveFor(xStatic, teamFor(binding, init.threads, elementCount(xStatic), MIN_ELEMENTS_PER_THREAD));
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }
  /** The last X dims' primitive, Y dims and dispatch: a static model's runs skip the cache key and outputDims. */
  let last: { xDims: readonly number[]; requestedThreads: number; primitive: PoolPrimitive; yDims: number[]; inline: boolean } | undefined;
  const prepare = (xDims: readonly number[], size: number, requestedThreads: number) => {
    if (last && last.requestedThreads === requestedThreads && sameDims(last.xDims, xDims)) return last;
    const { inline, threads } = dispatchFor(binding, requestedThreads, size, SYNC_ELEMENT_LIMIT, MIN_ELEMENTS_PER_THREAD);
    const primitive = withNodeErrors(node, () => primitiveFor(xDims, threads));
    last = { xDims: [...xDims], requestedThreads, primitive, yDims: blockedDims(primitive.outputDims, block), inline };
    return last;
  };
  return {
    implementation: 'onednn',
    // Synchronous when the call runs inline: no promise or microtask per node.
    run(ctx: KernelRunContext): Tensor[] | Promise<Tensor[]> {
      const x = ctx.input(0);
      const xData = float32Data(node, x, 'X');
      const { primitive, yDims, inline } = prepare(x.dims, x.size, ctx.threads);
      // oneDNN writes every element of Y, the zero padding of a blocked layout included.
      const y = ctx.output(0, 'float32', yDims, { uninitialized: true });
      const yData = float32Data(node, y, 'Y');
      if (inline) {
        withNodeErrors(node, () => primitive.runSync(xData, yData));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(xData, yData)).then(() => [y]);
    },
    dispose() {
      last = undefined;
      cache.dispose();
    },
  };
}

/** ReorderFromBlocked (X blocked → Y [N, channels, ...spatial]) or ReorderToBlocked (X plain → Y blocked). */
function createReorder(binding: NativeBinding, Primitive: NonNullable<NativeBinding['ReorderPrimitive']>, toBlocked: boolean, init: KernelInit): Kernel {
  const { node } = init;
  const block = blockAttr(init);
  const channels = toBlocked ? undefined : init.attrs.int('channels', 0);
  if (channels !== undefined && channels < 1) throw new SwitchyardError('INVALID_MODEL', `node '${node.name}' (ReorderFromBlocked): channels must be >= 1`);
  const cache = new PrimitiveCache<ReorderPrimitive>();
  /** The logical dims of X, checked. */
  const logicalOf = (x: readonly number[]): number[] => {
    if (toBlocked) {
      if (x.length < 3 || x.length > 5) throw fail(node, `X [${x.join(', ')}] must have rank 3 to 5`);
      return [...x];
    }
    checkBlocked(node, x, block);
    if (Math.ceil(channels! / block) !== x[1]) throw fail(node, `X [${x.join(', ')}] does not hold ${channels} channels in blocks of ${block}`);
    return logicalDims(x, block, channels);
  };
  const primitiveFor = (logical: readonly number[], threads: number) =>
    cache.get(`${logical.join(',')}|${threads}`, () =>
      new Primitive({ dims: logical, fromBlock: toBlocked ? 0 : block, toBlock: toBlocked ? block : 0, threads }),
    );

  /**
   * With every spatial dim 1 and whole channel blocks, [N, C/b, 1…, b] and [N, C, 1…] hold the same
   * floats in the same order (a global pool's output before a classifier): a copy, not a oneDNN call.
   */
  const sameBytes = (logical: readonly number[]) => logical.slice(2).every((d) => d === 1) && logical[1] % block === 0;

  const xStatic = staticDims(init.inputTypes[0]);
  // The placement says `ts` for a reorder that is only ever a copy.
  let implementation = 'onednn';
  if (xStatic && !xStatic.includes(0)) {
    try {
      const logical = logicalOf(xStatic);
      if (sameBytes(logical)) implementation = 'ts';
      else primitiveFor(logical, teamFor(binding, init.threads, elementCount(xStatic), MIN_ELEMENTS_PER_THREAD));
    } catch (error) {
      throw fromNativeError(node, error);
    }
  }
  /** The last X dims' checked logical dims and dispatch: a static model's runs skip the checks and the cache key. */
  let last:
    | { xDims: readonly number[]; requestedThreads: number; yDims: number[]; inline: boolean; copy: boolean; primitive: ReorderPrimitive | undefined }
    | undefined;
  const prepare = (xDims: readonly number[], size: number, requestedThreads: number) => {
    if (last && last.requestedThreads === requestedThreads && sameDims(last.xDims, xDims)) return last;
    const logical = logicalOf(xDims);
    const { inline, threads } = dispatchFor(binding, requestedThreads, size, SYNC_ELEMENT_LIMIT, MIN_ELEMENTS_PER_THREAD);
    const copy = sameBytes(logical);
    // An empty Y needs no primitive (and oneDNN builds none for zero dims); neither does a copy.
    const primitive = hasZeroDim(logical) || copy ? undefined : withNodeErrors(node, () => primitiveFor(logical, threads));
    last = { xDims: [...xDims], requestedThreads, yDims: toBlocked ? blockedDims(logical, block) : logical, inline, copy, primitive };
    return last;
  };
  return {
    implementation,
    // Synchronous when the call runs inline: no promise or microtask per node.
    run(ctx: KernelRunContext): Tensor[] | Promise<Tensor[]> {
      const x = ctx.input(0);
      const xData = float32Data(node, x, 'X');
      const { yDims, inline, copy, primitive } = prepare(x.dims, x.size, ctx.threads);
      const y = ctx.output(0, 'float32', yDims, { uninitialized: true });
      if (y.size === 0) return [y];
      const yData = float32Data(node, y, 'Y');
      if (copy) {
        yData.set(xData);
        return [y];
      }
      if (!primitive) return [y];
      if (inline) {
        withNodeErrors(node, () => primitive.runSync(xData, yData));
        return [y];
      }
      return withNativeErrors(node, () => primitive.run(xData, yData)).then(() => [y]);
    },
    dispose() {
      last = undefined;
      cache.dispose();
    },
  };
}

/** Whether the addon can run everything the blocked-layout pass creates. */
export function supportsBlockedLayout(binding: NativeBinding): boolean {
  return Boolean(binding.PoolPrimitive && binding.ReorderPrimitive && binding.preferredChannelBlock);
}

/** BlockedPool, ReorderFromBlocked and ReorderToBlocked, when the addon has what they need. */
export function nativeBlockedKernels(binding: NativeBinding): KernelDef[] {
  const Pool = binding.PoolPrimitive;
  const Reorder = binding.ReorderPrimitive;
  if (!Pool || !Reorder) return [];
  const def = (opType: string, create: (init: KernelInit) => Kernel): KernelDef => ({
    ep: 'cpu',
    domain: BLOCKED_DOMAIN,
    opType,
    sinceVersion: 1,
    typeConstraints: { T: ['float32'] },
    implementation: 'onednn',
    create,
  });
  return [
    def('BlockedPool', (init) => createBlockedPool(binding, Pool, init)),
    def('ReorderFromBlocked', (init) => createReorder(binding, Reorder, false, init)),
    def('ReorderToBlocked', (init) => createReorder(binding, Reorder, true, init)),
  ];
}
