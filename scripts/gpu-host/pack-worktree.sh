#!/usr/bin/env bash
# scripts/gpu-host/pack-worktree.sh DEST_DIR — for a helper working in a git worktree: the device tool
# sends the checkout its session started in (not the worktree), so the worktree's GPU-side sources, the
# GPU benchmarks (bench/gpu, with the bench/lib helpers they share), the built TypeScript and the model scripts travel as one archive, DEST_DIR/overlay.tgz, which the call
# carries and unpacks over that tree before run.sh: `tar xzf DEST_DIR/overlay.tgz && bash scripts/gpu-host/run.sh …`.
# DEST_DIR must be a git-ignored folder of the session's checkout (its .gpu/ is).
set -euo pipefail
dest=${1:?usage: pack-worktree.sh DEST_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
for p in core ep-cpu ep-rocm native-hip; do
  [ -f "packages/$p/dist/index.js" ] || { echo "packages/$p/dist is not built (pnpm -r run build)" >&2; exit 1; }
done
mkdir -p "$dest"
{ git ls-files packages/native-hip packages/native-toolkit packages/ep-rocm packages/core/package.json \
    packages/ep-cpu/package.json scripts/gpu-host bench/gpu bench/lib models/*.py models/manifest.json;
  git ls-files --others --exclude-standard packages/native-hip packages/ep-rocm scripts/gpu-host bench/gpu bench/lib models/*.py;
  find packages/{core,ep-cpu,ep-rocm,native-hip}/dist -type f ! -name '*.map'; } | sort -u | tar czf "$dest/overlay.tgz" -T -
echo "$dest/overlay.tgz: $(du -h "$dest/overlay.tgz" | cut -f1) from $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with uncommitted changes)')"
