/**
 * Why the runtime sees no GPU, in terms of what to check. The facts are gathered from the system
 * separately from the wording, so the wording is testable for any machine (kfd present or not,
 * groups, environment) from this one.
 */
import { accessSync, constants, existsSync, readdirSync, readFileSync } from 'node:fs';
import { userInfo } from 'node:os';

export interface GpuSystemFacts {
  platform: 'amd' | 'nvidia';
  /** Status of the failed/empty device count, e.g. `hipErrorNoDevice`. */
  status: string;
  /** Whether `/dev/kfd` (the AMD compute driver's node) exists, and whether we may open it. */
  kfd: 'missing' | 'present' | 'no-access';
  /** `/dev/dri/renderD*` nodes found. */
  renderNodes: string[];
  /** `/dev/nvidia*` nodes found (NVIDIA builds). */
  nvidiaNodes: string[];
  user: string;
  uid: number;
  /** Names of the groups this process has. */
  groups: string[];
  /** The visibility variables that can hide devices. */
  env: { HIP_VISIBLE_DEVICES?: string; ROCR_VISIBLE_DEVICES?: string; CUDA_VISIBLE_DEVICES?: string; GPU_DEVICE_ORDINAL?: string };
}

function groupNames(gids: readonly number[]): string[] {
  let table = '';
  try {
    table = readFileSync('/etc/group', 'utf8');
  } catch {
    return gids.map(String);
  }
  const byId = new Map<number, string>();
  for (const line of table.split('\n')) {
    const [name, , id] = line.split(':');
    if (name && id) byId.set(Number(id), name);
  }
  return [...new Set(gids)].map((g) => byId.get(g) ?? String(g));
}

function listDevices(dir: string, pattern: RegExp): string[] {
  try {
    return readdirSync(dir).filter((n) => pattern.test(n)).map((n) => `${dir}/${n}`);
  } catch {
    return [];
  }
}

export function gatherGpuFacts(platform: 'amd' | 'nvidia', status: string, env: Readonly<Record<string, string | undefined>> = process.env): GpuSystemFacts {
  let kfd: GpuSystemFacts['kfd'] = 'missing';
  if (existsSync('/dev/kfd')) {
    try {
      accessSync('/dev/kfd', constants.R_OK | constants.W_OK);
      kfd = 'present';
    } catch {
      kfd = 'no-access';
    }
  }
  let user = 'unknown';
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (containers with an arbitrary uid): keep "unknown"
  }
  return {
    platform,
    status,
    kfd,
    renderNodes: listDevices('/dev/dri', /^renderD\d+$/),
    nvidiaNodes: listDevices('/dev', /^nvidia(\d+|ctl)$/),
    user,
    uid: process.getuid?.() ?? -1,
    groups: groupNames(process.getgroups?.() ?? []),
    env: {
      HIP_VISIBLE_DEVICES: env.HIP_VISIBLE_DEVICES,
      ROCR_VISIBLE_DEVICES: env.ROCR_VISIBLE_DEVICES,
      CUDA_VISIBLE_DEVICES: env.CUDA_VISIBLE_DEVICES,
      GPU_DEVICE_ORDINAL: env.GPU_DEVICE_ORDINAL,
    },
  };
}

function describeVariable(name: string, value: string | undefined): string {
  if (value === undefined) return `${name} is unset`;
  if (value.trim() === '' || value.trim() === '-1') return `${name}='${value}' hides every device (unset it)`;
  return `${name}='${value}' (only these devices are visible)`;
}

function amdChecks(f: GpuSystemFacts): string[] {
  const checks: string[] = [];
  if (f.kfd === 'missing') {
    checks.push('/dev/kfd is missing: the amdgpu kernel driver is not loaded, or this container was started without --device=/dev/kfd --device=/dev/dri');
  } else if (f.kfd === 'no-access') {
    checks.push(`/dev/kfd is present but user '${f.user}' cannot open it`);
  } else {
    checks.push('/dev/kfd is present and accessible');
  }
  if (f.renderNodes.length === 0) checks.push('no /dev/dri/renderD* nodes');
  const inGroups = ['render', 'video'].filter((g) => f.groups.includes(g));
  if (f.uid === 0) checks.push(`running as root, so render/video group membership does not matter`);
  else if (inGroups.length === 0) checks.push(`user '${f.user}' is in neither the 'render' nor the 'video' group (fix: sudo usermod -aG render,video ${f.user}, then log in again)`);
  else checks.push(`user '${f.user}' is in ${inGroups.map((g) => `'${g}'`).join(' and ')}`);
  checks.push(describeVariable('HIP_VISIBLE_DEVICES', f.env.HIP_VISIBLE_DEVICES));
  if (f.env.ROCR_VISIBLE_DEVICES !== undefined) checks.push(describeVariable('ROCR_VISIBLE_DEVICES', f.env.ROCR_VISIBLE_DEVICES));
  if (f.env.GPU_DEVICE_ORDINAL !== undefined) checks.push(describeVariable('GPU_DEVICE_ORDINAL', f.env.GPU_DEVICE_ORDINAL));
  return checks;
}

function nvidiaChecks(f: GpuSystemFacts): string[] {
  const checks: string[] = [];
  checks.push(
    f.nvidiaNodes.length === 0
      ? 'no /dev/nvidia* device nodes: the NVIDIA driver is not loaded, or this container was started without GPUs (--gpus all)'
      : `${f.nvidiaNodes.join(', ')} present`,
  );
  checks.push(describeVariable('CUDA_VISIBLE_DEVICES', f.env.CUDA_VISIBLE_DEVICES));
  return checks;
}

/** One line: what the runtime said and what to check, most likely cause first. */
export function explainNoDevice(f: GpuSystemFacts): string {
  const vendor = f.platform === 'amd' ? 'AMD GPU is visible to HIP' : 'NVIDIA GPU is visible to CUDA';
  const call = f.platform === 'amd' ? 'hipGetDeviceCount' : 'cudaGetDeviceCount';
  const checks = f.platform === 'amd' ? amdChecks(f) : nvidiaChecks(f);
  return `no ${vendor} (${call}: ${f.status}). Check: ${checks.join('; ')}`;
}
