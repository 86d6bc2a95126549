//===- IndexInterpreter.h - Evaluating integer index code -------*- C++ -*-===//
//
// A small interpreter for the integer scalar code of the lowered IR (the
// flat i32 index expressions of thread_id, loop variables, block indices
// and constants), for analyses that simulate what threads compute, such as
// report-bank-conflicts.
//
// Expects: verified IR. Values it is given are scalar SSA values.
// Does: evaluates a value for one thread: `const` (integer and bool),
//   `thread_id` (from the linear thread index and the kernel's `threads`
//   extents, x fastest), the integer scalar ops of ConstantMatch's
//   evalIntOp (binary ops, cmp, select, integer casts) plus `not` and
//   `neg`, wrapping every result to its dtype; block arguments and any
//   other value only through bind(). Results are cached until the next
//   bind() or setThread().
// Guarantees: never asserts on what it cannot evaluate (loads, floats,
//   unbound arguments, division by zero, expressions deeper than
//   MaxDepth): eval() returns std::nullopt then.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_INDEXINTERPRETER_H
#define TILEC_TRANSFORMS_INDEXINTERPRETER_H

#include "llvm/ADT/DenseMap.h"
#include <array>
#include <cstdint>
#include <optional>

namespace tilec {
namespace ir {
class Value;
}

class IndexInterpreter {
public:
  /// Operand chains deeper than this are not evaluated.
  static constexpr unsigned MaxDepth = 256;

  /// \p Threads: the kernel's `threads` extents (x, y, z).
  explicit IndexInterpreter(std::array<int64_t, 3> Threads = {1, 1, 1})
      : Threads(Threads) {}

  /// The thread whose values eval() computes: linear index
  /// x + X * (y + Y * z).
  void setThread(int64_t LinearTid);
  int64_t getThread() const { return Tid; }
  /// Gives \p V (a loop variable, block index, func argument) a value.
  void bind(const ir::Value *V, int64_t X);
  void unbind(const ir::Value *V);
  bool isBound(const ir::Value *V) const { return Bound.count(V); }

  std::optional<int64_t> eval(const ir::Value *V);

private:
  std::optional<int64_t> evalUncached(const ir::Value *V, unsigned Depth);
  std::optional<int64_t> evalAt(const ir::Value *V, unsigned Depth);

  std::array<int64_t, 3> Threads;
  int64_t Tid = 0;
  llvm::DenseMap<const ir::Value *, int64_t> Bound;
  /// Memoized results; std::nullopt entries remember failures.
  llvm::DenseMap<const ir::Value *, std::optional<int64_t>> Cache;
};

} // namespace tilec

#endif
