//===- Swizzle.h - Shared-memory layouts against bank conflicts -*- C++ -*-===//
//
// Shared memory has 32 four-byte banks, i.e. eight 16-byte bank groups
// per 128-byte line. A tile [Rows, Cols] of ElemBits-wide elements is cut
// into 16-byte vectors (Vec = 128 / ElemBits elements). The swizzles xor
// the vector column c with bits of the row s = i % 8 so that the eight
// rows of an 8-row block touched by one ldmatrix / cp.async phase fall in
// eight different bank groups:
//   full    (128 B): c in [0, 8), c' = c ^ s
//   half    (64 B):  c in [0, 4), c' = c ^ (s / 2)
//   quarter (32 B):  c in [0, 2), c' = c ^ (s / 4)
// Output (3-D, as in TileLang): [j / (Vec * W), i / 8, index] with
// index = j % Vec + (c' + W * s) * Vec, W the vectors per swizzle row.
//
// Expects (asserted): Rows % 8 == 0 (or Rows == 4), Cols a multiple of
// Vec * W, ElemBits dividing 128. makeGemmABLayout() checks these itself
// and falls back to padding, so it accepts any positive shape.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LAYOUT_SWIZZLE_H
#define TILEC_LAYOUT_SWIZZLE_H

#include "tilec/Layout/Layout.h"

namespace tilec {
namespace layout {

enum class SwizzleKind { None, Quarter32B, Half64B, Full128B };

Layout makeFullBankSwizzleLayout(int64_t Rows, int64_t Cols,
                                 int64_t ElemBits);
Layout makeHalfBankSwizzleLayout(int64_t Rows, int64_t Cols,
                                 int64_t ElemBits);
Layout makeQuarterBankSwizzleLayout(int64_t Rows, int64_t Cols,
                                    int64_t ElemBits);
/// Row-major with 16 bytes of padding after each row whose size is a
/// multiple of 32 bytes (otherwise plain row-major).
Layout makeGemmABLayoutPadded(int64_t Rows, int64_t Cols, int64_t ElemBits);

/// The widest swizzle whose period divides Cols, or None.
SwizzleKind chooseSwizzle(int64_t Rows, int64_t Cols, int64_t ElemBits);

/// Layout of a gemm operand tile in shared memory (mma path): 128/64/32 B
/// swizzle by chooseSwizzle, else padding; an 8-bit operand whose k is
/// the outer dimension (KInner false) is always padded, and 64-bit
/// operands are padded (TileLang's special fp64 swizzles are not done).
Layout makeGemmABLayout(int64_t Rows, int64_t Cols, int64_t ElemBits,
                        bool KInner);

} // namespace layout
} // namespace tilec

#endif // TILEC_LAYOUT_SWIZZLE_H
