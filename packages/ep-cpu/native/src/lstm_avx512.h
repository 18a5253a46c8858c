// The LSTM kernel's products with AVX-512 (this file is compiled with -mavx512f; call only when
// Usable()): a 64-output block is four 16-float registers instead of eight 8-float ones, so the
// input projection and the recurrence do twice the work per instruction of the AVX2 build on the
// machines that have it. The cell update stays in AVX2 (it is a few percent of a step).
#pragma once

#include <cstdint>

namespace switchyard::lstm512 {

// Whether this CPU has AVX-512 and the vector-ISA cap (SWITCHYARD_CPU_VECTOR_ISA, ONEDNN_MAX_CPU_ISA) allows it.
bool Usable();

// out[r][0..64) = bias + x[r] · m for rows r in [0, rows); m one packed block ([K][64]), x rows of K.
void Project(const float* bias, const float* m, const float* x, int64_t rows, int64_t K, float* out, int64_t ldo);

// One step for one block and one batch row: gates = xw + h·Rᵀ, then c (in place) and the new h.
void Step(const float* xw, const float* r, const float* h, int64_t H, float* c, float* hOut, float clip);

// The same for four batch rows at once (rows of xw `ldxw` apart, of h `ldh`, of c and hOut `ldState`).
void Step4(const float* xw, int64_t ldxw, const float* r, const float* h, int64_t ldh, int64_t H, float* c, float* hOut, int64_t ldState,
           float clip);

}  // namespace switchyard::lstm512
