// ONNX LSTM forward (layout 0, default activations Sigmoid/Tanh/Tanh, no peepholes, no
// sequence_lens, input_forget 0) on weights packed once: the gate rows are regrouped into blocks of
// kLstmBlockUnits hidden units holding all four gates, so one step of the recurrence is a
// matrix-vector product streamed block by block with the cell math applied while the block's gates
// are still in registers. V8-free; any thread.
#pragma once

#include <cstdint>

namespace switchyard {

// Hidden units per packed block: 16 units × 4 gates = 64 outputs = 8 AVX2 accumulators.
constexpr int64_t kLstmBlockUnits = 16;

struct LstmParams {
  int64_t seq = 0, batch = 0, input = 0, hidden = 0;
  int dirs = 1;          // 1 or 2 (bidirectional)
  bool reverse = false;  // direction 'reverse' (dirs == 1 only)
  float clip = 0;        // > 0: clip gate pre-activations to [-clip, clip]; 0 = no clip
  int threads = 0;       // 0 = OpenMP's default
};

// Floats LstmPack writes for these sizes (seq and batch do not matter).
int64_t LstmPackedSize(const LstmParams& p);

// Packs w [dirs, 4H, input], r [dirs, 4H, H] and b [dirs, 8H] (null = zeros; the two biases are
// summed) into `packed` (LstmPackedSize floats). Gate order in w/r/b is ONNX's: i, o, f, c.
void LstmPack(const LstmParams& p, const float* w, const float* r, const float* b, float* packed);

// Shapes (ONNX, layout 0): x [seq, batch, input]; h0/c0 [dirs, batch, H] or null;
// y [seq, dirs, batch, H] or null; yh/yc [dirs, batch, H] or null.
void LstmForwardPacked(const LstmParams& p, const float* x, const float* packed, const float* h0, const float* c0, float* y, float* yh,
                       float* yc);

// Packs into a scratch buffer, then LstmForwardPacked: for weights that are not constants.
void LstmForward(const LstmParams& p, const float* x, const float* w, const float* r, const float* b, const float* h0, const float* c0,
                 float* y, float* yh, float* yc);

}  // namespace switchyard
