//===- LayoutInference.h - Fragment and loop layouts -----------*- C++ -*-===//
//
// Expects: kernels after expand-tile-ops: data movement is in `parallel`
//   loops; fragment buffers are accessed inside those loops with loop
//   variables, or expressions of them and of the variables of
//   constant-bound, non-pipelined `for` loops around or inside the loop,
//   as indices (a size-1 dim may use the constant 0); `reduce`, `cumsum`,
//   `gemm` and `annotate_layout` may remain.
// Does (TileLang's inference, CUDA-core version; paper section 4.2): with T
//   = the kernel's thread count (product of `threads`), gives every
//   fragment a Fragment layout and every `parallel` loop a loop layout (a
//   Fragment over its iteration space), by levels, each to a fixpoint:
//   - strict: `annotate_layout` of a fragment with a Fragment in the
//     library's printed form (the op is then removed). gemm operands are
//     reserved for the gemm lowering and get nothing here;
//   - common: `reduce` derives dst from src (each dst element replicated on
//     the threads that hold part of its src row); `cumsum` shares src/dst;
//   - free: a loop that indexes a fragment with exactly its loop variables
//     (size-1 dims ignored) takes the fragment's layout and passes its own
//     to such fragments; a fragment indexed by a subset of the variables
//     (a broadcast such as `scale[i]` in an (i, j) loop) gets the derived,
//     replicated layout; a fragment indexed by other expressions of the
//     loop variables (`b[i, j // 2]`) gets the image of the loop layout
//     (FragmentDerive.h), or is checked by enumeration when it has a
//     layout; a `for` variable in an index counts as an extra loop
//     dimension on registers (each thread runs all its values), and its
//     loop is made `unroll` so register indices stay constants;
//     when nothing propagates, a fragment whose access has no
//     closed-form image is replicated on every thread (small fragments
//     only), then so is a fragment touched by loads or stores outside
//     any `parallel` loop (every thread runs them: a mask tested in a
//     serial loop), else the first loop without a layout (one with such a `for`
//     variable first) gets makeDefaultFragment(extents, T, V), except a
//     loop that touches only `local`/`var` buffers, which each thread owns:
//     it gets a layout replicated on every thread (all run it whole).
//   V is the widest of 16, 8, 4, 2, 1 elements (at most 16 bytes per
//   memory access; fragments bound V only in loops without memory
//   accesses) such that every global/shared/local access in the loop is
//   contiguous along the last loop variable with unit stride and starts at
//   a multiple of V (static strides divisible by V; a symbolic stride adds
//   `S % n == 0` to the func's `assumes`, checked by the launcher), the
//   last extent is a multiple of V, and the loop layout gives each thread
//   runs of V consecutive iterations.
//   A fragment `view` (T.reshape) and its source hold the same registers:
//   when either gets a layout, the other gets its row-major reshape (and
//   a different layout for either is a conflict).
// Guarantees: every fragment alloc has `layout = "Fragment(...)"`; every
//   parallel loop has `loop_layout = "Fragment(...)"` and `vector_size =
//   V`; a fragment indexed in a loop is held, for every iteration, by the
//   threads that run it. A loop that only writes a fragment it cannot
//   hold, or only copies one into another fragment, is redirected through
//   a shared `<name>_stage` buffer and a copy loop in the fragment's
//   layout (FragmentStage.h). Other uses needing different layouts of one
//   fragment give err_layout_conflict at one use and a note at the other.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_LAYOUTINFERENCE_H
#define TILEC_TRANSFORMS_LAYOUTINFERENCE_H

#include "tilec/Layout/Layout.h"
#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createLayoutInferencePass();

/// The layout of \p Loop restricted to the loop variables at \p Kept (in
/// order; the others are broadcast over): element p is held by every thread
/// that runs an iteration projecting to p, once per thread when the
/// projection condenses (see FragmentDerive.h). The result is reshaped to
/// \p Shape (same element count).
std::optional<layout::Fragment>
deriveProjectedFragment(const layout::Fragment &Loop,
                        llvm::ArrayRef<unsigned> Kept,
                        llvm::ArrayRef<int64_t> Shape, int64_t Threads);
} // namespace tilec

#endif
