// Kept for the first cut's includes (src/native/elementwise.cc): the kernel library's API, including
// LaunchElementwiseF32, lives in launch.h.
#pragma once

#include "launch.h"
