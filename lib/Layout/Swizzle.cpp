//===- Swizzle.cpp - Shared-memory layouts against bank conflicts ---------===//

#include "tilec/Layout/Swizzle.h"
#include <cassert>

using namespace tilec::layout;

/// Vectors per swizzle row for each kind (0 for None).
static int64_t vectorsPerRow(SwizzleKind K) {
  switch (K) {
  case SwizzleKind::Full128B:
    return 8;
  case SwizzleKind::Half64B:
    return 4;
  case SwizzleKind::Quarter32B:
    return 2;
  case SwizzleKind::None:
    return 0;
  }
  return 0;
}

static bool fitsSwizzle(int64_t Rows, int64_t Cols, int64_t ElemBits,
                        SwizzleKind K) {
  if (ElemBits <= 0 || 128 % ElemBits != 0 || Rows <= 0 || Cols <= 0)
    return false;
  int64_t Vec = 128 / ElemBits;
  return (Rows == 4 || Rows % 8 == 0) && Cols % (Vec * vectorsPerRow(K)) == 0;
}

/// The swizzle of W vectors per row; row bits s / (8 / W) pick the xor.
static Layout makeBankSwizzle(int64_t Rows, int64_t Cols, int64_t ElemBits,
                              SwizzleKind K) {
  assert(fitsSwizzle(Rows, Cols, ElemBits, K) && "tile does not fit swizzle");
  int64_t Vec = 128 / ElemBits, W = vectorsPerRow(K);
  IndexExpr I = Layout::inputVar(0), J = Layout::inputVar(1);
  IndexExpr S = floorMod(I, 8);
  IndexExpr C = floorMod(floorDiv(J, Vec), W);
  IndexExpr Swizzled = bitXor(C, floorDiv(S, 8 / W));
  IndexExpr Index = floorMod(J, Vec) + (Swizzled + S * W) * Vec;
  return Layout({Rows, Cols},
                {floorDiv(J, Vec * W), floorDiv(I, 8), Index});
}

Layout tilec::layout::makeFullBankSwizzleLayout(int64_t Rows, int64_t Cols,
                                                int64_t ElemBits) {
  return makeBankSwizzle(Rows, Cols, ElemBits, SwizzleKind::Full128B);
}

Layout tilec::layout::makeHalfBankSwizzleLayout(int64_t Rows, int64_t Cols,
                                                int64_t ElemBits) {
  return makeBankSwizzle(Rows, Cols, ElemBits, SwizzleKind::Half64B);
}

Layout tilec::layout::makeQuarterBankSwizzleLayout(int64_t Rows,
                                                   int64_t Cols,
                                                   int64_t ElemBits) {
  return makeBankSwizzle(Rows, Cols, ElemBits, SwizzleKind::Quarter32B);
}

Layout tilec::layout::makeGemmABLayoutPadded(int64_t Rows, int64_t Cols,
                                             int64_t ElemBits) {
  int64_t Stride = Cols;
  if ((ElemBits * Cols) % 256 == 0 && ElemBits > 0 && 128 % ElemBits == 0)
    Stride += 128 / ElemBits;
  IndexExpr I = Layout::inputVar(0), J = Layout::inputVar(1);
  return Layout({Rows, Cols}, {I * Stride + J});
}

SwizzleKind tilec::layout::chooseSwizzle(int64_t Rows, int64_t Cols,
                                         int64_t ElemBits) {
  for (SwizzleKind K : {SwizzleKind::Full128B, SwizzleKind::Half64B,
                        SwizzleKind::Quarter32B})
    if (fitsSwizzle(Rows, Cols, ElemBits, K))
      return K;
  return SwizzleKind::None;
}

Layout tilec::layout::makeGemmABLayout(int64_t Rows, int64_t Cols,
                                       int64_t ElemBits, bool KInner) {
  bool ForcePad = (!KInner && ElemBits == 8) || ElemBits == 64;
  SwizzleKind K = ForcePad ? SwizzleKind::None
                           : chooseSwizzle(Rows, Cols, ElemBits);
  if (K == SwizzleKind::None)
    return makeGemmABLayoutPadded(Rows, Cols, ElemBits);
  return makeBankSwizzle(Rows, Cols, ElemBits, K);
}
