#!/usr/bin/env bash
# Sets up the repository (see setup.sh), type-checks, runs the unit tests (vitest; they include both ONNX backend
# suites, 1.12 and 1.23.1), the CPU EP's addon tests under ASan + UBSan (sanitize.sh), then the 1.12 suite through
# the CLI on the CPU EP. On AVX-512 machines the native suites also run capped at AVX2. Any failure fails the
# script. Extra arguments go to vitest (and skip the steps after it that run the whole suite).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/setup.sh

# Types first (~20 s): vitest strips them, so a wrong type would otherwise pass the suite.
echo "test: pnpm typecheck"
pnpm typecheck

echo "test: pnpm test"
pnpm test "$@"

# The CPU EP's native paths differ by ISA (8-channel blocks, its own Winograd and im2col on AVX2;
# 16-channel blocks and oneDNN's Winograd on AVX-512). On an AVX-512 machine the native suites run a
# second time with oneDNN and the addon's own vector loops (the elementwise engine) capped at AVX2, so
# both paths are tested wherever this runs. (The elementwise tests also run each instruction set in-process.)
if [[ $# -eq 0 ]] && grep -qw avx512f /proc/cpuinfo; then
  echo "test: the CPU EP's native suites again with ONEDNN_MAX_CPU_ISA=AVX2 SWITCHYARD_CPU_VECTOR_ISA=avx2 (this CPU has AVX-512)"
  ONEDNN_MAX_CPU_ISA=AVX2 SWITCHYARD_CPU_VECTOR_ISA=avx2 SWITCHYARD_SKIP_OPSET_COPIES=1 SWITCHYARD_SKIP_KNOWN_FAILURES=1 pnpm vitest run packages/ep-cpu/src/native packages/ep-cpu/src/fusions \
    packages/ep-cpu/src/conformance.test.ts packages/ep-cpu/src/conformance-onnx-1.23.test.ts packages/ep-cpu/src/real-models
fi

# The CPU EP's addon built with AddressSanitizer + UndefinedBehaviorSanitizer (its own build dir), and its
# tests under it: native tests, hostile arguments to every export, a slice of the backend suite (~5 min).
if [[ $# -eq 0 ]]; then
  echo "test: scripts/sanitize.sh"
  bash scripts/sanitize.sh
fi

cli=packages/cli/dist/bin.js
if [[ -f "$cli" ]] && grep -q conformance "$cli"; then
  echo "test: node $cli conformance --ep cpu"
  node "$cli" conformance --ep cpu
else
  echo "test: skipping conformance (the CLI has no conformance command yet)"
fi
