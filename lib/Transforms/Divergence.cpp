//===- Divergence.cpp - Values that may differ between threads ------------===//

#include "Divergence.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// A global buffer that only loads use (in any kernel of the func): no
/// thread writes it, so threads that load one element read one value.
/// Parameters do not alias (the emitter declares them __restrict__).
bool isReadOnlyGlobal(const Value *Buf) {
  return Buf->getType().isBuffer() &&
         Buf->getType().getScope() == Scope::Global &&
         llvm::all_of(Buf->getUses(), [](const Use &U) {
           return U.User->is(OpKind::Load) && U.Index == 0;
         });
}

/// A load at uniform indices of a buffer no thread writes (sequence
/// offsets, per-batch lengths, block tables) gives every thread one value.
bool isUniformLoad(const Operation &Op, const Divergence &Div) {
  return Op.is(OpKind::Load) && isReadOnlyGlobal(Op.getOperand(0)) &&
         !Div.anyDivergent(Op.getOperands().drop_front());
}

} // namespace

Divergence::Divergence(Operation &Kernel) {
  Kernel.walk([&](Operation &Op) { visit(Op); });
}

// Pre-order: operands are classified before their users (dominance), and a
// loop's variable before its body.
void Divergence::visit(Operation &Op) {
  // Results read from memory (loads, the previous value of an atomic, what
  // an extern call returns) or from other lanes differ between threads,
  // except uniform loads of read-only globals.
  bool Source = Op.is(OpKind::ThreadId) ||
                (Op.is(OpKind::Load) && !isUniformLoad(Op, *this)) ||
                Op.is(OpKind::Shfl) || Op.is(OpKind::Atomic) ||
                Op.is(OpKind::CallExtern);
  if (Source || anyDivergent(Op.getOperands()))
    for (unsigned I = 0; I != Op.getNumResults(); ++I)
      Divergent.insert(Op.getResult(I));
  // A parallel loop spreads its iterations over the threads; a for loop's
  // variable is divergent when its bounds are.
  bool ArgsDiverge = Op.is(OpKind::Parallel) ||
                     (Op.is(OpKind::For) && anyDivergent(Op.getOperands()));
  if (!ArgsDiverge)
    return;
  for (unsigned R = 0; R != Op.getNumRegions(); ++R)
    for (Value *Arg : Op.getBody(R).getArguments())
      Divergent.insert(Arg);
}
