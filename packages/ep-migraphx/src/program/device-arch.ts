/**
 * The device architecture a program is generated for, for cache keys. For the GPU target it is read
 * from the amdgpu driver's topology (`/sys/class/kfd/kfd/topology/nodes/N/properties`,
 * `gfx_target_version` such as 90010 for gfx90a), GPU nodes in order; host targets use the CPU arch.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export const KFD_TOPOLOGY = '/sys/class/kfd/kfd/topology/nodes';

/** `90010` → `gfx90a`, `110000` → `gfx1100`, `90402` → `gfx942`. */
export function gfxName(targetVersion: number): string {
  const major = Math.floor(targetVersion / 10000);
  const minor = Math.floor(targetVersion / 100) % 100;
  const step = targetVersion % 100;
  return `gfx${major}${minor.toString(16)}${step.toString(16)}`;
}

export function gpuArchitectures(topology = KFD_TOPOLOGY): string[] {
  let nodes: string[];
  try {
    nodes = readdirSync(topology).filter((n) => /^\d+$/.test(n)).sort((a, b) => Number(a) - Number(b));
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const node of nodes) {
    try {
      const m = /^gfx_target_version\s+(\d+)$/m.exec(readFileSync(join(topology, node, 'properties'), 'utf8'));
      const v = m ? Number(m[1]) : 0;
      if (v > 0) out.push(gfxName(v));
    } catch {
      // A node we cannot read is not a GPU we can name.
    }
  }
  return out;
}

export function deviceArchitecture(target: string, deviceId: number, topology = KFD_TOPOLOGY): string {
  if (target !== 'gpu') return `host-${process.arch}`;
  return gpuArchitectures(topology)[deviceId] ?? 'gpu-unknown';
}
