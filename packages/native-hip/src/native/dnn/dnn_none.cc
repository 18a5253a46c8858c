// The DNN seam without a vendor library (see dnn.h): CMakeLists.txt compiles this file when it found
// neither cuDNN (NVIDIA) nor MIOpen's header (AMD), and every call reports why. Plans' prepared
// problems come from dnn_prepared_fallback.cc, which refuses them with the same reason.
#include <string>

#include "dnn.h"

namespace switchyard::dnn {

namespace {
// The platform picks which library's absence to name; both builds compile this same file.
#if defined(SWITCHYARD_GPU_NVIDIA)
const char* const kMissing = "built without <cudnn.h> headers (or libcudnn): install cuDNN and rebuild";
#else
const char* const kMissing = "built without <miopen/miopen.h> headers (or libMIOpen): install MIOpen and rebuild";
#endif
Status Missing() { return Status{false, kMissing, true}; }
}  // namespace

const char* Unavailable() { return kMissing; }
const char* BackendName() { return "none"; }
void ReleaseStream(int, hipStream_t) {}
int LibraryVersion() { return 0; }
Status ConvForward(int, hipStream_t, const Conv2dDesc&, const ConvArgs&, const ConvOptions&) { return Missing(); }
Status ConvTransposeForward(int, hipStream_t, const Conv2dDesc&, const ConvArgs&, const ConvOptions&) { return Missing(); }
Status Pool2dForward(int, hipStream_t, const Pool2dDesc&, const void*, void*) { return Missing(); }
Status BatchNormInference(int, hipStream_t, DataType, int, int, int64_t, const void*, const void*, const void*, const void*,
                          const void*, double, void*) {
  return Missing();
}

}  // namespace switchyard::dnn
