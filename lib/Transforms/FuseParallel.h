//===- FuseParallel.h - Nested T.Parallel loops become one ------*- C++ -*-===//
//
// Expects: a module from Sema (tile IR).
// Does: a `parallel` loop whose body is one `parallel` loop and otherwise
//   only pure scalar ops (`for i in T.Parallel(M): for j in T.Parallel(N):`,
//   and TVM's `T.parallel` spelled the same way) becomes one loop over both
//   iteration spaces, as TileLang treats such a nest: extents
//   [M..., N...], the outer variables first. Applied inside out, so a
//   deeper nest fuses whole. Loops that carry attributes other than
//   `extents` (a user's loop layout) are left alone.
// Guarantees: the iterations and the ops each one runs are unchanged (the
//   scalar ops, now run once per inner iteration, have no effects); the
//   module still verifies.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_FUSEPARALLEL_H
#define TILEC_TRANSFORMS_FUSEPARALLEL_H

#include "tilec/Transforms/Pass.h"

namespace tilec {
std::unique_ptr<Pass> createFuseParallelPass();
} // namespace tilec

#endif
