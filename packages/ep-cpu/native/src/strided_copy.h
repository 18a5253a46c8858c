// Strided copies: the one engine behind Transpose, Slice, Expand, Tile and Depth/SpaceToDepth (the TS
// side's tensor-ops/strided.ts, natively). A source view — an element offset plus per-axis strides, any
// of them negative or zero — is written row-major into a dense destination. V8-free; runs on the calling
// thread's OpenMP team.
#pragma once

#include <cstdint>

namespace switchyard {

// The view src[offset + Σ i_k · strides[k]] over dims (rank ≤ kMaxViewRank), in elements of
// `elementSize` bytes (1, 2, 4 or 8). The caller has checked that every address lies inside src.
//
// Axes first merge where the view stays contiguous (and size-1 axes drop), so a trivial permutation is
// one copy. Then: a contiguous inner axis copies runs; a stride-0 inner axis fills; an inner axis read
// with a stride while another axis is contiguous in the source is a batch of 2-D transposes, moved in
// cache-sized bands through the ISA's transpose tile; anything else gathers element by element.
void CopyStrided(const void* src, int64_t offset, const int64_t* strides, const int64_t* dims, int rank, void* dst, int elementSize);

// Copies `bytes` from src to dst, split over the team when large.
void CopyBytes(const void* src, void* dst, int64_t bytes);

}  // namespace switchyard
