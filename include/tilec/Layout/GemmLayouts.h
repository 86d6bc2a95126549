//===- GemmLayouts.h - Tensor-core fragment layouts -------------*- C++ -*-===//
//
// Register fragments of mma.sync (m16n8k16 for 16-bit types, m16n8k32 for
// 8-bit types, m16n8k64 for 4-bit types, m16n8k8 for tf32), the ldmatrix x4
// address and data maps, and the split of a block tile over warps.
//
// Conventions: A is [M, K] (Transposed: [K, M]); B is [K, N] (Transposed:
// [N, K], i.e. k-inner); C is [M, N]. Each warp owns WarpM x WarpN of the
// BlockM x BlockN tile of C; warp w = wm + (BlockM / WarpM) * wn. Within
// a warp the instruction tiles are numbered first along M, then along N
// (or K), as in TileLang's gemm_layouts.cc, so register r of a thread
// agrees with the PTX ISA fragment tables for the first instruction tile.
//
// Expects (asserted; callers validate user shapes first, e.g. with
// computeWarpPartition): BlockM % WarpM == 0, WarpM % 16 == 0, BlockN %
// WarpN == 0, WarpN % 8 == 0, BlockK a multiple of the instruction K, and
// ElemBits 4, 8, 16 or 32 (64 for C). For 4-bit operands the fragments
// number elements; two consecutive elements share a byte of a register.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_GEMMLAYOUTS_H
#define TILEC_LAYOUT_GEMMLAYOUTS_H

#include "tilec/Layout/Layout.h"

namespace tilec {
namespace layout {

enum class GemmWarpPolicy { Square, FullRow, FullCol };

struct WarpPartition {
  int64_t MWarps;
  int64_t NWarps;
};

/// Splits NumWarps over an M x N tile so that each warp owns a multiple
/// of MPerWarp rows and NPerWarp columns (wgmma splits warpgroups with
/// MPerWarp = 64). FullRow takes the most warps along M,
/// FullCol the most along N, Square the split whose warp tile has the
/// smallest M + N (the squarest, so each warp loads the fewest operand
/// elements per mma; ties go to fewer warps along M). nullopt when no split
/// divides the tile evenly.
std::optional<WarpPartition> computeWarpPartition(int64_t M, int64_t N,
                                                  int64_t NumWarps,
                                                  GemmWarpPolicy Policy,
                                                  int64_t NPerWarp = 8,
                                                  int64_t MPerWarp = 16);

/// The k dimension of one mma instruction for an operand element width:
/// 16 for 16-bit, 32 for 8-bit, 64 for 4-bit, 8 for 32-bit (tf32).
int64_t mmaInstructionK(int64_t ElemBits);

/// 8 x 8 base: thread = 4 * i + j // 2, register = j % 2.
Fragment makeGemmFragment8x8();
/// The base with its two inputs swapped (thread = 4 * j + i // 2).
Fragment makeGemmFragment8x8Transposed();
/// 8 x KElems base of an operand row: 4 threads per row, KElems / 4
/// consecutive elements each (8x8 for 16-bit, 8x16 for 8-bit, 8x32 for
/// 4-bit, 8x4 tf32).
Fragment makeGemmFragmentRowBase(int64_t KElems);
/// The fragment with its two input dimensions swapped.
Fragment transposeFragment(const Fragment &F);

Fragment makeGemmFragmentC(int64_t BlockM, int64_t BlockN, int64_t WarpM,
                           int64_t WarpN, int64_t ElemBits);
Fragment makeGemmFragmentA(int64_t BlockM, int64_t BlockN, int64_t BlockK,
                           int64_t WarpM, int64_t WarpN, int64_t ElemBits,
                           bool Transposed = false);
Fragment makeGemmFragmentB(int64_t BlockM, int64_t BlockN, int64_t BlockK,
                           int64_t WarpM, int64_t WarpN, int64_t ElemBits,
                           bool Transposed = false);

/// ldmatrix.x4 of a 16 x 16 tile of 16-bit elements, viewed as four 8x8
/// matrices; matrix m covers rows 8 * (m % 2) .. +8, columns 8 * (m / 2)
/// .. +8 and lands in register m.
/// Address map [32 lanes] -> [row, col]: the first element of the row
/// whose address lane l supplies (row l % 8 of matrix l / 8).
Layout makeLdmatrixX4AddressLayout();
/// Data map [32 lanes, 8 elements] -> [row, col]: element e of lane t is
/// half e % 2 of register e / 2. Without Trans, lane t gets row t / 4,
/// columns 2 * (t % 4) + {0, 1} of each matrix (the mma A fragment);
/// with Trans, the transposed matrix (the mma B fragment of a [K, N] tile).
Layout makeLdmatrixX4Layout(bool Trans);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_GEMMLAYOUTS_H
