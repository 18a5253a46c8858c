import { describe, expect, it } from 'vitest';
import { SwitchyardError, Tensor } from '@switchyard/core';
import { defaultBuckets, migraphxOptionDefaults, resolveMigraphxOptions } from './migraphx-options.js';

const error = (options: Record<string, unknown>, env: Record<string, string> = {}) => {
  try {
    resolveMigraphxOptions(options, env);
  } catch (e) {
    expect(e).toBeInstanceOf(SwitchyardError);
    expect((e as SwitchyardError).code).toBe('INVALID_ARGUMENT');
    return (e as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(options)}`);
};

describe('resolveMigraphxOptions', () => {
  it('fills the documented defaults', () => {
    const d = resolveMigraphxOptions({}, {});
    expect(d).toEqual(migraphxOptionDefaults());
    expect(d).toMatchObject({
      deviceId: 0, fp16: false, bf16: false, int8: false, int8Calibration: 'sample', target: 'gpu', maxCompiledPrograms: 8,
      minPartitionNodes: 2, minPartitionFlops: 0, memLimit: Infinity, dynamicBatch: false, offloadCopy: true, fastMath: false, defaultDimValue: 1,
    });
    expect(d.cacheDir).toMatch(/\.cache\/switchyard\/migraphx$/);
  });

  it('keeps every valid value', () => {
    const calibration = [{ x: new Tensor('float32', new Float32Array(2), [2]) }];
    const given = {
      deviceId: 0,
      fp16: false,
      bf16: false,
      int8: true,
      int8Calibration: calibration,
      exhaustiveTune: true,
      cacheDir: '/tmp/mgx-cache',
      memLimit: 2 ** 32,
      target: 'ref',
      dynamicBatch: { max: 16, buckets: [4, 16], eager: true },
      maxCompiledPrograms: 3,
      minPartitionNodes: 4,
      minPartitionFlops: 1000,
      offloadCopy: true,
      fastMath: true,
      defaultDimValue: 8,
    } as const;
    expect(resolveMigraphxOptions(given)).toEqual(given);
    expect(resolveMigraphxOptions({ cacheDir: false }).cacheDir).toBe(false);
    expect(resolveMigraphxOptions({ target: 'gpu', deviceId: 3 }).deviceId).toBe(3);
  });

  it('refuses a deviceId other than 0 on host targets, which have no device to pick', () => {
    expect(error({ target: 'ref', deviceId: 1 })).toBe("migraphx EP: deviceId 1 needs the 'gpu' target; target 'ref' runs on the host, which has no device to pick");
    expect(error({ deviceId: 2 }, { SWITCHYARD_MIGRAPHX_TARGET: 'cpu' })).toContain("target 'cpu' runs on the host");
    expect(resolveMigraphxOptions({ target: 'ref', deviceId: 0 }).deviceId).toBe(0);
  });

  it('fills dynamicBatch buckets with powers of two up to max', () => {
    expect(resolveMigraphxOptions({ dynamicBatch: { max: 12 } }).dynamicBatch).toEqual({ max: 12, buckets: [1, 2, 4, 8, 12], eager: false });
    expect(defaultBuckets(1)).toEqual([1]);
    expect(defaultBuckets(16)).toEqual([1, 2, 4, 8, 16]);
  });

  it('takes the default target from SWITCHYARD_MIGRAPHX_TARGET, an explicit target first', () => {
    expect(resolveMigraphxOptions({}, { SWITCHYARD_MIGRAPHX_TARGET: 'ref' }).target).toBe('ref');
    expect(resolveMigraphxOptions({ target: 'gpu' }, { SWITCHYARD_MIGRAPHX_TARGET: 'ref' }).target).toBe('gpu');
    expect(resolveMigraphxOptions({}, { SWITCHYARD_MIGRAPHX_TARGET: '' }).target).toBe('gpu');
    expect(error({}, { SWITCHYARD_MIGRAPHX_TARGET: 'tpu' })).toBe('migraphx EP: SWITCHYARD_MIGRAPHX_TARGET must be one of gpu, ref, cpu, got "tpu"');
  });

  it('rejects unknown names, pointing onnxruntime spellings at ours', () => {
    expect(error({ migraphx_fp16_enable: true })).toContain('migraphx_fp16_enable (did you mean fp16?)');
    expect(error({ int8CalibrationTable: '/x' })).toContain('int8CalibrationTable (did you mean int8Calibration?)');
    expect(error({ gpuMemLimit: 1 })).toMatch(/unknown option\(s\) gpuMemLimit; it takes deviceId, fp16/);
  });

  it('rejects bad values and contradictions', () => {
    expect(error({ target: 'tpu' })).toBe("migraphx EP: target must be one of 'gpu', 'ref', 'cpu', got \"tpu\"");
    expect(error({ deviceId: 0.5 })).toContain('deviceId must be a non-negative integer');
    expect(error({ memLimit: -1 })).toContain('memLimit must be a positive whole number of bytes');
    expect(error({ maxCompiledPrograms: 0 })).toContain('maxCompiledPrograms must be a positive integer');
    expect(error({ minPartitionNodes: '2' })).toContain('minPartitionNodes must be a positive integer');
    expect(error({ minPartitionFlops: -1 })).toContain('minPartitionFlops must be a non-negative integer');
    expect(error({ exhaustiveTune: 'yes' })).toContain('exhaustiveTune must be true or false');
    expect(error({ cacheDir: '' })).toContain('cacheDir must be a non-empty path');
    expect(error({ fp16: true, bf16: true })).toContain('fp16 and bf16 cannot both be on');
    expect(error({ fp16: true, int8: true })).toContain('int8 cannot be combined with fp16 or bf16');
    expect(error({ int8Calibration: 'sample' })).toContain('int8Calibration is set but int8 is off');
    expect(error({ int8: true, int8Calibration: [{ x: [1, 2] }] })).toContain("'x' is not a host Tensor");
    expect(error({ int8: true, int8Calibration: [] })).toContain("int8Calibration must be 'sample' or an array");
    expect(error({ offloadCopy: false })).toContain('offloadCopy: false is not supported yet');
    expect(error({ dynamicBatch: true })).toContain('dynamicBatch takes { max, buckets?, eager? }');
    expect(error({ dynamicBatch: { max: 0 } })).toContain('dynamicBatch.max must be a positive integer');
    expect(error({ dynamicBatch: { max: 8, buckets: [4, 2, 8] } })).toContain('strictly ascending');
    expect(error({ dynamicBatch: { max: 8, buckets: [2, 4] } })).toContain('must reach max (8); the largest is 4');
    expect(error({ dynamicBatch: { max: 8, bucket: [8] } })).toContain('unknown field(s) bucket');
  });
});
