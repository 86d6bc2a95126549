//===- LowerPipelined.h - Software pipelining of T.Pipelined -*- C++ -*-===//
//
// Expects: lowered kernels (after vectorize-loops, before fold-constants,
//   insert-barriers and apply-shared-layouts): copies from global into
//   shared memory are vcopies or load/store pairs inside for/if ops; loops
//   `for {kind = "pipelined", num_stages = S[, order, stage]}`.
// Does: per pipelined loop (inner loops first; PipelineSchedule.h finds the
//   producers, the copies that may be issued early):
//   - S >= 2: each producer's shared buffer gets a leading dim S and every
//     access of it the stage index; the schedule is
//       prologue: for s in [0, S-1): [if lo + s*step < hi] producers(s)
//                 into stage s; cp_async_commit
//       for k:    cp_async_wait {pending = S-2}; barrier;
//                 [if k + (S-1)*step < hi] producers(k + (S-1)*step) into
//                 stage (it + S-1) % S; cp_async_commit; the rest of the
//                 body reading stage it % S    (it = (k - lo) / step)
//       cp_async_wait {pending = 0} after the loop.
//     Group it holds iteration it; at iteration it, S - 1 + it groups are
//     committed, so wait_group S-2 completes groups 0..it. The barrier
//     publishes them and ends the reads of stage (it - 1) % S, which the
//     new producers overwrite. A commit is issued even when the guard
//     skips the copies, so that the counting stays uniform.
//   - S == 1: producers(k); commit; wait 0; barrier; the rest; barrier
//     (only when a copy can be asynchronous; no extra buffers).
//   With cp.async and S >= 2, the copies right before the loop whose
//   tiles only the loop reads (attention's Q) become cp_async where they
//   stand, joining the prologue's first group (AsyncCopies.h; off with
//   Target::AsyncPrologueCopies false).
//   Targets without asynchronous copies (AsyncCopy false: AMD) keep the
//   same stages with the producers' plain vectorized copies and no
//   cp_async_commit/wait; with S == 1 their loops run serially.
//   4/8/16-byte vcopies of producers become cp_async; bounds-guarded copy
//   loops become predicated cp_async (zero-fill when out of bounds) where
//   each run is all in or all out of bounds (PredicatedCopy.h); other
//   element-wise copies stay synchronous (still staged). User `order`/`stage`:
//   stage 0 statements are the producers (they must be hoistable copies), stage
//   S-1 the rest, issued in `order`; other assignments are errors
//   (err_bad_pipeline), as is shared memory over the target's limit after
//   staging (err_shared_memory_limit).
//   TMA (sm_90): when the producers are tma_loads (lower-tma), a ring of S
//   stages with full/empty mbarrier arrays instead (docs/pipeline.md):
//   thread 0 fills every stage first (expect_tx, the loads, its arrival);
//   each iteration waits for its stage's full barrier (parity it / S),
//   runs the consumers, and releases a stage: every thread arrives on its
//   empty barrier, and thread 0, once all have, refills it. With one wgmma
//   group in the consumers (S >= 2) the group stays in flight
//   (wgmma_wait {1}) and the stage released is the previous iteration's.
//   With warp specialization (Target::WarpSpecialize, unless the func has
//   `no_warp_specialize`), a loop at the kernel's top level in a 1-D block
//   of T >= 256 threads gets a producer warpgroup [T, T + 128) whose first
//   thread issues all loads; the rest of the kernel but allocs and pure
//   index ops becomes the consumers' role block [0, T). The roles are
//   marked `tma_role = "producer"` / `"consumer"`: the producer does
//   nothing but load the stages the consumers' loop waits for
//   (plan-shared-memory relies on it). tma_loads before the loop in its
//   block without an mbarrier whose tiles the loop reads (lower-tma's
//   prologue loads) complete on an mbarrier of their own (`tma_pre`),
//   issued by the loader before the ring's first stage; the consumers wait
//   for it (parity 0) right before the loop, then meet at a `barrier` (so
//   that ptxas knows the warps converged).
//   Loops without producers, with S = 0, a non-constant step, a
//   break/continue, or under thread-dependent control flow run serially
//   (correct, not overlapped).
// Guarantees: no `pipelined` loop remains (all become `serial`); the data
//   of iteration it is read from stage it % S only after the wait and the
//   barrier (TMA: the full mbarrier) that follow its copies; a TMA stage is
//   refilled only after every consumer released it; every barrier is
//   reached by all threads; every tma_load has its mbarrier.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERPIPELINED_H
#define TILEC_TRANSFORMS_LOWERPIPELINED_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerPipelinedPass();
} // namespace tilec

#endif
