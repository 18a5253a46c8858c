// ONNX LSTM forward (layout 0, default activations Sigmoid/Tanh/Tanh, no peepholes, no
// sequence_lens, input_forget 0) as a tight loop: one sgemm for X·Wᵀ over all steps, one per step
// for H·Rᵀ, then the gate math on contiguous rows. V8-free; any thread.
#pragma once

#include <cstdint>

namespace switchyard {

struct LstmParams {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int dirs = 1;          // 1 or 2 (bidirectional)
  bool reverse = false;  // direction 'reverse' (dirs == 1 only)
  float clip = 0;        // > 0: clip gate pre-activations to [-clip, clip]; 0 = no clip
  int threads = 0;
};

// Shapes (ONNX, layout 0): x [seq, batch, input]; w [dirs, 4H, input]; r [dirs, 4H, H];
// b [dirs, 8H] or null; h0/c0 [dirs, batch, H] or null; y [seq, dirs, batch, H] or null;
// yh/yc [dirs, batch, H] or null. Gate order is ONNX's: i, o, f, c.
void LstmForward(const LstmParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, const float* c0,
                 float* y, float* yh, float* yc);

}  // namespace switchyard
