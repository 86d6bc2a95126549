//===- AsyncCopies.h - Copies lower-pipelined makes async ---*- C++ -*-===//
//
// Part of lower-pipelined (LowerPipelined.h): which copies from global into
// shared memory become cp_async, inside a pipelined loop and right before
// it.
//
// Expects: lowered kernels as lower-pipelined sees them (vcopies and
//   bounds-guarded copy loops, PredicatedCopy.h).
// Does:
//   - asyncBytes / hasAsyncCopy / makeAsync: 4/8/16-byte vcopies from
//     global into shared memory become cp_async, guarded copy loops
//     predicated cp_asyncs.
//   - prologueCopies(Loop): the ops before a pipelined loop in its block
//     whose copies may join the first cp_async group of its prologue
//     (attention's Q tile, read by every iteration): issued asynchronously
//     where they stand, they are in flight with the first stages' copies
//     instead of delaying them by a memory latency. An op qualifies when
//     it has an asynchronous copy, makes no shared access but writes, and
//     every shared buffer D it writes is read in the loop and written
//     nowhere in it, and no op between it and the loop touches D or may
//     leave the block (break, continue).
// Guarantees: the caller emits the loop's prologue with an unconditional
//   cp_async_commit before the loop and a cp_async_wait at the top of its
//   first iteration that completes the first group, followed by a barrier,
//   and a cp_async_wait {pending = 0} after the loop: every read of D then
//   follows a wait that covers the copies (a group completes only after
//   every earlier one), in the loop and after it, also when the loop runs
//   no iteration. insert-barriers treats a cp_async's write as pending
//   until such a wait.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_ASYNCCOPIES_H
#define TILEC_TRANSFORMS_ASYNCCOPIES_H

#include "tilec/IR/Operation.h"
#include <vector>

namespace tilec {

/// Bytes a vcopy from global into shared memory moves when cp.async can
/// move them (4, 8 or 16), else 0.
int64_t asyncBytes(const ir::Operation &Op);

/// Whether some copy under \p Root can become asynchronous.
bool hasAsyncCopy(ir::Operation &Root);

/// Every vcopy under \p Root that cp.async can do becomes a cp_async, and
/// every bounds-guarded copy loop that predicated cp.async can do exactly
/// becomes predicated cp_asyncs (Root itself may be replaced).
void makeAsync(ir::Operation &Root);

/// The ops before the pipelined \p Loop in its block whose copies may be
/// issued asynchronously where they stand, joining the first group of the
/// loop's prologue (see above), in block order.
std::vector<ir::Operation *> prologueCopies(ir::Operation &Loop);

} // namespace tilec

#endif
