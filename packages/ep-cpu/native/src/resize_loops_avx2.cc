// ResizeLoops for AVX2 + FMA (CMakeLists.txt sets -mavx2 -mfma for this file only).
#define RESIZE_LOOPS_NAME kAvx2
#define RESIZE_LOOPS_ISA "avx2"
#include "resize_loops_impl.h"
