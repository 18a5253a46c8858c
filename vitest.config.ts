import { defineConfig } from 'vitest/config';
import { fileURLToPath } from 'node:url';

const src = (p: string) => fileURLToPath(new URL(`./packages/${p}`, import.meta.url));

// Tests run against sources: each @switchyard/* import resolves to the package's src entry.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@switchyard\/core\/testing$/, replacement: src('core/src/testing/index.ts') },
      { find: /^@switchyard\/core$/, replacement: src('core/src/index.ts') },
      { find: /^@switchyard\/ep-cpu$/, replacement: src('ep-cpu/src/index.ts') },
      { find: /^@switchyard\/ep-rocm$/, replacement: src('ep-rocm/src/index.ts') },
      { find: /^@switchyard\/ep-migraphx$/, replacement: src('ep-migraphx/src/index.ts') },
      { find: /^@switchyard\/native-hip$/, replacement: src('native-hip/src/index.ts') },
      { find: /^@switchyard\/native-toolkit\/testing$/, replacement: src('native-toolkit/src/testing/index.ts') },
      { find: /^@switchyard\/native-toolkit$/, replacement: src('native-toolkit/src/index.ts') },
      { find: /^@switchyard\/cli$/, replacement: src('cli/src/index.ts') },
      { find: /^@switchyard\/serve$/, replacement: src('serve/src/index.ts') },
    ],
  },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'examples/**/*.test.ts', 'scripts/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
  },
});
