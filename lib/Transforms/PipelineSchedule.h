//===- PipelineSchedule.h - What a T.Pipelined body is made of -*- C++ -*-===//
//
// The analysis half of lower-pipelined (LowerPipelined.h has the pass).
//
// Expects: a `for {kind = "pipelined"}` op of a lowered kernel (per-thread
//   code: vcopy/load/store, unrolled and vectorized loops, if guards).
// Does: splits the top-level ops of the loop body into
//   - free ops: pure scalar ops (const, arithmetic, cmp, select, cast, math,
//     thread_id) computed only from the loop variable, loop-invariant
//     values and other free ops; they may move anywhere before their uses;
//   - items: every other top-level op, followed by the pure ops that depend
//     on it (which stay attached to it);
//   and decides for each item whether it is a hoistable producer: a copy
//   from global into shared memory (vcopy, tma_load, or load of a global +
//   store to shared, inside for/if ops) that can run S - 1 iterations early:
//   its global sources are written nowhere in the loop, everything it uses
//   from the body is a free op (its slice), and each shared destination is
//   allocated outside the loop, written by no other item, read by no item
//   before it, used outside the loop only by annotate_layout, and accessed
//   in the loop only with full indices (so a stage index can be prepended).
//   Statements (for the user's `order`/`stage` lists) are runs of items
//   whose first ops have one source location: a lowered T.copy or T.gemm
//   keeps the location of its statement.
// Guarantees: read-only; the slices list free ops in body order.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_PIPELINESCHEDULE_H
#define TILEC_TRANSFORMS_PIPELINESCHEDULE_H

#include "tilec/IR/Operation.h"
#include "llvm/ADT/SmallVector.h"
#include <optional>
#include <vector>

namespace tilec {

/// A copy that may be issued ahead of its iteration.
struct Producer {
  /// Pure top-level ops of the body it uses, in body order.
  std::vector<ir::Operation *> Slice;
  /// The shared buffers it fills (each written by no other item).
  llvm::SmallVector<ir::Value *, 2> Dsts;
};

/// One top-level op of the body and the pure ops attached to it.
struct BodyItem {
  std::vector<ir::Operation *> Ops;
  std::optional<Producer> Prod;
  ir::Operation *head() const { return Ops.front(); }
};

struct PipelineBody {
  std::vector<ir::Operation *> FreeOps;
  std::vector<BodyItem> Items;
  /// Items grouped by source statement: indices into Items, in order.
  std::vector<std::vector<unsigned>> Statements;
};

/// Pure scalar op without memory effects (thread_id included).
bool isPureScalarOp(const ir::Operation &Op);

/// Whether operand group \p G of \p Op is written (unknown ops write).
bool groupIsWritten(const ir::Operation &Op, unsigned G);

/// Puts \p Idx in front of the indices of every group of \p Op on \p Buf
/// (the version of a multi-versioned buffer).
void prependIndex(ir::Operation &Op, const ir::Value *Buf, ir::Value *Idx);

/// Whether every use of \p Buf lets a stage index be prepended to it: no
/// view aliases it, only annotate_layout uses it outside \p Loop, and every
/// access inside \p Loop has full indices.
bool hasStageableUses(const ir::Operation &Loop, const ir::Value *Buf);

/// Whether \p Loop can be software-pipelined: a positive constant step
/// (returned in \p Step), no break/continue of it, no user mbarrier or role
/// synchronization inside, and only uniform control flow around it (every
/// thread of the block runs it the same way).
bool canSoftwarePipeline(ir::Operation &Loop, int64_t &Step);

/// Splits the body of the pipelined loop \p Loop (see the file comment).
PipelineBody analyzePipelineBody(ir::Operation &Loop);

} // namespace tilec

#endif
