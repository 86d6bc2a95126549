//===- LowerPipelined.h - T.Pipelined loops, CUDA-core version -*- C++ -*-===//
//
// Expects: any module; typically after lower-fragments, before
//   insert-barriers (which must see the loop as the serial loop it becomes).
// Does: every `for {kind = "pipelined", num_stages = n[, order, stage]}`
//   becomes `for {kind = "serial"}`: the num_stages, order and stage
//   attributes are dropped. This is the CUDA-core version: each iteration
//   loads its tiles and then computes, which is what the pipelined loop
//   means once the stages are not overlapped. Overlap (cp.async into n
//   shared buffers, with waits between the stages) comes with the
//   tensor-core lowering; check-target has already counted the n copies of
//   the staged buffers against the shared memory limit.
// Guarantees: no `pipelined` loop remains; bounds, body and locations are
//   unchanged.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LOWERPIPELINED_H
#define TILEC_TRANSFORMS_LOWERPIPELINED_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLowerPipelinedPass();
} // namespace tilec

#endif
