import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseEpArgs, readEpOptionsFile, resolveEpSpecs } from './ep-options.js';
import { registerBundledProviders } from './providers.js';

beforeAll(() => registerBundledProviders());

describe('--ep parsing', () => {
  it('types values from the EP factory’s optionTypes: booleans from 1/0, integers, strings', () => {
    expect(parseEpArgs(['rocm:enableHipGraph=1,deviceId=0,convAlgoSearch=HEURISTIC,cpu:useNative=off'])).toEqual([
      { name: 'rocm', options: { enableHipGraph: true, deviceId: 0, convAlgoSearch: 'HEURISTIC' } },
      { name: 'cpu', options: { useNative: false } },
    ]);
    expect(parseEpArgs(['migraphx:dynamicBatch={"max":8}'])[0].options).toEqual({ dynamicBatch: { max: 8 } });
    // An integer option given a fraction, a boolean given a word it does not know: clear errors.
    expect(() => parseEpArgs(['rocm:deviceId=1.5'])).toThrow(/deviceId takes an integer, got '1.5'/);
    expect(() => parseEpArgs(['cpu:useNative=maybe'])).toThrow(/useNative takes a boolean/);
  });

  it("onnxruntime's option names (the EPs' optionAliases) are typed as the option they stand for", () => {
    expect(parseEpArgs(['rocm:device_id=1,enable_hip_graph=yes,migraphx:migraphx_model_cache_dir=2024'])).toEqual([
      { name: 'rocm', options: { device_id: 1, enable_hip_graph: true } },
      // A folder named by digits stays a string, as cacheDir requires.
      { name: 'migraphx', options: { migraphx_model_cache_dir: '2024' } },
    ]);
    expect(() => parseEpArgs(['rocm:device_id=1.5'])).toThrow(/device_id takes an integer, got '1.5'/);
  });

  it('options of EPs without declared types are read by their look; repeated --ep flags concatenate', () => {
    expect(parseEpArgs(['custom:a=true,b=2.5,c=text,d=[1]', 'cpu'])).toEqual([
      { name: 'custom', options: { a: true, b: 2.5, c: 'text', d: [1] } },
      { name: 'cpu', options: {} },
    ]);
  });

  it('rejects what it cannot read', () => {
    expect(() => parseEpArgs(['deviceId=0'])).toThrow(/comes before any EP name/);
    expect(() => parseEpArgs(['cpu,cpu'])).toThrow(/twice/);
    expect(() => parseEpArgs(['rocm:deviceId'])).toThrow(/key=value/);
    expect(() => parseEpArgs(['ro cm'])).toThrow(/not an EP name/);
    // Commas separate options, so JSON with commas belongs in a file.
    expect(() => parseEpArgs(['migraphx:dynamicBatch={"max":8,"eager":true}'])).toThrow(/not valid JSON .*--ep-options FILE/);
  });
});

describe('--ep-options FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sy-epopt-'));
  const file = (name: string, body: string) => {
    const p = join(dir, name);
    writeFileSync(p, body);
    return p;
  };

  it('adds options per EP to the --ep list, the command line winning', () => {
    const f = file('per-ep.json', JSON.stringify({ rocm: { deviceId: 1, fp16: true } }));
    expect(resolveEpSpecs(['rocm:deviceId=2,cpu'], f).configs).toEqual([{ name: 'rocm', deviceId: 2, fp16: true }, 'cpu']);
    // Without --ep, the file's keys are the list.
    expect(resolveEpSpecs(undefined, f).names).toEqual(['rocm']);
  });

  it('may give the whole executionProviders list', () => {
    const f = file('list.json', JSON.stringify(['rocm', { name: 'cpu', useNative: false }]));
    expect(resolveEpSpecs(undefined, f).configs).toEqual(['rocm', { name: 'cpu', useNative: false }]);
    expect(() => resolveEpSpecs(['cpu'], f)).toThrow(/leave out --ep/);
  });

  it('says what is wrong with a bad file', () => {
    expect(() => readEpOptionsFile(join(dir, 'missing.json'), undefined)).toThrow(/missing\.json/);
    expect(() => readEpOptionsFile(file('bad.json', '{nope'), undefined)).toThrow(/bad\.json/);
    expect(() => resolveEpSpecs(['cpu'], file('other.json', '{"rocm": {}}'))).toThrow(/options for 'rocm', which --ep does not list/);
    expect(() => resolveEpSpecs(undefined, file('num.json', '{"rocm": 3}'))).toThrow(/must be an object/);
  });
});
