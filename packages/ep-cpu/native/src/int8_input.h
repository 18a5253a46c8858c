// The input buffer of the int8 convolutions (int8_conv.h): ONNX's planar [N, C, spatial...] 8-bit (or
// float, quantized on the way) activations rewritten as oneDNN's int8 kernels want them, in one pass:
//   - channels-last (oneDNN has no fast int8 path for planar tensors);
//   - uint8 (int8 values shifted by 128 via x XOR 0x80, the zero point with them: x - x_zp is unchanged);
//   - padded explicitly with the zero point, so padding contributes (x_zp - x_zp) = 0 exactly as in ONNX
//     while oneDNN convolves without padding and without zero points (its zero-point path rounds
//     through float32 past 2^24, measured in oneDNN 2.6.3);
//   - split into chunks of each group's channels when one oneDNN convolution could reach 2^24 (see
//     Int8Conv): chunk j holds, for every group, local channels [begin[j], begin[j + 1]), channels-last.
// Threaded over the caller's OpenMP team (tiles of pixels).
#pragma once

#include <cstdint>
#include <vector>

#include "memory_desc.h"
#include "quantize_kernels.h"

namespace switchyard {

class Int8InputLayout {
 public:
  // `input`: [N, C, spatial...] (rank 3-5); pads per spatial axis; `chunkBegin`: local channel starts of
  // the chunks, first 0, then increasing, below C / groups.
  Int8InputLayout(const Dims& input, int64_t groups, const Dims& padsBegin, const Dims& padsEnd, std::vector<int64_t> chunkBegin);

  int64_t chunks() const { return static_cast<int64_t>(chunkBegin_.size()); }
  // Channels of chunk j (all groups): groups · its local channel count.
  int64_t chunkChannels(int64_t j) const;
  int64_t chunkLocalBegin(int64_t j) const { return chunkBegin_[j]; }
  int64_t chunkLocalEnd(int64_t j) const { return j + 1 < chunks() ? chunkBegin_[j + 1] : perGroup_; }
  // Byte offset of chunk j in the buffer.
  int64_t chunkOffset(int64_t j) const { return chunkOffset_[j]; }
  // The padded dims [N, C, spatial padded...] (a chunk has chunkChannels(j) in place of C).
  const Dims& paddedDims() const { return padded_; }
  int64_t paddedPixels() const { return paddedPixels_; }
  int64_t bytes() const { return bytes_; }

  // Copies planar uint8/int8 `x` in (int8 shifted to uint8); `paddingValue` is the shifted zero point.
  void Copy(const uint8_t* x, bool shiftToUnsigned, uint8_t paddingValue, uint8_t* buffer) const;
  // Quantizes planar float `x` in with DynamicQuantizeLinear's `params`; padding holds the zero point.
  void Quantize(const float* x, QuantParams params, uint8_t* buffer) const;

 private:
  template <typename Row>
  void Fill(Row&& row, uint8_t xorMask, uint8_t paddingValue, uint8_t* buffer) const;
  void FillPadding(uint8_t value, uint8_t* buffer) const;

  Dims input_, padded_;
  int64_t batch_, channels_, groups_, perGroup_;
  int64_t pixels_, paddedPixels_;
  int64_t in_[3], pad_[3], size_[3];  // unpadded extents, leading pads, padded extents (D, H, W; 1 / 0 where absent)
  std::vector<int64_t> chunkBegin_, chunkOffset_;
  // Where channel c's bytes go: buffer[base[c] + padded pixel · stride[c]].
  std::vector<int64_t> base_, stride_;
  int64_t bytes_ = 0;
};

}  // namespace switchyard
