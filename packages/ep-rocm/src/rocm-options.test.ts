import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '@switchyard/core';
import { ROCM_OPTION_DEFAULTS, ROCM_ORT_ALIASES, resolveRocmOptions } from './rocm-options.js';

const error = (options: Record<string, unknown>) => {
  try {
    resolveRocmOptions(options);
  } catch (e) {
    expect(e).toBeInstanceOf(SwitchyardError);
    expect((e as SwitchyardError).code).toBe('INVALID_ARGUMENT');
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
};

describe('resolveRocmOptions', () => {
  it('fills the documented defaults', () => {
    expect(resolveRocmOptions({})).toEqual({
      deviceId: 0,
      gpuMemLimit: Infinity,
      arenaExtendStrategy: 'kNextPowerOfTwo',
      tunableOpEnable: true,
      tunableOpTuningEnable: true,
      convAlgoSearch: 'EXHAUSTIVE',
      enableHipGraph: false,
      fp16: false,
      fp16ConvLayout: 'auto',
      fp32MatmulPrecision: 'high',
      maxPlansPerPartition: 8,
    });
  });

  it('keeps every valid value', () => {
    const given = {
      deviceId: 2,
      gpuMemLimit: 2 ** 33,
      arenaExtendStrategy: 'kSameAsRequested',
      tunableOpEnable: true,
      tunableOpTuningEnable: true,
      convAlgoSearch: 'HEURISTIC',
      enableHipGraph: true,
      fp16: true,
      fp16ConvLayout: 'NCHW',
      fp32MatmulPrecision: 'highest',
      maxPlansPerPartition: 2,
    } as const;
    expect(resolveRocmOptions(given)).toEqual(given);
    expect(Object.keys(ROCM_OPTION_DEFAULTS).sort()).toEqual(Object.keys(given).sort());
  });

  it('rejects unknown names, pointing onnxruntime spellings at ours', () => {
    expect(error({ device_id: 1 })).toMatch(/unknown option\(s\) device_id \(did you mean deviceId\?\); it takes deviceId, gpuMemLimit/);
    expect(error({ deviceID: 1, foo: true })).toContain('unknown option(s) deviceID, foo');
  });

  it("maps onnxruntime's names and value forms onto ours", () => {
    const ort: Record<string, unknown> = { device_id: '1', gpu_mem_limit: 1024, arena_extend_strategy: 1, tunable_op_enable: '0', miopen_conv_exhaustive_search: 1, enable_hip_graph: 'true' };
    const ours = Object.fromEntries(Object.entries(ort).map(([k, v]) => [ROCM_ORT_ALIASES[k].name, ROCM_ORT_ALIASES[k].convert!(v)]));
    expect(resolveRocmOptions(ours)).toMatchObject({ deviceId: 1, gpuMemLimit: 1024, arenaExtendStrategy: 'kSameAsRequested', tunableOpEnable: false, convAlgoSearch: 'EXHAUSTIVE', enableHipGraph: true });
    expect(ROCM_ORT_ALIASES.miopen_conv_exhaustive_search.convert!(false)).toBe('HEURISTIC');
    expect(ROCM_ORT_ALIASES.arena_extend_strategy.convert!('0')).toBe('kNextPowerOfTwo');
    // A value in no form onnxruntime has either reaches our check unchanged, and fails there.
    expect(error({ deviceId: ROCM_ORT_ALIASES.device_id.convert!('first') })).toContain('deviceId must be a non-negative integer, got "first"');
    for (const alias of Object.values(ROCM_ORT_ALIASES)) expect(Object.keys(ROCM_OPTION_DEFAULTS)).toContain(alias.name);
  });

  it('rejects bad values with what is accepted', () => {
    expect(error({ deviceId: -1 })).toBe('rocm EP: deviceId must be a non-negative integer, got -1');
    expect(error({ deviceId: '0' })).toContain('deviceId must be a non-negative integer, got "0"');
    expect(error({ gpuMemLimit: 0 })).toContain('gpuMemLimit must be a positive whole number of bytes');
    expect(error({ gpuMemLimit: 1.5 })).toContain('gpuMemLimit');
    expect(error({ arenaExtendStrategy: 'grow' })).toContain("arenaExtendStrategy must be one of 'kNextPowerOfTwo', 'kSameAsRequested', got \"grow\"");
    expect(error({ convAlgoSearch: 'exhaustive' })).toContain("convAlgoSearch must be one of 'EXHAUSTIVE', 'HEURISTIC', 'DEFAULT'");
    expect(error({ fp32MatmulPrecision: 'medium' })).toContain("fp32MatmulPrecision must be one of 'high', 'highest'");
    expect(error({ maxPlansPerPartition: 0 })).toBe('rocm EP: maxPlansPerPartition must be a positive integer, got 0');
    expect(error({ fp16: 1 })).toBe('rocm EP: fp16 must be true or false, got 1');
    expect(error({ tunableOpEnable: false, tunableOpTuningEnable: true })).toContain('tunableOpTuningEnable needs tunableOpEnable: true');
  });

  it('turns tuning off with tunableOpEnable alone, and keeps cached choices only without tunableOpTuningEnable', () => {
    expect(resolveRocmOptions({ tunableOpEnable: false })).toMatchObject({ tunableOpEnable: false, tunableOpTuningEnable: false });
    expect(resolveRocmOptions({ tunableOpTuningEnable: false })).toMatchObject({ tunableOpEnable: true, tunableOpTuningEnable: false });
  });
});
