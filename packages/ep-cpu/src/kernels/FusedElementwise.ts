/**
 * com.switchyard::FusedElementwise (what the elementwise fusion emits): a chain of elementwise ops as
 * one program (src/elementwise/), evaluated here block by block with the TS kernels' arithmetic. The
 * native engine runs the same program when the addon loads; this kernel serves tiny tensors and builds
 * without it.
 */
import { SwitchyardError, defineKernel, nodeLabel, type Tensor } from '@switchyard/core';
import { broadcastPlan } from '../math/broadcast.js';
import { fusedInstructions, fusedProgram } from '../elementwise/fused-node.js';
import { ProgramEvaluator, type ProgramElementType } from '../elementwise/program.js';

export const fusedElementwiseKernel = defineKernel({
  ep: 'cpu',
  domain: 'com.switchyard',
  opType: 'FusedElementwise',
  sinceVersion: 1,
  typeConstraints: { T: ['float32', 'bool'] },
  create: ({ node }) => {
    fusedInstructions(node); // malformed attributes fail at session creation
    // Per input-type signature (float32 / bool per input): the compiled program.
    const evaluators = new Map<string, ProgramEvaluator>();
    return {
      run(ctx) {
        const inputs: Tensor[] = node.inputs.map((_, i) => ctx.input(i));
        const types = inputs.map((t): ProgramElementType => {
          if (t.type !== 'float32' && t.type !== 'bool') {
            throw new SwitchyardError('INVALID_ARGUMENT', `node '${nodeLabel(node)}' (FusedElementwise): inputs must be float32 or bool, got ${t.type}`);
          }
          return t.type;
        });
        const plan = broadcastPlan(inputs.map((t) => t.dims), 'FusedElementwise');
        const out = ctx.output(0, 'float32', plan.dims, { uninitialized: true });
        const key = types.join(',');
        let evaluator = evaluators.get(key);
        if (!evaluator) evaluators.set(key, (evaluator = new ProgramEvaluator(fusedProgram(node, types))));
        evaluator.run(inputs.map((t) => t.data as Float32Array | Uint8Array), plan, out.data);
        return [out];
      },
    };
  },
});
