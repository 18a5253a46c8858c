#!/usr/bin/env bash
# Writes .gpu/serve.bundle.mjs: @switchyard/serve's built dist with fastify and prom-client in one file
# (~0.7 MB), for the GPU host's serve-pool stage. The host has no node_modules and the device tool
# carries at most 64 MiB, which the dependencies' own folders (22 MB) would overflow. The
# @switchyard/* packages stay external: run.sh links them from packages/ there.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
esbuild=$(ls -d node_modules/.pnpm/esbuild@*/node_modules/esbuild/bin/esbuild | head -1)
[ -x "$esbuild" ] || { echo "bundle-serve: esbuild not found (run bash scripts/setup.sh)" >&2; exit 1; }
[ -f packages/serve/dist/index.js ] || { echo "bundle-serve: packages/serve/dist is not built (run bash scripts/setup.sh)" >&2; exit 1; }
mkdir -p .gpu
# fastify's dependencies call require(): give the ES module bundle one.
"$esbuild" packages/serve/dist/index.js --bundle --platform=node --format=esm --minify --log-level=warning \
  --external:@switchyard/core --external:@switchyard/ep-cpu \
  --banner:js="import { createRequire as __switchyardCreateRequire } from 'node:module'; const require = __switchyardCreateRequire(import.meta.url);" \
  --outfile=.gpu/serve.bundle.mjs
echo "bundle-serve: wrote .gpu/serve.bundle.mjs ($(du -h .gpu/serve.bundle.mjs | cut -f1))"
