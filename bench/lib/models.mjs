/**
 * The benchmark's models: where each file lives (models/manifest.json, written by
 * models/generate.py), which reference inputs feed it, and the generated 1,000-node chain.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { encodeModel, Tensor } from '@switchyard/core';
import { buildModel } from '@switchyard/core/testing';
import { readNpy } from './npy.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Nodes in the overhead chain; the report divides its latency by this. */
export const CHAIN_NODES = 1000;

/**
 * One benchmark case. `manifest` names a model and case in models/manifest.json; `family` lets
 * `--models resnet50` pick both batch sizes. A case with `optIn` (why) runs only when `--models`
 * names it: one of its runs takes minutes on an engine. `agreeWithin` ({tolerance, why}) replaces the
 * 1e-3 agreement bound for a model whose engines cannot agree closer, with the reason shown in the table.
 */
export const CASES = [
  { id: 'tiny-cnn', family: 'tiny-cnn', label: 'tiny-cnn (demo) b1', file: 'examples/models/tiny-cnn.onnx', inputs: { input: 'examples/models/tiny-cnn.input.npy' } },
  { id: 'chain', family: 'chain', label: `chain of ${CHAIN_NODES} tiny ops`, chain: true },
  // The same chain with no graph optimization on either engine: Switchyard fuses the whole chain into one
  // elementwise kernel at 'all', so only this row still measures dispatch per node.
  { id: 'chain-unfused', family: 'chain', label: `chain of ${CHAIN_NODES} tiny ops, optimization disabled`, chain: true, level: 'disabled' },
  { id: 'resnet50', family: 'resnet50', label: 'ResNet-50 b1', manifest: ['resnet50', 'b1'] },
  { id: 'resnet50-b8', family: 'resnet50', label: 'ResNet-50 b8', manifest: ['resnet50', 'b8'] },
  { id: 'mobilenetv2', family: 'mobilenetv2', label: 'MobileNetV2 b1', manifest: ['mobilenet_v2', 'b1'] },
  { id: 'squeezenet', family: 'squeezenet', label: 'SqueezeNet 1.1 b1', manifest: ['squeezenet1_1', 'b1'] },
  { id: 'bert', family: 'bert', label: 'BERT-base seq128 b1', manifest: ['bert', 's128'] },
  { id: 'lstm', family: 'lstm', label: 'LSTM 2-layer seq32 b1', manifest: ['lstm2', 's32'] },
  // The public zoo (models/zoo_vision.py), generated on first use like ResNet-50 and BERT.
  { id: 'mobilenetv3', family: 'mobilenetv3', label: 'MobileNetV3-Large b1', manifest: ['mobilenet_v3_large', 'b1'] },
  { id: 'efficientnet', family: 'efficientnet', label: 'EfficientNet-B0 b1', manifest: ['efficientnet_b0', 'b1'] },
  { id: 'convnext', family: 'convnext', label: 'ConvNeXt-Tiny b1', manifest: ['convnext_tiny', 'b1'] },
  { id: 'vit', family: 'vit', label: 'ViT-B/16 b1', manifest: ['vit_b_16', 'b1'] },
  { id: 'deeplabv3', family: 'deeplabv3', label: 'DeepLabV3-MobileNetV3 520x520', manifest: ['deeplabv3_mobilenet_v3_large', '520x520'] },
  { id: 'deeplabv3-384x512', family: 'deeplabv3', label: 'DeepLabV3-MobileNetV3 384x512', manifest: ['deeplabv3_mobilenet_v3_large', '384x512'] },
  { id: 'gpt2-prefill', family: 'gpt2', label: 'GPT-2 prefill seq32 b1', manifest: ['gpt2_decoder', 'prefill'] },
  { id: 'gpt2-decode', family: 'gpt2', label: 'GPT-2 decode past64 b2', manifest: ['gpt2_decoder', 'decode'] },
  // The zoo's own architectures (models/zoo_custom.py).
  { id: 'db-640', family: 'db', label: 'DB text detector 640x640', manifest: ['db_text_detector', '640x640'] },
  { id: 'db-480x800', family: 'db', label: 'DB text detector 480x800', manifest: ['db_text_detector', '480x800'] },
  { id: 'crnn', family: 'crnn', label: 'CRNN recogniser 48x320 b1', manifest: ['crnn_recognizer', 'b1'] },
  { id: 'crnn-b4', family: 'crnn', label: 'CRNN recogniser 48x320 b4', manifest: ['crnn_recognizer', 'b4'] },
  { id: 'vad', family: 'vad', label: 'streaming VAD 512-sample chunk', manifest: ['vad_streaming', '16k_1'] },
  { id: 'unet', family: 'unet', label: 'UNet 1024x1024', manifest: ['unet_1024', 'b1'] },
  { id: 'unet-fp16', family: 'unet-fp16', label: 'UNet 1024x1024 float16', manifest: ['unet_1024_fp16', 'b1'] },
  {
    id: 'unet-int8',
    family: 'unet-int8',
    label: 'UNet 1024x1024 int8 (dynamic)',
    manifest: ['unet_1024_int8', 'b1'],
    // Each DynamicQuantizeLinear is bit-exact with onnxruntime's on the same input (scale, zero point and
    // every level), and ConvInteger's int32 sums are exact; but the float ops between the quantized
    // convolutions (ConvTranspose, pools, Concat) differ in the last bits, which moves a value across a
    // rounding boundary of the next quantization in places, and 19 quantized layers carry that on
    // (measured: 0.47 on outputs up to 15.7; onnxruntime itself is 1.37 from PyTorch's float output).
    agreeWithin: { tolerance: 1, why: 'int8 dynamic quantization: a float difference in the last bits moves a value one quantization level in places' },
  },
];

export const MODEL_IDS = [...new Set(CASES.flatMap((c) => [c.id, c.family]))];

/** The cases `--models` selects (all but the opt-in ones when undefined), in catalogue order. */
export function selectCases(wanted) {
  return wanted ? CASES.filter((c) => wanted.includes(c.id) || wanted.includes(c.family)) : CASES.filter((c) => !c.optIn);
}

function readManifest() {
  const path = join(ROOT, 'models/manifest.json');
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

/**
 * Where a case's model and inputs are, or why it cannot run yet.
 * @returns {{ok: true, path: string, inputFiles: Record<string, string>} | {ok: false, reason: string}}
 */
export function locateCase(c) {
  // Written on first use (the parent rewrites it at start, so a changed encoder is picked up).
  if (c.chain) return { ok: true, path: existsSync(chainModelPath()) ? chainModelPath() : writeChainModel(), inputFiles: {} };
  if (c.file) return { ok: true, path: join(ROOT, c.file), inputFiles: mapValues(c.inputs, (f) => join(ROOT, f)) };
  const [name, caseName] = c.manifest;
  const entry = readManifest()?.models.find((m) => m.name === name);
  if (!entry) return { ok: false, reason: `models/manifest.json has no '${name}' (models/generate.py not run yet)` };
  const folder = join(ROOT, 'models', entry.folder);
  const path = join(folder, entry.model);
  const files = entry.cases?.[caseName]?.inputs;
  if (!files) return { ok: false, reason: `models/manifest.json: '${name}' has no case '${caseName}'` };
  const inputFiles = mapValues(files, (f) => join(folder, f));
  const missing = [path, ...Object.values(inputFiles)].filter((p) => !existsSync(p));
  if (missing.length) {
    return { ok: false, reason: `not generated yet (${relative(ROOT, missing[0])} missing; run /usr/bin/python3 models/generate.py --only ${name})` };
  }
  return { ok: true, path, inputFiles };
}

/** The case's inputs as plain {type, dims, data}, the same arrays for both engines. */
export function loadInputs(c, located) {
  if (c.chain) return { x: chainInput() };
  return mapValues(located.inputFiles, (f) => readNpy(f));
}

function mapValues(obj, fn) {
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, fn(v)]));
}

// ---------------------------------------------------------------- the chain

function chainModelPath() {
  return join(tmpdir(), 'switchyard-bench', `chain-${CHAIN_NODES}.onnx`);
}

function chainInput() {
  const data = new Float32Array(16);
  for (let i = 0; i < 16; i++) data[i] = (i - 8) / 8;
  return { type: 'float32', dims: [1, 16], data };
}

/**
 * Writes the chain: Add, Mul, Relu, Add, … on a [1,16] tensor, so the run time is nearly all
 * per-node overhead (dispatch, allocation, bookkeeping) rather than arithmetic. The constants keep
 * values bounded and let Relu clip some lanes, so no pass can fold the chain away.
 */
export function writeChainModel() {
  const c = (values) => new Tensor('float32', Float32Array.from({ length: 16 }, (_, i) => values(i)), [16]);
  const nodes = [];
  let prev = 'x';
  for (let i = 0; i < CHAIN_NODES; i++) {
    const out = i === CHAIN_NODES - 1 ? 'y' : `v${i}`;
    const op = ['Add', 'Mul', 'Relu'][i % 3];
    const inputs = op === 'Add' ? [prev, 'shift'] : op === 'Mul' ? [prev, 'scale'] : [prev];
    nodes.push({ op, inputs, outputs: [out], name: `n${i}` });
    prev = out;
  }
  const model = buildModel({
    inputs: [['x', 'float32', [1, 16]]],
    outputs: [['y', 'float32', [1, 16]]],
    nodes,
    initializers: {
      shift: c((i) => ((i % 5) - 2) * 0.05),
      scale: c((i) => (i % 2 ? 1.01 : -0.99)),
    },
    opset: 17,
  });
  const path = chainModelPath();
  mkdirSync(join(tmpdir(), 'switchyard-bench'), { recursive: true });
  writeFileSync(path, encodeModel(model));
  return path;
}
