/**
 * The MIGraphX execution provider: fused partitions compiled by MIGraphX through its C API, loaded
 * at run time. This first cut finds and checks the library and declines with a reason when it is
 * absent; compiling partitions comes in a later issue, so until then it also declines (saying so)
 * when the library is present, rather than claiming nodes it cannot run.
 */
import { SwitchyardError, type ExecutionProvider, type ExecutionProviderFactory, type KernelDef } from '@switchyard/core';
import type { MigraphxLibraryReport, MigraphxNativeBinding } from './native/binding.js';
import { probeMigraphx } from './migraphx-library.js';
import { resolveMigraphxOptions, type MigraphxProviderOptions, type ResolvedMigraphxOptions } from './migraphx-options.js';

export interface MigraphxInitOptions {
  /** Environment to read `SWITCHYARD_MIGRAPHX_LIB`/`ROCM_PATH` from; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** A loaded addon; default: the package's own build. */
  binding?: MigraphxNativeBinding;
}

export class MigraphxExecutionProvider implements ExecutionProvider {
  readonly name = 'migraphx';
  readonly device: string;
  readonly options: ResolvedMigraphxOptions;
  readonly kernels: readonly KernelDef[] = [];
  #library: MigraphxLibraryReport | undefined;
  readonly #init: MigraphxInitOptions;

  constructor(options: MigraphxProviderOptions | Readonly<Record<string, unknown>> = {}, init: MigraphxInitOptions = {}) {
    this.options = resolveMigraphxOptions(options);
    this.device = `migraphx:${this.options.deviceId}`;
    this.#init = init;
  }

  /** What was loaded, once `init()` found the library. */
  get library(): MigraphxLibraryReport | undefined {
    return this.#library;
  }

  async init(): Promise<void> {
    const probe = probeMigraphx(this.#init);
    if (!probe.ok) throw new SwitchyardError('EP_FAILED', probe.reason);
    this.#library = probe.library;
    const { path, version, operators } = probe.library;
    throw new SwitchyardError(
      'EP_FAILED',
      `MIGraphX ${version ?? '(unversioned)'} loaded from ${path} (${operators?.length ?? 'unknown number of'} ONNX operators), but this version of @switchyard/ep-migraphx cannot compile partitions yet`,
    );
  }

  describe(): string {
    const lib = this.#library;
    return lib ? `MIGraphX ${lib.version ?? '?'} (${lib.realPath ?? lib.path}), target ${this.options.target}` : 'MIGraphX not loaded';
  }
}

export const executionProviderFactory: ExecutionProviderFactory = {
  name: 'migraphx',
  // First among GPU EPs: a compiled, fused partition beats per-node kernels where both apply.
  priority: 200,
  create: (options) => new MigraphxExecutionProvider(options),
};
