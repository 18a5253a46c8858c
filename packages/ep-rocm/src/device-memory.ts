/**
 * Tensors in the ROCm EP's device memory: each device tensor is a `Tensor.fromDevice` whose handle
 * maps to one native DeviceBuffer, a block of the EP's caching DeviceArena (grown as
 * `arenaExtendStrategy` says). A partition's outputs are allocated on every run: from the arena's
 * cache that costs no driver call, where a plain hipMalloc/hipFree pair per output would (and
 * hipFree waits for the whole device). Owns the EP's `DeviceBudget` (device-budget.ts), which counts
 * these tensors together with the plans' arenas and library workspaces against `gpuMemLimit`.
 */
import { BYTES_PER_ELEMENT, SwitchyardError, Tensor, elementCount, viewData, type DataType, type DataTypeMap, type DeviceData, type NumericDataType } from '@switchyard/core';
import type { DeviceArena, DeviceBuffer, NativeHipBinding } from '@switchyard/native-hip';
import { DeviceBudget, type DeviceCharge } from './device-budget.js';
import type { ArenaExtendStrategy } from './rocm-options.js';

/**
 * Host memory for `size` elements of `type` that a copy is about to fill whole: not zeroed (a
 * zeroed 12 MB array costs a memset or a page fault per 4 KiB page first, about as long as the copy).
 */
export function allocateForCopy<T extends NumericDataType>(type: T, size: number): DataTypeMap[T] {
  const bytes = size * BYTES_PER_ELEMENT[type];
  const raw = Buffer.allocUnsafeSlow(bytes);
  return viewData(type, raw.buffer, raw.byteOffset, size);
}

/** Called when a device tensor's placement guess was wrong: see `RocmPartition`'s output placement. */
type PlacementHint = () => void;

export class RocmDeviceMemory {
  readonly location: string;
  /** Everything this EP holds on the device, against gpuMemLimit (plans charge it too). */
  readonly budget: DeviceBudget;
  readonly #buffers = new WeakMap<DeviceData, DeviceBuffer>();
  /** Device tensors whose memory went back (dispose()): feeding one is an error, not a read of freed memory. */
  readonly #released = new WeakSet<DeviceData>();
  /** Device tensors staged from the host but not uploaded yet: a plan copies them in within its run. */
  readonly #staged = new WeakMap<DeviceData, Tensor>();
  /** Device tensors whose host copy was read (`allocate`'s hint), and host-backed ones used on the device (`hostResult`'s). */
  readonly #hints = new WeakMap<DeviceData, PlacementHint>();
  /** The budget's charges for staged tensors a consumer uploaded (`bufferOf`). */
  readonly #stagedCharges = new WeakMap<DeviceData, DeviceCharge>();

  #arena: DeviceArena | undefined;

  constructor(
    private readonly binding: NativeHipBinding,
    readonly deviceId: number,
    readonly limitBytes: number,
    readonly extendStrategy: ArenaExtendStrategy = 'kNextPowerOfTwo',
  ) {
    this.location = `rocm:${deviceId}`;
    this.budget = new DeviceBudget(this.location, limitBytes);
  }

  /** The arena, made on first use (so a provider that never allocates never touches the device). */
  #deviceArena(): DeviceArena {
    this.#arena ??= new this.binding.DeviceArena(this.deviceId, { arenaExtendStrategy: this.extendStrategy === 'kSameAsRequested' ? 'sameAsRequested' : 'nextPowerOfTwo' });
    return this.#arena;
  }

  /**
   * Gives the arena's cached device memory back to the driver when the EP is disposed, instead of
   * whenever the garbage collector finalizes the arena. Blocks still held by live device tensors stay
   * valid (`shrink` releases only chunks with nothing allocated); a later allocation starts a new arena.
   */
  dispose(): void {
    this.#arena?.shrink();
    this.#arena = undefined;
  }

  /** Bytes of device tensors currently allocated by this EP (plans and workspaces are in `budget`). */
  get liveBytes(): number {
    return this.budget.usage().byKind.tensors;
  }

  /** A new device tensor with uninitialized contents; `onHostRead` runs when its data is copied to the host. */
  allocate(type: DataType, dims: readonly number[], onHostRead?: PlacementHint): { tensor: Tensor; buffer: DeviceBuffer } {
    const { buffer, charge } = this.#allocateBuffer(type, dims);
    let disposed = false;
    const handle: DeviceData = {
      location: this.location,
      download: async () => {
        if (disposed) throw new SwitchyardError('RUNTIME', `rocm: reading a device tensor after it was released`);
        onHostRead?.();
        const host = allocateForCopy(type as NumericDataType, elementCount(dims));
        buffer.download(host as ArrayBufferView);
        return host;
      },
      dispose: () => {
        if (disposed) return;
        disposed = true;
        this.#buffers.delete(handle);
        this.#hints.delete(handle);
        this.#released.add(handle);
        buffer.free();
        charge.release();
      },
    };
    this.#buffers.set(handle, buffer);
    if (onHostRead) this.#hints.set(handle, onHostRead);
    return { tensor: Tensor.fromDevice(type, dims, handle), buffer };
  }

  /** A block of the arena for `dims` of `type`, charged to the budget first. */
  #allocateBuffer(type: DataType, dims: readonly number[]): { buffer: DeviceBuffer; charge: DeviceCharge } {
    const bytesPerElement = BYTES_PER_ELEMENT[type];
    if (!bytesPerElement) throw new SwitchyardError('UNSUPPORTED', `rocm: ${type} tensors cannot live on the device`);
    const bytes = elementCount(dims) * bytesPerElement;
    const charge = this.budget.charge('tensors', bytes, `a ${type}[${dims.join(', ')}] tensor`);
    try {
      return { buffer: this.#deviceArena().allocate(bytes), charge };
    } catch (error) {
      charge.release();
      const code = (error as { code?: string }).code;
      const oom = code === 'OUT_OF_MEMORY' || code === 'hipErrorOutOfMemory' || code === 'cudaErrorMemoryAllocation';
      throw new SwitchyardError(oom ? 'OUT_OF_MEMORY' : 'RUNTIME', `rocm: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Whether a tensor is one of this EP's device tensors (allocated or staged). */
  owns(tensor: Tensor): boolean {
    const d = tensor.deviceData;
    return d !== undefined && (this.#buffers.has(d) || this.#staged.has(d));
  }

  /**
   * The host tensor behind a staged device tensor (not uploaded yet), if it is one. `forDevice`:
   * the caller copies it to the device (a plan input), which a `hostResult` wants to know.
   */
  stagedSource(tensor: Tensor, forDevice = false): Tensor | undefined {
    const d = tensor.deviceData;
    const staged = d && this.#staged.get(d);
    if (staged && forDevice) this.#hints.get(d)?.();
    return staged;
  }

  /**
   * A device tensor whose data a plan wrote straight to the host (an output the session copies to
   * the host anyway): it downloads for free and uploads, like a staged input, when a device consumer
   * needs it -- which runs `onDeviceUse`, so the partition writes that output to the device next time.
   */
  hostResult(tensor: Tensor, onDeviceUse: PlacementHint): Tensor {
    const staged = this.stage(tensor);
    this.#hints.set(staged.deviceData!, onDeviceUse);
    return staged;
  }

  /** The buffer behind one of our device tensors (uploading a staged one); a clear error when the tensor is elsewhere. */
  bufferOf(tensor: Tensor, what: string): DeviceBuffer {
    const d = tensor.deviceData;
    const staged = d && this.#staged.get(d);
    if (d && staged) {
      this.#hints.get(d)?.();
      this.#hints.delete(d);
      const { buffer, charge } = this.#allocateBuffer(staged.type, staged.dims);
      buffer.upload(staged.data as ArrayBufferView);
      this.#staged.delete(d);
      this.#buffers.set(d, buffer);
      this.#stagedCharges.set(d, charge);
      return buffer;
    }
    const buffer = d && this.#buffers.get(d);
    if (d && !buffer && this.#released.has(d)) throw new SwitchyardError('RELEASED', `rocm ${what}: a device tensor on ${this.location} was used after its dispose()`);
    if (!buffer) throw new SwitchyardError('RUNTIME', `rocm ${what}: input is on '${tensor.location}', not on ${this.location} (a copy is missing)`);
    return buffer;
  }

  /** A device tensor now (one synchronous copy). */
  upload(tensor: Tensor): Tensor {
    if (tensor.type === 'string') throw new SwitchyardError('UNSUPPORTED', 'rocm: string tensors stay on the host');
    const made = this.allocate(tensor.type, tensor.dims);
    made.buffer.upload(tensor.data as ArrayBufferView);
    return made.tensor;
  }

  /**
   * A device tensor whose upload is deferred: an execution plan reading it copies the host data in
   * as part of its one native call (saving an allocation and a synchronous copy per input); anything
   * else that needs its buffer uploads it then. Tensors already on this device pass through.
   */
  stage(tensor: Tensor): Tensor {
    if (this.owns(tensor)) return this.#alias(tensor);
    if (tensor.deviceData && this.#released.has(tensor.deviceData)) throw new SwitchyardError('RELEASED', `rocm: a device tensor on ${this.location} was used after its dispose()`);
    if (tensor.location !== 'cpu') throw new SwitchyardError('RUNTIME', `rocm: cannot take a tensor on '${tensor.location}' directly; copy it to the host first`);
    if (tensor.type === 'string') throw new SwitchyardError('UNSUPPORTED', 'rocm: string tensors stay on the host');
    const handle: DeviceData = {
      location: this.location,
      download: async () => tensor.data,
      dispose: () => {
        const buffer = this.#buffers.get(handle);
        if (buffer) {
          buffer.free();
          this.#stagedCharges.get(handle)?.release();
        }
        this.#buffers.delete(handle);
        this.#staged.delete(handle);
      },
    };
    this.#staged.set(handle, tensor);
    return Tensor.fromDevice(tensor.type, tensor.dims, handle);
  }

  /**
   * Another handle on a device tensor the caller owns (IO binding): the session may dispose the
   * handle when done with it, and the caller's tensor stays valid.
   */
  #alias(tensor: Tensor): Tensor {
    const source = tensor.deviceData!;
    const handle: DeviceData = { location: this.location, download: () => source.download(), dispose: () => {} };
    const staged = this.#staged.get(source);
    const hint = this.#hints.get(source);
    if (hint) this.#hints.set(handle, hint);
    if (staged) this.#staged.set(handle, staged);
    else this.#buffers.set(handle, this.bufferOf(tensor, 'bound input'));
    return Tensor.fromDevice(tensor.type, tensor.dims, handle);
  }

  async download(tensor: Tensor): Promise<Tensor> {
    const staged = this.stagedSource(tensor);
    if (staged) return staged;
    const buffer = this.bufferOf(tensor, 'copy to host');
    this.#hints.get(tensor.deviceData!)?.();
    const host = allocateForCopy(tensor.type as NumericDataType, tensor.size);
    buffer.download(host as ArrayBufferView);
    return new Tensor(tensor.type, host, tensor.dims);
  }
}
