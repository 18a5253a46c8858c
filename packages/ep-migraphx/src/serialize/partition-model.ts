/**
 * A fused partition as a standalone ONNX model, the form MIGraphX's parser takes
 * (`migraphx_parse_onnx_buffer`): the partition's inputs and outputs with their types and shapes,
 * the initializers it reads, and the opset imports in force. Bytes come from core's encoder.
 */
import { BYTES_PER_ELEMENT, SwitchyardError, encodeModel, type FusedPartition, type Graph, type Model } from '@switchyard/core';

/** protobuf cannot hold a message of 2 GiB or more, so neither can one ModelProto. */
const PROTOBUF_LIMIT = 2 ** 31 - 1;

/** The lowest IR version that may import `opset` (ONNX's versioning table), so old parsers accept it. */
export function irVersionForOpset(opset: number): number {
  if (opset <= 8) return 3;
  if (opset <= 9) return 4;
  if (opset <= 10) return 5;
  if (opset <= 11) return 6;
  if (opset <= 13) return 7;
  if (opset <= 17) return 8;
  if (opset <= 20) return 9;
  return 10;
}

/** Wraps a partition's graph in a Model (nothing is copied: the nodes and tensors are shared). */
export function partitionModel(partition: Pick<FusedPartition, 'name' | 'graph'>): Model {
  const graph: Graph = partition.graph;
  const opset = graph.opsetFor('') ?? 1;
  return {
    irVersion: irVersionForOpset(opset),
    opsetImports: graph.opsetImports,
    producerName: 'switchyard',
    producerVersion: '',
    domain: '',
    modelVersion: 1,
    docString: `partition ${partition.name}`,
    metadata: new Map(),
    graph,
    functionNames: [],
  };
}

/** The partition's ModelProto bytes. Throws UNSUPPORTED when its weights cannot fit one protobuf message. */
export function serializePartition(partition: Pick<FusedPartition, 'name' | 'graph'>): Uint8Array {
  let weightBytes = 0;
  for (const t of partition.graph.initializers.values()) weightBytes += t.size * BYTES_PER_ELEMENT[t.type];
  if (weightBytes > PROTOBUF_LIMIT) {
    throw new SwitchyardError(
      'UNSUPPORTED',
      `partition '${partition.name}' reads ${weightBytes} bytes of initializers; an ONNX model passed as one buffer holds less than 2 GiB`,
    );
  }
  return encodeModel(partitionModel(partition));
}
