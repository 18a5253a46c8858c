// NonMaxSuppression's greedy selection, in double: the part of the op whose cost grows with boxes × kept
// boxes. Corners, areas and the score order come from the TS kernel. [sync], on the calling thread.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] nmsSelect(corners, areas, orders, orderStarts, boxesPerBatch, classes, limit, iouThreshold, kept,
// keptCounts): corners Float64Array [batches · boxesPerBatch · 4] as (y1, x1, y2, x2), areas Float64Array
// [batches · boxesPerBatch]; list l = b · classes + c holds orders[orderStarts[l] .. orderStarts[l + 1]), box
// indices within batch b in score order; kept Int32Array [lists · limit] receives each list's kept boxes
// from l · limit on, keptCounts Int32Array [lists] how many. The IoU test is the TS kernel's, NaN included.
Napi::Value NmsSelectJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
