/**
 * The shape of `switchyard_cpu.node` (packages/ep-cpu/native): the only place the TS side states what
 * the addon exports. Every method says whether it blocks the calling thread ([sync]) or runs on the
 * libuv pool and returns a Promise ([async]). All tensors cross as dense row-major Float32Arrays;
 * the addon writes outputs into the caller's buffer (no copy back).
 *
 * Argument errors (wrong dtype, length, missing buffer) throw synchronously, also from [async]
 * methods, as Node's own APIs do; failures during execution reject the Promise.
 * Errors thrown or rejected by the addon are `Error`/`TypeError` objects with a `code` that is one of
 * core's `ErrorCode`s: 'INVALID_ARGUMENT' (wrong dtype, length, option), 'UNSUPPORTED' (oneDNN has no
 * implementation for this configuration), 'OUT_OF_MEMORY', 'RELEASED' (used after dispose), 'RUNTIME'.
 */

/**
 * Epilogue activations the addon fuses (oneDNN eltwise post-ops; nn/fused-activation.ts maps FusedConv's
 * names to these). `activationAlpha` / `activationBeta`: LeakyRelu slope; Clip min / max; HardSigmoid
 * α / β; Swish α (x·sigmoid(αx)); Elu α; unused by the others.
 */
export type NativeActivation = 'none' | 'relu' | 'leakyRelu' | 'clip' | 'sigmoid' | 'tanh' | 'hardSigmoid' | 'hardSwish' | 'swish' | 'gelu' | 'geluTanh' | 'elu' | 'softplus' | 'mish';

/** Options of `new ConvPrimitive(...)`: ONNX Conv semantics, with shapes fixed at construction. */
export interface ConvPrimitiveOptions {
  /** X: [N, C, ...spatial], spatial rank 1–3. */
  inputDims: readonly number[];
  /** W: [M, C / group, ...kernel]. */
  weightDims: readonly number[];
  /** Default 1. */
  group?: number;
  /** One per spatial axis; default all 1. */
  strides?: readonly number[];
  /** ONNX counting (1 = dense; the addon converts to oneDNN's gap count); default all 1. */
  dilations?: readonly number[];
  /** Explicit pads per spatial axis (auto_pad resolved by the caller); default 0. */
  padsBegin?: readonly number[];
  padsEnd?: readonly number[];
  /** Whether the convolution adds a bias of M elements. Default false. */
  hasBias?: boolean;
  /** Fuses max(0, y) into the convolution (Conv+Relu). Default false; same as `activation: 'relu'`. */
  fuseRelu?: boolean;
  /** Activation applied last, as a oneDNN post-op. Default 'none' (or 'relu' with `fuseRelu`). */
  activation?: NativeActivation;
  /** See NativeActivation: LeakyRelu slope, Clip min, HardSigmoid α, Swish α, Elu α. */
  activationAlpha?: number;
  /** See NativeActivation: Clip max, HardSigmoid β. */
  activationBeta?: number;
  /** Adds Z (shaped like Y) before the activation: `run` then takes `z` (FusedConv's residual input). */
  hasSum?: boolean;
  /** OpenMP team size for this primitive, at creation and every run; 0 or absent = OpenMP's default. */
  threads?: number;
  /** Constant weights, packed now into oneDNN's preferred layout; then `run` takes `w = null`. */
  weights?: Float32Array;
  /**
   * Instead of `weights`: another ConvPrimitive of the same weight dims and group whose packed weights
   * can be unpacked (`weightsUnpackable`); they are packed again for these options.
   */
  packedFrom?: ConvPrimitive;
  /** Constant bias (needs `hasBias`); then `run` takes `b = null`. */
  bias?: Float32Array;
  /**
   * Layout of x / y / z: 0 (default) plain, 8 or 16 channel-blocked (see `ChannelBlock`). Matching
   * the layout oneDNN picks (`primitiveLayouts`) means no reorder inside the run. `sumBlock` defaults to `dstBlock`.
   */
  srcBlock?: ChannelBlock;
  dstBlock?: ChannelBlock;
  sumBlock?: ChannelBlock;
  /**
   * 3x3, stride-1, undilated, ungrouped convs with constant weights on 8-blocked x / y / z (and channel
   * counts multiple of 8) may run as a Winograd F(4x4, 3x3) convolution instead (AVX2+FMA CPUs).
   * `auto` (default): where it measured faster; `always`: wherever it applies; `never`: oneDNN only.
   * The environment variable SWITCHYARD_CPU_WINOGRAD (same values) overrides `auto`.
   */
  winograd?: 'auto' | 'always' | 'never';
  /**
   * Ungrouped convs with constant weights on 8-blocked x / y / z (channel counts multiple of 8) that Winograd
   * does not take may run as im2col + a packed GEMM instead (AVX2+FMA CPUs). `auto` (default): strided
   * kernels larger than 1x1, where oneDNN's AVX2 direct conv measured slower; `always`: wherever it applies;
   * `never`: oneDNN only. The environment variable SWITCHYARD_CPU_IM2COL (same values) overrides `auto`.
   */
  im2col?: 'auto' | 'always' | 'never';
  /**
   * At 2+ threads, a batch of 1 with channel counts that split into whole 8/16-channel blocks per thread
   * may run as one single-threaded oneDNN conv per thread over its slice of the output channels.
   * `auto` (default): on images of at most 64 pixels, where oneDNN's own split measured slower;
   * `always`: wherever it applies; `never`: oneDNN's split. SWITCHYARD_CPU_CHANNEL_SPLIT overrides `auto`.
   */
  channelSplit?: 'auto' | 'always' | 'never';
  /**
   * A Sigmoid or Swish activation may run as the addon's own vector pass over the output after the conv
   * instead of oneDNN's post-op (native/src/activation_pass.h: about half the post-op's cost). `auto`
   * (default): where the vector loops have an AVX2 or AVX-512 build; `always`: also on the generic one;
   * `never`: the post-op. SWITCHYARD_CPU_ACTIVATION_PASS overrides `auto`. Other activations stay post-ops.
   */
  activationPass?: 'auto' | 'always' | 'never';
}

/**
 * A tensor's memory layout across the addon: 0 = dense row-major NCHW; b (8 or 16) = oneDNN's
 * nChw{b}c, i.e. the row-major 5-D [N, ceil(C / b), H, W, b] with the last block's extra channels zero.
 */
export type ChannelBlock = 0 | 8 | 16;

/**
 * What every native primitive class shares (native/src/kernel_wrap.h): `run` [async] queues the work on
 * the oneDNN thread and keeps the buffers referenced until the Promise settles; `runSync` [sync] runs it
 * on the calling thread (for work too small to be worth the hop); `dispose` [sync] frees the primitive
 * and whatever it packed, after in-flight runs finish. `Args` are the run arguments, named.
 */
export interface NativeRunnable<Args extends unknown[]> {
  run(...args: Args): Promise<void>;
  runSync(...args: Args): void;
  dispose(): void;
}

/** A primitive with an output shape: `outputDims` and `implementation` (oneDNN's name, or the addon's own algorithm) [sync]. */
export interface NativeShapedPrimitive<Args extends unknown[]> extends NativeRunnable<Args> {
  readonly outputDims: number[];
  readonly implementation: string;
}

/** ... and the OpenMP team size it was built for (the default resolved) [sync]. */
export interface NativePrimitive<Args extends unknown[]> extends NativeShapedPrimitive<Args> {
  readonly threads: number;
}

/**
 * Convolves `x` into `y` (`w` / `b` null when packed; `z` exactly when built with `hasSum`). `outputDims`:
 * [N, M, ...outSpatial]; `implementation` e.g. `jit:avx2`, `gemm:jit`, or the addon's own `winograd_f4x4:avx2`
 * / `im2col_gemm:avx2`, with ` x2 (output-channel split)` when split across threads.
 */
export interface ConvPrimitive
  extends NativePrimitive<[x: Float32Array, w: Float32Array | null, b: Float32Array | null, y: Float32Array, z?: Float32Array]> {
  /** [sync] Whether weights were packed at construction. */
  readonly weightsPacked: boolean;
  /** [sync] Whether another ConvPrimitive can take these packed weights as `packedFrom` (not Winograd's or im2col's). */
  readonly weightsUnpackable: boolean;
  /** [sync] The blocks of the src/dst layouts oneDNN chose (-1: neither plain nor channel-blocked). Absent from older builds. */
  readonly primitiveLayouts?: { src: number; dst: number };
}

/**
 * Options of `new ConvDwPrimitive(...)`: a 1x1 conv (stride 1, no padding) fused with the 3x3 depthwise
 * conv (padding 1, stride 1 or 2) that reads its output, each with its own bias and activation.
 * Output [N, M, ceil(H / stride), ceil(W / stride)]. Weights are constants, packed at construction.
 */
export interface ConvDwPrimitiveOptions {
  /** X of the 1x1 conv: [N, C, H, W]. */
  inputDims: readonly number[];
  /** M: the 1x1 conv's output channels, which the depthwise conv keeps. */
  channels: number;
  /** The depthwise conv's stride: 1 or 2. */
  stride: 1 | 2;
  /** The 1x1 weights [M, C] (an ONNX [M, C, 1, 1] as is) and optional bias [M]. */
  weights: Float32Array;
  bias?: Float32Array;
  /** The depthwise weights [M, 3, 3] (an ONNX [M, 1, 3, 3] as is) and optional bias [M]. */
  dwWeights: Float32Array;
  dwBias?: Float32Array;
  /** After the 1x1 conv, as ConvPrimitiveOptions. */
  activation?: NativeActivation;
  activationAlpha?: number;
  activationBeta?: number;
  /** After the depthwise conv. */
  dwActivation?: NativeActivation;
  dwActivationAlpha?: number;
  dwActivationBeta?: number;
  threads?: number;
  srcBlock?: ChannelBlock;
  dstBlock?: ChannelBlock;
  /** As ConvPrimitiveOptions.channelSplit, over the 1x1 conv's output channels (the depthwise conv keeps them). */
  channelSplit?: 'auto' | 'always' | 'never';
}

/**
 * Runs both convolutions from `x` into `y`. `outputDims`: [N, M, ceil(H / stride), ceil(W / stride)];
 * `implementation` e.g. `jit_1x1:avx2` (truly fused) or `ref_fused_convolution:...` (the two back to back).
 */
export type ConvDwPrimitive = NativePrimitive<[x: Float32Array, y: Float32Array]>;

/** Options of `new MatMulPrimitive(...)`: ONNX MatMul for operands of rank >= 2 (batch dims broadcast). */
export interface MatMulPrimitiveOptions {
  aDims: readonly number[];
  bDims: readonly number[];
  /** Fuses max(0, y). Default false. */
  fuseRelu?: boolean;
  /** As for Conv (no sum). */
  activation?: NativeActivation;
  activationAlpha?: number;
  activationBeta?: number;
  /** Adds a bias of N (the last output dim) elements to every row. Default false. */
  hasBias?: boolean;
  /** As for Conv. */
  threads?: number;
  /** Constant B, packed now; then `run` takes `b = null`. */
  b?: Float32Array;
  /** Constant bias (needs `hasBias`); then `run` takes no bias. */
  bias?: Float32Array;
  /**
   * Instead of `b`: another MatMulPrimitive of the same `bDims` that packed its B. B is unpacked from it
   * and packed for these dims, so a node whose B was released (packed at session creation for one shape)
   * still builds primitives for other shapes.
   */
  packedFrom?: MatMulPrimitive;
}

/** y = a × b (+ bias), batched and broadcast (`b` null when packed). `outputDims`: [...broadcast batch, M, N]. */
export interface MatMulPrimitive extends NativePrimitive<[a: Float32Array, b: Float32Array | null, y: Float32Array, bias?: Float32Array]> {
  /** [sync] Whether B was packed at construction. */
  readonly weightsPacked: boolean;
}

/** Options of `new StridedMatMulPrimitive(...)`: Y = permute(scale · permute(A, permA) × permute(B, permB) + mask, permY). */
export interface StridedMatMulPrimitiveOptions {
  /** A and B as stored (dense row-major), the same rank >= 2. */
  aDims: readonly number[];
  bDims: readonly number[];
  /** ONNX Transpose perms (out.dims[i] = in.dims[perm[i]]); absent = identity. Read as strides, never copied. */
  permA?: readonly number[];
  permB?: readonly number[];
  /** Applied to the product after scale and mask. */
  permY?: readonly number[];
  /** Multiplies the product (oneDNN output scale). Default 1. */
  scale?: number;
  /** Present (even []): `run` takes a mask of these dims, added to the scaled product; it must not widen it. */
  maskDims?: readonly number[];
  threads?: number;
}

/** `mask` exactly when built with `maskDims`. `outputDims`: Y's dims; `implementation` e.g. `gemm:jit`. */
export interface StridedMatMulPrimitive
  extends NativeShapedPrimitive<[a: Float32Array, b: Float32Array, mask: Float32Array | null, y: Float32Array]> {
}

/** Options of `new GemmPrimitive(...)`: ONNX Gemm, Y = alpha · op(A) · op(B) + beta · C. */
export interface GemmPrimitiveOptions {
  /** A: [M, K], or [K, M] with transA. */
  aDims: readonly number[];
  /** B: [K, N], or [N, K] with transB. */
  bDims: readonly number[];
  transA?: boolean;
  transB?: boolean;
  /** Default 1. */
  alpha?: number;
  /** Default 1. */
  beta?: number;
  /** C's dims (rank 0–2, broadcast to [M, N]); absent when the node has no C. */
  cDims?: readonly number[];
  threads?: number;
  /** Constant B, packed now; then `run` takes `b = null`. */
  b?: Float32Array;
  /** Constant C, copied now; then `run` takes `c = null`. */
  c?: Float32Array;
  /**
   * One row (M = 1) at 2+ threads, B constant and transposed ([N, K]), alpha 1, C absent or a constant row:
   * one single-threaded 1x1 conv per thread over its own columns, as ConvPrimitiveOptions.channelSplit.
   * `auto` (default) and `always`: there; `never`: a matmul. SWITCHYARD_CPU_CHANNEL_SPLIT overrides `auto`.
   */
  channelSplit?: 'auto' | 'always' | 'never';
  /**
   * At most 4 rows, B constant, A not transposed, alpha 1, C absent or a constant row: the addon's
   * streaming kernel over B packed in 16-column panels (skinny_gemm.h), ahead of the other routes.
   * `auto` (default) and `always`: there; `never`: the other routes. SWITCHYARD_CPU_SKINNY_GEMM overrides `auto`.
   */
  skinny?: 'auto' | 'always' | 'never';
  /**
   * Instead of `b`: another GemmPrimitive of the same `bDims` and `transB` that packed its B. B is unpacked
   * from it and packed for these dims, so a node whose B was released (packed at session creation for one
   * row) still builds primitives for other row counts.
   */
  packedFrom?: GemmPrimitive;
}

/** `c` must be null when C is absent, packed, or unused (`cMode` 'none'). `outputDims`: [M, N]. */
export interface GemmPrimitive extends NativePrimitive<[a: Float32Array, b: Float32Array | null, c: Float32Array | null, y: Float32Array]> {
  readonly weightsPacked: boolean;
  /** [sync] How C enters: 'bias' (a row of N, alpha = beta = 1), 'sum' (pre-filled Y), 'none'. */
  readonly cMode: 'none' | 'bias' | 'sum';
}

/** Options of `new PoolPrimitive(...)`: pads already include ceil_mode's extra end padding. */
export interface PoolPrimitiveOptions {
  inputDims: readonly number[];
  kind: 'max' | 'avgIncludePad' | 'avgExcludePad';
  kernel: readonly number[];
  strides?: readonly number[];
  /** Each pad must be smaller than the kernel along its axis. */
  padsBegin?: readonly number[];
  padsEnd?: readonly number[];
  threads?: number;
  /** Layout of x and y (default 0, plain). Blocked pools run with no reorder. */
  block?: ChannelBlock;
}

/** `outputDims`: [N, C, ...floor((in + pads - kernel) / stride) + 1]. */
export type PoolPrimitive = NativePrimitive<[x: Float32Array, y: Float32Array]>;

/** 8-bit tensors as the int8 classes take them. */
export type Int8Array8 = Uint8Array | Int8Array;

/**
 * Options shared by the int8 convolution classes: ONNX Conv geometry (auto_pad resolved by the caller)
 * and constant 8-bit weights, packed at construction. Results are exact: the int32 sums of
 * (x - x_zero_point)(w - w_zero_point) whatever the ISA (without VNNI, weights past ±64 run as two 7-bit
 * halves, which oneDNN's saturating int16 products cannot overflow; native/src/int8_weights.h).
 */
export interface Int8ConvOptions {
  /** X: [N, C, ...spatial], spatial rank 1–3. */
  inputDims: readonly number[];
  /** W: [M, C / group, ...kernel]. */
  weightDims: readonly number[];
  group?: number;
  strides?: readonly number[];
  /** ONNX counting (1 = dense). */
  dilations?: readonly number[];
  padsBegin?: readonly number[];
  padsEnd?: readonly number[];
  threads?: number;
  /** W's values; its type (uint8 or int8) is W's. */
  weights: Int8Array8;
  /** W's zero points: W's type, 1 or M elements; absent = 0. */
  weightZeroPoints?: Int8Array8;
  /** 'auto' (default): 7-bit weight halves where oneDNN would saturate (no VNNI); 'always': everywhere (tests). */
  weightSplit?: 'auto' | 'always';
}

/** `new ConvIntegerPrimitive(...)`: ONNX ConvInteger. */
export interface ConvIntegerPrimitiveOptions extends Int8ConvOptions {
  /** X's type (default 'uint8'). */
  inputType?: 'uint8' | 'int8';
}

/** y (Int32Array of `outputDims`) = Σ (x - xZero[0])(w - w_zero_point); xZero null = 0, else one element of x's type. */
export type ConvIntegerPrimitive = NativePrimitive<[x: Int8Array8, xZero: Int8Array8 | null, y: Int32Array]>;

/** `new QLinearConvPrimitive(...)`: ONNX QLinearConv, and the QDQ fusion's conv (with `relu`). */
export interface QLinearConvPrimitiveOptions extends ConvIntegerPrimitiveOptions {
  /** Y's type (default 'uint8'). */
  outputType?: 'uint8' | 'int8';
  /** Relu folded in: results below Y's zero point are raised to it. Default false. */
  relu?: boolean;
}

/**
 * y = saturate(round_half_even(float((conv + bias[m]) · multipliers[m])) + yZero[0]), the product in double
 * rounded once to float (as the TS kernel). `bias`: Int32Array(M) or null; `multipliers`: Float32Array(M).
 */
export type QLinearConvPrimitive = NativePrimitive<
  [x: Int8Array8, xZero: Int8Array8 | null, bias: Int32Array | null, multipliers: Float32Array, yZero: Int8Array8 | null, y: Int8Array8]
>;

/** `new DynamicQuantizedConvPrimitive(...)`: the dynamic-quantization fusion's conv (x float32). */
export interface DynamicQuantizedConvPrimitiveOptions extends Int8ConvOptions {
  /** `run` takes a bias. Default false. */
  hasBias?: boolean;
  /** A Relu after it all (`v < 0 ? 0 : v`, as the Relu kernels). Default false. */
  relu?: boolean;
}

/**
 * y = float(ConvInteger(DynamicQuantizeLinear(x), W)) · (x_scale · scales[m]) (+ bias[m]), every step rounded
 * to float32 as the unfused graph does. `scales`, `bias`: Float32Array(M) (bias null without `hasBias`).
 */
export type DynamicQuantizedConvPrimitive = NativePrimitive<[x: Float32Array, scales: Float32Array, bias: Float32Array | null, y: Float32Array]>;

/**
 * Options shared by the int8 matrix-product classes: A [..., M, K] (rank >= 2; batch dims fold into rows)
 * times a constant B [K, N], packed at construction. Exact int32 sums as for the convs.
 */
export interface Int8MatMulOptions {
  aDims: readonly number[];
  /** [K, N]. */
  bDims: readonly number[];
  threads?: number;
  /** B's values; its type (uint8 or int8) is B's. */
  weights: Int8Array8;
  /** B's zero points: B's type, 1 or N elements; absent = 0. */
  weightZeroPoints?: Int8Array8;
  weightSplit?: 'auto' | 'always';
}

/** `new MatMulIntegerPrimitive(...)`: ONNX MatMulInteger with a constant 2-D B. */
export interface MatMulIntegerPrimitiveOptions extends Int8MatMulOptions {
  /** A's type (default 'uint8'). */
  inputType?: 'uint8' | 'int8';
  /** A's zero points per tensor (1, default) or per row of each matrix (M). */
  aZeroPointCount?: number;
}

/** y (Int32Array, [..., M, N]) = Σ_k (a - aZero)(b - b_zero_point); aZero: aZeroPointCount elements of A's type, or null. */
export type MatMulIntegerPrimitive = NativePrimitive<[a: Int8Array8, aZero: Int8Array8 | null, y: Int32Array]>;

/** `new QLinearMatMulPrimitive(...)`: ONNX QLinearMatMul with a per-tensor a_scale, and the QDQ fusion's QuantizedMatMul. */
export interface QLinearMatMulPrimitiveOptions extends MatMulIntegerPrimitiveOptions {
  outputType?: 'uint8' | 'int8';
  /** Relu folded in (y >= its zero point). Default false. */
  relu?: boolean;
}

/** y = saturate(round_half_even(float((acc + bias[n]) · multipliers[n])) + yZero[0]); bias: Int32Array(N) or null. */
export type QLinearMatMulPrimitive = NativePrimitive<
  [a: Int8Array8, aZero: Int8Array8 | null, bias: Int32Array | null, multipliers: Float32Array, yZero: Int8Array8 | null, y: Int8Array8]
>;

/** `new DynamicQuantizedMatMulPrimitive(...)`: the dynamic-quantization fusion's matmul (A float32). */
export interface DynamicQuantizedMatMulPrimitiveOptions extends Int8MatMulOptions {
  hasBias?: boolean;
  /** As DynamicQuantizedConvPrimitiveOptions.relu. */
  relu?: boolean;
}

/** y = float(MatMulInteger(DynamicQuantizeLinear(a), B)) · (a_scale · scales[n]) (+ bias[n]), rounded as the unfused graph. */
export type DynamicQuantizedMatMulPrimitive = NativePrimitive<[a: Float32Array, scales: Float32Array, bias: Float32Array | null, y: Float32Array]>;

/** Options of `new ReorderPrimitive(...)`: converts one tensor between layouts. */
export interface ReorderPrimitiveOptions {
  /** Logical [N, C, ...spatial], rank 3–5. */
  dims: readonly number[];
  fromBlock: ChannelBlock;
  toBlock: ChannelBlock;
  threads?: number;
}

export type ReorderPrimitive = NativeRunnable<[x: Float32Array, y: Float32Array]>;

/**
 * Options of `new ConvTransposePrimitive(...)`: ONNX ConvTranspose on oneDNN's deconvolution, shapes fixed at
 * construction. Output size per spatial axis: stride · (in - 1) + outputPadding + (kernel - 1) · dilation + 1
 * - padsBegin - padsEnd (the caller resolves auto_pad and output_shape into these).
 */
export interface ConvTransposePrimitiveOptions {
  /** X: [N, C, ...spatial], spatial rank 1–3. */
  inputDims: readonly number[];
  /** W: [C, M / group, ...kernel] (ONNX's order, input channels first). */
  weightDims: readonly number[];
  /** Default 1. */
  group?: number;
  /** One per spatial axis; default all 1. */
  strides?: readonly number[];
  /** ONNX counting (1 = dense); default all 1. */
  dilations?: readonly number[];
  /** Default 0. */
  padsBegin?: readonly number[];
  padsEnd?: readonly number[];
  /** Extra outputs at the end of each axis (ONNX's output_padding; may exceed the stride here). Default 0. */
  outputPadding?: readonly number[];
  /** Whether a bias of M elements is added. Default false. */
  hasBias?: boolean;
  /** Activation after the bias, as a oneDNN post-op (as ConvPrimitiveOptions). Default 'none'. */
  activation?: NativeActivation;
  activationAlpha?: number;
  activationBeta?: number;
  threads?: number;
  /** Constant weights, packed now into oneDNN's layout; then `run` takes `w = null`. */
  weights?: Float32Array;
  /** Constant bias (needs `hasBias`); then `run` takes `b = null`. */
  bias?: Float32Array;
  /** Layout of x / y: 0 (default) plain, 8 or 16 channel-blocked. Matching `primitiveLayouts` avoids reorders. */
  srcBlock?: ChannelBlock;
  dstBlock?: ChannelBlock;
  /**
   * A kernel equal to its stride (no padding or dilation, one group) with constant weights and bias, and y plain
   * or blocked by a block dividing M, may run as a 1x1 conv to K · M channels and a depth-to-space copy.
   * `auto` (default) and `always`: there (measured faster wherever it applies); `never`: oneDNN's deconvolution.
   * SWITCHYARD_CPU_DEPTH_TO_SPACE (same values) overrides `auto`.
   */
  depthToSpace?: 'auto' | 'always' | 'never';
}

/**
 * Transposed-convolves `x` into `y` (`w` / `b` null when packed). `outputDims`: [N, M, ...outSpatial]; `implementation` e.g. `jit:avx2`,
 * or `depth_to_space(jit_1x1:avx2)` for the 1x1-conv path.
 */
export interface ConvTransposePrimitive extends NativePrimitive<[x: Float32Array, w: Float32Array | null, b: Float32Array | null, y: Float32Array]> {
  /** [sync] Whether weights were packed at construction. */
  readonly weightsPacked: boolean;
  /** [sync] The blocks of the src/dst layouts oneDNN chose (-1: neither plain nor channel-blocked). */
  readonly primitiveLayouts: { src: number; dst: number };
}

/**
 * Options of `new ResizePrimitive(...)`: ONNX Resize / Upsample for one input shape, with the output
 * shape, scales and roi already resolved from the node's inputs (nn/resize-spec.ts).
 */
export interface ResizePrimitiveOptions {
  /** X's logical dims, any rank >= 1 ([N, C, ...spatial] when `block` is set). */
  inputDims: readonly number[];
  /** Y's logical dims, same rank, every dim >= 1. */
  outputDims: readonly number[];
  /** One per axis, finite and > 0: the model's scales, or output / input where it gave sizes. */
  scales: readonly number[];
  /** tf_crop_and_resize: starts then ends, one per axis. */
  roi?: readonly number[];
  /** Default 'nearest'. */
  mode?: 'nearest' | 'linear' | 'cubic';
  /** ONNX's coordinate_transformation_mode; default 'half_pixel'. */
  coordinateMode?: 'half_pixel' | 'half_pixel_symmetric' | 'pytorch_half_pixel' | 'align_corners' | 'asymmetric' | 'tf_half_pixel_for_nn' | 'tf_crop_and_resize';
  /** ONNX's nearest_mode, or 'simple' (Resize 10 / Upsample: ceil when downsampling, floor otherwise); default 'round_prefer_floor'. */
  nearestMode?: 'round_prefer_floor' | 'round_prefer_ceil' | 'floor' | 'ceil' | 'simple';
  /** Default -0.75. */
  cubicCoeffA?: number;
  excludeOutside?: boolean;
  /** Opset 18: linear and cubic widen their filter by 1 / scale along axes that shrink. */
  antialias?: boolean;
  /** tf_crop_and_resize: the value of outputs whose source lies outside X. Default 0. */
  extrapolationValue?: number;
  /** Layout of x and y: 0 (default) plain; 8 or 16 channel-blocked (rank 3–5, N and C not resized). */
  block?: ChannelBlock;
  threads?: number;
}

/**
 * Resizes `x` into `y`. `outputDims`: the logical output dims; `implementation`: `resize_copy:<isa>` (every
 * scaled axis picks one source) or `resize_separable:<isa> (n passes, by plane | by pass)`, <isa> being the
 * loops' build: avx512, avx2 or sse2 (capped by ONEDNN_MAX_CPU_ISA as oneDNN is).
 */
export type ResizePrimitive = NativePrimitive<[x: Float32Array, y: Float32Array]>;

/** Options of `gruForward`: one ONNX GRU node, layout 0, default activations, no clip or sequence_lens. */
export interface GruForwardOptions {
  seq: number;
  batch: number;
  input: number;
  hidden: number;
  /** Default 'forward'. */
  direction?: 'forward' | 'reverse' | 'bidirectional';
  /** ONNX linear_before_reset (non-zero: the reset gate multiplies h·Rhᵀ + Rbh); default 0. */
  linearBeforeReset?: number;
  threads?: number;
}

/** Options of `lstmForward`: one ONNX LSTM node, layout 0, default activations, no peepholes or sequence_lens. */
export interface LstmForwardOptions {
  seq: number;
  batch: number;
  input: number;
  hidden: number;
  /** Default 'forward'. */
  direction?: 'forward' | 'reverse' | 'bidirectional';
  /** > 0 clips gate pre-activations to [-clip, clip]; 0 or absent = none. */
  clip?: number;
  threads?: number;
}

/**
 * One instruction of an elementwise program. Values are numbered: input i is value i, instruction k
 * defines value `inputs.length + k`; `args` name earlier values, as many as the op takes.
 */
export interface ElementwiseInstruction {
  /** One of `elementwiseOps()` (e.g. 'add', 'sigmoid', 'clip', 'where', 'const'). */
  op: string;
  args?: readonly number[];
  /** The op's parameters (leaky_relu's slope, clip_range's bounds, hard_sigmoid's alpha and beta, selu's alpha and gamma ...). */
  alpha?: number;
  beta?: number;
  /** const: the value (any number, NaN and infinities included). */
  value?: number;
}

/** Options of `new ElementwisePrimitive(...)`: a program over inputs of fixed shapes, broadcast numpy-style. */
export interface ElementwisePrimitiveOptions {
  /** Each input's dims (rank <= 12) and element type: float32 (Float32Array) or bool (Uint8Array, read as 0 / 1). */
  inputs: readonly { dims: readonly number[]; type?: 'float32' | 'bool' }[];
  /** At most 256 instructions; the last one's result is the output, of every input's broadcast shape. */
  program: readonly ElementwiseInstruction[];
  /** Default float32; bool stores result != 0 as 0 / 1 bytes. */
  outputType?: 'float32' | 'bool';
  threads?: number;
  /**
   * The loops' instruction set: 'auto' (default: the best this CPU has, capped by the environment variable
   * SWITCHYARD_CPU_VECTOR_ISA=avx512|avx2|generic) or exactly 'avx512' | 'avx2' | 'generic' (UNSUPPORTED
   * when the CPU lacks it). Tests compare the three.
   */
  isa?: 'auto' | 'avx512' | 'avx2' | 'generic';
}

/**
 * Runs the program over `inputs` (in options order) into `output`, which may be the memory of an input of
 * the output's shape. `outputDims`: the broadcast shape; `implementation`: 'elementwise:avx512' (or avx2, generic).
 */
export interface ElementwisePrimitive
  extends NativePrimitive<[inputs: readonly (Float32Array | Uint8Array)[], output: Float32Array | Uint8Array]> {}
/** Any tensor buffer the dtype-generic kernels move (every dtype but string and complex). */
export type NativeElements =
  | Float32Array | Float64Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Int32Array | Uint32Array | BigInt64Array | BigUint64Array;

/** The dtypes `cast` converts between (float16/bfloat16 in Uint16Arrays, bool in a Uint8Array). */
export type NativeCastType = 'float32' | 'float64' | 'float16' | 'bfloat16' | 'int8' | 'uint8' | 'int16' | 'uint16' | 'int32' | 'uint32' | 'int64' | 'uint64' | 'bool';

/** The reductions `reduce` computes (ReduceSum, ReduceMean, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceMax, ReduceMin, ReduceProd). */
export type NativeReduceOp = 'sum' | 'mean' | 'sumSquare' | 'l1' | 'l2' | 'logSum' | 'logSumExp' | 'max' | 'min' | 'prod';

/** [sync] What the loaded library is. */
export interface NativeRuntimeInfo {
  /** e.g. '2.6.3'. */
  onednnVersion: string;
  /** oneDNN's CPU threading runtime: Debian's build is 'omp' (libgomp). */
  threadingRuntime: 'omp' | 'tbb' | 'seq' | 'threadpool' | 'unknown';
  /** OpenMP's default team size (OMP_NUM_THREADS or the core count). */
  defaultThreads: number;
  /** The instruction set oneDNN dispatches to, e.g. 'avx2'. */
  cpuIsa: string;
}

/** The addon's exports. */
export interface NativeBinding {
  /**
   * [sync] constructor: builds the primitive (and packs constant weights); throws a coded Error.
   * `algorithm` [sync]: which one the constructor would pick for these options, building nothing; absent from older builds.
   */
  ConvPrimitive: {
    new (options: ConvPrimitiveOptions): ConvPrimitive;
    algorithm?(options: ConvPrimitiveOptions): 'winograd' | 'im2col' | 'onednn';
  };
  /** [sync] constructor; absent from older builds (then 1x1 and depthwise convs stay separate). */
  ConvDwPrimitive?: new (options: ConvDwPrimitiveOptions) => ConvDwPrimitive;
  /** [sync] constructor. */
  MatMulPrimitive: new (options: MatMulPrimitiveOptions) => MatMulPrimitive;
  /** [sync] constructor; absent from builds older than the Gemm fast path (the TS kernel serves then). */
  GemmPrimitive?: new (options: GemmPrimitiveOptions) => GemmPrimitive;
  /** [sync] constructor; absent from older builds, like GemmPrimitive. */
  PoolPrimitive?: new (options: PoolPrimitiveOptions) => PoolPrimitive;
  /**
   * [sync] Runs an LSTM into the given outputs: x [seq, batch, input], w [dirs, 4H, input],
   * r [dirs, 4H, H], b [dirs, 8H], h0/c0 [dirs, batch, H], y [seq, dirs, batch, H], yh/yc [dirs, batch, H]
   * (null where absent). Absent from older builds (the TS kernel serves then).
   */
  lstmForward?(
    options: LstmForwardOptions,
    x: Float32Array, w: Float32Array, r: Float32Array, b: Float32Array | null, h0: Float32Array | null, c0: Float32Array | null,
    y: Float32Array | null, yh: Float32Array | null, yc: Float32Array | null,
  ): void;
  /**
   * [sync] The weights (w, r as for lstmForward, b or null) in the layout `lstmForwardPacked` reads
   * (the options' seq, batch, clip and threads are ignored). Absent from older builds.
   */
  lstmPack?(options: LstmForwardOptions, w: Float32Array, r: Float32Array, b: Float32Array | null): Float32Array;
  /** [sync] lstmForward on weights from `lstmPack` with the same input, hidden and direction. Absent from older builds. */
  lstmForwardPacked?(
    options: LstmForwardOptions,
    x: Float32Array, packed: Float32Array, h0: Float32Array | null, c0: Float32Array | null,
    y: Float32Array | null, yh: Float32Array | null, yc: Float32Array | null,
  ): void;
  /**
   * [sync] Runs a GRU into the given outputs: x [seq, batch, input], w [dirs, 3H, input], r [dirs, 3H, H],
   * b [dirs, 6H], h0 [dirs, batch, H], y [seq, dirs, batch, H], yh [dirs, batch, H] (null where absent).
   * Absent from older builds (the TS kernel serves then).
   */
  gruForward?(
    options: GruForwardOptions,
    x: Float32Array, w: Float32Array, r: Float32Array, b: Float32Array | null, h0: Float32Array | null,
    y: Float32Array | null, yh: Float32Array | null,
  ): void;
  /**
   * [sync] Runs an RNN into the given outputs: as gruForward with one gate (w [dirs, H, input], r [dirs, H, H],
   * b [dirs, 2H]) and `activation` for every direction (default 'tanh'). Absent from older builds.
   */
  rnnForward?(
    options: GruForwardOptions & { activation?: 'tanh' | 'relu' | 'sigmoid' },
    x: Float32Array, w: Float32Array, r: Float32Array, b: Float32Array | null, h0: Float32Array | null,
    y: Float32Array | null, yh: Float32Array | null,
  ): void;
  /** [sync] y = x · Φ(x) (erf form) elementwise; y has x's length and may be x. Absent from older builds. */
  geluErf?(x: Float32Array, y: Float32Array, threads?: number): void;
  /**
   * [sync] Layer normalization of each row of [rows, cols] x: (x - mean) / √(var + epsilon) · scale + bias,
   * scale and bias of `cols` elements (bias may be null). Absent from older builds.
   */
  layerNormRows?(
    x: Float32Array, scale: Float32Array, bias: Float32Array | null, y: Float32Array, rows: number, cols: number, epsilon: number, threads?: number,
  ): void;
  /**
   * [sync] RMS normalization of each row of [rows, cols] x: x / √(mean(x²) + epsilon) · scale, scale of `cols`
   * elements; y may be x. Absent from older builds.
   */
  rmsNormRows?(x: Float32Array, scale: Float32Array, y: Float32Array, rows: number, cols: number, epsilon: number, threads?: number): void;
  /** [sync] constructor; absent from older builds (then attention's Transposes and scale stay separate ops). */
  StridedMatMulPrimitive?: new (options: StridedMatMulPrimitiveOptions) => StridedMatMulPrimitive;
  /**
   * [sync] s = a + b over [rows, cols], then y = layer normalization of s's rows as `layerNormRows`;
   * s is also written to `sum` when given. Absent from older builds.
   */
  skipLayerNormRows?(
    a: Float32Array, b: Float32Array, scale: Float32Array, bias: Float32Array | null, y: Float32Array, sum: Float32Array | null,
    rows: number, cols: number, epsilon: number, threads?: number,
  ): void;
  /** [sync] constructor; absent from older builds (then the CPU EP keeps every tensor plain). */
  ReorderPrimitive?: new (options: ReorderPrimitiveOptions) => ReorderPrimitive;
  /** [sync] constructor; absent from older builds (then the TS kernel serves ConvTranspose). */
  ConvTransposePrimitive?: new (options: ConvTransposePrimitiveOptions) => ConvTransposePrimitive;
  /** [sync] constructor; absent from older builds (then the TS kernels resize). */
  ResizePrimitive?: new (options: ResizePrimitiveOptions) => ResizePrimitive;
  // The dtype-generic kernels (native/src/vector_isa.h and the *_function files beside it): [sync], on the
  // session's thread count, absent from older builds. `threads` 0 or absent = OpenMP's default.
  /**
   * [sync] dst (dense, Π dims elements, src's array type) = the view src[offset + Σ i_k · strides[k]] over
   * dims, row-major; strides may be negative or zero (Transpose, Slice, Expand, Tile, Depth/SpaceToDepth).
   */
  copyStrided?(src: NativeElements, offset: number, strides: readonly number[], dims: readonly number[], dst: NativeElements, threads?: number): void;
  /** [sync] Per each of `outer` rows, dst holds runs[i] elements of srcs[i] in turn (Concat on any axis). */
  concat?(srcs: readonly NativeElements[], dst: NativeElements, outer: number, runs: readonly number[], threads?: number): void;
  /** [sync] The inverse of `concat` (Split). */
  split?(src: NativeElements, dsts: readonly NativeElements[], outer: number, runs: readonly number[], threads?: number): void;
  /**
   * [sync] ONNX Trilu over x's trailing [rows, cols] matrices: y keeps the upper (j − i ≥ k) or lower (j − i ≤ k)
   * triangle, zeroes the rest; y has x's length and array type. Absent from older builds.
   */
  trilu?(x: NativeElements, y: NativeElements, rows: number, cols: number, k: number, upper: boolean, threads?: number): void;
  /** [sync] data [outer, axisDim, inner] → dst [outer, indices.length, inner]; negative indices count from the end, out-of-range ones throw. */
  gather?(data: NativeElements, indices: Int32Array | BigInt64Array, dst: NativeElements, outer: number, axisDim: number, inner: number, threads?: number): void;
  /** [sync] ONNX GatherElements: dst shaped like indices. */
  gatherElements?(
    data: NativeElements, dataDims: readonly number[], indices: Int32Array | BigInt64Array, indicesDims: readonly number[], axis: number, dst: NativeElements, threads?: number,
  ): void;
  /**
   * [sync] ONNX ScatterElements: dst (data's shape and array type) = data with updates combined in at the
   * indices' positions in row-major order; reduction 'none' | 'add' | 'mul' | 'max' | 'min' reads a
   * Uint16Array / Uint8Array as integers (float16, bfloat16, bool reductions are the caller's). Absent from older builds.
   */
  scatterElements?(
    data: NativeElements, dataDims: readonly number[], indices: Int32Array | BigInt64Array, indicesDims: readonly number[], updates: NativeElements,
    axis: number, reduction: 'none' | 'add' | 'mul' | 'max' | 'min', dst: NativeElements, threads?: number,
  ): void;
  /** [sync] ONNX Pad: pads = all begins then all ends (negative crops); value: one element of x's array type, or null for zero. */
  pad?(x: NativeElements, xDims: readonly number[], y: NativeElements, pads: readonly number[], mode: 'constant' | 'reflect' | 'edge' | 'wrap', value: NativeElements | null, threads?: number): void;
  /** [sync] ONNX Cast between the dtypes of `NativeCastType`, as the TS kernel converts. */
  cast?(src: NativeElements, from: NativeCastType, dst: NativeElements, to: NativeCastType, threads?: number): void;
  /** [sync] float32 reduction of x (dims) over distinct `axes` into y (the kept dims' elements). */
  reduce?(x: Float32Array, dims: readonly number[], axes: readonly number[], op: NativeReduceOp, y: Float32Array, threads?: number): void;
  /** [sync] ArgMax (isMax) / ArgMin along len of the float32 [outer, len, inner] x into the [outer, inner] y. */
  /**
   * [sync] How many elements of x (core's storage of `dtype`, dims' element count) are not zero: -0 is zero and
   * NaN is not; float16/bfloat16 by their bits. Absent from older builds.
   */
  nonZeroCount?(x: NativeElements, dtype: NativeCastType, dims: readonly number[]): number;
  /** [sync] The coordinates of x's non-zero elements into out (int64 [dims.length, count]), row-major order. Absent from older builds. */
  nonZeroFill?(x: NativeElements, dtype: NativeCastType, dims: readonly number[], out: BigInt64Array): void;
  /**
   * [sync] TopK of x [outer, len, inner] along len into values (float32) and indices (int64), each [outer, k, inner]:
   * best first, equal values in index order, NaN after every number. Absent from older builds.
   */
  topK?(x: Float32Array, outer: number, len: number, inner: number, k: number, largest: boolean, values: Float32Array, indices: BigInt64Array, threads?: number): void;
  argReduce?(x: Float32Array, outer: number, len: number, inner: number, isMax: boolean, selectLast: boolean, y: BigInt64Array, threads?: number): void;
  /** [sync] Softmax / LogSoftmax / Hardmax along len of the float32 [outer, len, inner] x; y may be x. */
  softmax?(x: Float32Array, y: Float32Array, outer: number, len: number, inner: number, kind: 'softmax' | 'logSoftmax' | 'hardmax', threads?: number): void;
  /**
   * [sync] Each row of the [rows, cols] x normalized by its mean and variance, then scaled and shifted by
   * scale/bias[(row mod rowPeriod) · G + (col / colBlock) mod G] (G = scale.length / rowPeriod; null: 1 / 0);
   * mean / invStdDev (rows elements, or null) receive the statistics. Instance-, Group- and LayerNormalization.
   */
  normalizeGroups?(
    x: Float32Array, y: Float32Array, rows: number, cols: number, epsilon: number, scale: Float32Array | null, bias: Float32Array | null,
    rowPeriod: number, colBlock: number, mean: Float32Array | null, invStdDev: Float32Array | null, threads?: number,
  ): void;
  /** [sync] BatchNormalization inference over [n, c, spatial] with per-channel scale, bias, mean, var. */
  batchNorm?(
    x: Float32Array, y: Float32Array, n: number, c: number, spatial: number, scale: Float32Array, bias: Float32Array, mean: Float32Array, variance: Float32Array,
    epsilon: number, threads?: number,
  ): void;
  /** [sync] x / ‖x‖_p (p 1 or 2) along len of [outer, len, inner]; zero slices stay zero. */
  lpNormalize?(x: Float32Array, y: Float32Array, outer: number, len: number, inner: number, p: 1 | 2, threads?: number): void;
  /**
   * [sync] MeanVarianceNormalization of x (dims) over `axes` (non-negative, any order, repeats allowed):
   * (x − E[x]) / (√(E[x²] − E[x]²) + 1e-9), statistics in double. Absent from older builds.
   */
  meanVariance?(x: Float32Array, y: Float32Array, dims: readonly number[], axes: readonly number[], threads?: number): void;
  /**
   * [sync] LRN across the channels of the [n, c, spatial] x: y = x / (bias + alpha / size · Σ x²)^beta over the
   * window [ch − ⌊(size−1)/2⌋, ch + ⌈(size−1)/2⌉] clipped, in double. Absent from older builds.
   */
  lrn?(x: Float32Array, y: Float32Array, n: number, c: number, spatial: number, size: number, alpha: number, beta: number, bias: number, threads?: number): void;
  /**
   * [sync] GridSample on [n, c, h, w] float32 images: grid [n, outH, outW, 2], y [n, c, outH, outW]; mode 0 linear,
   * 1 nearest, 2 cubic; padding 0 zeros, 1 border, 2 reflection. Bit-identical to the TS kernel.
   */
  gridSample?(x: Float32Array, grid: Float32Array, y: Float32Array, n: number, c: number, h: number, w: number, outH: number, outW: number, mode: number, padding: number, alignCorners: boolean, threads?: number): void;
  /**
   * [sync] RoiAlign on [n, c, h, w] float32 x: rois [r, 4] (x1, y1, x2, y2), batchIndices [r] in [0, n), y [r, c, outH, outW];
   * `max` picks max pooling, `halfPixel` the opset-16 coordinate mode. Bit-identical to the TS kernel.
   */
  roiAlign?(x: Float32Array, rois: Float32Array, batchIndices: Int32Array, y: Float32Array, n: number, c: number, h: number, w: number, outH: number, outW: number, samplingRatio: number, spatialScale: number, max: boolean, halfPixel: boolean, threads?: number): void;
  /**
   * [sync] NonMaxSuppression's greedy pass over every (batch, class) list (see NmsSelect in kernels/NonMaxSuppression.ts):
   * corners [boxes · 4] (y1, x1, y2, x2) and areas in double; kept [lists · cap], keptCounts [lists] are written.
   */
  nmsSelect?(corners: Float64Array, areas: Float64Array, orders: Int32Array, orderStarts: Int32Array, boxesPerBatch: number, classes: number, cap: number, iouThreshold: number, kept: Int32Array, keptCounts: Int32Array): void;
  /**
   * [sync] Which build of the dtype-generic kernels' loops runs ('avx512', 'avx2', 'generic'; SWITCHYARD_CPU_VECTOR_ISA
   * or ONEDNN_MAX_CPU_ISA cap it). `set` first switches the whole process to that build ('auto': back to the
   * environment's choice); one this CPU cannot run throws UNSUPPORTED. For tests.
   */
  vectorIsa?(set?: 'avx512' | 'avx2' | 'generic' | 'auto'): string;
  /** [sync] The channel block oneDNN's convolutions prefer here (8 on AVX2, 16 on AVX-512; 0: none). Absent from older builds. */
  preferredChannelBlock?(): number;
  /** [sync] constructor; absent from older builds (then elementwise ops run on their TS kernels). */
  ElementwisePrimitive?: new (options: ElementwisePrimitiveOptions) => ElementwisePrimitive;
  /** [sync] Every instruction name ElementwisePrimitive accepts. Absent from older builds. */
  elementwiseOps?(): string[];
  /** [sync] constructors of the int8 convolutions; absent from older builds (the TS kernels serve then). */
  ConvIntegerPrimitive?: new (options: ConvIntegerPrimitiveOptions) => ConvIntegerPrimitive;
  QLinearConvPrimitive?: new (options: QLinearConvPrimitiveOptions) => QLinearConvPrimitive;
  DynamicQuantizedConvPrimitive?: new (options: DynamicQuantizedConvPrimitiveOptions) => DynamicQuantizedConvPrimitive;
  /** [sync] constructors of the int8 matrix products; absent from older builds (the TS kernels serve then). */
  MatMulIntegerPrimitive?: new (options: MatMulIntegerPrimitiveOptions) => MatMulIntegerPrimitive;
  QLinearMatMulPrimitive?: new (options: QLinearMatMulPrimitiveOptions) => QLinearMatMulPrimitive;
  DynamicQuantizedMatMulPrimitive?: new (options: DynamicQuantizedMatMulPrimitiveOptions) => DynamicQuantizedMatMulPrimitive;
  /**
   * [sync] ONNX DynamicQuantizeLinear: y (x's length) = uint8 quantization of x with the scale and zero point
   * chosen from x's range (written to `scale[0]` and `zeroPoint[0]`). `...Async` [async]: the same on the
   * oneDNN thread. Absent from older builds (the TS kernel serves then); so are the two below.
   */
  dynamicQuantizeLinear?(x: Float32Array, y: Uint8Array, scale: Float32Array, zeroPoint: Uint8Array, threads?: number): void;
  dynamicQuantizeLinearAsync?(x: Float32Array, y: Uint8Array, scale: Float32Array, zeroPoint: Uint8Array, threads?: number): Promise<void>;
  /**
   * [sync] ONNX QuantizeLinear with x viewed as [outer, channels, inner] (channels 1: per tensor): element
   * (o, c, i) = saturate(round_half_even(x / scales[c]) + zeroPoints[c]). `zeroPoints` (null: 0) has y's
   * type and `channels` elements; y has x's length. `...Async` [async].
   */
  quantizeLinear?(
    x: Float32Array, scales: Float32Array, zeroPoints: Uint8Array | Int8Array | null, y: Uint8Array | Int8Array, channels: number, inner: number, threads?: number,
  ): void;
  quantizeLinearAsync?(
    x: Float32Array, scales: Float32Array, zeroPoints: Uint8Array | Int8Array | null, y: Uint8Array | Int8Array, channels: number, inner: number, threads?: number,
  ): Promise<void>;
  /** [sync] ONNX DequantizeLinear likewise: y = (x - zeroPoints[c]) · scales[c]; zeroPoints has x's type. `...Async` [async]. */
  dequantizeLinear?(
    x: Uint8Array | Int8Array | Int32Array, scales: Float32Array, zeroPoints: Uint8Array | Int8Array | Int32Array | null, y: Float32Array, channels: number, inner: number, threads?: number,
  ): void;
  dequantizeLinearAsync?(
    x: Uint8Array | Int8Array | Int32Array, scales: Float32Array, zeroPoints: Uint8Array | Int8Array | Int32Array | null, y: Float32Array, channels: number, inner: number, threads?: number,
  ): Promise<void>;
  /**
   * [sync] The QDQ fusion's QuantizedAdd: y = QuantizeLinear(relu?(DequantizeLinear(a) + DequantizeLinear(b))) per
   * element, each float step rounded as the unfused nodes round it. Scales are Float32Array(1); zero points one
   * element of their tensor's type (null: 0); a, b and y have one length; y's type is the output type.
   * `...Async` [async]. Absent from older builds.
   */
  quantizedAdd?(
    a: Int8Array8, aScale: Float32Array, aZero: Int8Array8 | null, b: Int8Array8, bScale: Float32Array, bZero: Int8Array8 | null,
    yScale: Float32Array, yZero: Int8Array8 | null, y: Int8Array8, relu: boolean, threads?: number,
  ): void;
  quantizedAddAsync?(
    a: Int8Array8, aScale: Float32Array, aZero: Int8Array8 | null, b: Int8Array8, bScale: Float32Array, bZero: Int8Array8 | null,
    yScale: Float32Array, yZero: Int8Array8 | null, y: Int8Array8, relu: boolean, threads?: number,
  ): Promise<void>;
  /** [sync] */
  runtimeInfo(): NativeRuntimeInfo;
  /**
   * [sync] An ArrayBuffer of `bytes` over pooled native memory that goes back to the pool when the
   * buffer is collected (host_buffer_pool.h); undefined for sizes it does not serve or where the
   * runtime forbids external buffers.
   */
  hostBuffer?(bytes: number, zeroed: boolean): ArrayBuffer | undefined;
  /**
   * [sync] Gives a live hostBuffer's block back to the pool now and detaches `buffer`: for a run's
   * intermediate values once their last reader ran. False for a buffer the pool did not hand out or
   * already took back.
   */
  releaseHostBuffer?(buffer: ArrayBuffer): boolean;
  /** [sync] Frees the pool's idle blocks (live buffers are untouched). */
  trimHostBuffers?(): void;
  /** [sync] The pool's counters, for tests and diagnostics. */
  hostBufferStats?(): { pooledBytes: number; liveBytes: number; reused: number; allocated: number };
}

/** Checks that a loaded module has the binding's exports (a stale build may not). */
export function isNativeBinding(value: unknown): value is NativeBinding {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.ConvPrimitive === 'function' && typeof v.MatMulPrimitive === 'function' && typeof v.runtimeInfo === 'function';
}
