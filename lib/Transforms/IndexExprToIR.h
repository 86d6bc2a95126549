//===- IndexExprToIR.h - Between layout expressions and IR ops -*- C++ -*-===//
//
// The lowering passes compute indices with the layout library (IndexExpr +
// simplifier) and need to move between those expressions and i32 IR ops.
//
// Expects: i32 index values; thread ids and loop variables with known
// ranges.
// Does:
//   - IndexAtoms reads an i32 IR value as an IndexExpr (toExpr): consts,
//     add/sub/mul/floordiv/floormod/min/max/xor/and become expression nodes;
//     any other value becomes an atom variable. Atoms get extents where the
//     IR says the range: `thread_id {dim = d}` -> [0, threads[d]); the
//     variable of a `for %c0, %cN, %c1` -> [0, N); a `parallel` variable ->
//     [0, extent). Other atoms are unbounded.
//   - emitIndexExpr writes an expression back as IR ops (Python floor
//     semantics map to floordiv/floormod; constants to `const`), with the
//     atoms bound to IR values.
//   - remapThroughLayout rewrites one buffer access (an operand group
//     %buf[i..]) to %buf[flat(L(i..))]: the indices are read as
//     expressions, mapped by the layout, flattened row-major over its
//     output shape, simplified and emitted before the access;
//   - emitLinearThreadId builds tx = tid0 + X * (tid1 + Y * tid2) for a
//     kernel with threads = [X, Y, Z] (dims of size 1 are skipped).
// Guarantees: toExpr never fails (unknown values are atoms), so a value
// read and re-emitted computes the same number.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_INDEXEXPRTOIR_H
#define TILEC_TRANSFORMS_INDEXEXPRTOIR_H

#include "tilec/IR/Builder.h"
#include "tilec/Layout/IndexExpr.h"
#include "tilec/Layout/Layout.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace tilec {

/// Atom variable name -> the IR value it stands for.
using AtomValues = llvm::StringMap<ir::Value *>;

class IndexAtoms {
public:
  /// The expression computing \p V (an integer scalar).
  layout::IndexExpr toExpr(ir::Value *V);
  /// A variable standing for V itself, with V's range when known.
  layout::IndexExpr atom(ir::Value *V);
  /// Binds \p Name to \p V with range [0, Extent) (Extent <= 0: unbounded).
  layout::IndexExpr bind(llvm::StringRef Name, ir::Value *V, int64_t Extent);

  const layout::VarExtents &getExtents() const { return Extents; }
  const AtomValues &getValues() const { return Values; }

private:
  std::optional<int64_t> rangeOf(ir::Value *V) const;

  llvm::DenseMap<ir::Value *, std::string> Names;
  AtomValues Values;
  layout::VarExtents Extents;
};

/// Emits \p E at B's insertion point; every variable of E must be in Vars.
ir::Value *emitIndexExpr(ir::Builder &B, const layout::IndexExpr &E,
                         const AtomValues &Vars);

/// Replaces the indices of operand group \p Group of \p User by the flat
/// position of their image under \p L (see above).
void remapThroughLayout(ir::Operation &User, unsigned Group,
                        const layout::Layout &L);

/// The linear thread index of the block of \p Kernel at B's insertion point.
ir::Value *emitLinearThreadId(ir::Builder &B, const ir::Operation &Kernel);

/// Product of the kernel's `threads` attribute.
int64_t kernelThreadCount(const ir::Operation &Kernel);

} // namespace tilec

#endif
