//===- Divergence.h - Values that may differ between threads ---*- C++ -*-===//
//
// Expects: a kernel op in per-thread form (any stage of lowering).
// Does: classifies every value of the kernel: a value is divergent when it
//   may differ between the threads of a block: `thread_id`, `shfl`, the old
//   value of an atomic, what an extern call returns, anything computed from
//   a divergent value, the variables of `parallel` loops and of `for` loops
//   with divergent bounds, and loads, except a load at uniform indices from
//   a buffer whose contents are uniform:
//   - a `global` parameter or workspace the kernel never writes (read-only
//     inputs; not a view, which may alias a written buffer), or
//   - a `local`/`var` buffer (per-thread registers) that is only loaded and
//     written, every write storing uniform values at uniform indices under
//     uniform control flow (a replicated block mask, a scalar flag).
//   Buffer contents and values depend on each other (a loop stores what it
//   loaded), so the walk repeats until no buffer loses its uniformity.
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
  void collectUniformBuffers(ir::Operation &Kernel);
  void visit(ir::Operation &Op);
  bool isUniformLoad(const ir::Operation &Load) const;
  bool dropDivergentWrites(ir::Operation &Kernel);
  bool writesUniformly(const ir::Operation &Write) const;
  bool underDivergentControl(const ir::Operation &Op) const;

  llvm::DenseSet<const ir::Value *> Divergent;
  /// Buffers whose contents are, so far, the same on every thread.
  llvm::DenseSet<const ir::Value *> UniformBuffers;
};

} // namespace tilec

#endif // TILEC_TRANSFORMS_DIVERGENCE_H
