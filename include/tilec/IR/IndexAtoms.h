//===- IndexAtoms.h - IR values as index expressions ------------*- C++ -*-===//
//
// Both Sema (user layout functions evaluated on symbolic iterators) and the
// lowering passes (access indices) need to see an i32 IR value as an
// expression of the layout library.
//
// Expects: integer scalar values; thread ids and loop variables whose
// ranges the IR states.
// Does: toExpr reads consts, add/sub/mul/floordiv/floormod/min/max/xor/and
// (floordiv/floormod only by a positive constant) as expression nodes; any
// other value becomes an atom variable ("v0", "v1", ... unless bound to a
// name first with bind). Atoms get extents where the IR says the range:
// `thread_id {dim = d}` -> [0, threads[d]); the variable of a
// `for %c0, %cN, %c1` -> [0, N); a `parallel` variable -> [0, extent);
// `sub %tid, %cO` of a one-dimensional block's thread id, inside a role
// block (`if {thread_range = [O, N]}`) -> [0, N), the thread's index in
// the role (kept whole: its parts alone have no such range); with O = 0
// the thread id itself.
// Other atoms are unbounded.
// Guarantees: toExpr never fails (unknown values are atoms), so a value
// read and re-emitted (Transforms' emitIndexExpr) computes the same number.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_IR_INDEXATOMS_H
#define TILEC_IR_INDEXATOMS_H

#include "tilec/IR/Operation.h"
#include "tilec/Layout/IndexExpr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringMap.h"

namespace tilec {
namespace ir {

/// Atom variable name -> the IR value it stands for.
using AtomValues = llvm::StringMap<Value *>;

class IndexAtoms {
public:
  /// The expression computing \p V (an integer scalar).
  layout::IndexExpr toExpr(Value *V);
  /// A variable standing for V itself, with V's range when known.
  layout::IndexExpr atom(Value *V);
  /// Binds \p Name to \p V with range [0, Extent) (Extent <= 0: unbounded).
  layout::IndexExpr bind(llvm::StringRef Name, Value *V, int64_t Extent);

  const layout::VarExtents &getExtents() const { return Extents; }
  const AtomValues &getValues() const { return Values; }

  /// N when \p V is a thread's index in its role [O, O + N) (above).
  static std::optional<int64_t> roleThreadRange(const Value *V);

private:
  std::optional<int64_t> rangeOf(Value *V) const;

  llvm::DenseMap<Value *, std::string> Names;
  AtomValues Values;
  layout::VarExtents Extents;
};

} // namespace ir
} // namespace tilec

#endif // TILEC_IR_INDEXATOMS_H
