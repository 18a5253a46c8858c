// ONNX GRU and RNN forward (layout 0, no clip, no sequence_lens) as GEMMs: the input projections of
// every step are one GEMM (oneDNN's sgemm); each step is then one GEMM of the batch's h by Rᵀ (a GRU with
// linear_before_reset 0 needs a second, whose candidate reads r ⊙ h) and the gate math. (The LSTM has its
// own packed kernel, lstm_kernel.h.) V8-free; any thread.
#pragma once

#include <cstdint>

namespace switchyard {

struct RecurrenceParams {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int dirs = 1;                    // 1 or 2 (bidirectional)
  bool reverse = false;            // direction 'reverse' (dirs == 1 only)
  bool linearBeforeReset = false;  // ONNX linear_before_reset (PyTorch's nn.GRU exports 1)
  int threads = 0;                 // 0 = OpenMP's default
};

// Shapes (ONNX, layout 0, gates z, r, h): x [seq, batch, input]; w [dirs, 3H, input]; r [dirs, 3H, H];
// b [dirs, 6H] (Wb then Rb) or null; h0 [dirs, batch, H] or null; y [seq, dirs, batch, H] or null;
// yh [dirs, batch, H] or null.
void GruForward(const RecurrenceParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, float* y, float* yh);

// The RNN's activation (ONNX: one per direction; the same for both here).
enum class RnnActivation { kTanh, kRelu, kSigmoid };

// ONNX RNN: h = f(x·Wᵀ + h·Rᵀ + Wb + Rb). Shapes as the GRU's with one gate: w [dirs, H, input], r [dirs, H, H],
// b [dirs, 2H]. `p.linearBeforeReset` is ignored.
void RnnForward(const RecurrenceParams& p, RnnActivation activation, const float* x, const float* w, const float* r, const float* b, const float* h0, float* y,
                float* yh);

}  // namespace switchyard
