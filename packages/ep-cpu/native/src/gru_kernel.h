// ONNX GRU forward (layout 0, default activations Sigmoid/Tanh, no clip, no sequence_lens), both
// linear_before_reset forms. The input projections of every step are one GEMM (oneDNN's sgemm); each
// step is then one GEMM of the batch's h by Rᵀ (two with linear_before_reset 0, whose candidate reads
// r ⊙ h) and the gate math. V8-free; any thread.
#pragma once

#include <cstdint>

namespace switchyard {

struct GruParams {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int dirs = 1;                    // 1 or 2 (bidirectional)
  bool reverse = false;            // direction 'reverse' (dirs == 1 only)
  bool linearBeforeReset = false;  // ONNX linear_before_reset (PyTorch's nn.GRU exports 1)
  int threads = 0;                 // 0 = OpenMP's default
};

// Shapes (ONNX, layout 0, gates z, r, h): x [seq, batch, input]; w [dirs, 3H, input]; r [dirs, 3H, H];
// b [dirs, 6H] (Wb then Rb) or null; h0 [dirs, batch, H] or null; y [seq, dirs, batch, H] or null;
// yh [dirs, batch, H] or null.
void GruForward(const GruParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, float* y, float* yh);

}  // namespace switchyard
