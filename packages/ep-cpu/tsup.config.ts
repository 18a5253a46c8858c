import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts'],
  format: ['esm'],
  // composite (for tsc -b) makes tsup's dts build fail with TS6307; it emits no .tsbuildinfo anyway.
  dts: { compilerOptions: { composite: false } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  // The shared addon loader is bundled in, so dist runs where only dist travels (the GPU host carries
  // packages/*/dist, not node_modules); the toolkit stays a dependency for its headers and build script.
  noExternal: ['@switchyard/native-toolkit'],
});
