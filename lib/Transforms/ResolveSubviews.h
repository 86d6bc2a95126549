//===- ResolveSubviews.h - Gemm operand regions become accesses -*- C++ -*-===//
//
// Expects: kernels after the gemm lowerings (lower-gemm, lower-mma,
//   lower-wgmma), before lower-pipelined, plan-shared-memory,
//   insert-barriers and apply-shared-layouts; a `subview %P[%s...]`
//   (a T.gemm operand written as a region of a shared buffer) is used only
//   by element accesses with one index per dim of the region (load,
//   store, ldmatrix, wgmma, cp_async, vcopy, ...).
// Does: every access `%R[%i, %j]` of a subview `%R = subview %P[%s0, ...,
//   %sn]` becomes `%P[%s0, ..., %s(n-2) + %i, %s(n-1) + %j]`, and the
//   subview is erased. The passes after it see only the shared buffer:
//   one set of accesses for its lifetime, barriers, stages and layout.
// Guarantees: no `subview` remains. A use left as a whole buffer (a gemm
//   no lowering took) is err_lowering_unsupported at the user.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_RESOLVESUBVIEWS_H
#define TILEC_TRANSFORMS_RESOLVESUBVIEWS_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createResolveSubviewsPass();
} // namespace tilec

#endif
