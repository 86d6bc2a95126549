//===- Divergence.cpp - Values that may differ between threads ------------===//

#include "Divergence.h"

using namespace tilec;
using namespace tilec::ir;

Divergence::Divergence(Operation &Kernel) {
  Kernel.walk([&](Operation &Op) { visit(Op); });
}

// Pre-order: operands are classified before their users (dominance), and a
// loop's variable before its body.
void Divergence::visit(Operation &Op) {
  // Results read from memory (loads, the previous value of an atomic, what
  // an extern call returns) or from other lanes differ between threads.
  bool Source = Op.is(OpKind::ThreadId) || Op.is(OpKind::Load) ||
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
