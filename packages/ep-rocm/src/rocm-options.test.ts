import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '@switchyard/core';
import { ROCM_OPTION_DEFAULTS, resolveRocmOptions } from './rocm-options.js';

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
    } as const;
    expect(resolveRocmOptions(given)).toEqual(given);
    expect(Object.keys(ROCM_OPTION_DEFAULTS).sort()).toEqual(Object.keys(given).sort());
  });

  it('rejects unknown names, pointing onnxruntime spellings at ours', () => {
    expect(error({ device_id: 1 })).toMatch(/unknown option\(s\) device_id \(did you mean deviceId\?\); it takes deviceId, gpuMemLimit/);
    expect(error({ deviceID: 1, foo: true })).toContain('unknown option(s) deviceID, foo');
  });

  it('rejects bad values with what is accepted', () => {
    expect(error({ deviceId: -1 })).toBe('rocm EP: deviceId must be a non-negative integer, got -1');
    expect(error({ deviceId: '0' })).toContain('deviceId must be a non-negative integer, got "0"');
    expect(error({ gpuMemLimit: 0 })).toContain('gpuMemLimit must be a positive whole number of bytes');
    expect(error({ gpuMemLimit: 1.5 })).toContain('gpuMemLimit');
    expect(error({ arenaExtendStrategy: 'grow' })).toContain("arenaExtendStrategy must be one of 'kNextPowerOfTwo', 'kSameAsRequested', got \"grow\"");
    expect(error({ convAlgoSearch: 'exhaustive' })).toContain("convAlgoSearch must be one of 'EXHAUSTIVE', 'HEURISTIC', 'DEFAULT'");
    expect(error({ fp32MatmulPrecision: 'medium' })).toContain("fp32MatmulPrecision must be one of 'high', 'highest'");
    expect(error({ fp16: 1 })).toBe('rocm EP: fp16 must be true or false, got 1');
    expect(error({ tunableOpEnable: false, tunableOpTuningEnable: true })).toContain('tunableOpTuningEnable needs tunableOpEnable: true');
  });

  it('turns tuning off with tunableOpEnable alone, and keeps cached choices only without tunableOpTuningEnable', () => {
    expect(resolveRocmOptions({ tunableOpEnable: false })).toMatchObject({ tunableOpEnable: false, tunableOpTuningEnable: false });
    expect(resolveRocmOptions({ tunableOpTuningEnable: false })).toMatchObject({ tunableOpEnable: true, tunableOpTuningEnable: false });
  });
});
