/**
 * Tolerances that suit the precision a result was computed in. A value passes when
 * |actual − reference| ≤ atol + rtol·|reference| (numpy's `allclose` rule, as ONNX's tests use it).
 */
import { INT_TYPES, type DataType } from '../tensor/data-type.js';

/** The arithmetic a result came from: its output type by default, or lower when an EP computes in less (fp16 modes, int8 quantization). */
export type Precision = 'fp64' | 'fp32' | 'fp16' | 'bf16' | 'int8' | 'exact';

export interface ValidationTolerance {
  atol: number;
  rtol: number;
}

/**
 * Float outputs per precision. fp32 is the rule the repository's real-model tests hold the CPU EP to
 * against PyTorch; fp16 and bf16 allow about ten units in the last place of their 11- and 8-bit
 * mantissas near 1; int8 allows a few quantization steps of a typical [-1, 1] scale.
 */
export const FLOAT_TOLERANCES: Readonly<Record<Exclude<Precision, 'exact'>, ValidationTolerance>> = {
  fp64: { atol: 1e-7, rtol: 1e-6 },
  fp32: { atol: 1e-4, rtol: 1e-3 },
  fp16: { atol: 1e-2, rtol: 1e-2 },
  bf16: { atol: 5e-2, rtol: 5e-2 },
  int8: { atol: 5e-2, rtol: 5e-2 },
};

/** Integer outputs are exact, except that int8 arithmetic may round a requantized value either way. */
const INTEGER_TOLERANCE: ValidationTolerance = { atol: 0, rtol: 0 };
const INT8_INTEGER_TOLERANCE: ValidationTolerance = { atol: 1, rtol: 0 };

/** The precision an output's type implies on its own. */
export function precisionOfType(type: DataType): Precision {
  switch (type) {
    case 'float64': return 'fp64';
    case 'float32': return 'fp32';
    case 'float16': return 'fp16';
    case 'bfloat16': return 'bf16';
    case 'int8':
    case 'uint8': return 'int8';
    default: return 'exact';
  }
}

const FLOAT_TYPES_COMPARED: readonly DataType[] = ['float64', 'float32', 'float16', 'bfloat16'];

/**
 * The tolerance for an output of `type`. `computed` names a lower precision the EP used inside (an
 * fp16 mode with float32 outputs); it never tightens what the output type itself allows.
 */
export function toleranceFor(type: DataType, computed?: Precision): { precision: Precision; tolerance: ValidationTolerance } {
  const own = precisionOfType(type);
  if (FLOAT_TYPES_COMPARED.includes(type)) {
    const ownTol = FLOAT_TOLERANCES[own as Exclude<Precision, 'exact'>];
    const given = computed && computed !== 'exact' ? FLOAT_TOLERANCES[computed] : undefined;
    if (given && given.atol + given.rtol > ownTol.atol + ownTol.rtol) return { precision: computed!, tolerance: given };
    return { precision: own, tolerance: ownTol };
  }
  if (INT_TYPES.includes(type) && (own === 'int8' || computed === 'int8')) return { precision: 'int8', tolerance: INT8_INTEGER_TOLERANCE };
  return { precision: 'exact', tolerance: INTEGER_TOLERANCE };
}
