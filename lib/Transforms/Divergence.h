//===- Divergence.h - Values that may differ between threads ---*- C++ -*-===//
//
// Expects: a kernel op in per-thread form (any stage of lowering).
// Does: classifies every value of the kernel in one pre-order walk: a value
//   is divergent when it may differ between the threads of a block:
//   `thread_id`, loads (memory may differ per thread) except those at
//   uniform indices of a global buffer that only loads use (sequence
//   offsets, per-batch lengths), `shfl`, anything computed from a
//   divergent value, the variables of `parallel` loops and of `for` loops
//   with divergent bounds.
// Guarantees: a value reported uniform has one value across the block's
//   threads at any point all of them reach, so control flow on it is safe
//   around barriers. Values defined outside the kernel are uniform.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_DIVERGENCE_H
#define TILEC_TRANSFORMS_DIVERGENCE_H

#include "tilec/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

namespace tilec {

class Divergence {
public:
  explicit Divergence(ir::Operation &Kernel);

  bool isDivergent(const ir::Value *V) const { return Divergent.count(V); }
  bool anyDivergent(llvm::ArrayRef<ir::Value *> Vs) const {
    return llvm::any_of(Vs, [&](const ir::Value *V) { return isDivergent(V); });
  }

private:
  void visit(ir::Operation &Op);

  llvm::DenseSet<const ir::Value *> Divergent;
};

} // namespace tilec

#endif // TILEC_TRANSFORMS_DIVERGENCE_H
