import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/bin.ts'],
  format: ['esm'],
  // composite (for tsc -b) makes tsup's dts build fail with TS6307; it emits no .tsbuildinfo anyway.
  dts: { entry: 'src/index.ts', compilerOptions: { composite: false } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  banner: {},
});
