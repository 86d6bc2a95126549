//===- Divergence.cpp - Values that may differ between threads ------------===//

#include "Divergence.h"

using namespace tilec;
using namespace tilec::ir;

Divergence::Divergence(Operation &Kernel) {
  collectUniformBuffers(Kernel);
  // Each round either keeps every buffer (a fixed point) or drops one, so
  // this ends after at most one round per buffer.
  do {
    Divergent.clear();
    Kernel.walk([&](Operation &Op) { visit(Op); });
  } while (dropDivergentWrites(Kernel));
}

/// The buffer operand of a load/store/vcopy access group.
static const Value *accessedBuffer(const Operation &Op, unsigned Group) {
  return Op.getGroup(Group).front();
}

/// True for the ops that read a buffer as operand group \p Group and
/// nothing else: loads, and the source side of a vcopy.
static bool readsOnly(const Operation &User, unsigned OperandIndex) {
  if (User.is(OpKind::Load))
    return OperandIndex == 0;
  if (User.is(OpKind::VCopy))
    return OperandIndex == User.getGroupStart(1);
  return false;
}

/// True for element writes whose uniformity writesUniformly can judge.
static bool isPlainWrite(const Operation &User, unsigned OperandIndex) {
  if (User.is(OpKind::Store))
    return OperandIndex == User.getGroupStart(1);
  if (User.is(OpKind::VCopy))
    return OperandIndex == 0;
  return false;
}

static bool isRegisterBuffer(const Value &V) {
  const Type &Ty = V.getType();
  return Ty.isBuffer() &&
         (Ty.getScope() == Scope::Local || Ty.getScope() == Scope::Var);
}

/// A parameter or a workspace: views (T.make_tensor of an address, a
/// reshaped tensor) may alias buffers the kernel writes.
static bool isGlobalBuffer(const Value &V) {
  const Operation *Def = V.getDefiningOp();
  return V.isBufferIn(Scope::Global) && (!Def || Def->is(OpKind::Alloc));
}

// Candidates: register buffers used only by loads, stores and vcopies, and
// global buffers used only by reads. Everything else (shared memory, a
// buffer an mma, atomic, view or extern call touches) is divergent.
void Divergence::collectUniformBuffers(Operation &Kernel) {
  auto Consider = [&](const Value &Buf) {
    bool Register = isRegisterBuffer(Buf);
    if (!Register && !isGlobalBuffer(Buf))
      return;
    for (const Use &U : Buf.getUses())
      if (!readsOnly(*U.User, U.Index) &&
          !(Register && isPlainWrite(*U.User, U.Index)))
        return;
    UniformBuffers.insert(&Buf);
  };
  llvm::DenseSet<const Value *> Seen;
  Kernel.walk([&](Operation &Op) {
    for (const Value *V : Op.getOperands())
      if (Seen.insert(V).second)
        Consider(*V);
  });
}

bool Divergence::isUniformLoad(const Operation &Load) const {
  return UniformBuffers.count(accessedBuffer(Load, 0)) &&
         !anyDivergent(Load.getOperands());
}

// Pre-order: operands are classified before their users (dominance), and a
// loop's variable before its body.
void Divergence::visit(Operation &Op) {
  // Results read from memory (loads, the previous value of an atomic, what
  // an extern call returns) or from other lanes differ between threads.
  bool Source =
      Op.is(OpKind::ThreadId) || (Op.is(OpKind::Load) && !isUniformLoad(Op)) ||
      Op.is(OpKind::Shfl) || Op.is(OpKind::Atomic) || Op.is(OpKind::CallExtern);
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

bool Divergence::writesUniformly(const Operation &Write) const {
  if (anyDivergent(Write.getOperands()) || underDivergentControl(Write))
    return false;
  // A vcopy writes what it reads: uniform when its source is.
  return !Write.is(OpKind::VCopy) ||
         UniformBuffers.count(accessedBuffer(Write, 1));
}

static bool containsLoopExit(const Operation &Loop) {
  bool Exit = false;
  Loop.walk([&](const Operation &Op) {
    Exit |= Op.is(OpKind::Break) || Op.is(OpKind::Continue);
  });
  return Exit;
}

// Some threads may skip Op: a divergent condition, a parallel loop, a loop
// with divergent bounds, or a loop that threads may leave early.
bool Divergence::underDivergentControl(const Operation &Op) const {
  for (const Operation *P = Op.getParentOp(); P && !P->is(OpKind::Kernel);
       P = P->getParentOp()) {
    if (P->is(OpKind::Parallel) || P->is(OpKind::While) ||
        anyDivergent(P->getOperands()))
      return true;
    if (P->is(OpKind::For) && containsLoopExit(*P))
      return true;
  }
  return false;
}

bool Divergence::dropDivergentWrites(Operation &Kernel) {
  bool Dropped = false;
  Kernel.walk([&](Operation &Op) {
    bool Write = Op.is(OpKind::Store) || Op.is(OpKind::VCopy);
    if (!Write)
      return;
    const Value *Buf = accessedBuffer(Op, Op.is(OpKind::Store) ? 1 : 0);
    if (!UniformBuffers.count(Buf) || writesUniformly(Op))
      return;
    UniformBuffers.erase(Buf);
    Dropped = true;
  });
  return Dropped;
}
