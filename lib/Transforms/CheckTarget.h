//===- CheckTarget.h - Checks that need to know the target GPU -*- C++ -*-===//
//
// Expects: a module after copy-extent.
// Does: per kernel, finds the most shared memory live at one point (buffers
//   with disjoint lifetimes share bytes, see PlanSharedMemory.h), counting
//   a buffer filled by a copy inside a `T.Pipelined(num_stages=n)` loop n
//   times (the pipeliner multi-buffers it), and compares it with the
//   target's per-block limit (plan-shared-memory checks the final plan);
//   rejects dtypes the target's tensor cores or
//   memory system cannot handle (fp8 before sm_89 and on AMD, 4-bit
//   types in gemm) and instructions the target lacks
//   (`mbarrier_expect_tx` before sm_90; mbarriers and named barriers on
//   AMD, err_feature_unsupported; a T.wgmma_gemm, `gemm {wgmma_async}`, and
//   a user's `wgmma_wait {user}` before sm_90 or with wgmma turned off).
// Guarantees: reports err_shared_memory_limit with a note per shared buffer
//   live at the peak,
//   err_dtype_unsupported_on_target at the op that needs the dtype,
//   err_instruction_needs_target at the op that needs sm_90; never
//   changes the IR.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_CHECKTARGET_H
#define TILEC_TRANSFORMS_CHECKTARGET_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createCheckTargetPass();
} // namespace tilec

#endif
