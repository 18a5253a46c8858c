/**
 * Tensors in the ROCm EP's device memory: each device tensor is a `Tensor.fromDevice` whose handle
 * maps to one native DeviceBuffer. Enforces `gpuMemLimit` by counting live bytes. (The caching
 * arena that honours `arenaExtendStrategy` replaces per-tensor allocations in a later issue.)
 */
import { BYTES_PER_ELEMENT, SwitchyardError, Tensor, allocateData, elementCount, type DataType, type DeviceData } from '@switchyard/core';
import type { DeviceBuffer, NativeHipBinding } from '@switchyard/native-hip';

export class RocmDeviceMemory {
  readonly location: string;
  #liveBytes = 0;
  readonly #buffers = new WeakMap<DeviceData, DeviceBuffer>();

  constructor(
    private readonly binding: NativeHipBinding,
    readonly deviceId: number,
    readonly limitBytes: number,
  ) {
    this.location = `rocm:${deviceId}`;
  }

  /** Bytes currently allocated by this EP. */
  get liveBytes(): number {
    return this.#liveBytes;
  }

  /** A new device tensor with uninitialized contents. */
  allocate(type: DataType, dims: readonly number[]): { tensor: Tensor; buffer: DeviceBuffer } {
    const bytesPerElement = BYTES_PER_ELEMENT[type];
    if (!bytesPerElement) throw new SwitchyardError('UNSUPPORTED', `rocm: ${type} tensors cannot live on the device`);
    const bytes = elementCount(dims) * bytesPerElement;
    if (this.#liveBytes + bytes > this.limitBytes) {
      throw new SwitchyardError('OUT_OF_MEMORY', `rocm: allocating ${bytes} bytes would exceed gpuMemLimit (${this.limitBytes} bytes, ${this.#liveBytes} in use)`);
    }
    let buffer: DeviceBuffer;
    try {
      buffer = new this.binding.DeviceBuffer(this.deviceId, bytes);
    } catch (error) {
      const code = (error as { code?: string }).code;
      throw new SwitchyardError(code === 'hipErrorOutOfMemory' || code === 'cudaErrorMemoryAllocation' ? 'OUT_OF_MEMORY' : 'RUNTIME', `rocm: ${(error as Error).message}`, { cause: error });
    }
    this.#liveBytes += bytes;
    let disposed = false;
    const handle: DeviceData = {
      location: this.location,
      download: async () => {
        if (disposed) throw new SwitchyardError('RUNTIME', `rocm: reading a device tensor after it was released`);
        const host = allocateData(type, elementCount(dims));
        buffer.download(host as ArrayBufferView);
        return host;
      },
      dispose: () => {
        if (disposed) return;
        disposed = true;
        buffer.free();
        this.#liveBytes -= bytes;
      },
    };
    this.#buffers.set(handle, buffer);
    return { tensor: Tensor.fromDevice(type, dims, handle), buffer };
  }

  /** The buffer behind one of our device tensors; a clear error when the tensor is elsewhere. */
  bufferOf(tensor: Tensor, what: string): DeviceBuffer {
    const buffer = tensor.deviceData && this.#buffers.get(tensor.deviceData);
    if (!buffer) throw new SwitchyardError('RUNTIME', `rocm ${what}: input is on '${tensor.location}', not on ${this.location} (a copy is missing)`);
    return buffer;
  }

  upload(tensor: Tensor): Tensor {
    if (tensor.type === 'string') throw new SwitchyardError('UNSUPPORTED', 'rocm: string tensors stay on the host');
    const { tensor: device, buffer } = this.allocate(tensor.type, tensor.dims);
    buffer.upload(tensor.data as ArrayBufferView);
    return device;
  }

  async download(tensor: Tensor): Promise<Tensor> {
    const buffer = this.bufferOf(tensor, 'copy to host');
    const host = allocateData(tensor.type, tensor.size);
    buffer.download(host as ArrayBufferView);
    return new Tensor(tensor.type, host, tensor.dims);
  }
}
