#!/usr/bin/env node
// Builds build/Release/switchyard_migraphx.node (the dlopen shim for MIGraphX's C library; needs no
// MIGraphX to build) with the shared build script of @switchyard/native-toolkit (flags: --force,
// --clean, --no-install; see its scripts/build-addon.mjs).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildAddon } from '@switchyard/native-toolkit/build-addon';

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
await buildAddon({
  packageRoot,
  addon: 'switchyard_migraphx.node',
  sourceDir: join(packageRoot, 'native'),
  inputs: [join(packageRoot, 'native', 'src'), join(packageRoot, 'native', 'CMakeLists.txt')],
  hint: 'apt-get install cmake g++ | npm install --no-save cmake-js node-addon-api (build-time only; pnpm install in the Switchyard repository)',
});
