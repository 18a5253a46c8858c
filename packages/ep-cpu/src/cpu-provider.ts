/**
 * The CPU execution provider: every op in TypeScript, and oneDNN fast paths from the native addon
 * when it loads (tried first; their `supports` hands anything they don't do to the TS kernel).
 */
import { availableParallelism } from 'node:os';
import { SwitchyardError, type ExecutionProvider, type ExecutionProviderFactory, type GraphPass, type KernelDef } from '@switchyard/core';
import { typescriptKernels } from './register-all.js';
import { nativeBinding } from './native/load-native.js';
import { nativeKernels } from './native/native-kernels.js';
import { cpuGraphPassesFor } from './fusions/index.js';

export interface CpuProviderOptions {
  /** Use the oneDNN addon when it loads. Default true (`SWITCHYARD_CPU_NATIVE=0` also turns it off). */
  useNative?: boolean;
  /**
   * Run Gemm and Softmax problems too small to pay for a oneDNN call in TypeScript (below 2048
   * multiply-adds / 128 elements, shapes known at session creation; the placement says so). Default
   * true; false sends every problem the addon supports to it (its tests do).
   */
  smallOpsInTs?: boolean;
  /**
   * Give large run outputs (64 KiB and up, outside the session's arena) memory the addon recycles once
   * their buffers are collected, rather than a fresh ArrayBuffer per run: no page faults on reused
   * memory, and no collection pressure from outputs (a decoder's present key/values). Default true;
   * needs the addon and a runtime that allows external ArrayBuffers.
   */
  recycleOutputs?: boolean;
}

/** The native addon's runtime, as `CpuExecutionProvider.native` reports it. */
export interface NativeRuntime {
  onednnVersion: string;
  /** The instruction set oneDNN uses here (its effective ISA: `ONEDNN_MAX_CPU_ISA` caps it), e.g. 'avx2', 'avx512_core_bf16'. */
  cpuIsa: string;
  /** The channel block convolutions keep activations in between layers (8 on AVX2, 16 on AVX-512; 0: plain NCHW). */
  channelBlock: number;
}

export class CpuExecutionProvider implements ExecutionProvider {
  readonly name = 'cpu';
  readonly device = 'cpu';
  readonly kernels: readonly KernelDef[];
  readonly graphPasses: readonly GraphPass[];
  readonly options: CpuProviderOptions;
  /** Why the native addon is not in use, when it is not. */
  readonly nativeUnavailable: string | undefined;
  /** What the addon runs on, when it is in use: oneDNN's version and the instruction set it uses here. */
  readonly native: NativeRuntime | undefined;
  /** Recycled host memory for large outputs (ExecutionProvider.hostBuffer); absent without the addon or with recycleOutputs: false. */
  readonly hostBuffer?: (bytes: number, zeroed: boolean) => ArrayBuffer | undefined;
  /** Takes a hostBuffer back before it is collected (ExecutionProvider.releaseHostBuffer); with hostBuffer. */
  readonly releaseHostBuffer?: (buffer: ArrayBuffer) => boolean;
  /** Frees the pool's idle memory (ExecutionProvider.trimHostBuffers); with hostBuffer. */
  readonly trimHostBuffers?: () => void;

  constructor(options: CpuProviderOptions = {}) {
    this.options = options;
    const native = options.useNative === false ? { ok: false as const, reason: 'disabled by useNative: false' } : nativeBinding();
    // Native kernels first: lookup tries kernels in registration order.
    this.kernels = native.ok ? [...nativeKernels(native.binding, options.smallOpsInTs !== false), ...typescriptKernels] : typescriptKernels;
    this.nativeUnavailable = native.ok ? undefined : native.reason;
    this.graphPasses = cpuGraphPassesFor(native.ok ? native.binding : undefined);
    if (native.ok) {
      const info = native.binding.runtimeInfo();
      this.native = { onednnVersion: info.onednnVersion, cpuIsa: info.cpuIsa, channelBlock: native.binding.preferredChannelBlock?.() ?? 0 };
      const hostBuffer = native.binding.hostBuffer;
      if (hostBuffer && options.recycleOutputs !== false) {
        this.hostBuffer = (bytes, zeroed) => hostBuffer(bytes, zeroed);
        const release = native.binding.releaseHostBuffer;
        if (release) this.releaseHostBuffer = (buffer) => release(buffer);
        const trim = native.binding.trimHostBuffers;
        if (trim) this.trimHostBuffers = () => trim();
      }
    }
  }

  describe(): string {
    if (!this.native) return `TypeScript kernels only (oneDNN addon: ${this.nativeUnavailable})`;
    const { onednnVersion, cpuIsa, channelBlock } = this.native;
    const layout = channelBlock ? `, ${channelBlock}-channel blocks` : '';
    return `TypeScript kernels + oneDNN ${onednnVersion} (${cpuIsa}${layout}), ${availableParallelism()} cores`;
  }
}

/** Why onnxruntime's CPU arena flag changes nothing here. */
const NO_SHARED_ARENA = 'intermediate values are planned per session (SessionOptions.enableMemPattern); large outputs come from a recycled pool unless recycleOutputs is false';

export const executionProviderFactory: ExecutionProviderFactory = {
  name: 'cpu',
  priority: -Infinity,
  optionTypes: { useNative: 'boolean', smallOpsInTs: 'boolean', recycleOutputs: 'boolean' },
  // onnxruntime-node's CPU option, and its C/Python spelling.
  inertOptions: { useArena: NO_SHARED_ARENA, use_arena: NO_SHARED_ARENA },
  create(options) {
    const { useNative, smallOpsInTs, recycleOutputs, ...rest } = options as CpuProviderOptions & Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length) throw new SwitchyardError('INVALID_ARGUMENT', `cpu EP: unknown option(s) ${unknown.join(', ')}; it takes useNative, smallOpsInTs, recycleOutputs`);
    for (const [name, value] of Object.entries({ useNative, smallOpsInTs, recycleOutputs })) {
      if (value !== undefined && typeof value !== 'boolean') throw new SwitchyardError('INVALID_ARGUMENT', `cpu EP: ${name} must be a boolean, got ${typeof value}`);
    }
    return new CpuExecutionProvider({ useNative, smallOpsInTs, recycleOutputs });
  },
};
