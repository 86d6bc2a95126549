//===- Inlining.cpp - Which values become expressions ---------------------===//

#include "Inlining.h"

using namespace tilec;
using namespace tilec::codegen;
using namespace tilec::ir;

bool codegen::isPureOp(const Operation &Op) {
  return isBinaryOp(Op.getKind()) || isUnaryOp(Op.getKind()) ||
         Op.is(OpKind::Const) || Op.is(OpKind::Cmp) || Op.is(OpKind::Select) ||
         Op.is(OpKind::Cast) || Op.is(OpKind::Bitcast) || Op.is(OpKind::Math) ||
         Op.is(OpKind::ThreadId);
}

namespace {

bool hasSideEffects(const Operation &Op) {
  switch (Op.getKind()) {
  case OpKind::Store:
  case OpKind::VCopy:
  case OpKind::CpAsync:
  case OpKind::CpAsyncCommit:
  case OpKind::CpAsyncWait:
  case OpKind::Ldmatrix:
  case OpKind::Stmatrix:
  case OpKind::Mma:
  case OpKind::Mfma:
  case OpKind::Wgmma:
  case OpKind::WgmmaFence:
  case OpKind::WgmmaCommit:
  case OpKind::WgmmaWait:
  case OpKind::FenceProxyAsync:
  case OpKind::GridDependency:
  case OpKind::ScheduleAfter:
  case OpKind::TmaLoad:
  case OpKind::BulkReduce:
  case OpKind::BulkWait:
  case OpKind::SetMaxNReg:
  case OpKind::Atomic:
  case OpKind::Barrier:
  case OpKind::MBarrierInit:
  case OpKind::MBarrierArrive:
  case OpKind::MBarrierWait:
  case OpKind::MBarrierExpectTx:
  case OpKind::Shfl:
  case OpKind::CallExtern:
  case OpKind::Break:
  case OpKind::Continue:
    return true;
  default:
    return Op.getNumRegions() != 0;
  }
}

/// A memory-reading expression of \p Def may be evaluated at \p User.
bool canMoveTo(const Operation &Def, const Operation &User) {
  if (User.getParentBlock() != Def.getParentBlock() || User.is(OpKind::For))
    return false;
  for (const Operation *Op = Def.getNextNode(); Op && Op != &User;
       Op = Op->getNextNode())
    if (hasSideEffects(*Op))
      return false;
  return true;
}

} // namespace

void Inlining::run(const Block &B, bool SkipKernels) {
  for (const Operation &Op : B) {
    decide(Op);
    if (SkipKernels && Op.is(OpKind::Kernel))
      continue;
    for (unsigned R = 0; R != Op.getNumRegions(); ++R)
      run(Op.getBody(R), SkipKernels);
  }
}

void Inlining::decide(const Operation &Op) {
  bool Load = Op.is(OpKind::Load);
  if (!Load && !isPureOp(Op))
    return;
  const Value *V = Op.getResult();
  if (Op.is(OpKind::Const)) {
    Inlined.insert(V);
    return;
  }
  if (V->use_empty()) {
    Dead.insert(V);
    return;
  }
  if (!V->hasOneUse())
    return;
  bool Reads = Load || llvm::any_of(Op.getOperands(), [&](const Value *X) {
                 return ReadsMemory.count(X);
               });
  if (Reads && !canMoveTo(Op, *V->getUses()[0].User))
    return;
  Inlined.insert(V);
  if (Reads)
    ReadsMemory.insert(V);
}
