#!/usr/bin/env bash
# Sets up the repository (see setup.sh) and runs the demo model through the providers in priority
# order: ROCm, then MIGraphX, then CPU. On a machine without an AMD GPU or MIGraphX, those two
# decline with their reason and every node runs on the CPU EP. Extra arguments go to the CLI.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/setup.sh

cli=packages/cli/dist/bin.js
[[ -f "$cli" ]] || { echo "demo: $cli was not built (packages/cli has no bin entry yet)" >&2; exit 1; }
echo "demo: node $cli run examples/models/tiny-cnn.onnx --ep rocm,migraphx,cpu -n 20 $*"
exec node "$cli" run examples/models/tiny-cnn.onnx --ep rocm,migraphx,cpu -n 20 "$@"
