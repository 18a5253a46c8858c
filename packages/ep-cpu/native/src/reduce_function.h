// JS functions for the float32 reductions over any set of axes (ReduceSum/Mean/Max/Min/Prod/L1/L2/
// SumSquare/LogSum/LogSumExp) and for ArgMax/ArgMin, with the TS kernels' rules (math/reduce.ts,
// math/arg-reduce.ts): sums accumulate in double, a NaN wins ReduceMax/Min, an empty reduction gives the
// op's identity. [sync], on the calling thread's OpenMP team.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] reduce(x, dims, axes, op, y, threads?): y (Π of the kept dims) = op over `axes` (distinct, in
// [0, rank)) of x (Π dims). op: 'sum' | 'mean' | 'sumSquare' | 'l1' | 'l2' | 'logSum' | 'logSumExp' |
// 'max' | 'min' | 'prod'.
Napi::Value ReduceJs(const Napi::CallbackInfo& info);

// [sync] argReduce(x, outer, len, inner, isMax, selectLast, y, threads?): x is [outer, len, inner]
// float32, y the [outer, inner] BigInt64Array of indices along len (≥ 1).
Napi::Value ArgReduceJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
