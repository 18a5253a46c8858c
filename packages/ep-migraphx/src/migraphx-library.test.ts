import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MigraphxNativeBinding } from './native/binding.js';
import { loadMigraphxAddon } from './native/load-native.js';
import { libraryCandidates, probeMigraphx } from './migraphx-library.js';
import { migraphxOperators, STATIC_MIGRAPHX_ONNX_OPERATORS } from './static-op-table.js';
import { MigraphxExecutionProvider } from './migraphx-provider.js';
import { buildFakeMigraphx } from './testing/fake-library.js';

const packageRoot = join(import.meta.dirname, '..');
const rocmInstalled = existsSync('/opt/rocm/lib/libmigraphx_c.so');
/** A library that lists ONNX operators but lacks the rest of the C API. */
function partialLibrary(dir: string): string {
  const source = join(dir, 'partial.c');
  writeFileSync(
    source,
    `#include <stddef.h>
static const char* ops[] = {"Add", "Conv", "Relu"};
int migraphx_get_onnx_operators_size(size_t* out) { *out = 3; return 0; }
int migraphx_get_onnx_operator_name_at_index(char** out, size_t i) { if (i >= 3) return 1; *out = (char*)ops[i]; return 0; }
`,
  );
  const versioned = join(dir, 'libmigraphx_c.so.3.0.99999');
  execFileSync('cc', ['-shared', '-fPIC', '-o', versioned, source]);
  symlinkSync(versioned, join(dir, 'libmigraphx_c.so'));
  return join(dir, 'libmigraphx_c.so');
}

describe('libraryCandidates', () => {
  it('searches ROCm, then the loader path by soname', () => {
    expect(libraryCandidates({})).toEqual(['/opt/rocm/lib/libmigraphx_c.so', 'libmigraphx_c.so.3', 'libmigraphx_c.so']);
    expect(libraryCandidates({ ROCM_PATH: '/opt/rocm-6.4.0' })).toEqual([
      '/opt/rocm-6.4.0/lib/libmigraphx_c.so',
      '/opt/rocm/lib/libmigraphx_c.so',
      'libmigraphx_c.so.3',
      'libmigraphx_c.so',
    ]);
  });

  it('tries only SWITCHYARD_MIGRAPHX_LIB when it is set', () => {
    expect(libraryCandidates({ SWITCHYARD_MIGRAPHX_LIB: '/x/libmigraphx_c.so', ROCM_PATH: '/r' })).toEqual(['/x/libmigraphx_c.so']);
  });
});

describe('loadMigraphxAddon', () => {
  it('explains a missing build with the command that builds it', () => {
    const localPath = join(tmpdir(), 'nowhere', 'switchyard_migraphx.node');
    const result = loadMigraphxAddon({ localPath, env: {} });
    expect(result.ok || result.reason).toContain(`not built (no ${localPath})`);
    // In words that work in a user's project: no monorepo commands.
    expect(result.ok || result.reason).toContain('node node_modules/@switchyard/ep-migraphx/scripts/build-native.mjs');
    expect(result.ok || result.reason).not.toMatch(/pnpm|--filter/);
  });
});

describe('switchyard_migraphx.node', () => {
  let binding: MigraphxNativeBinding;

  beforeAll(() => {
    // Milliseconds when up to date; about 8 s to build (it needs no MIGraphX, only cmake and g++).
    execFileSync(process.execPath, [join(packageRoot, 'scripts', 'build-native.mjs')], { stdio: 'pipe' });
    const loaded = loadMigraphxAddon();
    if (!loaded.ok) throw new Error(loaded.reason);
    binding = loaded.binding;
  });

  it('rejects bad arguments', () => {
    expect(() => Reflect.apply(binding.loadLibrary, binding, ['libmigraphx_c.so'])).toThrow(TypeError);
    expect(() => Reflect.apply(binding.loadLibrary, binding, [[1]])).toThrow(/array of strings/);
  });

  it.skipIf(rocmInstalled)('declines with every path it tried and what to do', () => {
    const probe = probeMigraphx({ binding, env: {} });
    expect(probe.ok).toBe(false);
    if (probe.ok) return;
    expect(probe.reason).toMatch(
      /^libmigraphx_c\.so not found: tried \/opt\/rocm\/lib\/libmigraphx_c\.so \([^)]*cannot open shared object file[^)]*\), libmigraphx_c\.so\.3 \([^)]*\), libmigraphx_c\.so \([^)]*\); set SWITCHYARD_MIGRAPHX_LIB or install MIGraphX \(ROCm\)$/,
    );
  });

  it('names SWITCHYARD_MIGRAPHX_LIB in the reason when it points nowhere', () => {
    const probe = probeMigraphx({ binding, env: { SWITCHYARD_MIGRAPHX_LIB: '/nonexistent' } });
    expect(probe.ok || probe.reason).toMatch(/^libmigraphx_c\.so not found: tried \/nonexistent \(\/nonexistent: cannot open shared object file/);
    expect(probe.ok || probe.reason).toContain('SWITCHYARD_MIGRAPHX_LIB=/nonexistent does not name a loadable libmigraphx_c.so');
  });

  it('rejects a library that loads but lacks the C API', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-mgx-partial-'));
    const path = partialLibrary(dir);
    const probe = probeMigraphx({ binding, env: { SWITCHYARD_MIGRAPHX_LIB: path } });
    expect(probe.ok || probe.reason).toContain('loaded but does not export migraphx_parse_onnx_buffer, migraphx_target_create');
  });

  // Last: a library that is kept stays loaded for the rest of this process.
  it('loads a library with the C API, reads its version and ONNX operator list, and checks its datatypes', async () => {
    const fake = buildFakeMigraphx({ version: '3.0.70200' });
    const probe = probeMigraphx({ binding, env: { SWITCHYARD_MIGRAPHX_LIB: fake.path } });
    expect(probe.ok).toBe(true);
    if (!probe.ok) return;
    expect(probe.library).toMatchObject({
      loaded: true, path: fake.path, realPath: fake.realPath, version: '3.0.70200', error: null,
      operators: ['Add', 'MatMul', 'Neg', 'Relu'], dataTypeError: null, optional: { quantizeBf16: true, exhaustiveTune: true },
    });
    expect(migraphxOperators(probe.library.operators)).toEqual({ operators: new Set(['Add', 'MatMul', 'Neg', 'Relu']), source: 'library' });
    // With a library that passes the checks, init() accepts and the EP is ready to claim partitions.
    const ep = new MigraphxExecutionProvider({ cacheDir: false }, { binding, env: { SWITCHYARD_MIGRAPHX_LIB: fake.path } });
    await expect(ep.init()).resolves.toBeUndefined();
    expect(ep.describe()).toBe(`MIGraphX 3.0.70200 (${fake.realPath}), target gpu`);
    expect(ep.compiler?.identity).toMatchObject({ target: 'gpu', version: expect.stringMatching(/^3\.0\.70200:/) });
    // A target the library cannot create (the fake has ref and gpu) declines at init, not at the first compile.
    expect(binding.targetError('ref')).toBeNull();
    expect(binding.targetError('cpu')).toBe('migraphx_target_create("cpu") returned status 3');
    expect(() => Reflect.apply(binding.targetError, binding, [''])).toThrow(TypeError);
    const cpu = new MigraphxExecutionProvider({ cacheDir: false, target: 'cpu' }, { binding, env: { SWITCHYARD_MIGRAPHX_LIB: fake.path } });
    await expect(cpu.init()).rejects.toThrow(/cannot create target 'cpu' \(migraphx_target_create\("cpu"\) returned status 3\)$/);
  });
});

describe('static op table', () => {
  it('is the fallback when the library gives no list', () => {
    const { operators, source } = migraphxOperators(null);
    expect(source).toBe('static');
    expect(operators.size).toBe(STATIC_MIGRAPHX_ONNX_OPERATORS.length);
    expect(operators.has('Conv') && operators.has('MatMul') && operators.has('Softmax')).toBe(true);
    expect(new Set(STATIC_MIGRAPHX_ONNX_OPERATORS).size).toBe(STATIC_MIGRAPHX_ONNX_OPERATORS.length);
  });
});
