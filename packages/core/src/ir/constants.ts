/**
 * Which names are constants. An initializer is one, except when its graph also lists it as an input
 * in a model of IR version 4 or later: then it is only a default the caller may override, so no kernel
 * may bake its data in and no pass may fold it. (Before IR version 4 every initializer had to be
 * listed as an input; those are constants, as ONNX Runtime treats them.) A name an inner graph defines
 * itself (an input or a node output) hides an outer initializer of the same name.
 */
import type { Graph } from './graph.js';
import type { Tensor } from '../tensor/tensor.js';

/** `graph` and the graphs enclosing it, innermost first. */
export function enclosingGraphs(graph: Graph): Graph[] {
  const chain: Graph[] = [];
  for (let g: Graph | undefined = graph; g; g = g.parent) chain.push(g);
  return chain;
}

/**
 * A lookup of the constant tensor a name resolves to from the first of `scopes` (innermost first).
 * `inputsOverride`: whether an initializer that is also an input is overridable (IR version >= 4).
 * Which names each graph's inputs and nodes define is read once, when the lookup is made;
 * initializers are read live (passes turn values into initializers, sessions drop packed ones).
 */
export function constantResolver(scopes: readonly Graph[], inputsOverride = true): (name: string) => Tensor | undefined {
  const levels = scopes.map((graph) => {
    const defined = new Set(graph.inputs.map((v) => v.name));
    const inputs = new Set(defined);
    for (const n of graph.nodes) for (const o of n.outputs) if (o) defined.add(o);
    return { graph, inputs, defined };
  });
  return (name) => {
    for (const level of levels) {
      const init = level.graph.initializers.get(name);
      if (init) return inputsOverride && level.inputs.has(name) ? undefined : init;
      if (level.defined.has(name)) return undefined;
    }
    return undefined;
  };
}
