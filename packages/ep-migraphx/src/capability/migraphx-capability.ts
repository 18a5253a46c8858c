/**
 * What the MIGraphX EP claims: nodes whose operator MIGraphX's ONNX parser knows, on types it can
 * hold, grouped into fused partitions; partitions too small to repay a compile are left to the next EP.
 */
import { estimateFlops, type CapabilityResult, type DataType, type DeclineReason, type Graph, type Node, type Tensor, type ValueType } from '@switchyard/core';
import { weightBytes } from '../memory/program-memory.js';
import type { Quantization } from '../program/program-compiler.js';
import { groupPartitions } from './group-partitions.js';

/** Element types MIGraphX shapes can hold (its `migraphx_shape_datatype_t` has no string or complex). */
export const MIGRAPHX_TENSOR_TYPES: ReadonlySet<DataType> = new Set<DataType>([
  'float32', 'float16', 'bfloat16', 'float64', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32', 'uint64', 'bool',
]);

export interface CapabilityPolicy {
  /** ONNX operators the parser supports (default domain). */
  operators: ReadonlySet<string>;
  /** Where that list came from, for reasons. */
  operatorSource: 'library' | 'static';
  minPartitionNodes: number;
  /** 0: no FLOP threshold. */
  minPartitionFlops: number;
  /** Device bytes the EP's programs may hold (memLimit); Infinity: no limit. Default Infinity. */
  memLimit?: number;
  /** How weights are counted against memLimit. Default 'none'. */
  quantization?: Quantization;
}

function typeProblem(name: string, type: ValueType | undefined): string | undefined {
  if (!type) return undefined; // unknown types are left to the parser, which knows the file
  if (type.kind !== 'tensor') return `'${name}' is a ${type.kind}, and MIGraphX programs take tensors only`;
  if (!MIGRAPHX_TENSOR_TYPES.has(type.elemType)) return `'${name}' is ${type.elemType}, which MIGraphX has no type for`;
  return undefined;
}

/** `undefined` when MIGraphX can take `node`, else why not. */
export function nodeDeclineReason(node: Node, graph: Graph, policy: CapabilityPolicy): DeclineReason | undefined {
  if (node.domain !== '' && node.domain !== 'ai.onnx') {
    return { kind: 'op', message: `MIGraphX parses only the default ONNX domain, not '${node.domain}'` };
  }
  if (!policy.operators.has(node.opType)) {
    const where = policy.operatorSource === 'library' ? "the loaded library's ONNX parser" : "MIGraphX's ONNX parser (static table)";
    return { kind: 'op', message: `${where} has no ${node.opType}` };
  }
  for (const name of [...node.inputs, ...node.outputs]) {
    if (!name) continue;
    const problem = typeProblem(name, graph.typeOf(name));
    if (problem) return { kind: 'dtype', message: problem };
  }
  return undefined;
}

/** Why a group is too small to compile, or undefined when it is worth it. */
function smallPartitionReason(nodes: readonly Node[], graph: Graph, policy: CapabilityPolicy): string | undefined {
  if (nodes.length < policy.minPartitionNodes) {
    return `partition too small to pay for a compile (${nodes.length} node${nodes.length === 1 ? '' : 's'}, minPartitionNodes is ${policy.minPartitionNodes})`;
  }
  if (policy.minPartitionFlops > 0) {
    const flops = nodes.map((n) => estimateFlops(n, graph));
    // A node with an unknown count (0) makes the total unknown: keep the partition rather than guess.
    if (flops.every((f) => f > 0)) {
      const total = flops.reduce((s, f) => s + f, 0);
      if (total < policy.minPartitionFlops) {
        return `partition too small to pay for a compile (about ${total} FLOPs, minPartitionFlops is ${policy.minPartitionFlops})`;
      }
    }
  }
  return undefined;
}

/** The EP's `getCapability`: fused partitions of supported, unassigned nodes, with reasons for the rest. */
export function migraphxCapability(graph: Graph, assigned: ReadonlySet<Node>, policy: CapabilityPolicy): CapabilityResult {
  const declined = new Map<Node, DeclineReason>();
  const candidates = new Set<Node>();
  for (const node of graph.nodes) {
    if (assigned.has(node)) continue;
    const reason = nodeDeclineReason(node, graph, policy);
    if (reason) declined.set(node, reason);
    else candidates.add(node);
  }
  const capabilities: CapabilityResult['capabilities'] = [];
  // memLimit: a partition whose weights alone (each program holds its own copy) do not fit beside the
  // weights of the partitions taken before it can never run here; the next EP takes it, saying why.
  const limit = policy.memLimit ?? Number.POSITIVE_INFINITY;
  let taken = 0;
  for (const nodes of groupPartitions(graph, candidates)) {
    const small = smallPartitionReason(nodes, graph, policy);
    const weights = small || limit === Number.POSITIVE_INFINITY ? 0 : weightBytes(partitionWeights(nodes, graph), policy.quantization ?? 'none');
    const reason = small ?? (taken + weights > limit ? memLimitReason(weights, taken, limit) : undefined);
    if (reason) for (const n of nodes) declined.set(n, { kind: 'partition', message: reason });
    else {
      capabilities.push({ kind: 'fused', nodes });
      taken += weights;
    }
  }
  return { capabilities, declined };
}

/** The initializers `nodes` read, each once. */
function partitionWeights(nodes: readonly Node[], graph: Graph): Tensor[] {
  const names = new Set(nodes.flatMap((n) => n.inputs));
  return [...names].map((name) => graph.initializers.get(name)).filter((t): t is Tensor => t !== undefined);
}

function memLimitReason(weights: number, taken: number, limit: number): string {
  const before = taken > 0 ? ` beside the ${taken} bytes of partitions taken before it` : '';
  return `partition's weights need ${weights} bytes of device memory${before}, past memLimit (${limit} bytes)`;
}
