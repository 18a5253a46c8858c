/** If: runs `then_branch` or `else_branch`; the branch's outputs are the node's. */
import { defineKernel } from '@switchyard/core';
import { truthy } from '../control-flow/axis-slices.js';

export const ifKernel = defineKernel({
  ep: 'cpu',
  domain: '',
  opType: 'If',
  sinceVersion: 1,
  create: ({ attrs }) => {
    const thenBranch = attrs.graph('then_branch');
    const elseBranch = attrs.graph('else_branch');
    return {
      run: (ctx) => ctx.runSubgraph(truthy(ctx.input(0)) ? thenBranch : elseBranch, new Map()),
    };
  },
});
