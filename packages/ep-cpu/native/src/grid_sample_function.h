// GridSample over 2-D images, float32: bilinear / nearest / bicubic sampling with zeros / border /
// reflection padding, align_corners on or off (torch.nn.functional.grid_sample's rules). [sync], on the
// calling thread's OpenMP team.
#pragma once

#include <napi.h>

namespace switchyard {

// [sync] gridSample(x, grid, y, n, c, h, w, outH, outW, mode, padding, alignCorners, threads?): x is
// [n, c, h, w], grid [n, outH, outW, 2] (x coordinate first), y [n, c, outH, outW]. mode 0 linear,
// 1 nearest, 2 cubic; padding 0 zeros, 1 border, 2 reflection. Positions, weights and sums are taken in
// double in the TS kernel's order (in-range taps only, row tap outer), so y matches it bit for bit.
Napi::Value GridSampleJs(const Napi::CallbackInfo& info);

}  // namespace switchyard
