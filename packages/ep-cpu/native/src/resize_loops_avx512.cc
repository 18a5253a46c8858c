// ResizeLoops for AVX-512 F/BW/DQ/VL + FMA (CMakeLists.txt sets the flags for this file only).
#define RESIZE_LOOPS_NAME kAvx512
#define RESIZE_LOOPS_ISA "avx512"
#include "resize_loops_impl.h"
