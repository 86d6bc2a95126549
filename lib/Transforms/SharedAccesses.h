//===- SharedAccesses.h - Shared accesses and their threads -----*- C++ -*-===//
//
// The analysis half of insert-barriers (InsertBarriers.h has the pass).
//
// Expects: lowered kernels: shared buffers accessed by per-thread `load`,
//   `store`, `vcopy`, `cp_async` and element `atomic`; tile operators still
//   there (gemm, copy, ...) touch their whole shared operands.
// Does:
//   - accessesOf / nestedAccesses list the shared accesses of an op, each
//     a read or a write of one operand group, exact (one element, or
//     Lanes elements, per thread at the group's indices) or whole-buffer.
//     Layout annotations, mbarrier ops and TMA loads are not data accesses
//     (the hardware or the pipeline's mbarriers order them).
//   - ThreadOwnership decides whether two exact accesses of one buffer
//     can touch one element from two different threads, by evaluating
//     their indices for every thread and every value of the loop variables
//     they use, skipping points where an enclosing `if` whose condition
//     can be evaluated is not taken. Indices built from anything else
//     (block indices, loaded values, loops with unknown bounds) are not
//     analysed: such accesses always conflict.
// Guarantees: read-only; "same threads only" is never claimed for accesses
//   it cannot enumerate (above 2^18 points, or deeper than 64 ops).
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_SHAREDACCESSES_H
#define TILEC_TRANSFORMS_SHAREDACCESSES_H

#include "tilec/IR/Operation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include <array>
#include <map>
#include <optional>
#include <vector>

namespace tilec {

/// One access of a shared buffer by one op.
struct SharedAccess {
  ir::Operation *Op;
  unsigned Group; // operand group: the buffer and, when Exact, its indices
  bool Write;
  bool Atomic;
  bool Exact; // one element (Lanes for vcopy) per thread at the indices
  int64_t Lanes;

  ir::Value *buffer() const { return Op->getGroup(Group)[0]; }
  bool operator==(const SharedAccess &O) const {
    return Op == O.Op && Group == O.Group;
  }
};

using AccessSet = std::vector<SharedAccess>;

void addUnique(AccessSet &S, const SharedAccess &A);
void addAll(AccessSet &S, const AccessSet &New);

/// The shared accesses \p Op makes itself (not those of nested ops).
AccessSet accessesOf(ir::Operation &Op);

/// Every shared access made by \p Op or the ops nested in it.
AccessSet nestedAccesses(ir::Operation &Op);

/// Which thread touches which element of a shared buffer (see above).
class ThreadOwnership {
public:
  explicit ThreadOwnership(std::array<int64_t, 3> Threads) : Threads(Threads) {}

  /// True when no element is touched by \p A on one thread and by \p B on
  /// another. The variables of the loops in \p SameIteration take the same
  /// value for both accesses (both happen in one iteration of those).
  bool
  sameThreadsOnly(const SharedAccess &A, const SharedAccess &B,
                  const llvm::SmallPtrSetImpl<ir::Operation *> &SameIteration);

private:
  /// A loop variable to enumerate and its values.
  struct Range {
    const ir::Value *Var;
    int64_t Lo, Step, Count;
  };

  /// The condition of an enclosing `if` and the branch the access is in.
  struct Guard {
    const ir::Value *Cond;
    bool Taken;
  };

  /// What enumerating an exact access needs.
  struct AccessSpace {
    std::vector<Range> Ranges;
    std::vector<Guard> Guards;
    std::vector<int64_t> Shape;
  };

  /// Flat element -> the thread touching it, or -1 when several do.
  using OwnerMap = llvm::DenseMap<int64_t, int64_t>;
  /// Values given to variables (loop variables, then memoized results).
  using ValueEnv = llvm::DenseMap<const ir::Value *, int64_t>;

  static constexpr int64_t MaxPoints = 1 << 18;

  static std::optional<Range> loopVarRange(const ir::Value *V);
  const std::optional<AccessSpace> &spaceOf(const SharedAccess &A);
  std::optional<AccessSpace> computeSpace(const SharedAccess &A);
  std::optional<OwnerMap> owners(const SharedAccess &A, const AccessSpace &S,
                                 const ValueEnv &Fixed);
  /// Owner maps without fixed variables, cached.
  const std::optional<OwnerMap> &freeOwners(const SharedAccess &A,
                                            const AccessSpace &S);
  bool disjoint(const OwnerMap &A, const OwnerMap &B) const;
  /// Evaluations enumerating \p A takes (capped just above MaxPoints).
  int64_t points(const SharedAccess &A, const AccessSpace &S) const;
  bool collectRanges(const ir::Value *V, std::vector<Range> &Ranges,
                     llvm::SmallPtrSetImpl<const ir::Value *> &Seen,
                     unsigned Depth = 0);
  std::optional<int64_t> eval(const ir::Value *V, int64_t Tx, ValueEnv &Env,
                              unsigned Depth = 0);

  std::array<int64_t, 3> Threads;
  std::map<std::pair<ir::Operation *, unsigned>, std::optional<AccessSpace>>
      Spaces;
  std::map<std::pair<ir::Operation *, unsigned>, std::optional<OwnerMap>>
      Owners;
};

} // namespace tilec

#endif
