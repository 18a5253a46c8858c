// How a convolution's oneDNN primitive descriptor is chosen: its layouts and its algorithm.
//
// With `any` layouts oneDNN picks the layout its fastest kernel wants. On AVX-512, oneDNN 2.6 wants
// channels-last (brgconv), while the CPU EP keeps activations channel-blocked between layers (see
// PreferredChannelBlock in reorder_kernel.h). So a conv whose caller passes blocked tensors asks for
// exactly that layout first and keeps it unless oneDNN serves it only with a reference kernel; then it
// falls back to `any` and reorders at its edges. On 16-channel blocks, 3x3 convs big enough to gain
// run as oneDNN's Winograd (AVX-512 only in 2.6; on AVX2 the addon has its own, winograd_conv.h).
#pragma once

#include <oneapi/dnnl/dnnl.hpp>

#include "conv_kernel.h"

namespace switchyard {

// ONNX's M x C/g x k... weights are, byte for byte, oneDNN's g x M/g x C/g x k... grouped weights.
Dims GroupedWeightDims(const ConvParams& params);

// `params` as ConvOutputDims left them, `outputDims` its result. Call under the conv's ThreadScope.
dnnl::convolution_forward::primitive_desc ChooseConvPrimitiveDesc(const ConvParams& params, const Dims& outputDims, bool constWeights);

// Whether `pd` is one of oneDNN's Winograd kernels.
bool IsOneDnnWinograd(const dnnl::convolution_forward::primitive_desc& pd);

}  // namespace switchyard
