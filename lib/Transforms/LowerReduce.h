//===- LowerReduce.h - T.reduce_* on CUDA cores -----------------*- C++ -*-===//
//
// Expects: layout-inference output (every fragment alloc has `layout =
//   "Fragment(...)"`); runs before lower-parallel and lower-fragments, which
//   lower the `parallel` loops and fragment accesses this pass emits.
// Does: replaces each `reduce %src, %dst {kind, dim, clear}` (kinds max,
//   min, sum, abssum, absmax; abs* reduce |x|; the dst dtype accumulates):
//   - fragment src and dst (layouts S and D), TileLang's scheme:
//     1. every register of the accumulator (dst itself when clear, else a
//        temporary fragment with D's layout) gets the identity (-inf / +inf
//        / 0; the dtype's extremes for integers);
//     2. a `parallel` loop over src with `loop_layout` S and `vector_size`
//        1 folds each src element into the accumulator element of its row,
//        on every thread that runs it (only the replica-0 thread when S is
//        replicated, so sums count each element once);
//     3. per register r of D: the threads holding one dst element form the
//        same xor group V for every element (checked by enumeration); a
//        `shfl` butterfly (mode xor) over V's basis masks below 32 combines
//        inside a warp; masks >= 32 go through a shared scratch buffer
//        `[R, P]` (P = T rounded up to a power of 2): store, `barrier`,
//        combine the slots tx ^ s for s in the span of the wide masks,
//        `barrier`;
//     4. clear = false: dst = op(dst, accumulator).
//     Steps 1, 3, 4 run on every thread for every register r and address
//     the register as `%dst[e_r]` with constant indices e_r (an element D
//     keeps in r): lower-fragments maps an access by D's forward_index
//     alone, so this is register r on every thread, whichever element the
//     thread holds there. No guard surrounds a `shfl`, so every lane
//     reaches it.
//   - shared (or global) src: `barrier`, a `parallel` loop over dst (its
//     layout D when dst is a fragment, else the default fragment) whose
//     body folds the reduced dim serially into a `local<[1]>` accumulator,
//     `barrier`.
//   - fragment src, shared dst: the fragment scheme into a temporary
//     fragment in the layout derived from src, then one thread per row
//     (replica 0 of the row's first src element) stores it. A fragment src
//     with a local dst is reported.
//   Inside a role (a thread-range `if`: T.ws, `if tx < K`) only the
//   fragment scheme without shared exchange runs (no block barrier there):
//   the role must be whole warps and each row's threads one warp's lanes.
//   Also, with step 3 alone (its butterfly and shared exchange):
//   - `finalize_reducer %acc` (T.finalize_reducer, after reducer-updates):
//     every register of the reducer combined in place across the threads
//     holding its element, which must be one xor pattern;
//   - `%r = allreduce %v {kind, dims}` (T.tvm_thread_allreduce): the
//     block's threads grouped by their indices in the dims not named, the
//     groups one xor pattern of the linear thread index; %v goes through
//     a `local<[1]>` accumulator and %r is its final value. Only serial
//     loops may enclose it (every thread reaches every shfl and barrier).
// Guarantees: no `reduce`, `finalize_reducer` or `allreduce` op remains on
//   success, and no alloc keeps its `reducer` attribute (the reducers are
//   plain fragments from here on); every replica of a dst element holds the
//   full reduction. A layout pair outside the scheme, thread groups that are
//   not one xor pattern, or a role reduction that would need the block, gives
//   err_reduce_layout.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERREDUCE_H
#define TILEC_TRANSFORMS_LOWERREDUCE_H

#include "tilec/Layout/Layout.h"
#include "tilec/Transforms/Pass.h"
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace tilec {

std::unique_ptr<Pass> createLowerReducePass();

/// How the threads of a fragment reduction combine their partials.
struct ReduceThreadPlan {
  /// Xor distances inside a warp (< the target's warp width: 32 lanes on
  /// NVIDIA, a wavefront of 64 on AMD), largest first: one shfl each.
  std::vector<int64_t> LaneMasks;
  /// Every non-zero xor distance of the cross-warp part (the span of the
  /// basis masks >= the warp width): the shared-memory slots a thread
  /// combines.
  std::vector<int64_t> WarpOffsets;
  /// Per register of dst (row-major over D's output shape): an element D
  /// keeps there; nullopt for a register no element uses.
  std::vector<std::optional<layout::Indices>> RegisterElement;
};

/// The shuffle masks and cross-warp offsets that combine a value among
/// the threads of each group of \p Groups (linear thread indices), when
/// every group is t ^ V for one xor group V; RegisterElement stays empty.
/// nullopt with \p Why otherwise.
std::optional<ReduceThreadPlan>
planXorCombine(const std::vector<std::set<int64_t>> &Groups, int64_t WarpSize,
               std::string &Why);

/// The plan that combines every register of \p F across the threads
/// holding its element (the replicas), for T.finalize_reducer.
std::optional<ReduceThreadPlan> planReplicaCombine(const layout::Fragment &F,
                                                   int64_t WarpSize,
                                                   std::string &Why);

/// The dst element of src element \p SrcIdx reduced along \p Dim, for a dst
/// of rank \p DstRank (src rank - 1, src rank with dim kept as 1, or [1]).
layout::Indices reducedIndex(llvm::ArrayRef<int64_t> SrcIdx, unsigned Dim,
                             unsigned DstRank);

/// Checks by enumeration that \p Src reduced along \p Dim into \p Dst fits
/// the scheme above and returns the plan; nullopt with \p Why otherwise.
/// Only the replica-0 copy of a src element contributes. \p WarpSize is
/// the target's warp (wavefront) width.
std::optional<ReduceThreadPlan>
planFragmentReduce(const layout::Fragment &Src, const layout::Fragment &Dst,
                   unsigned Dim, int64_t WarpSize, std::string &Why);

} // namespace tilec

#endif
