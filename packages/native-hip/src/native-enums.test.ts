// The op numbers plan steps carry: src/native-enums.generated.ts is what scripts/gen-native-enums.mjs
// makes of launch.h now, and (where this machine can load the addon) what the built addon reports.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { generate, xMacroNames } from '../scripts/gen-native-enums.mjs';
import { loadNativeHip } from './load-native.js';
import { BINARY_OPS, UNARY_OPS } from './native-enums.generated.js';

const header = readFileSync(fileURLToPath(new URL('./native/kernels/launch.h', import.meta.url)), 'utf8');
const native = loadNativeHip({ env: { SWITCHYARD_HIP_ADDON: process.env.SWITCHYARD_HIP_ADDON } });

describe('native enums', () => {
  it('the generated file is what launch.h gives (run scripts/gen-native-enums.mjs after editing the lists)', () => {
    const file = readFileSync(fileURLToPath(new URL('./native-enums.generated.ts', import.meta.url)), 'utf8');
    expect(file).toBe(generate(header));
  });

  it('reads an X-macro list across continuation lines, in order', () => {
    const text = '#define L(X) \\\n  X(A) X(B) \\\n  X(C)\nenum class E { L(E) };\n#define M(X) X(D)\n';
    expect(xMacroNames(text, 'L')).toEqual(['A', 'B', 'C']);
    expect(() => xMacroNames(text, 'N')).toThrow(/no N\(X\) list/);
    expect(UNARY_OPS.Identity).toBe(0);
    expect(Object.values(BINARY_OPS)).toEqual(Object.keys(BINARY_OPS).map((_, i) => i));
  });

  it.skipIf(!native.ok)('the built addon numbers its ops as the generated file does', () => {
    const binding = (native as { binding: { nativeEnums?: () => { unaryOps: object; binaryOps: object } } }).binding;
    if (!binding.nativeEnums) throw new Error('this addon build has no nativeEnums(): rebuild it');
    expect(binding.nativeEnums()).toEqual({ unaryOps: UNARY_OPS, binaryOps: BINARY_OPS });
  });
});
