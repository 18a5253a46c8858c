// JS functions for the float32 normalizations beyond norm_function's oneDNN rows, with the TS kernels'
// formulas (statistics in double):
//   normalizeGroups — InstanceNormalization, GroupNormalization (opset 18's per-group and 21's
//     per-channel scale), LayerNormalization with broadcast Scale/B or Mean/InvStdDev outputs;
//   batchNorm — BatchNormalization inference; lpNormalize — LpNormalization along any axis.
// (MeanVarianceNormalization, over any axes: mean_variance_function.h.)
// [sync], on the calling thread's OpenMP team.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] normalizeGroups(x, y, rows, cols, epsilon, scale, bias, rowPeriod, colBlock, mean, invStdDev, threads?):
// each row of the [rows, cols] x is normalized by its own mean and variance, then scaled and shifted by
//   scale[(row mod rowPeriod) · G + (col / colBlock) mod G],  G = scale.length / rowPeriod
// (bias alike; scale/bias null: 1 / 0). mean / invStdDev (rows elements, or null) receive the statistics.
//   LayerNorm: rowPeriod 1, colBlock 1 (G = cols, or a divisor when Scale broadcasts);
//   InstanceNorm [N, C, S]: rows N·C, rowPeriod C, colBlock S;  GroupNorm-21: rows N·G, rowPeriod G,
//   colBlock S (G = C / groups);  GroupNorm-18: rows N·G, rowPeriod G, colBlock cols.
Napi::Value NormalizeGroupsJs(const Napi::CallbackInfo& info);

// [sync] batchNorm(x, y, n, c, spatial, scale, bias, mean, var, epsilon, threads?): x is [n, c, spatial];
// y = (x − mean[c]) / √(var[c] + epsilon) · scale[c] + bias[c].
Napi::Value BatchNormJs(const Napi::CallbackInfo& info);

// [sync] lpNormalize(x, y, outer, len, inner, p, threads?): x / ‖x‖_p along len of [outer, len, inner]
// (p 1 or 2); an all-zero slice stays zero.
Napi::Value LpNormalizeJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
