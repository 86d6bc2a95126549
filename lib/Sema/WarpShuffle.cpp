//===- WarpShuffle.cpp - T.tvm_warp_shuffle
//--------------------------------===//
//
// TVM's warp shuffle, T.tvm_warp_shuffle(mask, value, lane, width,
// warp_size), which TileLang kernels call directly (the Hadamard
// transform's butterfly exchanges): every lane of the warp reads `value`
// of lane `lane` of its segment of `width` lanes, CUDA's
// __shfl_sync(mask, value, lane, width). It becomes a `shfl` op in "idx"
// mode. The whole warp must take part (mask 0xFFFFFFFF), and `warp_size`
// is the target's.
//
//===----------------------------------------------------------------------===//

#include "Builtins.h"
#include "Interp.h"
#include "tilec/IR/Value.h"
#include "tilec/Support/Target.h"

using namespace tilec;
using namespace tilec::sema;

/// The target's warp, 32 lanes unless it says otherwise.
static int64_t warpSizeOf(const Interp &I) {
  return I.Opts.Tgt ? I.Opts.Tgt->WarpSize : 32;
}

/// Why the compile-time mask, width and warp size cannot be used, or "".
static std::string shuffleUnsupported(const Interp &I, int64_t Mask,
                                      int64_t Width, int64_t WarpSize) {
  if (WarpSize != warpSizeOf(I))
    return "warp_size " + std::to_string(WarpSize) +
           " (the target's warp has " + std::to_string(warpSizeOf(I)) +
           " lanes)";
  if (Width <= 0 || Width > WarpSize || (Width & (Width - 1)))
    return "width " + std::to_string(Width) +
           " (a power of 2 up to the warp size)";
  if (Mask != 0xFFFFFFFF)
    return "a mask other than 0xFFFFFFFF (every lane takes part)";
  return "";
}

Value sema::tTvmWarpShuffle(Interp &I, BoundArgs &A) {
  auto Mask = I.constInt(A[0], A.range(0), "the shuffle mask");
  auto Width = I.constInt(A[3], A.range(3), "the shuffle width");
  auto WarpSize = I.constInt(A[4], A.range(4), "warp_size");
  if (!Mask || !Width || !WarpSize)
    return Value::poison();
  std::string Why = shuffleUnsupported(I, *Mask, *Width, *WarpSize);
  if (!Why.empty()) {
    I.error(A.CallRange, diag::err_feature_unsupported)
        << "T.tvm_warp_shuffle with " + Why;
    return Value::poison();
  }
  ir::Value *V = I.toRuntime(A[1], A.range(1));
  ir::Value *Lane = I.toIndex(A[2], A.range(2));
  if (!V || !Lane)
    return Value::poison();
  if (!V->getType().isScalar() || V->getType().getDType() == DType::Bool) {
    I.error(A.range(1), diag::err_feature_unsupported)
        << "T.tvm_warp_shuffle of a value that is not a number";
    return Value::poison();
  }
  return Value::runtime(I.B.create(ir::OpKind::Shfl, {V, Lane}, {},
                                   {V->getType()},
                                   {{"mode", ir::Attribute::string("idx")},
                                    {"width", ir::Attribute::integer(*Width)}})
                            ->getResult());
}
