#!/usr/bin/env bash
# Puts rocBLAS and MIOpen headers under a scratch folder, WITHOUT installing anything system-wide,
# so the AMD vendor backends (src/native/blas/blas_rocblas.cc, src/native/dnn/dnn_miopen.cc) can be
# compiled on a machine without ROCm -- e.g. Debian 12, whose archive has neither. Nothing here is
# committed; the headers are only read by the compiler.
#
#   scripts/amd-vendor-headers.sh [DEST] [MIOPEN_H]
#     DEST      default /tmp/amd-sdk
#     MIOPEN_H  path of a miopen.h (from github.com/ROCm/MIOpen include/miopen/miopen.h, or a ROCm
#               install); MIOpen is in no Debian release. Without it only rocBLAS is prepared.
#
# Then: SWITCHYARD_ROCM_PATH=DEST/rocblas/usr:DEST/miopen node scripts/build-native.mjs --no-install
#
# rocBLAS/hipBLAS come from Debian trixie (rocBLAS 5.5.1, hipBLAS 5.5.1) through apt with a private
# sources list, lists and cache under DEST; the .debs are unpacked with dpkg -x.
set -euo pipefail
dest=${1:-/tmp/amd-sdk}
miopen_h=${2:-}
mkdir -p "$dest"/{apt/lists/partial,apt/cache/archives/partial,apt/parts,debs}
cat >"$dest/apt/parts/trixie.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
touch "$dest/apt/status"
apt_options=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$dest/apt/parts" -o "Dir::State::Lists=$dest/apt/lists"
  -o "Dir::Cache=$dest/apt/cache" -o "Dir::State::status=$dest/apt/status")
apt-get "${apt_options[@]}" update
(cd "$dest/debs" && apt-get "${apt_options[@]}" download librocblas-dev libhipblas-dev librocblas0 libhipblas0)
# Headers and libraries in their own prefix: it holds no hip/ folder, so the toolchain's HIP headers stay in use.
for deb in "$dest"/debs/*.deb; do dpkg -x "$deb" "$dest/rocblas"; done

if [ -n "$miopen_h" ]; then
  inc="$dest/miopen/include/miopen"
  mkdir -p "$inc"
  cp "$miopen_h" "$inc/miopen.h"
  # miopen.h includes two headers MIOpen's own build generates; these stand-ins say what an
  # installed HIP-backend MIOpen's would.
  [ -f "$inc/config.h" ] || printf '#pragma once\n#define MIOPEN_BACKEND_OPENCL 0\n#define MIOPEN_BACKEND_HIP 1\n' >"$inc/config.h"
  [ -f "$inc/export.h" ] || printf '#pragma once\n#define MIOPEN_EXPORT __attribute__((visibility("default")))\n#define MIOPEN_NO_EXPORT __attribute__((visibility("hidden")))\n#define MIOPEN_DEPRECATED __attribute__((__deprecated__))\n' >"$inc/export.h"
fi
echo "SWITCHYARD_ROCM_PATH=$dest/rocblas/usr${miopen_h:+:$dest/miopen}"
