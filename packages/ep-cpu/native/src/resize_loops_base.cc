// ResizeLoops for the baseline x86-64 build (SSE2).
#define RESIZE_LOOPS_NAME kBase
#define RESIZE_LOOPS_ISA "sse2"
#include "resize_loops_impl.h"
