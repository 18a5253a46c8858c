/**
 * The shape of `switchyard_hip.node`, declared once. Every function is synchronous ([sync] in the
 * C++ sources); long-running calls will move to promise-returning workers when kernels grow.
 */

import type { NativeHipRuntimeBinding } from './binding-runtime.js';

/** `deviceCount()`: never throws; "no device" is an answer with the runtime's status. */
export interface DeviceCountResult {
  /** Devices the runtime sees (0 whenever `status` is not a success). */
  count: number;
  /** Status name: `hipSuccess`, `hipErrorNoDevice`, `hipErrorInsufficientDriver`… (`cuda…` on NVIDIA builds). */
  status: string;
  /** The runtime's text for `status`. */
  message: string;
}

/** One device, as the runtime reports it: every field is a query, nothing is assumed per vendor. */
export interface DeviceProperties {
  index: number;
  /** Marketing name, e.g. `AMD Instinct MI210`, `NVIDIA H200`. */
  name: string;
  /** The ISA kernels are compiled for: `gfx90a`, `gfx1030`, `sm_90`. */
  arch: string;
  /** The full architecture string with target features (AMD: `gfx90a:sramecc+:xnack-`). */
  archName: string;
  /** Bytes of device memory. */
  totalMemory: number;
  /** Compute units (AMD) or streaming multiprocessors (NVIDIA). */
  computeUnits: number;
  /** Threads per wavefront/warp: 64 on CDNA, 32 on RDNA and NVIDIA. Always queried. */
  warpSize: number;
  /** Compute capability (NVIDIA) or the GCN major/minor (AMD). */
  major: number;
  minor: number;
  pciBusId: number;
}

export interface RuntimeInfo {
  /** The platform the addon was compiled for. */
  platform: 'amd' | 'nvidia';
  runtime: 'HIP' | 'CUDA';
  /** Encoded as the runtime does (HIP: major*10^7 + minor*10^5 + patch; CUDA: major*1000 + minor*10); 0 = unknown. */
  runtimeVersion: number;
  driverVersion: number;
  /** Architectures the kernels were compiled for (`gfx90a`, `sm_90`…). */
  compiledArchs: string[];
}

/** One allocation in device memory. Freed by `free()` or when garbage-collected. */
export interface DeviceBuffer {
  readonly byteLength: number;
  readonly deviceId: number;
  readonly freed: boolean;
  /** True for a block of a DeviceArena (free() returns it to the arena's cache). */
  readonly fromArena: boolean;
  /** [sync] Copies `source`'s bytes into the buffer at `byteOffset` (default 0), on the device's stream. For small copies. */
  upload(source: ArrayBufferView, byteOffset?: number): void;
  /** [sync] Fills `target` from the buffer at `byteOffset` (default 0). */
  download(target: ArrayBufferView, byteOffset?: number): void;
  /** [async] Through pinned staging buffers; resolves when the bytes are on the device. Leave `source` unchanged until then. */
  uploadAsync(source: ArrayBufferView, byteOffset?: number): Promise<void>;
  /** [async] Resolves when `target` holds the bytes; ordered after all work queued on the device's stream. */
  downloadAsync(target: ArrayBufferView, byteOffset?: number): Promise<void>;
  /** Frees now (deferred until pending async copies settle); idempotent. */
  free(): void;
}

export interface DeviceBufferConstructor {
  new (deviceId: number, byteLength: number): DeviceBuffer;
}

export type ElementwiseOp = 'Add' | 'Mul' | 'Relu';

export interface NativeHipBinding extends NativeHipRuntimeBinding {
  deviceCount(): DeviceCountResult;
  /** Throws RangeError for an index outside [0, count), Error with `code` = status name on runtime failures. */
  deviceProperties(index: number): DeviceProperties;
  runtimeInfo(): RuntimeInfo;
  /** float32, same length operands (no broadcasting); `b` is null for Relu. Waits for the kernel. */
  elementwise(op: ElementwiseOp, a: DeviceBuffer, b: DeviceBuffer | null, out: DeviceBuffer, count: number): void;
  DeviceBuffer: DeviceBufferConstructor;
}

/** Checks the loaded module has the functions this package calls, so a stale build is a reason, not a crash later. */
export function isNativeHipBinding(value: unknown): value is NativeHipBinding {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  const runtime = ['DeviceArena', 'Event', 'getStream', 'blasInfo', 'blasGemm', 'dnnInfo', 'dnnConv2d'];
  return ['deviceCount', 'deviceProperties', 'runtimeInfo', 'elementwise', 'DeviceBuffer', ...runtime].every((k) => typeof v[k] === 'function');
}
