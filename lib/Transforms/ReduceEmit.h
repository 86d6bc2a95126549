//===- ReduceEmit.h - Shared by lower-reduce/cumsum -------------*- C++ -*-===//
//
// Expects: a Builder with an insertion point inside a kernel.
// Does: the scalar pieces of reductions and scans (identity values, |x|,
//   the combining op, warp shuffles, barriers) and the structural ones
//   (a `parallel` loop that already carries its `loop_layout` and
//   `vector_size = 1`, so that lower-parallel binds it without another run
//   of layout-inference; an alloc placed at the top of a kernel).
// Guarantees: only ops the CUDA emitter accepts after lowering (consts,
//   cast, math abs, add/min/max, shfl, barrier) plus `parallel` loops.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_REDUCEEMIT_H
#define TILEC_TRANSFORMS_REDUCEEMIT_H

#include "tilec/IR/Builder.h"
#include <string>

namespace tilec {

enum class ReduceKind { Sum, Max, Min, AbsSum, AbsMax };

/// "sum", "max", "min", "abssum", "absmax"; anything else is Sum (the
/// verifier has checked the kind).
ReduceKind parseReduceKind(llvm::StringRef Kind);

/// -inf / +inf / 0 for floats; the dtype's lowest / highest / 0 for ints.
ir::Value *identityValue(ir::Builder &B, ReduceKind K, DType T);
/// X cast to T, then |X| for the abs kinds.
ir::Value *prepareValue(ir::Builder &B, ReduceKind K, ir::Value *X, DType T);
/// add (sum kinds), max (max kinds) or min.
ir::Value *combineValues(ir::Builder &B, ReduceKind K, ir::Value *A,
                         ir::Value *X);
/// %r = shfl %v, Mask {mode = "xor", width = Width} (the warp width)
ir::Value *emitShflXor(ir::Builder &B, ir::Value *V, int64_t Mask,
                       int64_t Width);
void emitBarrier(ir::Builder &B);

/// `parallel {extents, loop_layout = Layout, vector_size = 1}` with
/// variables i, j, k, ...; the insertion point stays before it.
ir::Operation *createLayoutLoop(ir::Builder &B, llvm::ArrayRef<int64_t> Extents,
                                const std::string &Layout);
/// An alloc of T at the start of Kernel's body.
ir::Value *allocAtStart(ir::Operation &Kernel, const ir::Type &T,
                        llvm::StringRef Name);

} // namespace tilec

#endif
