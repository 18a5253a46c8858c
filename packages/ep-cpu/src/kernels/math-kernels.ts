/** The math family's kernels: elementwise unary/binary ops, activations, logic and comparison, casts, reductions. */
import type { KernelDef } from '@switchyard/core';
import { absKernel } from './Abs.js';
import { negKernel } from './Neg.js';
import { reciprocalKernel } from './Reciprocal.js';
import { floorKernel } from './Floor.js';
import { ceilKernel } from './Ceil.js';
import { roundKernel } from './Round.js';
import { sqrtKernel } from './Sqrt.js';
import { expKernel } from './Exp.js';
import { logKernel } from './Log.js';
import { sinKernel } from './Sin.js';
import { cosKernel } from './Cos.js';
import { tanKernel } from './Tan.js';
import { asinKernel } from './Asin.js';
import { acosKernel } from './Acos.js';
import { atanKernel } from './Atan.js';
import { sinhKernel } from './Sinh.js';
import { coshKernel } from './Cosh.js';
import { asinhKernel } from './Asinh.js';
import { acoshKernel } from './Acosh.js';
import { atanhKernel } from './Atanh.js';
import { erfKernel } from './Erf.js';
import { signKernel } from './Sign.js';
import { isNaNKernel } from './IsNaN.js';
import { isInfKernel } from './IsInf.js';
import { notKernel } from './Not.js';
import { reluKernel } from './Relu.js';
import { leakyReluKernel } from './LeakyRelu.js';
import { eluKernel } from './Elu.js';
import { seluKernel } from './Selu.js';
import { celuKernel } from './Celu.js';
import { sigmoidKernel } from './Sigmoid.js';
import { hardSigmoidKernel } from './HardSigmoid.js';
import { hardSwishKernel } from './HardSwish.js';
import { softplusKernel } from './Softplus.js';
import { softsignKernel } from './Softsign.js';
import { tanhKernel } from './Tanh.js';
import { thresholdedReluKernel } from './ThresholdedRelu.js';
import { pReluKernel } from './PRelu.js';
import { mishKernel } from './Mish.js';
import { clipAttributeKernel, clipKernel } from './Clip.js';
import { addKernel } from './Add.js';
import { subKernel } from './Sub.js';
import { mulKernel } from './Mul.js';
import { divKernel } from './Div.js';
import { powKernel } from './Pow.js';
import { modKernel } from './Mod.js';
import { maxKernel } from './Max.js';
import { minKernel } from './Min.js';
import { sumKernel } from './Sum.js';
import { meanKernel } from './Mean.js';
import { bitCastKernel } from './BitCast.js';
import { bitShiftKernel } from './BitShift.js';
import { andKernel } from './And.js';
import { orKernel } from './Or.js';
import { xorKernel } from './Xor.js';
import { bitwiseAndKernel } from './BitwiseAnd.js';
import { bitwiseOrKernel } from './BitwiseOr.js';
import { bitwiseXorKernel } from './BitwiseXor.js';
import { bitwiseNotKernel } from './BitwiseNot.js';
import { equalKernel, equalStringKernel } from './Equal.js';
import { greaterKernel } from './Greater.js';
import { lessKernel } from './Less.js';
import { greaterOrEqualKernel } from './GreaterOrEqual.js';
import { lessOrEqualKernel } from './LessOrEqual.js';
import { whereKernel } from './Where.js';
import { castKernel } from './Cast.js';
import { castLikeKernel } from './CastLike.js';
import { reduceSumKernel } from './ReduceSum.js';
import { reduceMeanKernel } from './ReduceMean.js';
import { reduceMaxKernel } from './ReduceMax.js';
import { reduceMinKernel } from './ReduceMin.js';
import { reduceProdKernel } from './ReduceProd.js';
import { reduceL1Kernel } from './ReduceL1.js';
import { reduceL2Kernel } from './ReduceL2.js';
import { reduceLogSumKernel } from './ReduceLogSum.js';
import { reduceLogSumExpKernel } from './ReduceLogSumExp.js';
import { reduceSumSquareKernel } from './ReduceSumSquare.js';
import { argMaxKernel } from './ArgMax.js';
import { argMinKernel } from './ArgMin.js';
import { cumSumKernel } from './CumSum.js';
import { cumProdKernel } from './CumProd.js';
import { swishKernel } from './Swish.js';
import { onnxGeluKernel } from './Gelu.js';
import { swiGluKernel } from './SwiGLU.js';

export const mathKernels: KernelDef[] = [
  absKernel,
  negKernel,
  reciprocalKernel,
  floorKernel,
  ceilKernel,
  roundKernel,
  sqrtKernel,
  expKernel,
  logKernel,
  sinKernel,
  cosKernel,
  tanKernel,
  asinKernel,
  acosKernel,
  atanKernel,
  sinhKernel,
  coshKernel,
  asinhKernel,
  acoshKernel,
  atanhKernel,
  erfKernel,
  signKernel,
  isNaNKernel,
  isInfKernel,
  notKernel,
  reluKernel,
  leakyReluKernel,
  eluKernel,
  seluKernel,
  celuKernel,
  sigmoidKernel,
  hardSigmoidKernel,
  hardSwishKernel,
  softplusKernel,
  softsignKernel,
  tanhKernel,
  thresholdedReluKernel,
  pReluKernel,
  mishKernel,
  clipAttributeKernel,
  clipKernel,
  addKernel,
  subKernel,
  mulKernel,
  divKernel,
  powKernel,
  modKernel,
  maxKernel,
  minKernel,
  sumKernel,
  meanKernel,
  bitCastKernel,
  bitShiftKernel,
  andKernel,
  orKernel,
  xorKernel,
  bitwiseAndKernel,
  bitwiseOrKernel,
  bitwiseXorKernel,
  bitwiseNotKernel,
  equalKernel,
  equalStringKernel,
  greaterKernel,
  lessKernel,
  greaterOrEqualKernel,
  lessOrEqualKernel,
  whereKernel,
  castKernel,
  castLikeKernel,
  reduceSumKernel,
  reduceMeanKernel,
  reduceMaxKernel,
  reduceMinKernel,
  reduceProdKernel,
  reduceL1Kernel,
  reduceL2Kernel,
  reduceLogSumKernel,
  reduceLogSumExpKernel,
  reduceSumSquareKernel,
  argMaxKernel,
  argMinKernel,
  cumSumKernel,
  cumProdKernel,
  swishKernel,
  onnxGeluKernel,
  swiGluKernel,
];
