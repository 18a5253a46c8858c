#!/usr/bin/env node
// Builds build/Release/switchyard_migraphx.node (the dlopen shim for MIGraphX's C library; needs no
// MIGraphX to build) with the shared build script of @switchyard/native-toolkit (flags: --force,
// --clean, --no-install; see its scripts/build-addon.mjs).
import { buildAddon } from '@switchyard/native-toolkit/build-addon';

await buildAddon({ from: import.meta.url, addon: 'switchyard_migraphx.node', sourceDir: 'native', inputs: ['native/src', 'native/CMakeLists.txt'],
  hint: 'apt-get install cmake g++ | npm install --no-save cmake-js node-addon-api (build-time only; pnpm install in the Switchyard repository)' });
