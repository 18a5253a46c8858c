/**
 * Loop: runs `body` while the trip count and condition allow. Body inputs: iteration number, condition,
 * loop-carried values; body outputs: condition, loop-carried values, then per-iteration scan outputs
 * that are stacked along a new first axis.
 */
import { SwitchyardError, Tensor, defineKernel, type RuntimeValue } from '@switchyard/core';
import { stackAlong, truthy } from '../control-flow/axis-slices.js';

/** Guards against models that would loop (practically) forever. */
export const MAX_LOOP_ITERATIONS = 10_000_000;

export const loopKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'Loop',
  sinceVersion: 1,
  create: ({ attrs, node }) => {
    const body = attrs.graph('body');
    const carriedCount = node.inputs.length - 2;
    const scanCount = body.outputs.length - 1 - carriedCount;
    if (scanCount < 0 || body.inputs.length !== carriedCount + 2) {
      throw new SwitchyardError('INVALID_MODEL', `Loop body has ${body.inputs.length} inputs and ${body.outputs.length} outputs for ${carriedCount} loop-carried values`);
    }
    return {
      async run(ctx) {
        const tripTensor = ctx.optionalInput(0);
        const trip = tripTensor ? Number((tripTensor.data as BigInt64Array)[0]) : Infinity;
        let cond = truthy(ctx.optionalInput(1));
        let carried: RuntimeValue[] = ctx.inputs.slice(2).map((v) => v ?? null);
        const scans: Tensor[][] = Array.from({ length: scanCount }, () => []);
        let i = 0;
        for (; i < trip && cond; i++) {
          if (i >= MAX_LOOP_ITERATIONS) throw new SwitchyardError('RUNTIME', `Loop exceeded ${MAX_LOOP_ITERATIONS} iterations`);
          const feeds = new Map<string, RuntimeValue>([
            [body.inputs[0].name, new Tensor('int64', BigInt64Array.of(BigInt(i)), [])],
            [body.inputs[1].name, new Tensor('bool', Uint8Array.of(cond ? 1 : 0), [])],
          ]);
          carried.forEach((v, k) => feeds.set(body.inputs[2 + k].name, v));
          const outs = await ctx.runSubgraph(body, feeds);
          cond = truthy(outs[0] as Tensor);
          carried = outs.slice(1, 1 + carriedCount);
          outs.slice(1 + carriedCount).forEach((v, k) => {
            if (!(v instanceof Tensor)) throw new SwitchyardError('RUNTIME', 'Loop scan outputs must be tensors');
            scans[k].push(v);
          });
        }
        const stacked = scans.map((parts, k) => {
          const t = body.typeOf(body.outputs[1 + carriedCount + k].name);
          const type = t?.kind === 'tensor' ? t.elemType : 'float32';
          return stackAlong(parts, 0, type, []);
        });
        return [...carried, ...stacked];
      },
    };
  },
});
