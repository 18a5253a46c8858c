/**
 * One fused partition on MIGraphX: its ONNX bytes (serialized once), and programs compiled per
 * concrete input-shape set on first use — or per batch bucket with `dynamicBatch` — kept in an LRU
 * pool and in the disk cache. Inputs and outputs are host tensors: MIGraphX copies them itself (`offloadCopy`).
 */
import { SwitchyardError, Tensor, type CompiledPartition, type FusedPartition, type RuntimeValue, type ValueType } from '@switchyard/core';
import { cacheKey, cacheKeyParts, sha256Hex } from './cache/cache-key.js';
import type { ProgramCache } from './cache/program-cache.js';
import { bucketFor, padRows, sliceRows } from './dynamic/batch-buckets.js';
import { ProgramPool } from './dynamic/program-pool.js';
import { DeviceMemoryBudget } from './memory/memory-budget.js';
import { programMemory } from './memory/program-memory.js';
import { quantizationOf, type ResolvedMigraphxOptions } from './migraphx-options.js';
import type { CalibrationSet, CompiledProgram, CompileRequest, ProgramCompiler } from './program/program-compiler.js';
import { serializePartition } from './serialize/partition-model.js';

export interface PartitionRuntime {
  compiler: ProgramCompiler;
  /** Absent: no disk cache. */
  cache?: ProgramCache;
  options: ResolvedMigraphxOptions;
  /** The EP's memLimit account, shared by its partitions; absent: one of this partition's own at options.memLimit. */
  budget?: DeviceMemoryBudget;
}

/** Whether a value's declared leading dim is left open (symbolic or unknown): the batch dim. */
function openLeadingDim(type: ValueType | undefined): boolean | undefined {
  if (type?.kind !== 'tensor' || !type.shape) return undefined;
  return type.shape.length > 0 && typeof type.shape[0] !== 'number';
}

const sameDims = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((d, i) => d === b[i]);

export class MigraphxPartition implements CompiledPartition {
  readonly name: string;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** Programs compiled (cache loads not counted). */
  compiles = 0;
  /** Programs loaded from the disk cache. */
  cacheLoads = 0;
  readonly #runtime: PartitionRuntime;
  readonly #graph: FusedPartition['graph'];
  readonly #budget: DeviceMemoryBudget;
  /** memLimit reservations of the programs in the pool, by signature; released as each leaves it. */
  readonly #reservations = new Map<string, () => void>();
  readonly #onnx: Uint8Array;
  readonly #onnxSha256: string;
  readonly #pool: ProgramPool;
  readonly #batchedInputs: boolean[];
  readonly #batchedOutputs: Array<boolean | undefined>;
  readonly #inputTypes: Array<ValueType | undefined>;

  private constructor(partition: FusedPartition, runtime: PartitionRuntime) {
    this.name = partition.name;
    this.inputNames = partition.inputNames;
    this.outputNames = partition.outputNames;
    this.#runtime = runtime;
    this.#graph = partition.graph;
    this.#budget = runtime.budget ?? new DeviceMemoryBudget(runtime.options.memLimit);
    this.#onnx = serializePartition(partition);
    this.#onnxSha256 = sha256Hex(this.#onnx);
    this.#inputTypes = partition.inputNames.map((n) => partition.graph.typeOf(n));
    const batching = runtime.options.dynamicBatch;
    this.#batchedInputs = this.#inputTypes.map((t) => batching !== false && openLeadingDim(t) === true);
    this.#batchedOutputs = partition.outputNames.map((n) => openLeadingDim(partition.graph.typeOf(n)));
    // Every bucket must fit, or bucketed programs would evict each other on every change of batch.
    const capacity = batching ? Math.max(runtime.options.maxCompiledPrograms, batching.buckets.length) : runtime.options.maxCompiledPrograms;
    this.#pool = new ProgramPool(capacity, (signature) => {
      this.#reservations.get(signature)?.();
      this.#reservations.delete(signature);
    });
  }

  /** Serializes the partition; with `dynamicBatch.eager`, compiles every bucket now. */
  static async create(partition: FusedPartition, runtime: PartitionRuntime): Promise<MigraphxPartition> {
    const p = new MigraphxPartition(partition, runtime);
    const batching = runtime.options.dynamicBatch;
    if (batching && batching.eager) await p.#compileBuckets(batching.buckets);
    return p;
  }

  /** Shape signatures of the programs held now (for tests and `inspect`). */
  get programSignatures(): string[] {
    return this.#pool.keys();
  }

  get batched(): boolean {
    return this.#batchedInputs.some(Boolean);
  }

  async #compileBuckets(buckets: readonly number[]): Promise<void> {
    if (!this.batched) return;
    const shapes: number[][] = [];
    for (const t of this.#inputTypes) {
      const shape = t?.kind === 'tensor' ? t.shape : undefined;
      // Eager compiling needs every other dim fixed; otherwise the first run decides (lazily).
      if (!shape || shape.slice(1).some((d) => typeof d !== 'number')) return;
      shapes.push(shape.map((d) => (typeof d === 'number' ? d : 0)));
    }
    await Promise.all(
      buckets.map((bucket) => {
        const dims = new Map(this.inputNames.map((n, i) => [n, this.#batchedInputs[i] ? [bucket, ...shapes[i].slice(1)] : shapes[i]] as const));
        return this.#program(dims, undefined);
      }),
    );
  }

  #program(shapes: ReadonlyMap<string, readonly number[]>, feeds: ReadonlyMap<string, Tensor> | undefined) {
    const signature = this.inputNames.map((n) => `${n}:${shapes.get(n)!.join('x')}`).join(';');
    return this.#pool.get(signature, () => this.#build(signature, shapes, feeds));
  }

  /**
   * memLimit: reserves what the program for `shapes` will hold before anything reaches the device.
   * Programs of this partition's other shapes make room first, least recently used first; programs of
   * other partitions keep theirs. Throws OUT_OF_MEMORY when it still does not fit.
   */
  #reserve(signature: string, shapes: ReadonlyMap<string, readonly number[]>, quantization: CompileRequest['quantization']): void {
    const need = programMemory(this.#graph, shapes, quantization).totalBytes;
    while (!this.#budget.fits(need) && this.#pool.evictLeastRecent(signature)) {
      // each eviction returns its reservation at once
    }
    const what = `partition '${this.name}' for ${[...shapes].map(([n, d]) => `${n}[${d.join('x')}]`).join(', ')}`;
    this.#reservations.set(signature, this.#budget.reserve(need, what));
  }

  async #build(signature: string, shapes: ReadonlyMap<string, readonly number[]>, feeds: ReadonlyMap<string, Tensor> | undefined): Promise<CompiledProgram> {
    const o = this.#runtime.options;
    const quantization = quantizationOf(o);
    const request: CompileRequest = {
      name: this.name,
      onnx: this.#onnx,
      inputShapes: shapes,
      defaultDimValue: o.defaultDimValue,
      quantization,
      calibration: quantization === 'int8' ? this.#calibration(shapes, feeds) : [],
      target: o.target,
      offloadCopy: o.offloadCopy,
      exhaustiveTune: o.exhaustiveTune,
      fastMath: o.fastMath,
    };
    this.#reserve(signature, shapes, quantization);
    return this.#loadOrCompile(request);
  }

  async #loadOrCompile(request: CompileRequest): Promise<CompiledProgram> {
    const { compiler, cache } = this.#runtime;
    const key = cache ? cacheKey(cacheKeyParts(compiler.identity, request, this.#onnxSha256)) : '';
    if (cache) {
      const loaded = await cache.load(key);
      if (loaded) {
        this.cacheLoads++;
        return loaded;
      }
    }
    const program = await compiler.compile(request);
    this.compiles++;
    if (cache) await cache.store(key, program);
    return program;
  }

  /** The user's calibration sets that fit these shapes, else the feeds of this run (`'sample'`). */
  #calibration(shapes: ReadonlyMap<string, readonly number[]>, feeds: ReadonlyMap<string, Tensor> | undefined): CalibrationSet[] {
    const given = this.#runtime.options.int8Calibration;
    if (given !== 'sample') {
      const fitting = given.filter((set) => this.inputNames.every((n) => set[n] && sameDims(set[n].dims, shapes.get(n)!)));
      if (fitting.length > 0) return fitting.map((set) => Object.fromEntries(this.inputNames.map((n) => [n, set[n]])));
    }
    if (!feeds) {
      throw new SwitchyardError('INVALID_ARGUMENT', `migraphx EP: partition '${this.name}' needs int8 calibration data for shapes ${[...shapes].map(([n, d]) => `${n}[${d}]`).join(', ')} before its first run (dynamicBatch.eager with int8 needs int8Calibration sets of each bucket's shape)`);
    }
    return [Object.fromEntries(feeds)];
  }

  async run(inputs: RuntimeValue[]): Promise<RuntimeValue[]> {
    if (inputs.length !== this.inputNames.length) {
      throw new SwitchyardError('RUNTIME', `migraphx partition '${this.name}': got ${inputs.length} inputs, expected ${this.inputNames.length}`);
    }
    const tensors = inputs.map((v, i) => {
      if (!(v instanceof Tensor)) throw new SwitchyardError('UNSUPPORTED', `migraphx partition '${this.name}': input '${this.inputNames[i]}' is not a tensor`);
      if (v.location !== 'cpu') throw new SwitchyardError('UNSUPPORTED', `migraphx partition '${this.name}': input '${this.inputNames[i]}' is on ${v.location}; with offloadCopy the EP takes host tensors`);
      return v;
    });
    const batching = this.#runtime.options.dynamicBatch;
    let batch: number | undefined;
    let bucket: number | undefined;
    if (batching && this.batched) {
      const batches = new Set(tensors.filter((_, i) => this.#batchedInputs[i]).map((t) => t.dims[0]));
      if (batches.size !== 1) {
        throw new SwitchyardError('INVALID_ARGUMENT', `migraphx partition '${this.name}': inputs disagree on the batch size (${[...batches].join(', ')})`);
      }
      batch = [...batches][0];
      if (batch === undefined || batch < 1) throw new SwitchyardError('INVALID_ARGUMENT', `migraphx partition '${this.name}': batch must be at least 1`);
      bucket = bucketFor(batch, batching.buckets);
    }
    const feeds = new Map(this.inputNames.map((n, i) => [n, bucket !== undefined && this.#batchedInputs[i] ? padRows(tensors[i], bucket) : tensors[i]] as const));
    const shapes = new Map([...feeds].map(([n, t]) => [n, t.dims] as const));
    const program = await this.#program(shapes, feeds);
    const outputs = await program.run(feeds);
    if (outputs.length !== this.outputNames.length) {
      throw new SwitchyardError('RUNTIME', `migraphx partition '${this.name}': the program returned ${outputs.length} outputs, expected ${this.outputNames.length}`);
    }
    if (bucket === undefined || bucket === batch) return outputs;
    // Declared batch outputs are cut back; outputs of unknown shape are cut when they lead with the bucket.
    return outputs.map((t, i) => {
      const batched = this.#batchedOutputs[i] ?? t.dims[0] === bucket;
      return batched ? sliceRows(t, batch!) : t;
    });
  }

  dispose(): void {
    this.#pool.dispose();
  }
}
