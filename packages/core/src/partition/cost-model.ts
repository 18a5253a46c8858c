/**
 * The figures `partitioning: 'cost'` weighs: how long a copy between host and device takes, and how
 * long a node's arithmetic takes on an EP. They are deliberately coarse (one bandwidth per link, one
 * throughput per EP): the question they answer is only whether a few cheap nodes are worth the
 * round trip to a device, where the answer is rarely close.
 */
import type { ExecutionProvider } from '../ep/execution-provider.js';
import { deviceOf, HOST } from './copy-insertion.js';

/**
 * Host ↔ device bytes per second when an EP states none (`linkBandwidth`): 12 GB/s, about what a
 * PCIe 4.0 ×16 link reaches copying from pageable host memory (the host tensors of a run are pageable).
 */
export const DEFAULT_LINK_BANDWIDTH = 12e9;
/** Fixed cost of one copy (a driver call, a synchronisation), on top of its bytes: 10 µs. */
export const DEFAULT_COPY_LATENCY_S = 10e-6;
/** Sustained FLOP/s of a device EP that states none (`flopsPerSecond`): 10 TFLOP/s, a conservative fp32 GPU figure. */
export const DEFAULT_DEVICE_FLOPS = 10e12;
/** Sustained FLOP/s of a host EP that states none: 100 GFLOP/s, a few cores of vector units on typical nodes. */
export const DEFAULT_HOST_FLOPS = 100e9;

export function linkBandwidthOf(ep: ExecutionProvider): number {
  return positive(ep.linkBandwidth) ?? DEFAULT_LINK_BANDWIDTH;
}

export function flopsPerSecondOf(ep: ExecutionProvider): number {
  return positive(ep.flopsPerSecond) ?? (deviceOf(ep) === HOST ? DEFAULT_HOST_FLOPS : DEFAULT_DEVICE_FLOPS);
}

function positive(v: number | undefined): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : undefined;
}

/** Seconds to copy `bytes` in `count` copies over `ep`'s link. */
export function copySeconds(bytes: number, count: number, ep: ExecutionProvider): number {
  return bytes / linkBandwidthOf(ep) + count * DEFAULT_COPY_LATENCY_S;
}

/** `2.4 MB`, `512 B`: decimal units, as link bandwidths are quoted. */
export function formatBytes(bytes: number): string {
  if (bytes < 1e3) return `${bytes} B`;
  if (bytes < 1e6) return `${(bytes / 1e3).toFixed(1)} kB`;
  if (bytes < 1e9) return `${(bytes / 1e6).toFixed(1)} MB`;
  return `${(bytes / 1e9).toFixed(2)} GB`;
}

/** `0.1 MFLOP`, `3.2 GFLOP`. */
export function formatFlops(flops: number): string {
  if (flops < 1e6) return `${(flops / 1e3).toFixed(1)} kFLOP`;
  if (flops < 1e9) return `${(flops / 1e6).toFixed(1)} MFLOP`;
  return `${(flops / 1e9).toFixed(1)} GFLOP`;
}

export function formatSeconds(s: number): string {
  return s < 1e-3 ? `${(s * 1e6).toFixed(0)} µs` : `${(s * 1e3).toFixed(2)} ms`;
}
