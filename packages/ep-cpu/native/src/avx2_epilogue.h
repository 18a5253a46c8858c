// The activation of a fused epilogue on 8 floats. Only for files built with -mavx2 -mfma. The addon's
// own AVX2 convs (Winograd, im2col) take only the activations here (Avx2Activates, post_ops.h); convs with any other
// activation stay with oneDNN, whose eltwise post-ops have them all.
#pragma once

#include <immintrin.h>

#include "post_ops.h"

namespace switchyard {

inline __m256 ActivateAvx2(__m256 x, Activation activation, float alpha, float beta) {
  switch (activation) {
    case Activation::kNone: return x;
    case Activation::kRelu: return _mm256_max_ps(x, _mm256_setzero_ps());
    case Activation::kLeakyRelu: {
      const __m256 negative = _mm256_cmp_ps(x, _mm256_setzero_ps(), _CMP_LT_OQ);
      return _mm256_blendv_ps(x, _mm256_mul_ps(x, _mm256_set1_ps(alpha)), negative);
    }
    case Activation::kClip: return _mm256_min_ps(_mm256_max_ps(x, _mm256_set1_ps(alpha)), _mm256_set1_ps(beta));
    case Activation::kHardSwish: {
      // x · min(max(x/6 + 1/2, 0), 1), as oneDNN's eltwise_hardswish computes it.
      const __m256 gate = _mm256_fmadd_ps(x, _mm256_set1_ps(1.0f / 6.0f), _mm256_set1_ps(0.5f));
      return _mm256_mul_ps(x, _mm256_min_ps(_mm256_max_ps(gate, _mm256_setzero_ps()), _mm256_set1_ps(1.0f)));
    }
    default: return x;  // not reached: Avx2Activates gates the callers
  }
}

}  // namespace switchyard
