/** SequenceMap: runs `body` on each element of the input sequence (and matching elements of other sequence inputs). */
import { SwitchyardError, Tensor, defineKernel, type RuntimeValue } from '@switchyard/core';

export const sequenceMapKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'SequenceMap',
  sinceVersion: 17,
  create: ({ attrs }) => {
    const body = attrs.graph('body');
    return {
      async run(ctx) {
        const first = ctx.sequenceInput(0);
        const others = ctx.inputs.slice(1);
        for (const o of others) {
          if (Array.isArray(o) && o.length !== first.length) throw new SwitchyardError('RUNTIME', `SequenceMap: sequences have lengths ${first.length} and ${o.length}`);
        }
        const results: Tensor[][] = Array.from({ length: body.outputs.length }, () => []);
        for (let i = 0; i < first.length; i++) {
          const feeds = new Map<string, RuntimeValue>([[body.inputs[0].name, first[i]]]);
          others.forEach((o, k) => feeds.set(body.inputs[1 + k].name, Array.isArray(o) ? o[i] : (o as Tensor)));
          const outs = await ctx.runSubgraph(body, feeds);
          outs.forEach((v, k) => results[k].push(v as Tensor));
        }
        return results;
      },
    };
  },
});
