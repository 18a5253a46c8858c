import { describe, expect, it } from 'vitest';
import { SwitchyardError } from '@switchyard/core';
import { migraphxOptionDefaults, resolveMigraphxOptions } from './migraphx-options.js';

const error = (options: Record<string, unknown>) => {
  try {
    resolveMigraphxOptions(options);
  } catch (e) {
    expect(e).toBeInstanceOf(SwitchyardError);
    expect((e as SwitchyardError).code).toBe('INVALID_ARGUMENT');
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
};

describe('resolveMigraphxOptions', () => {
  it('fills the documented defaults', () => {
    const d = resolveMigraphxOptions({});
    expect(d).toEqual(migraphxOptionDefaults());
    expect(d).toMatchObject({ deviceId: 0, fp16: false, bf16: false, int8: false, target: 'gpu', maxCompiledPrograms: 8, minPartitionNodes: 1, memLimit: Infinity });
    expect(d.cacheDir).toMatch(/\.cache\/switchyard\/migraphx$/);
  });

  it('keeps every valid value', () => {
    const given = {
      deviceId: 1,
      fp16: true,
      bf16: false,
      int8: true,
      int8CalibrationTable: '/tmp/calib.flatbuffers',
      exhaustiveTune: true,
      cacheDir: '/tmp/mgx-cache',
      memLimit: 2 ** 32,
      target: 'ref',
      dynamicBatch: true,
      maxCompiledPrograms: 3,
      minPartitionNodes: 4,
    } as const;
    expect(resolveMigraphxOptions(given)).toEqual(given);
  });

  it('rejects unknown names, pointing onnxruntime spellings at ours', () => {
    expect(error({ migraphx_fp16_enable: true })).toContain('migraphx_fp16_enable (did you mean fp16?)');
    expect(error({ gpuMemLimit: 1 })).toMatch(/unknown option\(s\) gpuMemLimit; it takes deviceId, fp16/);
  });

  it('rejects bad values and contradictions', () => {
    expect(error({ target: 'tpu' })).toBe("migraphx EP: target must be one of 'gpu', 'ref', 'cpu', got \"tpu\"");
    expect(error({ deviceId: 0.5 })).toContain('deviceId must be a non-negative integer');
    expect(error({ memLimit: -1 })).toContain('memLimit must be a positive whole number of bytes');
    expect(error({ maxCompiledPrograms: 0 })).toContain('maxCompiledPrograms must be a positive integer');
    expect(error({ minPartitionNodes: '2' })).toContain('minPartitionNodes must be a positive integer');
    expect(error({ exhaustiveTune: 'yes' })).toContain('exhaustiveTune must be true or false');
    expect(error({ cacheDir: '' })).toContain('cacheDir must be a non-empty path');
    expect(error({ fp16: true, bf16: true })).toContain('fp16 and bf16 cannot both be on');
    expect(error({ int8: true })).toContain('int8 needs int8CalibrationTable');
    expect(error({ int8CalibrationTable: '/x' })).toContain('int8CalibrationTable is set but int8 is off');
  });
});
