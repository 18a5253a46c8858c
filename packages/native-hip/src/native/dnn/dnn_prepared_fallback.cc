// Prepared problems for a DNN backend that has no prepared path of its own (dnn_miopen.cc,
// dnn_none.cc; dnn_cudnn.cc has one): CMakeLists.txt compiles this file beside either of them.
#include <memory>
#include <string>

#include "dnn.h"

namespace switchyard::dnn {

// Prepared problems call the one-off functions on every run (NCHW only), so a backend written against
// the free functions (MIOpen) serves plans unchanged.
namespace {
class OneOffConv final : public PreparedConv {
 public:
  OneOffConv(int device, hipStream_t stream, const Conv2dDesc& d, const ConvOptions& options)
      : device_(device), stream_(stream), d_(d), options_(options) {}
  Status Run(const ConvArgs& args) override { return ConvForward(device_, stream_, d_, args, options_); }

 private:
  int device_;
  hipStream_t stream_;
  Conv2dDesc d_;
  ConvOptions options_;
};

class OneOffPool final : public PreparedPool {
 public:
  OneOffPool(int device, hipStream_t stream, const Pool2dDesc& d) : device_(device), stream_(stream), d_(d) {}
  Status Run(const void* x, void* y) override { return Pool2dForward(device_, stream_, d_, x, y); }

 private:
  int device_;
  hipStream_t stream_;
  Pool2dDesc d_;
};
}  // namespace

Status PrepareConv(int device, hipStream_t stream, const Conv2dDesc& d, TensorLayout layout, const ConvArgs&,
                   const ConvOptions& options, std::unique_ptr<PreparedConv>* out) {
  if (Unavailable() != nullptr) return Status{false, Unavailable(), true};
  if (layout != TensorLayout::kNCHW) return Status{false, std::string(BackendName()) + " backend: NCHW convolution only", true};
  *out = std::make_unique<OneOffConv>(device, stream, d, options);
  return Status{};
}

Status PreparePool(int device, hipStream_t stream, const Pool2dDesc& d, TensorLayout layout, std::unique_ptr<PreparedPool>* out) {
  if (Unavailable() != nullptr) return Status{false, Unavailable(), true};
  if (layout != TensorLayout::kNCHW) return Status{false, std::string(BackendName()) + " backend: NCHW pooling only", true};
  *out = std::make_unique<OneOffPool>(device, stream, d);
  return Status{};
}

}  // namespace switchyard::dnn
