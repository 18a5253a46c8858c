#!/usr/bin/env bash
# Builds the CPU EP's addon with AddressSanitizer + UndefinedBehaviorSanitizer (packages/ep-cpu/build-sanitize,
# never over the production addon in build/) and runs the addon's tests on it: the native tests (among them
# hostile-args.test.ts, every export called with hostile arguments) and a slice of the ONNX backend suite
# through the native kernels. Where hipcc is installed, the same for the host side of native-hip's HIP addon
# (packages/native-hip/build-sanitize, kernels for gfx90a only) and its tests (among them its hostile-args
# test). Any sanitizer report stops the process that hit it, which fails the run.
# Extra arguments replace the vitest paths. See docs/RELIABILITY.md#sanitizers.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
started=$SECONDS

echo "sanitize: building the ASan + UBSan addon (packages/ep-cpu/build-sanitize)"
node packages/ep-cpu/scripts/build-native.mjs --sanitize
addon="$root/packages/ep-cpu/build-sanitize/Release/switchyard_cpu.node"

# The HIP addon's host code, where a HIP compiler is installed (setup.sh's optional hipcc). Its kernels are not
# instrumented and nothing here runs them (no GPU in CI): one architecture is enough, and each is minutes of hipcc.
hip_addon=""
if command -v hipcc >/dev/null; then
  echo "sanitize: building the ASan + UBSan HIP addon (packages/native-hip/build-sanitize, gfx90a)"
  SWITCHYARD_GPU_PLATFORM=amd SWITCHYARD_HIP_ARCHS=gfx90a node packages/native-hip/scripts/build-native.mjs --sanitize
  hip_addon="$root/packages/native-hip/build-sanitize/Release/switchyard_hip.node"
else
  echo "sanitize: hipcc is not installed; the HIP addon's host side is not checked"
fi

# Node is not built with ASan: its runtime must come first in the process, so it is preloaded. The
# addon names the libasan it was linked with (gcc 12: libasan.so.8 from the libasan8 package).
libasan="$(ldd "$addon" | awk '/libasan\.so/ { print $3; exit }')"
[[ -n "$libasan" && -e "$libasan" ]] || { echo "sanitize: the addon links no libasan (ldd $addon)" >&2; exit 1; }

# detect_leaks=0: Node itself leaks at exit. allocator_may_return_null=1: an absurd allocation fails as it
# does in production (std::bad_alloc -> OUT_OF_MEMORY) instead of ASan aborting on its size.
export LD_PRELOAD="$libasan${LD_PRELOAD:+:$LD_PRELOAD}"
export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:allocator_may_return_null=1:detect_odr_violation=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export SWITCHYARD_CPU_ADDON="$addon"
# The HIP tests load the addon SWITCHYARD_HIP_ADDON names and leave the production build alone (they would
# otherwise make it up to date first; SWITCHYARD_HIP_ARCHS stays unset for the same reason).
if [[ -n "$hip_addon" ]]; then export SWITCHYARD_HIP_ADDON="$hip_addon"; fi
# One copy per opset of the suites' models is enough here (the full suite runs without sanitizers).
export SWITCHYARD_SKIP_OPSET_COPIES=1

node -e "const b = require(process.env.SWITCHYARD_CPU_ADDON); console.log('sanitize: loaded', process.env.SWITCHYARD_CPU_ADDON, JSON.stringify(b.runtimeInfo()))"
if [[ -n "$hip_addon" ]]; then
  node -e "const b = require(process.env.SWITCHYARD_HIP_ADDON); console.log('sanitize: loaded', process.env.SWITCHYARD_HIP_ADDON, JSON.stringify(b.runtimeInfo()))"
fi

if [[ $# -gt 0 ]]; then
  pnpm vitest run "$@"
else
  echo "sanitize: pnpm vitest run packages/ep-cpu/src/native"
  pnpm vitest run packages/ep-cpu/src/native
  # The backend suite's models whose ops have native kernels (convolutions, matrix products, pooling,
  # normalizations, resizing, LSTM, quantization, data movement, Cast, reductions, Softmax, elementwise).
  cli=packages/cli/dist/bin.js
  slice='conv|matmul|gemm|pool|lstm|resize|upsample|norm|quantize|gather|pad|cast|reduce|softmax|argmax|argmin|concat|split|transpose|slice|tile|expand|depthtospace|spacetodepth|gelu|add|mul|relu|sigmoid|tanh|clip|elu'
  echo "sanitize: node $cli conformance --ep cpu --filter '$slice'"
  node "$cli" conformance --ep cpu --filter "$slice"
  if [[ -n "$hip_addon" ]]; then
    echo "sanitize: pnpm vitest run packages/native-hip/src"
    pnpm vitest run packages/native-hip/src
  fi
fi
echo "sanitize: green in $((SECONDS - started)) s"
