// JS entry point for the elementwise kernels (kernels/elementwise.hip).
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] elementwise(op, a, b, out, count): op is 'Add' | 'Mul' | 'Relu'; a, b, out are float32
// DeviceBuffers on one device (b is null for Relu); count elements. Launches on the default stream
// and waits for it, so a kernel fault is reported here, by this call.
Napi::Value Elementwise(const Napi::CallbackInfo& info);

}  // namespace switchyard
