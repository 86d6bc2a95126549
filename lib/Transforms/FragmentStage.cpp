//===- FragmentStage.cpp - Fragments redistributed through shared ---------===//

#include "FragmentStage.h"
#include "LoopAccess.h"
#include "ReduceEmit.h"
#include "tilec/IR/Builder.h"

using namespace tilec;
using namespace tilec::ir;

StageKind tilec::stageKindOf(Operation &Loop, const Value *Frag) {
  std::vector<BufferAccess> All = collectAccesses(Loop);
  bool Loads = false, Stores = false;
  for (const BufferAccess &A : All) {
    if (A.Buffer != Frag)
      continue;
    if (A.User->is(OpKind::Store) && A.Group == 1)
      Stores = true;
    else if (A.User->is(OpKind::Load))
      Loads = true;
    else
      return StageKind::None; // vcopy, atomic: not a plain element access
  }
  if (Stores && !Loads)
    return StageKind::Writes;
  return Loads && !Stores ? StageKind::Reads : StageKind::None;
}

/// A parallel loop over \p Shape, inserted by \p B, whose body moves
/// From[vars] to To[vars].
static Operation *createMoveLoop(Builder &B, llvm::ArrayRef<int64_t> Shape,
                                 Value *From, Value *To) {
  std::vector<std::string> Names;
  for (unsigned K = 0; K != Shape.size(); ++K)
    Names.push_back(std::string(1, char('i' + K % 18)));
  Operation *Par = B.createParallel(Shape, Names);
  Builder::InsertionGuard G(B);
  B.setInsertionPointToEnd(Par->getBody());
  std::vector<Value *> Vars = Par->getBody().getArguments();
  B.createStore(B.createLoad(From, Vars), To, Vars);
  return Par;
}

Operation *tilec::stageThroughShared(Operation &Loop, Value *Frag,
                                     StageKind Kind) {
  const Type &FT = Frag->getType();
  std::vector<Dim> Dims(FT.getDims().begin(), FT.getDims().end());
  Operation *Kernel = Loop.getParentOfKind(OpKind::Kernel);
  Value *Stage =
      allocAtStart(*Kernel, Type::buffer(Scope::Shared, Dims, FT.getDType()),
                   Frag->getNameHint().str() + "_stage");
  for (const BufferAccess &A : collectAccesses(Loop))
    if (A.Buffer == Frag)
      A.User->setOperand(A.User->getGroupStart(A.Group), Stage);
  std::vector<int64_t> Shape = *FT.getStaticShape();
  Builder B;
  B.setLoc(Loop.getLoc());
  if (Kind == StageKind::Writes) {
    B.setInsertionPointAfter(&Loop);
    return createMoveLoop(B, Shape, Stage, Frag);
  }
  B.setInsertionPoint(&Loop);
  return createMoveLoop(B, Shape, Frag, Stage);
}
