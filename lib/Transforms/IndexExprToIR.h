//===- IndexExprToIR.h - Between layout expressions and IR ops -*- C++ -*-===//
//
// The lowering passes compute indices with the layout library (IndexExpr +
// simplifier) and need to move between those expressions and i32 IR ops.
//
// Expects: i32 index values; thread ids and loop variables with known
// ranges.
// Does:
//   - IndexAtoms (tilec/IR/IndexAtoms.h, shared with Sema) reads an i32 IR
//     value as an IndexExpr; unknown values become atoms with the range the
//     IR states for them.
//   - emitIndexExpr writes an expression back as IR ops (Python floor
//     semantics map to floordiv/floormod; constants to `const`), with the
//     atoms bound to IR values.
//   - remapThroughLayout rewrites one buffer access (an operand group
//     %buf[i..]) to %buf[flat(L(i..))]: the indices are read as
//     expressions, mapped by the layout, flattened row-major over its
//     output shape, simplified and emitted before the access;
//   - emitLinearThreadId builds tx = tid0 + X * (tid1 + Y * tid2) for a
//     kernel with threads = [X, Y, Z] (dims of size 1 are skipped).
// Guarantees: a value read by IndexAtoms and re-emitted computes the same
// number.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_INDEXEXPRTOIR_H
#define TILEC_TRANSFORMS_INDEXEXPRTOIR_H

#include "tilec/IR/Builder.h"
#include "tilec/IR/IndexAtoms.h"
#include "tilec/Layout/IndexExpr.h"
#include "tilec/Layout/Layout.h"

namespace tilec {

using ir::AtomValues;
using ir::IndexAtoms;

/// Emits \p E at B's insertion point; every variable of E must be in Vars.
ir::Value *emitIndexExpr(ir::Builder &B, const layout::IndexExpr &E,
                         const AtomValues &Vars);

/// The index variables of one lowering (thread coordinates, loop
/// variables) with their ranges: expressions over them are simplified with
/// those ranges and emitted, and `for` loops bind new ones.
class IndexScope {
public:
  explicit IndexScope(ir::Builder &B) : B(B) {}

  /// Binds \p Name to \p V, ranging over [0, Extent).
  void bind(llvm::StringRef Name, ir::Value *V, int64_t Extent);
  /// \p E, simplified with the ranges, as IR at B's insertion point.
  ir::Value *emit(const layout::IndexExpr &E);
  /// Runs \p Body inside `for iv in [0, N) {Kind}`, passing the variable
  /// as an expression (directly with 0 when N is 1, nothing when N is 0).
  void forLoop(int64_t N, llvm::StringRef Kind, llvm::StringRef Name,
               llvm::function_ref<void(layout::IndexExpr)> Body);

private:
  ir::Builder &B;
  AtomValues Vars;
  layout::VarExtents Extents;
  unsigned LoopCount = 0;
};

/// Replaces the indices of operand group \p Group of \p User by the flat
/// position of their image under \p L (see above).
void remapThroughLayout(ir::Operation &User, unsigned Group,
                        const layout::Layout &L);

/// The linear thread index of the block of \p Kernel at B's insertion point.
ir::Value *emitLinearThreadId(ir::Builder &B, const ir::Operation &Kernel);

/// Product of the kernel's `threads` attribute.
int64_t kernelThreadCount(const ir::Operation &Kernel);

/// The threads that tile operators at an op are split over: those of the
/// innermost enclosing role block (`with T.ws(g)`: an `if` with
/// `thread_range = [offset, count]` over the linear thread index), else
/// all threads of the kernel (offset 0).
struct ThreadRange {
  int64_t Offset = 0;
  int64_t Count = 1;
  bool operator==(const ThreadRange &O) const {
    return Offset == O.Offset && Count == O.Count;
  }
  bool operator!=(const ThreadRange &O) const { return !(*this == O); }
};
ThreadRange threadRangeOf(const ir::Operation &Op);

/// The role block (`if` with `thread_range`) innermost around \p Op, or
/// null.
ir::Operation *enclosingRole(const ir::Operation &Op);

/// The linear thread index within threadRangeOf(\p At) (the linear index
/// less the range's offset) at B's insertion point.
ir::Value *emitRangeThreadId(ir::Builder &B, const ir::Operation &At);

} // namespace tilec

#endif
