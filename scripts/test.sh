#!/usr/bin/env bash
# Sets up the repository (see setup.sh), runs the unit tests (vitest), then the ONNX backend
# conformance suite on the CPU EP. Any failure fails the script. Extra arguments go to vitest.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/setup.sh

echo "test: pnpm test"
pnpm test "$@"

cli=packages/cli/dist/bin.js
if [[ -f "$cli" ]] && grep -q conformance "$cli"; then
  echo "test: node $cli conformance --ep cpu"
  node "$cli" conformance --ep cpu
else
  echo "test: skipping conformance (the CLI has no conformance command yet)"
fi
