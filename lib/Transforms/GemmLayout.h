//===- GemmLayout.h - Tensor cores or CUDA cores per T.gemm ----*- C++ -*-===//
//
// Expects: kernels after check-target, before layout-inference; each
//   `gemm %A, %B, %C` has a fragment C and static rank-2 operands (the
//   verifier checked that op(A) is M x K, op(B) is K x N, C is M x N).
// Does: decides per gemm between tensor cores and CUDA cores.
//   Tensor cores (planMmaGemm in MmaGemm.h: sm_80+, mma.sync types, tiles
//   that split into 16x8 warp tiles; on AMD MFMA, AMD/MfmaGemm.h, where a
//   k_pack that cannot be honoured is an error): records
//   `mma_warps`/`mma_shape` (and `mfma`), pins C and fragment operands to
//   the mma (MFMA) fragments, and annotates each
//   shared operand the user did not annotate with a bank-conflict-free
//   layout (`make_swizzled_layout`, or `make_padded_layout` for 8-bit
//   operands with k outer), also each shared tile copied into a fragment
//   operand; for a region operand (`subview`) its buffer when 2-D (a
//   staged buffer keeps its plain layout). The tensor-core gemms of a
//   kernel share one row split over the warps when one fits them all (row
//   statistics then sit on the same threads for every accumulator).
//   CUDA cores (everything else) choose how the C tile is split over the
//   block's T threads for the FMA lowering, and pin the fragment operands
//   to matching layouts:
//   - a thread grid TM x TN (TM | M, TN | N, TM * TN <= T, as many threads
//     as possible): FullRow takes the largest TM, FullCol the largest TN,
//     Square the grid with the fewest operand loads per k (M/TM + N/TN;
//     ties go to the larger TN, so that a warp reads one row of B);
//   - thread tx = tm * TN + tn owns rows tm + TM * i (i < M / TM) and the
//     columns of groups of VN consecutive ones, (jg * TN + tn) * VN + jv
//     (jg < N / (TN * VN), jv < VN), VN = 4, 2 or 1 dividing N / TN: per
//     k, the TN threads of a thread row read TN * VN consecutive elements
//     of B's row (VN-wide loads), the threads of a thread column read one
//     element of A (a broadcast), and each thread reuses every A value
//     across its columns and every B value across its rows;
//   - C: that split, register (i, jg, jv) = i * (N / TN) + jg * VN + jv;
//   - a fragment A: each thread holds its rows for all of K (register
//     i * K + k), replicated over the TN threads of its thread row;
//     a fragment B likewise holds its columns, replicated over TM;
//   - the gemms of one kernel share one grid when one fits all of them (a
//     fragment flows between them, e.g. attention's scores, and row
//     reductions see the same rows on the same threads); the first gemm's
//     policy picks among the common grids. Otherwise each gemm picks its
//     own.
//   Emits `annotate_layout %F {layout = "Fragment(...)"}` after the alloc
//   of each such fragment (layout-inference keeps these at its strict
//   level; the other loops adapt) and records the grid on the gemm as
//   `fma_grid = [TM, TN, VN]` for lower-gemm.
// Guarantees: one annotation per fragment; a fragment two gemms need in
//   different layouts is err_layout_conflict at the later gemm, with a note
//   at the earlier one. A non-fragment C is err_lowering_unsupported.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_GEMMLAYOUT_H
#define TILEC_TRANSFORMS_GEMMLAYOUT_H

#include "tilec/Layout/GemmLayouts.h"
#include "tilec/Transforms/Pass.h"
#include <optional>

namespace tilec {
std::unique_ptr<Pass> createGemmLayoutPass();

/// The split of an M x N accumulator over TM x TN threads (see above).
struct FmaGemmGrid {
  int64_t M = 1, N = 1;
  int64_t TM = 1, TN = 1, VN = 1;

  int64_t threads() const { return TM * TN; }
  int64_t rowsPerThread() const { return M / TM; }
  int64_t colsPerThread() const { return N / TN; }
  /// Column groups of VN per thread.
  int64_t colGroups() const { return colsPerThread() / VN; }
};

/// The grids with TM | M, TN | N and TM * TN <= Threads, best first for
/// \p Policy (the most threads first).
std::vector<FmaGemmGrid> rankFmaGrids(int64_t M, int64_t N, int64_t Threads,
                                      layout::GemmWarpPolicy Policy);
/// The grid with parameters TM, TN, VN; nullopt unless they split M x N.
std::optional<FmaGemmGrid> makeFmaGrid(int64_t M, int64_t N, int64_t TM,
                                       int64_t TN, int64_t VN);

/// C, [M, N].
layout::Fragment makeFmaFragmentC(const FmaGemmGrid &G);
/// A as stored: [M, K], or [K, M] when \p Transposed.
layout::Fragment makeFmaFragmentA(const FmaGemmGrid &G, int64_t K,
                                  bool Transposed);
/// B as stored: [K, N], or [N, K] when \p Transposed.
layout::Fragment makeFmaFragmentB(const FmaGemmGrid &G, int64_t K,
                                  bool Transposed);

/// "Square", "FullRow", "FullCol".
std::optional<layout::GemmWarpPolicy> parseGemmPolicy(llvm::StringRef Name);
} // namespace tilec

#endif
