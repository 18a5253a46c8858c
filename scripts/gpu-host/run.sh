#!/usr/bin/env bash
# scripts/gpu-host/run.sh [STAGES] — the GPU-host workflow, on a Linux host with a GPU and no
# network (see docs/gpu-host.md). From the repository root:
#   1. puts the carried Node runtime on PATH (.gpu/node, made by bundle-node.sh)
#   2. builds native-hip for the platform it finds (nvcc -> NVIDIA sm_90 + cuBLAS/cuDNN when their
#      headers exist; hipcc -> AMD) with plain cmake, using the carried node-addon-api headers and the
#      shared C++ toolkit of packages/native-toolkit (tracked sources; its dist is bundled into the others),
#      then the test addon switchyard_hip_test.node beside it (kernelsJs, for the kernel GPU tests)
#   3. links the workspace packages (packages/*/dist must be carried: dist is git-ignored)
#   4. runs the stages named in STAGES (default "tests"): tests (node:test GPU tests), backend
#      (ONNX backend data under .gpu/onnx-data), models (models/manifest.json), torch (PyTorch
#      eager baseline), generate (writes models/generated with models/generate.py: they are too
#      large to travel), startup (fresh-process start-up times), profile (per-step device time of
#      the batch-32 cases), overhead (wall time besides the GPU: session JS, native call, copies),
#      (models, torch, profile and overhead run the GPU benchmarks in bench/gpu, beside the CPU bench)
#      onnx123 (writes the ONNX 1.23.1 node suite with the host's onnx and runs its rocm-claimed tests),
#      opset (the committed models converted to opset 21: rocm keeps its placement, outputs match),
#      validate (validateProviders, rocm fp32/fp16 against cpu on the committed models),
#      soak (10,000 runs and 1,000 create/release cycles on rocm: RSS and GPU memory trends),
#      memplan (session.memoryPlan's rocm total against the device memory each session took, within 10%),
#      serve-pool (switchyard serve on rocm: one instance against a pool of two on one GPU),
#      zoo (the public model zoo generated here, rocm + HIP graph against the CPU EP and PyTorch eager),
#      dynamic (a symbolic-H/W detector alternating two sizes, against a static-shape session of each).
#      Results go to $OUT (or .gpu/out).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
stages=${1:-tests}
out=${OUT:-$root/.gpu/out}
mkdir -p "$out"
log() { echo "[gpu-host] $*" | tee -a "$out/run.log"; }

# 1. Node
if ! command -v node >/dev/null; then
  [ -f .gpu/node/activate.sh ] || { log "no node and no .gpu/node (run /work/shared/gpu-host/bundle-node.sh .gpu/node and carry .gpu)"; exit 2; }
  source .gpu/node/activate.sh >/dev/null
fi
log "node $(node --version); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"

# 2. Build
napi_api=$(ls -d .gpu/napi/node-addon-api node_modules/.pnpm/node-addon-api@*/node_modules/node-addon-api 2>/dev/null | head -1)
napi_headers=$(ls -d .gpu/napi/node-api-headers/include node_modules/.pnpm/node-api-headers@*/node_modules/node-api-headers/include 2>/dev/null | head -1)
[ -n "$napi_api" ] && [ -n "$napi_headers" ] || { log "node-addon-api/node-api-headers not found (copy them into .gpu/napi)"; exit 2; }
nvcc=$(command -v nvcc || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
hipcc=$(command -v hipcc || ls /opt/rocm/bin/hipcc 2>/dev/null)
if [ -n "${SWITCHYARD_GPU_PLATFORM:-}" ]; then platform=$SWITCHYARD_GPU_PLATFORM
elif [ -n "$nvcc" ] && [ -e /dev/nvidia0 ]; then platform=nvidia
elif [ -n "$hipcc" ]; then platform=amd
elif [ -n "$nvcc" ]; then platform=nvidia
else log "neither nvcc nor hipcc found"; exit 2; fi
if [ "$platform" = nvidia ]; then compiler=$nvcc; archs=${SWITCHYARD_CUDA_ARCHS:-90}; else compiler=$hipcc; archs=${SWITCHYARD_HIP_ARCHS:-gfx90a;gfx1030}; fi
build=${SWITCHYARD_BUILD_DIR:-/tmp/switchyard-hip-$platform}
generator=$(command -v ninja >/dev/null && echo Ninja || echo "Unix Makefiles")
log "building native-hip for $platform ($archs) with $compiler"
t0=$(date +%s)
cmake -S packages/native-hip -B "$build" -G "$generator" -DCMAKE_BUILD_TYPE=Release \
  -DSWITCHYARD_GPU_PLATFORM=$platform -DSWITCHYARD_GPU_COMPILER="$compiler" "-DSWITCHYARD_GPU_ARCHS=$archs" \
  "-DCMAKE_JS_INC=$root/$napi_headers;$root/$napi_api" -DCMAKE_JS_SRC= -DCMAKE_JS_LIB= \
  -DSWITCHYARD_NATIVE_TOOLKIT="$root/packages/native-toolkit" >"$out/build.log" 2>&1 &&
  cmake --build "$build" -j "$(nproc)" >>"$out/build.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then log "build failed (rc $rc); tail of build.log:"; tail -40 "$out/build.log" | tee -a "$out/run.log"; exit 1; fi
addon=$(find "$build" -name switchyard_hip.node | head -1)
mkdir -p packages/native-hip/build/Release && cp "$addon" packages/native-hip/build/Release/switchyard_hip.node
log "built in $(( $(date +%s) - t0 )) s: $(du -h "$addon" | cut -f1)"
# The test addon (the addon plus kernelsJs, which the kernel GPU tests call) is a target outside the
# default build: a failure here leaves the addon in place, and those tests then skip (or fail, with
# SWITCHYARD_GPU_REQUIRED=1) saying it is missing.
rm -f packages/native-hip/build/Release/switchyard_hip_test.node
if cmake --build "$build" -j "$(nproc)" --target switchyard_hip_test >>"$out/build.log" 2>&1; then
  cp "$(find "$build" -name switchyard_hip_test.node | head -1)" packages/native-hip/build/Release/switchyard_hip_test.node
else
  log "the test addon (switchyard_hip_test) did not build; tail of build.log:"; tail -20 "$out/build.log" | tee -a "$out/run.log"
fi

# 3. Workspace links (the host has no node_modules)
mkdir -p node_modules/@switchyard
for p in core ep-cpu ep-rocm native-hip; do ln -sfn "../../packages/$p" "node_modules/@switchyard/$p"; done

# 4. Stages
status=0
for stage in $stages; do
  case $stage in
    generate)
      # The large models cannot travel (over the device tool's 64 MiB): write them here. torch 2.x's
      # exporter needs dynamo=False, which models/generate.py passes when the argument exists.
      log "stage generate"
      t=$(date +%s)
      { python3 models/generate.py --only "${SWITCHYARD_GENERATE:-resnet50,bert}" && python3 scripts/gpu-host/extra_cases.py; } >"$out/generate.log" 2>&1 || status=1
      grep -v "^  ops" "$out/generate.log" | tail -8 | tee -a "$out/run.log"
      log "generate took $(( $(date +%s) - t )) s" ;;
    startup)
      # Fresh processes after the models stage ran each model once (the on-disk algorithm cache is warm).
      log "stage startup"
      for spec in ${SWITCHYARD_STARTUP:-resnet50:b1 bert:s128 squeezenet1_1:b1 mobilenet_v2:b1}; do
        node scripts/gpu-host/startup.mjs "$out" ${spec%%:*} ${spec#*:} >>"$out/startup.log" 2>&1 || status=1
      done
      tail -4 "$out/startup.log" | cut -c1-300 | tee -a "$out/run.log" ;;
    tests)
      log "stage tests"
      # packages/native-hip/gpu-tests/*.mjs (runtime, kernels, BLAS, DNN) are named without .test: list them.
      # Files named *.alone.test.mjs read the device's free memory, which other test processes running
      # at the same time move: they run afterwards, one at a time.
      parallel=(); for f in packages/*/gpu-tests/*.test.mjs packages/native-hip/gpu-tests/*.mjs; do [[ $f == *.alone.test.mjs ]] || parallel+=("$f"); done
      node --test --test-reporter=spec "${parallel[@]}" >"$out/gpu-tests.log" 2>&1 || status=1
      alone=(packages/*/gpu-tests/*.alone.test.mjs)
      if [ -e "${alone[0]}" ]; then
        node --test --test-concurrency=1 --test-reporter=spec "${alone[@]}" >>"$out/gpu-tests.log" 2>&1 || status=1
      fi
      grep -E "^# (tests|pass|fail|skipped)|^ℹ (tests|pass|fail|skipped)" "$out/gpu-tests.log" | tee -a "$out/run.log" ;;
    backend)
      log "stage backend"
      node scripts/gpu-host/backend.mjs "${SWITCHYARD_ONNX_DATA:-$root/.gpu/onnx-data}" "$out" >"$out/backend.log" 2>&1 || status=1
      tail -20 "$out/backend.log" | tee -a "$out/run.log" ;;
    onnx123)
      # The ONNX 1.23.1 node suite cannot travel (57 MB): the host's onnx writes it from its own
      # generators (onnx 1.23.1 there, as in setup.sh's venv), then backend.mjs runs the tests whose
      # models use an op rocm claims, with ['rocm','cpu'] and with ['cpu'].
      log "stage onnx123"
      mkdir -p "$out/onnx123"
      { python3 scripts/onnx-suite/generate.py "$root/.gpu/onnx123-all" && cat "$root/.gpu/onnx123-all/VERSION" &&
        python3 scripts/gpu-host/make-subset.py "$root/.gpu/onnx123" 64 "$root/.gpu/onnx123-all"; } >"$out/onnx123/generate.log" 2>&1 || status=1
      tail -2 "$out/onnx123/generate.log" | tee -a "$out/run.log"
      node scripts/gpu-host/backend.mjs "$root/.gpu/onnx123" "$out/onnx123" >"$out/onnx123/backend.log" 2>&1 || status=1
      tail -20 "$out/onnx123/backend.log" | tee -a "$out/run.log" ;;
    opset)
      # The committed models converted to opset 21 by the host's onnx: rocm keeps every node it ran.
      log "stage opset"
      node scripts/gpu-host/opset-copies.mjs "$out" 21 >"$out/opset.log" 2>&1 || status=1
      cut -c1-400 "$out/opset.log" | tee -a "$out/run.log" ;;
    models)
      log "stage models"
      node bench/gpu/models.mjs "$out" "${SWITCHYARD_BENCH_ITERATIONS:-20}" >"$out/models.log" 2>&1 || status=1
      grep -E "ERROR|exited" "$out/models.log" | cut -c1-400 | tee -a "$out/run.log" ;;
    profile)
      # Per-step device time (eager, SWITCHYARD_PLAN_PROFILE=1) of the GPU-bound cases: where the time goes.
      log "stage profile"
      node bench/gpu/profile.mjs "$out" ${SWITCHYARD_PROFILE:-bert:b32:fp32 bert:b32:fp16 resnet50:b32:fp32 resnet50:b8:fp32 mobilenet_v2:b32:fp32} >"$out/profile.log" 2>&1 || status=1
      cut -c1-600 "$out/profile.log" | tee -a "$out/run.log" ;;
    overhead)
      # Where the batch-1 and large-output runs spend their wall time besides the GPU.
      log "stage overhead"
      node bench/gpu/overhead.mjs "$out" "${SWITCHYARD_BENCH_ITERATIONS:-50}" ${SWITCHYARD_OVERHEAD:-resnet50:b1:fp32 resnet50:b1:fp16 bert:s128:fp32 bert:s128:fp16 bert:b32:fp32 bert:b32:fp16 resnet50:b32:fp32} >"$out/overhead.log" 2>&1 || status=1
      cut -c1-600 "$out/overhead.log" | tee -a "$out/run.log" ;;
    validate)
      # validateProviders: rocm (fp32, fp16) against the CPU EP on the committed models.
      log "stage validate"
      node scripts/gpu-host/validate.mjs "$out" >"$out/validate.log" 2>&1 || status=1
      cut -c1-300 "$out/validate.log" | tee -a "$out/run.log" ;;
    soak)
      # Leaks: 10,000 runs of one rocm session and 1,000 create/run/release cycles, RSS and GPU memory
      # sampled (SWITCHYARD_SOAK_RUNS / SWITCHYARD_SOAK_CYCLES to change the counts).
      log "stage soak"
      node --expose-gc scripts/gpu-host/soak.mjs "$out" "${SWITCHYARD_SOAK_RUNS:-10000}" "${SWITCHYARD_SOAK_CYCLES:-1000}" >"$out/soak.log" 2>&1 || status=1
      cut -c1-300 "$out/soak.log" | tee -a "$out/run.log" ;;
    memplan)
      # session.memoryPlan's rocm device total against the device memory the session took (driver free
      # memory before/after, nvidia-smi, and the EP's gpuMemLimit count), one fresh process per model.
      log "stage memplan"
      node scripts/gpu-host/memplan.mjs "$out" ${SWITCHYARD_MEMPLAN:-} >"$out/memplan.log" 2>&1 || status=1
      cut -c1-600 "$out/memplan.log" | tee -a "$out/run.log" ;;
    serve-pool)
      # switchyard serve on rocm: one instance against two on the same GPU, same closed-loop load. The
      # host has no node_modules: .gpu/serve.bundle.mjs (scripts/gpu-host/bundle-serve.sh) carries
      # @switchyard/serve with fastify and prom-client in one file.
      log "stage serve-pool"
      [ -f .gpu/serve.bundle.mjs ] || { log "no .gpu/serve.bundle.mjs (run scripts/gpu-host/bundle-serve.sh and carry it)"; status=2; continue; }
      ln -sfn ../../packages/serve node_modules/@switchyard/serve
      SWITCHYARD_SERVE_MODULE="$root/.gpu/serve.bundle.mjs" node scripts/gpu-host/serve-pool.mjs "$out" --ep rocm \
        --model "${SWITCHYARD_POOL_MODEL:-mobilenet_v2}" --seconds "${SWITCHYARD_POOL_SECONDS:-20}" --clients "${SWITCHYARD_POOL_CLIENTS:-16}" >"$out/serve-pool.log" 2>&1 || status=1
      tail -8 "$out/serve-pool.log" | tee -a "$out/run.log" ;;
    zoo)
      # The public zoo on rocm: models/generate.py writes each model here (one process per model, in
      # parallel), zoo_prepare.py makes batch-1 and batch-8 inputs with onnxruntime CPU outputs and times
      # PyTorch eager on them, zoo.mjs runs rocm (+ HIP graph) against the CPU EP (zoo.json).
      log "stage zoo"
      t=$(date +%s)
      zoo=${SWITCHYARD_ZOO:-mobilenet_v3_large,efficientnet_b0,convnext_tiny,vit_b_16,deeplabv3_mobilenet_v3_large,db_text_detector,crnn_recognizer,vad_streaming,gpt2_decoder,unet_1024,unet_1024_fp16,unet_1024_int8}
      mkdir -p "$out/zoo-logs"
      echo "$zoo" | tr , '\n' | xargs -P 8 -I{} sh -c 'python3 models/generate.py --only {} >"$1/zoo-logs/generate-{}.log" 2>&1 || echo "generate {} failed"' _ "$out" | tee -a "$out/run.log"
      log "zoo models written in $(( $(date +%s) - t )) s"
      python3 scripts/gpu-host/zoo_prepare.py "$out" "$root/.gpu/zoo" "$zoo" "${SWITCHYARD_BENCH_ITERATIONS:-30}" >"$out/zoo-logs/prepare.log" 2>&1 || status=1
      tail -3 "$out/zoo-logs/prepare.log" | cut -c1-300 | tee -a "$out/run.log"
      node scripts/gpu-host/zoo.mjs "$out" "$root/.gpu/zoo" "$zoo" "${SWITCHYARD_BENCH_ITERATIONS:-30}" >"$out/zoo.log" 2>&1 || status=1
      grep -E "^\||\[zoo\]" "$out/zoo.log" | cut -c1-700 | tee -a "$out/run.log"
      log "zoo took $(( $(date +%s) - t )) s" ;;
    dynamic)
      # Symbolic H/W: the zoo's DB detector fed two resolutions in turn against a static-shape session
      # of each (plans built per shape, p50 of each); the model is written here if the zoo stage did not.
      log "stage dynamic"
      [ -f models/generated/db_text_detector/model.onnx ] || python3 models/generate.py --only db_text_detector >"$out/dynamic-generate.log" 2>&1 || status=1
      node scripts/gpu-host/dynamic_shapes.mjs "$out" "${SWITCHYARD_BENCH_ITERATIONS:-30}" "${SWITCHYARD_DYNAMIC_SIZES:-640x640,960x960}" >"$out/dynamic.log" 2>&1 || status=1
      tail -5 "$out/dynamic.log" | tee -a "$out/run.log" ;;
    torch)
      log "stage torch"
      python3 bench/gpu/torch_bench.py "$out" 50 >"$out/torch.log" 2>&1 || status=1
      tail -10 "$out/torch.log" | tee -a "$out/run.log" ;;
    *) log "unknown stage $stage"; status=2 ;;
  esac
done
exit $status
