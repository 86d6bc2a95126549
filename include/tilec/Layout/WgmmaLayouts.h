//===- WgmmaLayouts.h - wgmma operand and fragment layouts ------*- C++ -*-===//
//
// The layouts wgmma.mma_async (sm_90a) reads and writes:
//
// Shared operands. wgmma reads A (unless it is in registers) and B from
// shared memory through a 64-bit matrix descriptor: start address, leading
// byte offset (LBO), stride byte offset (SBO) and a swizzle mode. A tile is
// stored [Rows, Cols] with Cols contiguous; it is K-major when Cols is the
// k dimension (A [M, K], B [N, K]) and MN-major when Rows is (A [K, M], B
// [K, N]). Every canonical layout is built from 16-byte chunks (T = 128 /
// ElemBits elements):
//   swizzled, S = 32, 64 or 128 bytes: atoms of 8 rows x S bytes (rows S
//     bytes apart, 1024/512/256 bytes each), the 16-byte chunk c of row r
//     at chunk c ^ (r % 8) / (8 / (S / 16)) (the hardware's XOR of address
//     bits [4, 4+b) with bits [7, 7+b)). Atoms follow each other down the
//     rows, then the next S bytes of columns start after all the rows:
//     offset(i, j) = (j / (S/e)) * Rows * (S/e) + (i / 8) * 8 * (S/e) + ...
//     This is makeFull/Half/QuarterBankSwizzleLayout. K-major: SBO = 8 * S
//     (the next 8 rows); LBO is unused (the instruction's 32 bytes of k lie
//     in one atom row). MN-major: SBO = 8 * S (the next 8 k rows), LBO =
//     Rows * S (the next S bytes of M or N).
//   interleaved (no swizzle): 8 x 16-byte core matrices, 128 contiguous
//     bytes each, down the rows first: offset(i, j) = (j / T) * Rows * T +
//     i * T + j % T. K-major: LBO = Rows * 16 (the next 16 bytes of k),
//     SBO = 128 (the next 8 rows). MN-major: LBO = 128 (the next 8 k rows),
//     SBO = Rows * 16 (the next 16 bytes of M or N).
// The buffer must start on an atom boundary (1024 bytes covers every mode)
// and an instruction's tile must start on an 8-row boundary, and for
// MN-major on an atom column; then the descriptor's start address is the
// address this layout gives the tile's first element, and base offset 0.
//
// Register fragments (per warpgroup of 128 threads; warp w = (t / 32) % 4,
// lane l, g = l / 4, q = l % 4):
//   C of m64nN: element (16w + g + 8h, 8c + 2q + e) in register
//     4c + 2h + e (f16 accumulators pack the pairs e = 0, 1 in one
//     32-bit register, same order).
//   A of m64nNkK from registers (k = 32 bytes, V = 32 / ElemBits elements
//     per 32-bit register): element (16w + g + 8h, (K/2) kk + V q + e) in
//     register 2V kk + V h + e.
// The block tile is split over MW x NW warpgroups (warpgroup
// wg = wm + MW * wn owns rows [wm * M/MW, +M/MW) and columns [wn * N/NW,
// +N/NW)); each warpgroup's tile is cut into 64 x InstrN instruction tiles
// (numbered mi * (tiles along N) + ni), whose registers are consecutive.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_WGMMALAYOUTS_H
#define TILEC_LAYOUT_WGMMALAYOUTS_H

#include "tilec/Layout/Layout.h"
#include "llvm/ADT/StringRef.h"
#include <optional>
#include <string>

namespace tilec {
namespace layout {

enum class WgmmaMajor { K, MN };

/// A canonical wgmma layout of a [Rows, Cols] shared tile (Cols
/// contiguous). SwizzleBytes is 128, 64, 32, or 0 for the interleaved
/// layout.
struct WgmmaSharedLayout {
  WgmmaMajor Major;
  int64_t SwizzleBytes;
  int64_t Rows, Cols, ElemBits;

  Layout layout() const;
  int64_t leadingByteOffset() const;
  int64_t strideByteOffset() const;
  /// Bits 62-63 of the descriptor: 1 = 128B, 2 = 64B, 3 = 32B, 0 = none.
  int64_t descriptorMode() const;
  /// The descriptor without its start address (bits 0-13).
  uint64_t descriptorFields() const;
  /// Bytes the buffer's start must be aligned to (the atom).
  int64_t alignment() const;
  /// `make_wgmma_layout(Name, k_major=1, swizzle=128)`: the annotation
  /// text apply-shared-layouts reads back with parseWgmmaLayoutText.
  std::string annotation(llvm::StringRef Name) const;
};

/// The largest swizzle (128, 64, 32 bytes; 0: interleaved) for a tile of
/// Cols contiguous elements of which one instruction reads runs of
/// InstrCols aligned elements (K-major: the whole k extent may be used, so
/// InstrCols = Cols; MN-major: the instruction's M or N). nullopt when the
/// tile cannot be laid out for wgmma at all (Rows not a multiple of 8,
/// runs not whole 16-byte chunks).
/// Whether the layout with \p SwizzleBytes serves such a tile.
bool wgmmaSwizzleFits(int64_t Rows, int64_t Cols, int64_t InstrCols,
                      int64_t ElemBits, int64_t SwizzleBytes);
std::optional<int64_t> chooseWgmmaSwizzle(int64_t Rows, int64_t Cols,
                                          int64_t InstrCols, int64_t ElemBits);

/// Reads `make_wgmma_layout(X, k_major=K, swizzle=S)` for a [Rows, Cols]
/// tile; nullopt for any other text or when the shape does not fit.
std::optional<WgmmaSharedLayout> parseWgmmaLayoutText(llvm::StringRef Text,
                                                      int64_t Rows,
                                                      int64_t Cols,
                                                      int64_t ElemBits);

/// The k of one wgmma instruction: 32 bytes of the operand type (16 for
/// 16-bit, 32 for 8-bit, 8 for tf32).
int64_t wgmmaInstructionK(int64_t ElemBits);

/// C [M, N] over MW x NW warpgroups with instruction tiles 64 x InstrN.
Fragment makeWgmmaFragmentC(int64_t M, int64_t N, int64_t MWarpgroups,
                            int64_t NWarpgroups, int64_t InstrN);
/// A [M, K] in registers over MW warpgroups along M, replicated over the
/// NW warpgroups along N; register (mi * K/k + ks) * 4V + ... per
/// instruction tile (mi, ks).
Fragment makeWgmmaFragmentA(int64_t M, int64_t K, int64_t MWarpgroups,
                            int64_t NWarpgroups, int64_t ElemBits);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_WGMMALAYOUTS_H
