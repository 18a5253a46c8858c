#!/usr/bin/env bash
# Brings a fresh Debian 12 + Node 20 machine (run as root) to a state where Switchyard builds,
# tests and runs. Idempotent: every step checks first and does nothing when already done, so a
# second run takes a few seconds. Stamps live where the step's output lives (node_modules, dist,
# build), so deleting an output is enough to redo its step.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

PNPM_VERSION=12.4.2
REQUIRED_APT=(build-essential cmake python3 python3-venv libdnnl-dev libonnx-testdata python3-onnx python3-numpy
  python3-torch python3-torchvision
  # Headless browser for the tests of `switchyard inspect --html` (driven with puppeteer-core).
  chromium
  # Sets RUNPATH $ORIGIN on the libraries bundled into @switchyard/ep-cpu-linux-x64-gnu (fill-prebuilt.mjs).
  patchelf
  # gcc 12's AddressSanitizer and UndefinedBehaviorSanitizer runtimes, for scripts/sanitize.sh (build-essential
  # pulls them in through libgcc-12-dev; named here because sanitize.sh preloads libasan.so.8 into Node).
  libasan8 libubsan1)
# Only the AMD build of @switchyard/native-hip needs these; without them the ROCm EP declines.
OPTIONAL_APT=(hipcc libamdhip64-dev)

say() { printf 'setup: %s\n' "$*"; }
warn() { printf 'setup: warning: %s\n' "$*" >&2; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

state_dir="$root/.cache/setup"
mkdir -p "$state_dir"
# Two scripts started together (demo + test) must not run pnpm install or tsup side by side.
if command -v flock >/dev/null; then
  exec 9>"$state_dir/lock"
  flock 9
fi

# --- apt ---------------------------------------------------------------------------------------
missing_packages() {
  local pkg
  for pkg in "$@"; do
    if [[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != "install ok installed" ]]; then
      printf '%s\n' "$pkg"
    fi
  done
}

as_root() {
  if [[ $EUID -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null; then sudo "$@"
  else return 1
  fi
}

apt_updated=0
apt_install() {
  if [[ $apt_updated -eq 0 ]]; then
    say "apt-get update"
    as_root apt-get update -qq >>"$state_dir/apt.log" 2>&1 || return 1
    apt_updated=1
  fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" \
    >>"$state_dir/apt.log" 2>&1
}

mapfile -t missing < <(missing_packages "${REQUIRED_APT[@]}")
if [[ ${#missing[@]} -gt 0 ]]; then
  say "installing apt packages: ${missing[*]}"
  apt_install "${missing[@]}" || die "could not install ${missing[*]} (run as root on Debian 12; log: .cache/setup/apt.log)"
fi
mapfile -t missing < <(missing_packages "${OPTIONAL_APT[@]}")
for pkg in "${missing[@]}"; do
  say "installing optional apt package: $pkg"
  apt_install "$pkg" || warn "$pkg is not available; the AMD build of @switchyard/native-hip will be skipped"
done
say "apt packages ok"

# --- node + pnpm -------------------------------------------------------------------------------
command -v node >/dev/null || die "node is not on PATH (Node.js 20 or newer is required)"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
[[ $node_major -ge 20 ]] || die "Node.js $(node --version) is too old; 20 or newer is required"

if [[ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]]; then
  say "installing pnpm@$PNPM_VERSION"
  npm i -g "pnpm@$PNPM_VERSION" >/dev/null
  hash -r
  [[ "$(pnpm --version)" == "$PNPM_VERSION" ]] || die "pnpm on PATH is not $PNPM_VERSION after npm i -g"
fi
say "node $(node --version), pnpm $PNPM_VERSION"

# --- dependencies ------------------------------------------------------------------------------
# True when $1 is missing or any later path (file or directory, searched recursively with the
# `find` arguments that follow "--") is newer than it.
stale() {
  local stamp="$1"; shift
  [[ -e "$stamp" ]] || return 0
  local paths=()
  while [[ $# -gt 0 && "$1" != "--" ]]; do
    if [[ -e "$1" ]]; then paths+=("$1"); fi
    shift
  done
  if [[ $# -gt 0 ]]; then shift; fi
  [[ ${#paths[@]} -gt 0 ]] || return 1
  [[ -n "$(find "${paths[@]}" "$@" -newer "$stamp" -print -quit)" ]]
}

# The stamp is taken before the step starts, so an edit made while it runs is seen next time.
# $2, if given, is written into the stamp: a setting that, when changed, must also redo the step.
begin_step() { printf '%s\n' "${2:-}" >"$state_dir/$1.start"; }
end_step() { mv -f "$state_dir/$1.start" "$2"; }

install_stamp="node_modules/.switchyard-install.stamp"
if stale "$install_stamp" package.json pnpm-lock.yaml pnpm-workspace.yaml packages/*/package.json -- -maxdepth 0; then
  say "pnpm install --frozen-lockfile"
  begin_step install
  pnpm install --frozen-lockfile --reporter=silent
  end_step install "$install_stamp"
fi
say "dependencies ok"

# --- TypeScript build (tsup) -------------------------------------------------------------------
needs_build=()
for dir in packages/*/; do
  dir="${dir%/}"
  [[ -f "$dir/package.json" ]] || continue
  # Prebuilt platform packages (ep-cpu-linux-x64-gnu) have nothing to compile.
  grep -q '"build":' "$dir/package.json" || continue
  if stale "$dir/dist/.switchyard-build.stamp" "$dir/src" "$dir/package.json" "$dir/tsup.config.ts" \
      "$dir/tsconfig.json" -- -type f ! -name '*.test.ts'; then
    needs_build+=("${dir#packages/}")
  fi
done
if [[ ${#needs_build[@]} -gt 0 ]]; then
  # Only the changed packages: each bundle keeps its workspace dependencies external (JS and .d.ts),
  # so a dependent's dist stays valid. pnpm -r still orders the selected packages topologically.
  filters=()
  for name in "${needs_build[@]}"; do filters+=(--filter "./packages/$name"); done
  say "building packages: ${needs_build[*]}"
  begin_step build
  if ! pnpm -r "${filters[@]}" run build >"$state_dir/build.log" 2>&1; then
    grep -E 'error|Error' "$state_dir/build.log" | head -n 20 >&2 || true
    die "pnpm -r run build failed (full log: .cache/setup/build.log)"
  fi
  for name in "${needs_build[@]}"; do
    if [[ -d "packages/$name/dist" ]]; then
      cp -p "$state_dir/build.start" "packages/$name/dist/.switchyard-build.stamp"
    fi
  done
  rm -f "$state_dir/build.start"
fi
say "packages built"

# --- native addons -----------------------------------------------------------------------------
# Every package with a "build:native" script (ep-cpu: oneDNN; native-hip: HIP; ep-migraphx: the MIGraphX
# loader), each a call to the shared build of @switchyard/native-toolkit (scripts/build-addon.mjs). Native parts are
# optional: each EP falls back (TS kernels) or declines (no device) without them, so a failed
# native build is a warning, remembered until its sources or the GPU platform change.
native_key="SWITCHYARD_GPU_PLATFORM=${SWITCHYARD_GPU_PLATFORM:-}"

build_native() {
  local dir="${1%/}"
  grep -q '"build:native"' "$dir/package.json" 2>/dev/null || return 0
  local pkg="${dir#packages/}"
  local name
  name="$(sed -n 's/^ *"name": *"\([^"]*\)".*/\1/p' "$dir/package.json" | head -n 1)"
  local ok_stamp="$dir/build/.switchyard-native.stamp" failed_stamp="$dir/build/.switchyard-native.failed"
  local log="$state_dir/native-$pkg.log"
  # The package's own sources and the shared native toolkit's (headers, sources, CMake module, build script);
  # not ep-cpu's sanitizer build (build-sanitize/), which would otherwise mark the addon stale.
  local toolkit=packages/native-toolkit
  local watch=("$dir" "$toolkit" -- \( -path "$dir/node_modules" -o -path "$dir/dist" -o -path "$dir/build" -o -path "$dir/build-sanitize"
    -o -path "$toolkit/node_modules" -o -path "$toolkit/dist" \) -prune
    -o -type f ! -name '*.ts' ! -name '*.md' ! -name '*.tsbuildinfo')
  if ! stale "$ok_stamp" "${watch[@]}" && [[ "$(cat "$ok_stamp")" == "$native_key" ]]; then
    say "native $name ok"
    return 0
  fi
  if [[ -e "$failed_stamp" ]] && ! stale "$failed_stamp" "${watch[@]}" && [[ "$(cat "$failed_stamp")" == "$native_key" ]]; then
    warn "native build of $name failed earlier and its sources have not changed (log: ${log#"$root"/})"
    return 0
  fi
  say "building native $name"
  begin_step "native-$pkg" "$native_key"
  if pnpm --filter "$name" run build:native >"$log" 2>&1; then
    mkdir -p "$dir/build"
    end_step "native-$pkg" "$ok_stamp"
    rm -f "$failed_stamp"
    # The build script's own last line says what it did (built, up to date, or skipped and why).
    say "native $name ok: $(grep -v '^\s*$' "$log" | tail -n 1)"
  else
    mkdir -p "$dir/build"
    end_step "native-$pkg" "$failed_stamp"
    rm -f "$ok_stamp"
    warn "native build of $name failed; continuing without it (log: ${log#"$root"/})"
  fi
}
# native-hip first: it is the only native part another package (ep-rocm) builds on.
build_native packages/native-hip
for dir in packages/*/; do
  [[ "$dir" == packages/native-hip/ ]] || build_native "$dir"
done

# --- ONNX 1.23 backend node suite --------------------------------------------------------------
# Newer onnx wheels ship the generators of the backend node suite, not its files. A venv under
# .cache holds the pinned wheel; scripts/onnx-suite/generate.py writes the 1,884 cases (~5 s). The
# suite is optional here: without the wheel (no package index reachable) its test is skipped.
ONNX_SUITE_VERSION=1.23.1
suite_dir="$root/.cache/onnx-$ONNX_SUITE_VERSION"
suite_stamp="$suite_dir/data/VERSION"
if stale "$suite_stamp" scripts/onnx-suite/generate.py -- -maxdepth 0; then
  say "generating the ONNX $ONNX_SUITE_VERSION backend node suite (venv with onnx==$ONNX_SUITE_VERSION)"
  suite_log="$state_dir/onnx-suite.log"
  if { [[ -x "$suite_dir/venv/bin/python" ]] || python3 -m venv "$suite_dir/venv"; } >"$suite_log" 2>&1 &&
    "$suite_dir/venv/bin/python" -c "import onnx, sys; sys.exit(onnx.__version__ != '$ONNX_SUITE_VERSION')" >>"$suite_log" 2>&1 ||
    "$suite_dir/venv/bin/pip" install --quiet --retries 1 --timeout 30 "onnx==$ONNX_SUITE_VERSION" >>"$suite_log" 2>&1; then
    rm -rf "$suite_dir/data.partial" "$suite_dir/data"
    if "$suite_dir/venv/bin/python" scripts/onnx-suite/generate.py "$suite_dir/data.partial" >>"$suite_log" 2>&1; then
      mv "$suite_dir/data.partial" "$suite_dir/data"
      say "$(cat "$suite_stamp")"
    else
      warn "could not generate the ONNX $ONNX_SUITE_VERSION suite; its test will be skipped (log: ${suite_log#"$root"/})"
    fi
  else
    warn "could not install onnx==$ONNX_SUITE_VERSION into $suite_dir/venv; the ONNX $ONNX_SUITE_VERSION suite's test will be skipped (log: ${suite_log#"$root"/})"
  fi
else
  say "ONNX $ONNX_SUITE_VERSION backend node suite ok"
fi

say "done"
