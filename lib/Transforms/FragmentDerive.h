//===- FragmentDerive.h - Fragment layouts from loop accesses --*- C++ -*-===//
//
// Layout inference gives a fragment the layout a `parallel` loop needs when
// the loop reads or writes it with index expressions of its variables. This
// is the general rule behind TileLang's identity and broadcast cases: the
// fragment element p must be held by every thread that runs an iteration x
// with Index(x) == p.
//
// Expects: a loop layout (a Fragment over the loop's iteration space, input
//   variables i, j, ...) and, per fragment dim, an index expression over
//   those variables; static shapes (fragments always have them).
// Does:
//   - deriveAccessFragment: the image of the loop layout through the index
//     map when the map has a closed-form preimage: each dim indexed by a
//     loop variable x, `x // c` or `x % c` (one x may give one `x // c` and
//     one `x % c` dim), a size-1 dim by the constant 0, every variable used
//     once, and every dim covered exactly. The loop variables the map loses
//     (and the loop's own replicas) become replica digits; the parts of a
//     digit the thread does not depend on (low part, high part beyond the
//     period, mixed-radix positions in between) are dropped, so no
//     element has two replicas on one thread (TileLang's
//     DeReplicate/CondenseReplicateVar, decided by enumeration).
//     Registers: the loop's register of the replica-0 preimage (divided
//     by the gcd of its values, bits zero in all of them squeezed out)
//     when that is injective on every thread, else the flat element
//     index.
//   - holdsAccess: whether a fragment with a layout holds, on every thread
//     that runs each iteration, the element the iteration accesses
//     (enumeration: works for any index expression).
//   - replicasOnDistinctThreads: no element has two replicas on one thread.
// Guarantees: derived fragments pass holdsAccess and
//   replicasOnDistinctThreads; every check gives up (false / nullopt) above
//   2^21 enumerated points.
//
//===----------------------------------------------------------------------===//
#ifndef TILEC_TRANSFORMS_FRAGMENTDERIVE_H
#define TILEC_TRANSFORMS_FRAGMENTDERIVE_H

#include "tilec/Layout/Layout.h"

namespace tilec {

/// The layout fragment [Shape] needs for the accesses Index(x) of the loop
/// with layout \p Loop (see above); nullopt without a closed form.
std::optional<layout::Fragment>
deriveAccessFragment(const layout::Fragment &Loop,
                     llvm::ArrayRef<layout::IndexExpr> Index,
                     llvm::ArrayRef<int64_t> Shape);

/// Every thread that runs iteration x of \p Loop holds element Index(x) of
/// \p F (which must be inside F).
bool holdsAccess(const layout::Fragment &Loop, const layout::Fragment &F,
                 llvm::ArrayRef<layout::IndexExpr> Index);

/// No element of \p F has two replicas on the same thread.
bool replicasOnDistinctThreads(const layout::Fragment &F);

/// Every element of \p Shape on every one of \p Threads threads.
layout::Fragment makeFullyReplicatedFragment(llvm::ArrayRef<int64_t> Shape,
                                             int64_t Threads);

} // namespace tilec

#endif
