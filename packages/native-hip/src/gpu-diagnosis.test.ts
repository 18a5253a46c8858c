import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { explainNoDevice, gatherGpuFacts, type GpuSystemFacts } from './gpu-diagnosis.js';

const facts = (over: Partial<GpuSystemFacts> = {}): GpuSystemFacts => ({
  platform: 'amd',
  status: 'hipErrorNoDevice',
  kfd: 'missing',
  renderNodes: [],
  nvidiaNodes: [],
  user: 'ada',
  uid: 1000,
  groups: ['ada'],
  env: {},
  ...over,
});

describe('explainNoDevice', () => {
  it('puts the runtime status and the missing /dev/kfd first', () => {
    const reason = explainNoDevice(facts());
    expect(reason).toMatch(/^no AMD GPU is visible to HIP \(hipGetDeviceCount: hipErrorNoDevice\)\. Check: \/dev\/kfd is missing/);
    expect(reason).toContain('--device=/dev/kfd');
    expect(reason).toContain("user 'ada' is in neither the 'render' nor the 'video' group");
    expect(reason).toContain('usermod -aG render,video ada');
    expect(reason).toContain('HIP_VISIBLE_DEVICES is unset');
  });

  it('names an inaccessible /dev/kfd and the groups the user does have', () => {
    const reason = explainNoDevice(facts({ kfd: 'no-access', renderNodes: ['/dev/dri/renderD128'], groups: ['ada', 'video'] }));
    expect(reason).toContain("/dev/kfd is present but user 'ada' cannot open it");
    expect(reason).toContain("user 'ada' is in 'video'");
    expect(reason).not.toContain('renderD');
  });

  it('calls out visibility variables that hide every device', () => {
    expect(explainNoDevice(facts({ env: { HIP_VISIBLE_DEVICES: '' } }))).toContain("HIP_VISIBLE_DEVICES='' hides every device");
    expect(explainNoDevice(facts({ env: { HIP_VISIBLE_DEVICES: '-1' } }))).toContain('hides every device');
    expect(explainNoDevice(facts({ env: { HIP_VISIBLE_DEVICES: '1', ROCR_VISIBLE_DEVICES: '0' } }))).toMatch(
      /HIP_VISIBLE_DEVICES='1' \(only these devices are visible\); ROCR_VISIBLE_DEVICES='0'/,
    );
  });

  it('does not blame group membership for root', () => {
    expect(explainNoDevice(facts({ uid: 0, user: 'root', groups: ['root'] }))).toContain('running as root');
  });

  it('speaks of NVIDIA device nodes and CUDA_VISIBLE_DEVICES on NVIDIA builds', () => {
    const reason = explainNoDevice(facts({ platform: 'nvidia', status: 'cudaErrorNoDevice', env: { CUDA_VISIBLE_DEVICES: '' } }));
    expect(reason).toMatch(/^no NVIDIA GPU is visible to CUDA \(cudaGetDeviceCount: cudaErrorNoDevice\)/);
    expect(reason).toContain('no /dev/nvidia* device nodes');
    expect(reason).toContain("CUDA_VISIBLE_DEVICES='' hides every device");
  });
});

describe('gatherGpuFacts', () => {
  it('reads this machine', () => {
    const f = gatherGpuFacts('amd', 'hipErrorNoDevice', { HIP_VISIBLE_DEVICES: '0' });
    expect(f.kfd === 'missing').toBe(!existsSync('/dev/kfd'));
    expect(f.env.HIP_VISIBLE_DEVICES).toBe('0');
    expect(f.groups.length).toBeGreaterThan(0);
    expect(f.uid).toBe(process.getuid?.());
  });
});
