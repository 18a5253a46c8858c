#!/usr/bin/env node
// Builds build/Release/switchyard_cpu.node (the oneDNN addon) from native/ with the shared build script
// of @switchyard/native-toolkit (flags: --force, --clean, --no-install; see its scripts/build-addon.mjs).
import { buildAddon } from '@switchyard/native-toolkit/build-addon';

await buildAddon({ from: import.meta.url, addon: 'switchyard_cpu.node', sourceDir: 'native', inputs: ['native'],
  hint: 'apt-get install libdnnl-dev cmake g++ | npm install --no-save cmake-js node-addon-api (build-time only; pnpm install in the Switchyard repository)' });
