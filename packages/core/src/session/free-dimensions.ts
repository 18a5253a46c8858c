/**
 * `freeDimensionOverrides`: symbolic dimensions fixed to a size at session creation, as onnxruntime
 * does. Every value of the top-level graph whose shape names the dimension (inputs, outputs, value
 * infos) gets the size, so shape inference and planning see static shapes and feeds must match.
 */
import type { Dim, Graph, ValueInfo, ValueType } from '../ir/graph.js';

function overrideType(type: ValueType | undefined, sizes: ReadonlyMap<string, number>, used: Set<string>): void {
  if (!type) return;
  if (type.kind === 'tensor') {
    if (!type.shape) return;
    type.shape = type.shape.map((d): Dim => {
      if (typeof d !== 'string' || !sizes.has(d)) return d;
      used.add(d);
      return sizes.get(d);
    });
  } else if (type.kind === 'sequence' || type.kind === 'optional') {
    overrideType(type.elem, sizes, used);
  }
}

/** Applies the overrides in place and returns the names that matched no dimension of the graph. */
export function overrideFreeDimensions(graph: Graph, overrides: Readonly<Record<string, number>>): string[] {
  const sizes = new Map(Object.entries(overrides));
  const used = new Set<string>();
  const infos: ValueInfo[] = [...graph.inputs, ...graph.outputs, ...graph.valueInfo.values()];
  for (const info of infos) overrideType(info.type, sizes, used);
  return [...sizes.keys()].filter((name) => !used.has(name));
}
