//===- Inlining.h - Which values become expressions ------------*- C++ -*-===//
//
// Decides, before emission, how each scalar value is written:
//   - constants are always written as literals;
//   - a pure value (arithmetic, cmp, select, cast, math, thread_id) with one
//     use is inlined into its user's expression;
//   - a value that reads memory (a load, or a pure value built on an inlined
//     load) is inlined only when its user is in the same block, is not a
//     `for` (whose bound would be re-read every iteration), and no op with
//     side effects (store, vcopy, atomic, barrier, shfl, break, continue,
//     ops with regions) lies between the two;
//   - pure values and loads without uses are dead and not emitted;
//   - everything else is named: `const T name = ...;`.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_LIB_CODEGEN_INLINING_H
#define TILEC_LIB_CODEGEN_INLINING_H

#include "tilec/IR/Operation.h"
#include "llvm/ADT/DenseSet.h"

namespace tilec {
namespace codegen {

class Inlining {
public:
  /// Analyses the ops of \p B and, recursively, of every region nested in
  /// them, except the bodies of kernels when \p SkipKernels.
  void run(const ir::Block &B, bool SkipKernels);

  bool isInlined(const ir::Value *V) const { return Inlined.count(V); }
  bool isDead(const ir::Value *V) const { return Dead.count(V); }

private:
  void decide(const ir::Operation &Op);

  llvm::DenseSet<const ir::Value *> Inlined;
  llvm::DenseSet<const ir::Value *> Dead;
  /// Inlined values whose expression reads memory.
  llvm::DenseSet<const ir::Value *> ReadsMemory;
};

/// Ops without side effects and without memory reads.
bool isPureOp(const ir::Operation &Op);

} // namespace codegen
} // namespace tilec

#endif
