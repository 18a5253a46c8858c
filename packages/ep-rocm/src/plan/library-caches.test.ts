import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Tensor, inferShapes } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { concreteGraph } from '../rocm-partition.js';
import { convAlgoCacheDir, convFormProblem, convProblemKey, deviceCacheName, dnnWorkspaceBytes, readConvAlgoCache, readConvFormCache } from './library-caches.js';
import { buildPlanDescription } from './plan-description.js';
import { CUBLAS_WORKSPACE_BYTES, mayCallBlas, planFootprint } from './plan-footprint.js';

const weights = (k: number, c: number, kh: number, kw: number) => new Tensor('float32', new Float32Array(k * c * kh * kw).fill(0.01), [k, c, kh, kw]);

// x[1,4,10,10] → a: 3x3 pad 1 (8 ch) → b: grouped 3x3 stride 2 (group 2) → c: 1x1 (4 ch)
function convChain(convAlgoSearch: 'EXHAUSTIVE' | 'HEURISTIC' | 'DEFAULT' = 'EXHAUSTIVE') {
  const model = buildModel({
    inputs: [['x', 'float32', [1, 4, 10, 10]]],
    outputs: [['c', 'float32']],
    initializers: { wa: weights(8, 4, 3, 3), wb: weights(8, 4, 3, 3), wc: weights(4, 8, 1, 1) },
    nodes: [
      { op: 'Conv', inputs: ['x', 'wa'], outputs: ['a'], name: 'a', attributes: { pads: [1, 1, 1, 1] } },
      { op: 'Conv', inputs: ['a', 'wb'], outputs: ['b'], name: 'b', attributes: { pads: [1, 1, 1, 1], strides: [2, 2], group: 2 } },
      { op: 'Conv', inputs: ['b', 'wc'], outputs: ['c'], name: 'c' },
    ],
    opset: 17,
  });
  inferShapes(model.graph);
  const p = { name: 'p', graph: model.graph, nodes: model.graph.nodes, inputNames: ['x'], outputNames: ['c'] };
  const g = concreteGraph(p, [{ type: 'float32', dims: [1, 4, 10, 10] }]);
  return buildPlanDescription(g, p.nodes, p.inputNames, p.outputNames, { deviceId: 0, captureGraph: false, fp16: false, convAlgoSearch });
}

// dnn_cudnn.cc ProblemKey's fields: n, c, h, w, k, kh, kw, group, pad_top, pad_left, stride_h, stride_w, dilation_h, dilation_w, output padding h, w.
const KEY_A = 'fwd|f32|x|1,4,10,10,8,3,3,1,1,1,1,1,1,1,0,0,';
const KEY_B = 'fwd|f32|x|1,8,10,10,8,3,3,2,1,1,2,2,1,1,0,0,';
const KEY_C = 'fwd|f32|x|1,8,5,5,4,1,1,1,0,0,1,1,1,1,0,0,';

let dirs: string[] = [];
afterEach(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});

describe('the DNN workspace a plan will take, from the algorithm cache', () => {
  it('finds the cache where native-hip writes it and names the device as it does', () => {
    expect(convAlgoCacheDir({ SWITCHYARD_CONV_ALGO_CACHE: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/c');
    expect(convAlgoCacheDir({ SWITCHYARD_CONV_ALGO_CACHE: '-', HOME: '/h' })).toBe('');
    expect(convAlgoCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe('/x/switchyard/conv-algos');
    expect(convAlgoCacheDir({ HOME: '/h' })).toBe('/h/.cache/switchyard/conv-algos');
    expect(convAlgoCacheDir({})).toBe('');
    // native-hip/README.md's example file: sm_90-NVIDIA_H200-cudnn91400.txt
    expect(deviceCacheName({ name: 'NVIDIA H200', major: 9, minor: 0, archName: 'sm_90' }, 'nvidia')).toBe('sm_90-NVIDIA_H200');
    expect(deviceCacheName({ name: 'AMD Instinct MI210', major: 9, minor: 0, archName: 'gfx90a:sramecc+:xnack-' }, 'amd')).toBe('gfx90a_sramecc__xnack--AMD_Instinct_MI210');
  });

  it("keys each Conv step as the native search does, and none under convAlgoSearch DEFAULT (not cached)", () => {
    const d = convChain();
    expect(d.steps.map((s) => convProblemKey(s, d.buffers))).toEqual([KEY_A, KEY_B, KEY_C]);
    const h = convChain('HEURISTIC');
    expect(convProblemKey(h.steps[0], h.buffers)).toBe(KEY_A.replace('|x|', '|h|'));
    const none = convChain('DEFAULT');
    expect(none.steps.map((s) => convProblemKey(s, none.buffers))).toEqual([undefined, undefined, undefined]);
  });

  it("reads the newest file of the device's library versions, later lines winning, and sums the workspace's growths in step order", () => {
    const dir = mkdtempSync(join(tmpdir(), 'conv-algos-'));
    dirs.push(dir);
    const old = join(dir, 'sm_90-NVIDIA_H200-cudnn90100.txt');
    writeFileSync(old, `${KEY_A}\t1\t999999\n`);
    utimesSync(old, new Date(2020, 0, 1), new Date(2020, 0, 1));
    writeFileSync(join(dir, 'sm_80-NVIDIA_A100-cudnn91400.txt'), `${KEY_A}\t1\t888888\n`);
    writeFileSync(join(dir, 'sm_90-NVIDIA_H200-cudnn91400.txt'), [`${KEY_A}\t1\t100`, `${KEY_B}\t0\t4096`, 'not a line', `${KEY_A}\t6\t2048`, `${KEY_C}\t1\t1000`, ''].join('\n'));
    const cache = readConvAlgoCache(dir, 'sm_90-NVIDIA_H200');
    expect(cache.get(KEY_A)).toBe(2048);
    expect(cache.size).toBe(3);
    const d = convChain();
    // a grows the workspace to 2048, b to 4096 (a new block; a's stays cached, too small), c fits.
    expect(dnnWorkspaceBytes(d.steps, d.buffers, cache)).toBe(2048 + 4096);
    // No form cached: the build times a's and c's GEMM forms, so the stream gets a cuBLAS handle too.
    const footprint = planFootprint(d, { blasWorkspaceBytes: CUBLAS_WORKSPACE_BYTES, convAlgoCache: () => cache, convFormCache: () => new Map() });
    expect(footprint.libraryBytes).toBe(CUBLAS_WORKSPACE_BYTES + 2048 + 4096);
    expect(readConvAlgoCache(join(dir, 'missing'), 'sm_90-NVIDIA_H200').size).toBe(0);
    expect(readConvAlgoCache('', 'sm_90-NVIDIA_H200').size).toBe(0);
  });

  it('a Conv calls the BLAS library at plan build only where its GEMM form will be prepared: by the form cache and the tuning', () => {
    const d = convChain();
    // conv_gemm.cc ConvFormKey up to the epilogue: dtype, x, w, group, pads t l b r, strides, dilations.
    expect(d.steps.map((s) => convFormProblem(s, d.buffers))).toEqual(['0|1,4,10,10|8,3,3|g1|p1,1,1,1|s1,1|d1,1|', '0|1,8,10,10|8,3,3|g2|p1,1,1,1|s2,2|d1,1|', '0|1,8,5,5|4,1,1|g1|p0,0,0,0|s1,1|d1,1|']);
    const dir = mkdtempSync(join(tmpdir(), 'conv-forms-'));
    dirs.push(dir);
    const file = join(dir, 'sm_90-NVIDIA_H200-convform-cuDNN91400.txt');
    writeFileSync(file, ['0|1,4,10,10|8,3,3|g1|p1,1,1,1|s1,1|d1,1|b0 r0 a1\tlibrary\tcuDNN (1.0 ms) vs GEMM (2.0 ms)', '0|1,8,5,5|4,1,1|g1|p0,0,0,0|s1,1|d1,1|b0 r0 a0\tlibrary\tnote', ''].join('\n'));
    const libraryOnly = readConvFormCache(dir, 'sm_90-NVIDIA_H200');
    const [a, b, c] = d.steps;
    expect(mayCallBlas(b, d.buffers, 2, new Map())).toBe(false); // grouped: no GEMM form
    expect([a, c].map((s) => mayCallBlas(s, d.buffers, 2, new Map()))).toEqual([true, true]); // not timed yet: the build will
    expect([a, c].map((s) => mayCallBlas(s, d.buffers, 1, new Map()))).toEqual([false, false]); // cached choices only: none
    expect([a, c].map((s) => mayCallBlas(s, d.buffers, 0, new Map()))).toEqual([false, false]); // tuning off
    expect([a, c].map((s) => mayCallBlas(s, d.buffers, 2, libraryOnly))).toEqual([false, false]);
    writeFileSync(file, '0|1,8,5,5|4,1,1|g1|p0,0,0,0|s1,1|d1,1|b1 r0 a0\tgemm\tim2col + GEMM\n', { flag: 'a' });
    const withGemm = readConvFormCache(dir, 'sm_90-NVIDIA_H200');
    expect([a, c].map((s) => mayCallBlas(s, d.buffers, 2, withGemm))).toEqual([false, true]);
    const libraries = (forms: typeof withGemm) => ({ blasWorkspaceBytes: CUBLAS_WORKSPACE_BYTES, convAlgoCache: () => new Map(), convFormCache: () => forms });
    expect(planFootprint(d, libraries(libraryOnly)).libraryBytes).toBe(0);
    expect(planFootprint(d, libraries(withGemm)).libraryBytes).toBe(CUBLAS_WORKSPACE_BYTES);
    // A new plan stream's handles: the DNN one for any convolution, the BLAS one only where the library is called.
    const handleBytes = () => ({ dnn: 70 << 20, blas: 6 << 20 });
    expect(planFootprint(d, { ...libraries(libraryOnly), handleBytes }).libraryBytes).toBe(70 << 20);
    expect(planFootprint(d, { ...libraries(withGemm), handleBytes }).libraryBytes).toBe(CUBLAS_WORKSPACE_BYTES + (76 << 20));
  });
});
