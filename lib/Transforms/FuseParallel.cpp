//===- FuseParallel.cpp - Nested T.Parallel loops become one --------------===//

#include "FuseParallel.h"
#include "PipelineSchedule.h"
#include "tilec/IR/Operation.h"

using namespace tilec;
using namespace tilec::ir;

namespace {

/// Only `extents`: no user layout or other hint to keep apart.
bool plainParallel(const Operation &Op) {
  return Op.is(OpKind::Parallel) && Op.getAttrs().size() == 1 &&
         Op.getAttr("extents");
}

/// The single nested loop of \p Outer when the rest of its body is pure.
Operation *fusableInner(Operation &Outer) {
  Operation *Inner = nullptr;
  for (Operation &Op : Outer.getBody()) {
    if (plainParallel(Op) && !Inner)
      Inner = &Op;
    else if (!isPureScalarOp(Op))
      return nullptr;
  }
  return Inner;
}

void fuse(Operation &Outer, Operation &Inner) {
  std::vector<int64_t> Extents = *Outer.getIntArrayAttr("extents");
  std::vector<int64_t> InnerExtents = *Inner.getIntArrayAttr("extents");
  Extents.insert(Extents.end(), InnerExtents.begin(), InnerExtents.end());
  Outer.setAttr("extents", Attribute::intArray(Extents));
  Block &Body = Inner.getBody();
  for (Value *Arg : Body.getArguments())
    Arg->replaceAllUsesWith(
        Outer.getBody().addArgument(Arg->getType(), Arg->getNameHint()));
  for (Operation *Op : Body.getOps())
    Op->moveBefore(&Inner);
  Inner.erase();
}

void fuseIn(Block &B) {
  for (Operation *Op : B.getOps()) {
    for (unsigned I = 0; I != Op->getNumRegions(); ++I)
      fuseIn(Op->getBody(I));
    if (!plainParallel(*Op))
      continue;
    if (Operation *Inner = fusableInner(*Op))
      fuse(*Op, *Inner);
  }
}

class FuseParallelPass : public Pass {
public:
  llvm::StringRef name() const override { return "fuse-parallel"; }
  llvm::StringRef description() const override {
    return "Fuse perfectly nested T.Parallel loops into one";
  }

  bool run(Operation &Module, PassContext &) override {
    fuseIn(Module.getBody());
    return true;
  }
};

} // namespace

std::unique_ptr<Pass> tilec::createFuseParallelPass() {
  return std::make_unique<FuseParallelPass>();
}
