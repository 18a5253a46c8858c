/** Evaluates one node on a host EP's kernel, outside any plan: what constant folding runs. */
import { SwitchyardError } from '../errors.js';
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { kernelInitFor } from './kernel-init.js';
import type { Graph } from '../ir/graph.js';
import type { EvaluateNode } from '../optimize/index.js';
import type { KernelRegistry } from '../registry/kernel-registry.js';
import type { Tensor } from '../tensor/tensor.js';
import { deviceOf } from '../partition/copy-insertion.js';
import { NodeRunContext, type SubgraphRunner } from './run-context.js';

const NO_SUBGRAPHS: SubgraphRunner = {
  runSubgraph: () => Promise.reject(new SwitchyardError('UNSUPPORTED', 'constant folding does not run subgraphs')),
};

/** Evaluates nodes with the first host EP that has a kernel for them (constant folding's evaluator). */
export function hostEvaluator(providers: readonly ExecutionProvider[], registry: KernelRegistry): EvaluateNode {
  const hosts = providers.filter((p) => deviceOf(p) === 'cpu' && p.kernels && p.kernels.length > 0);
  return async (node, inputs, { graph }: { graph: Graph }) => {
    for (const ep of hosts) {
      const r = registry.lookup(ep.name, node, graph);
      if (!r.ok) continue;
      const constants = new Map(inputs.flatMap((t, i) => (t ? [[i, t] as const] : [])));
      const kernel = r.def.create(kernelInitFor(node, graph, ep, constants, 1));
      try {
        const ctx = new NodeRunContext(node, inputs, 1, undefined, 0, 0, NO_SUBGRAPHS);
        const outs = await kernel.run(ctx);
        return outs as Tensor[];
      } finally {
        kernel.dispose?.();
      }
    }
    throw new SwitchyardError('UNSUPPORTED', `no host kernel evaluates ${node.opType}`);
  };
}
