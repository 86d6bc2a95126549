//===- PlanSharedMemory.h - Shared buffers share bytes by liveness -*- C++ -*-//
//
// Expects: per-thread code after lower-pipelined (staged buffers carry
//   their stage dim; cp_async / cp_async_wait are explicit), before
//   insert-barriers and apply-shared-layouts. `annotate_layout` ops of
//   shared buffers may still be present: they only name the buffer.
// Does: per kernel, as TileLang's MergeSharedMemoryAllocations: numbers the
//   kernel's ops in program order (pre-order) and gives each accessed shared
//   buffer a live interval from its first to its last access. An access
//   inside a loop (`for`, `while`, `parallel`) or inside an `if` on a
//   thread-dependent condition extends the interval over that whole op
//   (conservatively: the buffer may be live around the back edge, and
//   threads run both branches of a divergent `if` at once), except the
//   last of a block's role blocks (`if {thread_range}` without else, as
//   T.ws and warp specialization make them), whose threads run its body in
//   program order; an access in an earlier role block extends over the
//   role blocks after it, which run at the same time; a buffer
//   written by `cp_async` stays live until the `cp_async_wait {pending = 0}`
//   that completes the copy, one written by `tma_load` until the last
//   `mbarrier_wait` on its mbarrier array. The consumers' role of a
//   warp-specialized TMA ring (`if {tma_role = "consumer"}`, beside a
//   producer role that only issues the ring's TMA loads) does not widen
//   its accesses: its threads run it in order, and the producer's writes
//   count until the consumers' waits, so buffers used after the consumers'
//   loop share the ring's bytes. Buffers are then placed in declaration order,
//   each at the lowest offset (0 or the end of a placed buffer, aligned)
//   that overlaps no placed buffer with an overlapping interval. Sizes and
//   alignments are those of the final buffers: the layout annotation
//   apply-shared-layouts will apply decides the (padded) size, and a
//   buffer with a dim of a multiple of 128 bytes is 128-byte aligned
//   (swizzled tensor-core operands), others 16. When sharing saves nothing,
//   declaration-order offsets (the sum) are kept. Each accessed shared
//   alloc gets `shared_offset = O, shared_bytes = B`; the kernel's shared
//   memory is the largest O + B, rounded up to 16.
//   An mbarrier array (`alloc {mbarrier = true}`) is live from its alloc to
//   the end of the kernel.
//   A `view` of a shared buffer (T.view / T.reshape) is its bytes: its
//   uses keep the buffer live, and it gets the buffer's `shared_offset`
//   and `shared_bytes`.
// Guarantees: two buffers whose byte ranges overlap are never live at once;
//   insert-barriers treats such buffers as the same memory, so a barrier
//   separates the last access of one from the first access of the other.
//   Reports err_shared_memory_limit (at the kernel, a note per buffer) when
//   the planned size exceeds the target's limit.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_PLANSHAREDMEMORY_H
#define TILEC_TRANSFORMS_PLANSHAREDMEMORY_H

#include "tilec/IR/Operation.h"
#include "tilec/Transforms/Pass.h"
#include "llvm/ADT/STLExtras.h"
#include <optional>
#include <utility>
#include <vector>

namespace tilec {
std::unique_ptr<Pass> createPlanSharedMemoryPass();

/// A shared buffer's live interval over the kernel's ops in pre-order
/// (inclusive positions) and its size.
struct SharedLiveRange {
  ir::Operation *Alloc;
  int64_t Begin, End;
  int64_t Bytes;
  /// False for a buffer nothing accesses (its interval is its alloc).
  bool Accessed;

  bool overlaps(const SharedLiveRange &O) const {
    return Begin <= O.End && O.Begin <= End;
  }
};

/// The live ranges of the shared buffers allocated in \p Kernel, in
/// declaration order; \p BytesOf gives each buffer's size. Tile operators
/// count as accesses of their whole buffers.
std::vector<SharedLiveRange>
sharedLiveRanges(ir::Operation &Kernel,
                 llvm::function_ref<int64_t(const ir::Value *)> BytesOf);

/// The largest total size of buffers live at one point: no plan of
/// \p Ranges needs less. Reports err_shared_memory_limit at \p Kernel, with
/// a note per buffer live there, when it exceeds the target's limit, and
/// returns false then.
bool checkPeakSharedMemory(const ir::Operation &Kernel,
                           const std::vector<SharedLiveRange> &Ranges,
                           PassContext &Ctx);

/// The bytes [offset, offset + size) plan-shared-memory reserved for
/// \p Buf (a shared buffer); nullopt when it was not planned.
std::optional<std::pair<int64_t, int64_t>>
plannedSharedRange(const ir::Value *Buf);
} // namespace tilec

#endif
