/**
 * session.memoryPlan on the GPU host: for each committed model (and ResNet-50 where the generate
 * stage wrote it), the rocm device's planned total against the device memory the session took, each
 * model in a fresh process:
 *
 *   1. a warm-up session of the same model is created and run, and kept: it loads the kernels' and
 *      libraries' modules and fills the algorithm caches, and holds its plan streams, so the measured
 *      session builds its plans on new streams with their own library handles and workspaces;
 *   2. the driver's free memory (hipMemGetInfo through planDeviceMemory) and nvidia-smi's used memory;
 *   3. the measured session is created with its own EP instance, `memoryPlanFor(feeds)` read (before
 *      it runs), run once;
 *   4. free memory and nvidia-smi again: the difference is the memory the session took (its peak: the
 *      arenas keep what a build's search or growth reserved).
 *
 * Prints planned, measured (driver), nvidia-smi's difference and the EP's own count (gpuMemLimit's
 * budget), with planned/measured; writes OUT/memplan.json; exits 1 when any planned total is more
 * than 10% off the measured one, or 2 MiB where that is more (the driver hands out device memory in
 * 2 MiB pages, so a model of a few MiB cannot be told apart closer); 2 when rocm could not run at all.
 *
 *   node scripts/gpu-host/memplan.mjs OUT_DIR [model …]
 *   (internal) node scripts/gpu-host/memplan.mjs --one MODEL
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InferenceSession, Tensor } from '@switchyard/core';
import { RocmExecutionProvider } from '@switchyard/ep-rocm';
import { nativeHipBinding } from '@switchyard/native-hip';
import { readNpy } from '../../bench/lib/npy.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const MiB = 2 ** 20;
const TOLERANCE = 0.1;
/** The driver's allocation granularity: free memory moves in steps of it. */
const PAGE_BYTES = 2 * MiB;
const DEFAULT_MODELS = ['mobilenet_v2', 'squeezenet1_1', 'resnet50', 'crnn_recognizer', 'modern_encoder_opset23', 'lstm2'];

/** The model's file and its first case's feeds (b1 when it has one), from models/manifest.json. */
function modelCase(name) {
  const manifest = JSON.parse(readFileSync(join(repo, 'models/manifest.json'), 'utf8'));
  const entry = manifest.models.find((m) => m.name === name);
  if (!entry) throw new Error(`models/manifest.json has no model '${name}'`);
  const dir = join(repo, 'models', entry.folder);
  const caseName = entry.cases?.b1 ? 'b1' : Object.keys(entry.cases ?? {})[0];
  const feeds = {};
  for (const [input, file] of Object.entries(entry.cases?.[caseName]?.inputs ?? {})) {
    const t = readNpy(join(dir, file));
    feeds[input] = new Tensor(t.type, t.data, t.dims);
  }
  return { path: join(dir, entry.model), caseName, feeds };
}

/** nvidia-smi's used memory in bytes, or undefined where it cannot say. */
function smiUsedBytes() {
  try {
    const out = execFileSync('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits'], { encoding: 'utf8' });
    return Number(out.trim().split('\n')[0]) * MiB;
  } catch {
    return undefined;
  }
}

/** One model, in this process: the figures of step 1-4 above. */
async function measureOne(name) {
  const loaded = nativeHipBinding();
  if (!loaded.ok) return { model: name, error: `HIP addon unavailable: ${loaded.reason}` };
  const { path, caseName, feeds } = modelCase(name);
  const onRocm = (s) => s.placement.providers.find((p) => p.name === 'rocm')?.nodes ?? 0;

  const warm = await InferenceSession.create(path, { executionProviders: ['rocm'] });
  if (!onRocm(warm)) {
    const why = warm.placement.skipped.find((s) => s.name === 'rocm')?.reason ?? 'no node was placed on rocm';
    await warm.release();
    return { model: name, error: `rocm did not run: ${why}` };
  }
  await warm.run(feeds);
  globalThis.gc?.();
  const free0 = loaded.binding.planDeviceMemory(0).free;
  const smi0 = smiUsedBytes();
  const library0 = loaded.binding.defaultArenaStats?.(0);

  const ep = new RocmExecutionProvider({});
  const session = await InferenceSession.create(path, { executionProviders: [ep] });
  const plan = session.memoryPlanFor(feeds);
  const device = plan.devices.find((d) => d.device === 'rocm:0');
  await session.run(feeds);
  const free1 = loaded.binding.planDeviceMemory(0).free;
  const smi1 = smiUsedBytes();
  const library1 = loaded.binding.defaultArenaStats?.(0);
  const usage = ep.memoryUsage;
  const footprints = ep.partitions.map((p) => p.stats.lastFootprint).filter(Boolean);
  const result = {
    model: name,
    case: caseName,
    nodesOnRocm: onRocm(session),
    partitions: ep.partitions.length,
    planned: device ? { totalBytes: device.totalBytes, weightsBytes: device.weightsBytes, activationBytes: device.activationBytes, activationSource: device.activationSource, perRunBytes: device.perRunBytes, workspaceBytes: device.workspaceBytes } : undefined,
    measuredBytes: free0 - free1,
    smiBytes: smi0 !== undefined && smi1 !== undefined ? smi1 - smi0 : undefined,
    counted: usage,
    // What the builds measured on the default arena (BLAS + DNN workspaces) against the estimate's BLAS figure.
    libraryBytesMeasured: footprints.reduce((a, f) => a + f.libraryBytes, 0),
    // The default arena (library workspaces) across the measured session: what it reserved from the driver and what is in use.
    defaultArena: library0 && library1 ? { reservedBytes: library1.reserved - library0.reserved, inUseBytes: library1.inUse - library0.inUse } : undefined,
    notes: plan.notes,
  };
  await session.release();
  await warm.release();
  return result;
}

const fmt = (n) => (n === undefined ? '-' : `${(n / MiB).toFixed(1)} MiB`);

async function main() {
  const args = process.argv.slice(2);
  if (args[0] === '--one') {
    const result = await measureOne(args[1]).catch((e) => ({ model: args[1], error: String(e?.stack ?? e) }));
    console.log(`MEMPLAN ${JSON.stringify(result)}`);
    return;
  }
  const [outDir, ...names] = args;
  if (!outDir) throw new Error('usage: memplan.mjs OUT_DIR [model …]');
  const models = names.length ? names : DEFAULT_MODELS.filter((m) => m !== 'resnet50' || existsSync(join(repo, 'models/generated/resnet50/model.onnx')));
  const results = [];
  for (const name of models) {
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), '--one', name], { encoding: 'utf8', maxBuffer: 64 * MiB });
    const line = child.stdout.split('\n').find((l) => l.startsWith('MEMPLAN '));
    const result = line ? JSON.parse(line.slice('MEMPLAN '.length)) : { model: name, error: `exited ${child.status}: ${child.stderr.trim().split('\n').slice(-3).join(' | ')}` };
    if (result.planned && !result.error) {
      if (result.measuredBytes > 0) result.ratio = result.planned.totalBytes / result.measuredBytes;
      result.passed = Math.abs(result.planned.totalBytes - result.measuredBytes) <= Math.max(TOLERANCE * result.measuredBytes, PAGE_BYTES);
    } else result.passed = false;
    results.push(result);
    if (result.error) {
      console.log(`${name}: ERROR ${result.error}`);
      continue;
    }
    const p = result.planned;
    const c = result.counted;
    console.log(
      `${name} ${result.case} (${result.nodesOnRocm} nodes on rocm, ${result.partitions} partition(s)): planned ${fmt(p?.totalBytes)} ` +
        `[weights ${fmt(p?.weightsBytes)}, activations ${fmt(p?.activationBytes)} (${p?.activationSource}), per run ${fmt(p?.perRunBytes)}, workspace ${fmt(p?.workspaceBytes)}]; ` +
        `measured ${fmt(result.measuredBytes)} (nvidia-smi ${fmt(result.smiBytes)}); EP counted ${fmt(c?.inUseBytes)} [plans ${fmt(c?.byKind.plans)}, libraries ${fmt(c?.byKind.libraries)}, tensors ${fmt(c?.byKind.tensors)}]; ` +
        `default arena +${fmt(result.defaultArena?.reservedBytes)} reserved, +${fmt(result.defaultArena?.inUseBytes)} in use; ` +
        `planned/measured ${result.ratio?.toFixed(3) ?? '-'} ${result.passed ? 'ok' : 'FAIL'}`,
    );
  }
  writeFileSync(join(outDir, 'memplan.json'), JSON.stringify({ date: new Date().toISOString(), tolerance: TOLERANCE, results }, null, 2) + '\n');
  const ran = results.filter((r) => !r.error);
  console.log(`${ran.filter((r) => r.passed).length} of ${results.length} models within ${TOLERANCE * 100}% (or 2 MiB) of the measured memory (${results.length - ran.length} did not run)`);
  process.exit(ran.length === 0 ? 2 : results.every((r) => r.passed) ? 0 : 1);
}

await main();
