// switchyard_cpu.node: registers the addon's classes and functions; nothing else lives here.
#include <napi.h>

#include "cast_function.h"
#include "conv_dw_primitive.h"
#include "conv_primitive.h"
#include "conv_transpose_primitive.h"
#include "eltwise_function.h"
#include "elementwise_primitive.h"
#include "elements_index_function.h"
#include "engine.h"
#include "gather_function.h"
#include "gemm_primitive.h"
#include "host_buffer_pool.h"
#include "int8_conv_primitive.h"
#include "int8_matmul_primitive.h"
#include "sgemm_recurrence_function.h"
#include "topk_function.h"
#include "nonzero_function.h"
#include "lrn_function.h"
#include "grid_sample_function.h"
#include "roi_align_function.h"
#include "nms_function.h"
#include "lstm_function.h"
#include "matmul_primitive.h"
#include "mean_variance_function.h"
#include "movement_function.h"
#include "norm_function.h"
#include "normalize_function.h"
#include "pad_function.h"
#include "pool_primitive.h"
#include "quantize_function.h"
#include "quantized_add.h"
#include "reduce_function.h"
#include "reorder_primitive.h"
#include "resize_primitive.h"
#include "onednn_errors.h"
#include "runtime_info.h"
#include "softmax_function.h"
#include "strided_matmul_primitive.h"
#include "vector_isa.h"

namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  switchyard::DefaultThreads();  // capture OpenMP's default before any ThreadScope runs
  switchyard::SetExceptionTranslator(switchyard::TranslateOneDnnError);
  exports.Set("hostBuffer", Napi::Function::New<switchyard::HostBufferJs>(env, "hostBuffer"));
  exports.Set("releaseHostBuffer", Napi::Function::New<switchyard::ReleaseHostBufferJs>(env, "releaseHostBuffer"));
  exports.Set("trimHostBuffers", Napi::Function::New<switchyard::TrimHostBuffersJs>(env, "trimHostBuffers"));
  exports.Set("hostBufferStats", Napi::Function::New<switchyard::HostBufferStatsJs>(env, "hostBufferStats"));
  exports.Set("ConvPrimitive", switchyard::ConvPrimitive::Define(env));
  exports.Set("ConvDwPrimitive", switchyard::ConvDwPrimitive::Define(env));
  exports.Set("MatMulPrimitive", switchyard::MatMulPrimitive::Define(env));
  exports.Set("GemmPrimitive", switchyard::GemmPrimitive::Define(env));
  exports.Set("PoolPrimitive", switchyard::PoolPrimitive::Define(env));
  exports.Set("ReorderPrimitive", switchyard::ReorderPrimitive::Define(env));
  exports.Set("ResizePrimitive", switchyard::ResizePrimitive::Define(env));
  exports.Set("ConvTransposePrimitive", switchyard::ConvTransposePrimitive::Define(env));
  exports.Set("preferredChannelBlock", Napi::Function::New<switchyard::PreferredChannelBlockJs>(env, "preferredChannelBlock"));
  exports.Set("lstmForward", Napi::Function::New<switchyard::LstmForwardJs>(env, "lstmForward"));
  exports.Set("gruForward", Napi::Function::New<switchyard::GruForwardJs>(env, "gruForward"));
  exports.Set("rnnForward", Napi::Function::New<switchyard::RnnForwardJs>(env, "rnnForward"));
  exports.Set("lstmPack", Napi::Function::New<switchyard::LstmPackJs>(env, "lstmPack"));
  exports.Set("lstmForwardPacked", Napi::Function::New<switchyard::LstmForwardPackedJs>(env, "lstmForwardPacked"));
  exports.Set("geluErf", Napi::Function::New<switchyard::GeluErfJs>(env, "geluErf"));
  exports.Set("layerNormRows", Napi::Function::New<switchyard::LayerNormRowsJs>(env, "layerNormRows"));
  exports.Set("StridedMatMulPrimitive", switchyard::StridedMatMulPrimitive::Define(env));
  exports.Set("skipLayerNormRows", Napi::Function::New<switchyard::SkipLayerNormRowsJs>(env, "skipLayerNormRows"));
  exports.Set("rmsNormRows", Napi::Function::New<switchyard::RmsNormRowsJs>(env, "rmsNormRows"));
  exports.Set("ElementwisePrimitive", switchyard::ElementwisePrimitive::Define(env));
  exports.Set("elementwiseOps", Napi::Function::New<switchyard::ElementwiseOpsJs>(env, "elementwiseOps"));
  exports.Set("ConvIntegerPrimitive", switchyard::ConvIntegerPrimitive::Define(env));
  exports.Set("QLinearConvPrimitive", switchyard::QLinearConvPrimitive::Define(env));
  exports.Set("DynamicQuantizedConvPrimitive", switchyard::DynamicQuantizedConvPrimitive::Define(env));
  exports.Set("MatMulIntegerPrimitive", switchyard::MatMulIntegerPrimitive::Define(env));
  exports.Set("QLinearMatMulPrimitive", switchyard::QLinearMatMulPrimitive::Define(env));
  exports.Set("DynamicQuantizedMatMulPrimitive", switchyard::DynamicQuantizedMatMulPrimitive::Define(env));
  exports.Set("dynamicQuantizeLinear", Napi::Function::New<switchyard::DynamicQuantizeLinearJs>(env, "dynamicQuantizeLinear"));
  exports.Set("dynamicQuantizeLinearAsync", Napi::Function::New<switchyard::DynamicQuantizeLinearAsyncJs>(env, "dynamicQuantizeLinearAsync"));
  exports.Set("quantizeLinear", Napi::Function::New<switchyard::QuantizeLinearJs>(env, "quantizeLinear"));
  exports.Set("quantizeLinearAsync", Napi::Function::New<switchyard::QuantizeLinearAsyncJs>(env, "quantizeLinearAsync"));
  exports.Set("dequantizeLinear", Napi::Function::New<switchyard::DequantizeLinearJs>(env, "dequantizeLinear"));
  exports.Set("dequantizeLinearAsync", Napi::Function::New<switchyard::DequantizeLinearAsyncJs>(env, "dequantizeLinearAsync"));
  exports.Set("quantizedAdd", Napi::Function::New<switchyard::QuantizedAddJs>(env, "quantizedAdd"));
  exports.Set("quantizedAddAsync", Napi::Function::New<switchyard::QuantizedAddAsyncJs>(env, "quantizedAddAsync"));
  // The dtype-generic kernels on the per-ISA loops (vector_isa.h): data movement, Cast, reductions, Softmax, normalizations.
  exports.Set("copyStrided", Napi::Function::New<switchyard::CopyStridedJs>(env, "copyStrided"));
  exports.Set("concat", Napi::Function::New<switchyard::ConcatJs>(env, "concat"));
  exports.Set("split", Napi::Function::New<switchyard::SplitJs>(env, "split"));
  exports.Set("gather", Napi::Function::New<switchyard::GatherJs>(env, "gather"));
  exports.Set("trilu", Napi::Function::New<switchyard::TriluJs>(env, "trilu"));
  exports.Set("gatherElements", Napi::Function::New<switchyard::GatherElementsJs>(env, "gatherElements"));
  exports.Set("scatterElements", Napi::Function::New<switchyard::ScatterElementsJs>(env, "scatterElements"));
  exports.Set("pad", Napi::Function::New<switchyard::PadJs>(env, "pad"));
  exports.Set("cast", Napi::Function::New<switchyard::CastJs>(env, "cast"));
  exports.Set("reduce", Napi::Function::New<switchyard::ReduceJs>(env, "reduce"));
  exports.Set("argReduce", Napi::Function::New<switchyard::ArgReduceJs>(env, "argReduce"));
  exports.Set("topK", Napi::Function::New<switchyard::TopKJs>(env, "topK"));
  exports.Set("nonZeroCount", Napi::Function::New<switchyard::NonZeroCountJs>(env, "nonZeroCount"));
  exports.Set("nonZeroFill", Napi::Function::New<switchyard::NonZeroFillJs>(env, "nonZeroFill"));
  exports.Set("softmax", Napi::Function::New<switchyard::SoftmaxJs>(env, "softmax"));
  exports.Set("normalizeGroups", Napi::Function::New<switchyard::NormalizeGroupsJs>(env, "normalizeGroups"));
  exports.Set("batchNorm", Napi::Function::New<switchyard::BatchNormJs>(env, "batchNorm"));
  exports.Set("lpNormalize", Napi::Function::New<switchyard::LpNormalizeJs>(env, "lpNormalize"));
  exports.Set("meanVariance", Napi::Function::New<switchyard::MeanVarianceJs>(env, "meanVariance"));
  exports.Set("lrn", Napi::Function::New<switchyard::LrnJs>(env, "lrn"));
  exports.Set("gridSample", Napi::Function::New<switchyard::GridSampleJs>(env, "gridSample"));
  exports.Set("roiAlign", Napi::Function::New<switchyard::RoiAlignJs>(env, "roiAlign"));
  exports.Set("nmsSelect", Napi::Function::New<switchyard::NmsSelectJs>(env, "nmsSelect"));
  exports.Set("vectorIsa", Napi::Function::New<switchyard::VectorIsaJs>(env, "vectorIsa"));
  exports.Set("runtimeInfo", Napi::Function::New<switchyard::RuntimeInfo>(env, "runtimeInfo"));
  return exports;
}

}  // namespace

NODE_API_MODULE(switchyard_cpu, Init)
